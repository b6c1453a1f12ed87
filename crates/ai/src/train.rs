//! Training the strong profile's weights with the noisy cross-entropy method (CEM, Szita and
//! Lorincz's method for Tetris): sample weight vectors around a mean, play simulated games with
//! each (rayon, all cores), keep the best quarter, move the mean and spread to theirs, and add a
//! decaying noise so the spread does not collapse early. All candidates of a generation play the
//! same seeds, so they are compared on the same pieces.

use crate::eval::{Profile, Weights};
use crate::planner::SearchKind;
use crate::sim::{play, Format, GameConfig, Pieces, SplitMix};
use rayon::prelude::*;

/// What a candidate is scored on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Objective {
    /// Uncapped score within the piece limit (build for Tetrises, burn when high).
    Score,
    /// Pieces placed before game over.
    Survive,
    /// Uncapped score when the level reaches 29 (games end there), or at game over before.
    Transition,
}

impl Objective {
    pub fn by_name(name: &str) -> Option<Objective> {
        match name {
            "score" => Some(Objective::Score),
            "survive" => Some(Objective::Survive),
            "transition" => Some(Objective::Transition),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct TrainOptions {
    pub generations: u32,
    pub population: usize,
    pub games: u64,
    pub max_pieces: u64,
    pub level: u8,
    pub kind: SearchKind,
    pub pieces: Pieces,
    /// The competition format the games are played in (the transition objective adds a cap
    /// at level 29).
    pub format: Format,
    pub objective: Objective,
    pub seed: u64,
}

/// Seed of the held-out games: every run and every candidate is compared on the same ones,
/// which no generation trains on (their seeds come from `TrainOptions::seed`).
pub const HELD_OUT_SEED: u64 = 12345;

/// One generation's outcome, for progress reports.
#[derive(Clone, Debug)]
pub struct Generation {
    pub index: u32,
    pub best_fitness: f64,
    pub mean_fitness: f64,
    pub best: Weights,
    pub mean: Weights,
}

fn gaussian(r: &mut SplitMix) -> f64 {
    // Box-Muller.
    let u1 = ((r.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
    let u2 = (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Mean fitness of `w` over `o.games` games with seeds derived from `seed`; `played` is
/// called after each game (a progress bar's tick). Scores are whole numbers, so the sum is
/// the same in any order: a run is reproducible whatever the threads.
pub fn fitness(w: &Weights, o: &TrainOptions, seed: u64, played: &(dyn Fn() + Sync)) -> f64 {
    let profile = Profile::Strong(w.clone());
    let total: f64 = (0..o.games)
        .into_par_iter()
        .map(|g| {
            let cfg = GameConfig {
                level: o.level,
                kind: o.kind,
                pieces: o.pieces,
                max_pieces: Some(o.max_pieces),
                seed: seed.wrapping_mul(7919).wrapping_add(g),
                two_deep: true,
                // The transition objective ends each game there.
                format: Format {
                    cap_level: match o.objective {
                        Objective::Transition => Some(29),
                        _ => o.format.cap_level,
                    },
                    ..o.format
                },
            };
            let r = play(&profile, &cfg);
            played();
            match o.objective {
                Objective::Score => r.score as f64,
                Objective::Survive => r.pieces as f64,
                Objective::Transition => r.score_at_29 as f64,
            }
        })
        .sum();
    total / o.games as f64
}

/// Runs the optimisation from `start`; `report` is called after every generation and
/// `played` after every game.
pub fn train(
    o: &TrainOptions,
    start: &Weights,
    mut report: impl FnMut(&Generation),
    played: &(dyn Fn() + Sync),
) -> Weights {
    let n = start.w.len();
    let mut mean = start.w.clone();
    let mut sigma: Vec<f64> = mean.iter().map(|m| (m.abs() * 0.3).max(1.0)).collect();
    let mut rand = SplitMix(o.seed);
    let elite = (o.population / 4).max(2);
    for gen in 0..o.generations {
        let candidates: Vec<Weights> = (0..o.population)
            .map(|_| Weights {
                w: (0..n)
                    .map(|i| mean[i] + sigma[i] * gaussian(&mut rand))
                    .collect(),
            })
            .collect();
        let seed = rand.next_u64();
        let mut scored: Vec<(f64, Weights)> = candidates
            .into_par_iter()
            .map(|w| (fitness(&w, o, seed, played), w))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        let top = &scored[..elite];
        let noise = (1.0 - gen as f64 * 0.15).max(0.1);
        for i in 0..n {
            let m = top.iter().map(|(_, w)| w.w[i]).sum::<f64>() / elite as f64;
            let var = top.iter().map(|(_, w)| (w.w[i] - m).powi(2)).sum::<f64>() / elite as f64;
            mean[i] = m;
            sigma[i] = (var + noise).sqrt();
        }
        report(&Generation {
            index: gen,
            best_fitness: scored[0].0,
            mean_fitness: scored.iter().map(|s| s.0).sum::<f64>() / scored.len() as f64,
            best: scored[0].1.clone(),
            mean: Weights { w: mean.clone() },
        });
    }
    // The final mean is the estimate CEM converges to; a generation's best is one noisy sample.
    Weights { w: mean }
}
