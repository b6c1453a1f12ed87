//! Training the strong profile's weights with the noisy cross-entropy method (CEM, Szita and
//! Lorincz's method for Tetris): sample weight vectors around a mean, play simulated games with
//! each (rayon, all cores), keep the best quarter, move the mean and spread to theirs, and add a
//! decaying noise so the spread does not collapse early. All candidates of a generation play the
//! same seeds, so they are compared on the same pieces.

use crate::eval::{
    value_features, Profile, Value, Weights, STRONG_NAMES, SURVIVAL_NAMES, VALUE_FEATURES,
};
use crate::planner::SearchKind;
use crate::rules::POINTS;
use crate::sim::{play, play_observed, Format, GameConfig, Pieces, SplitMix};
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

/// Which weights a run trains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trained {
    /// The strong profile's, played at every level (`Profile::Strong`).
    Strong,
    /// The standard format's building at levels 29-37 (the strong profile's features, in
    /// `Profile::standard_with`).
    KillScreen,
    /// The standard format's survival from level 38 (`Profile::Survival`, in
    /// `Profile::standard_with`).
    DoubleKillScreen,
    /// Survival at levels 29-37 in place of building (the survival features; tried, not
    /// used).
    KillScreenSurvival,
}

impl Trained {
    pub fn by_name(name: &str) -> Option<Trained> {
        match name {
            "strong" => Some(Trained::Strong),
            "kill-screen" => Some(Trained::KillScreen),
            "double-kill-screen" => Some(Trained::DoubleKillScreen),
            "kill-screen-survival" => Some(Trained::KillScreenSurvival),
            _ => None,
        }
    }

    /// The features the weights are of.
    pub fn names(self) -> &'static [&'static str] {
        match self {
            Trained::Strong | Trained::KillScreen => &STRONG_NAMES,
            Trained::DoubleKillScreen | Trained::KillScreenSurvival => &SURVIVAL_NAMES,
        }
    }

    /// The weights kept in the repository (for the kill screen's survival, which keeps none,
    /// where its training starts).
    pub fn builtin(self) -> fn() -> Weights {
        match self {
            Trained::Strong | Trained::KillScreen => Weights::strong,
            Trained::DoubleKillScreen => Weights::double_kill_screen,
            Trained::KillScreenSurvival => Weights::kill_screen_survival_start,
        }
    }

    /// The profile that plays with weights `w`.
    pub fn profile(self, w: &Weights) -> Profile {
        match self {
            Trained::Strong => Profile::Strong(w.clone()),
            Trained::KillScreen => {
                Profile::standard_with(Profile::Strong(w.clone()), Weights::double_kill_screen())
            }
            Trained::DoubleKillScreen => {
                Profile::standard_with(Profile::Strong(Weights::strong()), w.clone())
            }
            Trained::KillScreenSurvival => {
                Profile::standard_with(Profile::Survival(w.clone()), Weights::double_kill_screen())
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct TrainOptions {
    pub trained: Trained,
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
    let profile = o.trained.profile(w);
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

/// Penalty of a top-out within the horizon of the learned value, in points at level 0's rates
/// (about 65 pieces' worth of the standard profile's points before level 29).
pub const TOP_OUT_PENALTY: f64 = 5000.0;

/// The sums of a least-squares fit of the learned value: XᵀX, Xᵀy and the samples.
struct Normal {
    xtx: Vec<f64>,
    xty: Vec<f64>,
    n: u64,
}

impl Normal {
    fn new() -> Normal {
        Normal {
            xtx: vec![0.0; VALUE_FEATURES * VALUE_FEATURES],
            xty: vec![0.0; VALUE_FEATURES],
            n: 0,
        }
    }

    fn add(&mut self, x: &[f64; VALUE_FEATURES], y: f64) {
        for i in 0..VALUE_FEATURES {
            if x[i] == 0.0 {
                continue;
            }
            self.xty[i] += x[i] * y;
            let row = &mut self.xtx[i * VALUE_FEATURES..];
            for j in 0..VALUE_FEATURES {
                row[j] += x[i] * x[j];
            }
        }
        self.n += 1;
    }

    /// The ridge solution (a small `lambda` on every weight keeps the patterns never seen at
    /// 0), by Cholesky.
    fn solve(&self, lambda: f64) -> Vec<f64> {
        let n = VALUE_FEATURES;
        let mut a = self.xtx.clone();
        for i in 0..n {
            a[i * n + i] += lambda;
        }
        for j in 0..n {
            let d = (a[j * n + j] - (0..j).map(|k| a[j * n + k].powi(2)).sum::<f64>()).sqrt();
            a[j * n + j] = d;
            for i in j + 1..n {
                let s: f64 = (0..j).map(|k| a[i * n + k] * a[j * n + k]).sum();
                a[i * n + j] = (a[i * n + j] - s) / d;
            }
        }
        let mut z = self.xty.clone();
        for i in 0..n {
            z[i] = (z[i] - (0..i).map(|k| a[i * n + k] * z[k]).sum::<f64>()) / a[i * n + i];
        }
        for i in (0..n).rev() {
            z[i] = (z[i] - (i + 1..n).map(|k| a[k * n + i] * z[k]).sum::<f64>()) / a[i * n + i];
        }
        z
    }
}

/// One game to level 29 played by `profile`, for fitting the learned value: each playfield's
/// features after a piece locks and the points (level 0's rates) that piece made, and whether
/// the game topped out.
struct ValueGame {
    locks: Vec<([f64; VALUE_FEATURES], f64)>,
    topped_out: bool,
}

fn value_game(profile: &Profile, o: &TrainOptions, seed: u64) -> ValueGame {
    let weights = Weights::standard_before_29();
    let cfg = GameConfig {
        level: o.level,
        kind: o.kind,
        pieces: o.pieces,
        max_pieces: Some(o.max_pieces),
        seed,
        two_deep: true,
        format: Format {
            cap_level: Some(29),
            ..o.format
        },
    };
    let mut locks = Vec::new();
    let r = play_observed(profile, &cfg, &mut |board, level, lines| {
        locks.push((
            value_features(board, level, &weights),
            POINTS[lines as usize] as f64,
        ))
    });
    ValueGame {
        locks,
        topped_out: r.level < 29 && r.pieces < o.max_pieces,
    }
}

fn dot(x: &[f64], w: &[f64]) -> f64 {
    x.iter().zip(w).map(|(x, w)| x * w).sum()
}

impl ValueGame {
    /// The samples: each playfield and the points of the next `horizon` pieces, plus `value`'s
    /// estimate of the playfield there (bootstrapping, if given), or less `TOP_OUT_PENALTY` if
    /// the game ends within them. A playfield whose horizon runs past level 29 is left out.
    fn samples(&self, horizon: usize, value: Option<&[f64]>) -> Vec<(&[f64; VALUE_FEATURES], f64)> {
        let locks = &self.locks;
        let mut ahead = 0.0;
        let mut samples = Vec::new();
        for t in (0..locks.len()).rev() {
            // `ahead`: the points of pieces t + 1 ..= t + horizon.
            if t + horizon + 1 < locks.len() {
                ahead -= locks[t + horizon + 1].1;
            }
            if t + horizon < locks.len() {
                let after = value.map_or(0.0, |w| dot(&locks[t + horizon].0, w));
                samples.push((&locks[t].0, ahead + after));
            } else if self.topped_out {
                samples.push((&locks[t].0, ahead - TOP_OUT_PENALTY));
            }
            ahead += locks[t].1;
        }
        samples
    }
}

/// What fitting the learned value found: the value, and on held-out games the share of the
/// variance of the points over its whole horizon that it explains (R²), and the samples.
pub struct ValueFit {
    pub value: Value,
    pub samples: u64,
    pub held_out_r2: f64,
    pub held_out_samples: u64,
}

/// Fits the learned value (`eval::Value`) to `o.games` games of `profile` to level 29 from
/// seeds derived from `o.seed`, by least squares: first to the points of the next `horizon`
/// pieces, then `rounds` times to those points plus the last fit's value of the playfield
/// reached (fitted value iteration: each round adds `horizon` pieces); measured on as many
/// held-out games. `played` is called after each game. The sums are added in the games'
/// order, so the same options give the same value whatever the threads.
pub fn fit_value(
    profile: &Profile,
    o: &TrainOptions,
    horizon: usize,
    rounds: usize,
    played: &(dyn Fn() + Sync),
) -> ValueFit {
    let games = |seed: u64| -> Vec<ValueGame> {
        (0..o.games)
            .into_par_iter()
            .map(|g| {
                let game = value_game(profile, o, seed.wrapping_mul(7919).wrapping_add(g));
                played();
                game
            })
            .collect()
    };
    let trained = games(o.seed);
    let mut w: Option<Vec<f64>> = None;
    let mut samples = 0;
    for _ in 0..=rounds {
        let mut normal = Normal::new();
        for game in &trained {
            for (x, y) in game.samples(horizon, w.as_deref()) {
                normal.add(x, y);
            }
        }
        samples = normal.n;
        w = Some(normal.solve(1.0));
    }
    let w = w.expect("at least one round");
    let held_out = games(HELD_OUT_SEED);
    let held_out: Vec<_> = held_out
        .iter()
        .flat_map(|g| g.samples(horizon * (rounds + 1), None))
        .collect();
    let mean = held_out.iter().map(|s| s.1).sum::<f64>() / held_out.len().max(1) as f64;
    let (mut residual, mut total) = (0.0, 0.0);
    for (x, y) in &held_out {
        residual += (y - dot(*x, &w)).powi(2);
        total += (y - mean).powi(2);
    }
    ValueFit {
        value: Value {
            horizon: (horizon * (rounds + 1)) as u32,
            w,
        },
        samples,
        held_out_r2: 1.0 - residual / total.max(f64::MIN_POSITIVE),
        held_out_samples: held_out.len() as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_trained_band_plays_its_weights_at_its_levels() {
        let w = Weights::kill_screen_survival_start();
        let profile = Trained::KillScreenSurvival.profile(&w);
        let survives =
            |level| matches!(profile.at(level, 0, true), Profile::Survival(s) if s == &w);
        assert!(survives(29) && survives(37) && !survives(38) && !survives(28));
        let profile = Trained::DoubleKillScreen.profile(&w);
        assert!(matches!(profile.at(38, 0, true), Profile::Survival(s) if s == &w));
        assert!(matches!(profile.at(37, 0, true), Profile::Strong(_)));
    }

    #[test]
    fn least_squares_recovers_an_exact_linear_value() {
        let mut r = SplitMix(3);
        let truth: Vec<f64> = (0..VALUE_FEATURES).map(|i| i as f64 - 40.0).collect();
        let mut normal = Normal::new();
        for _ in 0..2 * VALUE_FEATURES {
            let x: [f64; VALUE_FEATURES] = std::array::from_fn(|_| (r.next_u64() % 7) as f64);
            normal.add(&x, dot(&x, &truth));
        }
        let w = normal.solve(1e-9);
        for (i, (w, t)) in w.iter().zip(&truth).enumerate() {
            assert!((w - t).abs() < 1e-4, "weight {i}: {w} against {t}");
        }
    }

    #[test]
    fn targets_are_the_points_of_the_horizon_plus_what_follows() {
        // Five locks (the first feature marks each one's index) and the points each made.
        let game = |topped_out| ValueGame {
            locks: [0.0, 40.0, 0.0, 1200.0, 100.0]
                .iter()
                .enumerate()
                .map(|(t, &points)| {
                    let mut x = [0.0; VALUE_FEATURES];
                    x[0] = t as f64;
                    (x, points)
                })
                .collect(),
            topped_out,
        };
        let targets = |g: &ValueGame, value: Option<&[f64]>| {
            let mut s: Vec<(f64, f64)> = g
                .samples(2, value)
                .into_iter()
                .map(|(x, y)| (x[0], y))
                .collect();
            s.sort_by(|a, b| a.0.total_cmp(&b.0));
            s
        };
        // Lock t's target: the points of locks t + 1 and t + 2; the last two have no full
        // horizon and are left out, unless the game topped out within it.
        let whole = [(0.0, 40.0), (1.0, 1200.0), (2.0, 1300.0)];
        assert_eq!(targets(&game(false), None), whole);
        let p = TOP_OUT_PENALTY;
        let ended = [whole.to_vec(), vec![(3.0, 100.0 - p), (4.0, -p)]].concat();
        assert_eq!(targets(&game(true), None), ended);
        // Bootstrapped: the value of lock t + 2's playfield is added (here its index).
        let mut w = vec![0.0; VALUE_FEATURES];
        w[0] = 1.0;
        let boot = [(0.0, 42.0), (1.0, 1203.0), (2.0, 1304.0)];
        assert_eq!(targets(&game(false), Some(&w)), boot);
    }
}
