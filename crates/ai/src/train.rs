//! Training the strong profile's weights with the noisy cross-entropy method (CEM, Szita and
//! Lorincz's method for Tetris): sample weight vectors around a mean, play simulated games with
//! each (rayon, all cores), keep the best quarter, move the mean and spread to theirs, and add a
//! decaying noise so the spread does not collapse early. All candidates of a generation play the
//! same seeds, so they are compared on the same pieces.

use crate::eval::{
    value_features, Profile, Value, Weights, KEEPING_WELL_NAMES, STRONG_NAMES, SURVIVAL_NAMES,
    VALUE_FEATURES,
};
use crate::planner::SearchKind;
use crate::rules::{Progress, POINTS};
use crate::sim::{planner_for, play, play_observed, Format, Game, GameConfig, Pieces, SplitMix};
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
    /// The points from level 29 to the end of the game (the format's cap), from the playfields
    /// the standard profile leaves at the transition: the same start for every candidate.
    FromTransition,
}

impl Objective {
    pub fn by_name(name: &str) -> Option<Objective> {
        match name {
            "score" => Some(Objective::Score),
            "survive" => Some(Objective::Survive),
            "transition" => Some(Objective::Transition),
            "from-transition" => Some(Objective::FromTransition),
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
    /// The standard format's rating on a high stack below level 29 (`Profile::KeepingWell`,
    /// in `Profile::standard_with`).
    KeepingWell,
}

impl Trained {
    pub fn by_name(name: &str) -> Option<Trained> {
        match name {
            "strong" => Some(Trained::Strong),
            "kill-screen" => Some(Trained::KillScreen),
            "double-kill-screen" => Some(Trained::DoubleKillScreen),
            "kill-screen-survival" => Some(Trained::KillScreenSurvival),
            "keeping-well" => Some(Trained::KeepingWell),
            _ => None,
        }
    }

    /// The features the weights are of.
    pub fn names(self) -> &'static [&'static str] {
        match self {
            Trained::Strong | Trained::KillScreen => &STRONG_NAMES,
            Trained::DoubleKillScreen | Trained::KillScreenSurvival => &SURVIVAL_NAMES,
            Trained::KeepingWell => &KEEPING_WELL_NAMES,
        }
    }

    /// The weights kept in the repository (for the kill screen's survival, which keeps none,
    /// where its training starts).
    pub fn builtin(self) -> fn() -> Weights {
        match self {
            Trained::Strong | Trained::KillScreen => Weights::strong,
            Trained::DoubleKillScreen => Weights::double_kill_screen,
            Trained::KillScreenSurvival => Weights::kill_screen_survival_start,
            Trained::KeepingWell => Weights::keeping_well,
        }
    }

    /// The profile that plays with weights `w`.
    pub fn profile(self, w: &Weights) -> Profile {
        let (keeping_well, strong, survival) = (
            Weights::keeping_well,
            || Profile::Strong(Weights::strong()),
            Weights::double_kill_screen,
        );
        match self {
            Trained::Strong => Profile::Strong(w.clone()),
            Trained::KillScreen => {
                Profile::standard_with(keeping_well(), Profile::Strong(w.clone()), survival())
            }
            Trained::DoubleKillScreen => {
                Profile::standard_with(keeping_well(), strong(), w.clone())
            }
            Trained::KillScreenSurvival => {
                Profile::standard_with(keeping_well(), Profile::Survival(w.clone()), survival())
            }
            Trained::KeepingWell => Profile::standard_with(w.clone(), strong(), survival()),
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

fn game_config(o: &TrainOptions, seed: u64, game: u64) -> GameConfig {
    GameConfig {
        level: o.level,
        kind: o.kind,
        pieces: o.pieces,
        max_pieces: (o.objective != Objective::FromTransition).then_some(o.max_pieces),
        seed: seed.wrapping_mul(7919).wrapping_add(game),
        two_deep: true,
        // The transition objective ends each game there.
        format: Format {
            cap_level: match o.objective {
                Objective::Transition => Some(29),
                _ => o.format.cap_level,
            },
            ..o.format
        },
    }
}

/// For the from-transition objective, the games with seeds derived from `seed` played by the
/// standard profile until the level reaches 29 (those that top out before are left out); for
/// the others none. `played` is called after each game.
pub fn transitions(o: &TrainOptions, seed: u64, played: &(dyn Fn() + Sync)) -> Vec<Game> {
    if o.objective != Objective::FromTransition {
        return Vec::new();
    }
    (0..o.games)
        .into_par_iter()
        .filter_map(|g| {
            let cfg = game_config(o, seed, g);
            let mut planner = planner_for(&Profile::standard(), &cfg);
            let mut game = Game::new(&cfg);
            while game.level() < 29 && game.place(&mut planner, &cfg, &mut |_, _, _| {}) {}
            played();
            (game.level() >= 29).then_some(game)
        })
        .collect()
}

/// Mean fitness of `w` over `o.games` games with seeds derived from `seed`, or for the
/// from-transition objective over the games `transitions` gave for that seed; `played` is
/// called after each game (a progress bar's tick). Scores are whole numbers, so the sum is
/// the same in any order: a run is reproducible whatever the threads.
pub fn fitness(
    w: &Weights,
    o: &TrainOptions,
    seed: u64,
    transitions: &[Game],
    played: &(dyn Fn() + Sync),
) -> f64 {
    let profile = o.trained.profile(w);
    if o.objective == Objective::FromTransition {
        let cfg = game_config(o, seed, 0);
        let total: f64 = transitions
            .par_iter()
            .map(|at_29| {
                let mut planner = planner_for(&profile, &cfg);
                let mut game = at_29.clone();
                while game.place(&mut planner, &cfg, &mut |_, _, _| {}) {}
                played();
                (game.score() - at_29.score()) as f64
            })
            .sum();
        return total / transitions.len().max(1) as f64;
    }
    let total: f64 = (0..o.games)
        .into_par_iter()
        .map(|g| {
            let r = play(&profile, &game_config(o, seed, g));
            played();
            match o.objective {
                Objective::Score => r.score as f64,
                Objective::Survive => r.pieces as f64,
                Objective::Transition => r.score_at_29 as f64,
                Objective::FromTransition => unreachable!("played from the transitions"),
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
        let starts = transitions(o, seed, played);
        let mut scored: Vec<(f64, Weights)> = candidates
            .into_par_iter()
            .map(|w| (fitness(&w, o, seed, &starts, played), w))
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

/// The sums of a least-squares temporal-difference fit (LSTD) of the learned value, over
/// transitions from a playfield `x` to the next one `x'` with the points `r` made between:
/// A = Σ x (x - γ x')ᵀ and b = Σ x r; the value's weights solve A w = b.
struct Lstd {
    a: Vec<f64>,
    b: Vec<f64>,
    n: u64,
}

/// A playfield's non-zero value features, by index.
type Features = Vec<(u16, f64)>;

impl Lstd {
    fn new() -> Lstd {
        Lstd {
            a: vec![0.0; VALUE_FEATURES * VALUE_FEATURES],
            b: vec![0.0; VALUE_FEATURES],
            n: 0,
        }
    }

    /// Adds a transition; `next` is None at a top-out (nothing follows).
    fn add(&mut self, x: &[(u16, f64)], r: f64, next: Option<&[(u16, f64)]>, gamma: f64) {
        for &(i, xi) in x {
            let row = &mut self.a[i as usize * VALUE_FEATURES..];
            for &(j, xj) in x {
                row[j as usize] += xi * xj;
            }
            for &(j, xj) in next.unwrap_or(&[]) {
                row[j as usize] -= gamma * xi * xj;
            }
            self.b[i as usize] += xi * r;
        }
        self.n += 1;
    }

    /// The solution of (A + `lambda` I) w = b (the ridge keeps the features never seen at 0),
    /// by Gaussian elimination with partial pivoting.
    fn solve(&self, lambda: f64) -> Vec<f64> {
        let n = VALUE_FEATURES;
        let mut a = self.a.clone();
        let mut z = self.b.clone();
        for i in 0..n {
            a[i * n + i] += lambda;
        }
        for col in 0..n {
            let pivot = (col..n)
                .max_by(|&p, &q| a[p * n + col].abs().total_cmp(&a[q * n + col].abs()))
                .expect("a row");
            if pivot != col {
                for k in 0..n {
                    a.swap(pivot * n + k, col * n + k);
                }
                z.swap(pivot, col);
            }
            let d = a[col * n + col];
            for row in col + 1..n {
                let f = a[row * n + col] / d;
                if f == 0.0 {
                    continue;
                }
                for k in col..n {
                    a[row * n + k] -= f * a[col * n + k];
                }
                z[row] -= f * z[col];
            }
        }
        for i in (0..n).rev() {
            let s: f64 = (i + 1..n).map(|k| a[i * n + k] * z[k]).sum();
            z[i] = (z[i] - s) / a[i * n + i];
        }
        z
    }
}

/// One game to level 29 played by `profile`, for fitting the learned value: each playfield's
/// features after a piece locks and the points (level 0's rates) that piece made, whether the
/// game topped out, and its score at the transition.
struct ValueGame {
    locks: Vec<(Features, f64)>,
    topped_out: bool,
    /// What a top-out cost: the points the lines still to the transition would have made.
    top_out_points: f64,
    score_at_29: u64,
}

/// Points (level 0's rates) a line before the transition makes in the standard profile's
/// games (about 47,000 in 230 lines): what each line a top-out leaves unplayed costs.
pub const TOP_OUT_POINTS_A_LINE: f64 = 200.0;

/// Lines from `start_level` to level 29.
fn lines_to_29(start_level: u8) -> u64 {
    let mut progress = Progress::new(start_level);
    let mut lines = 0;
    while progress.level < 29 && lines < 300 {
        progress.lock(1, 0);
        lines += 1;
    }
    lines
}

fn value_game(profile: &Profile, o: &TrainOptions, seed: u64) -> ValueGame {
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
        locks.push((value_features(board, level), POINTS[lines as usize] as f64))
    });
    let topped_out = r.level < 29 && r.pieces < o.max_pieces;
    ValueGame {
        locks,
        topped_out,
        top_out_points: TOP_OUT_POINTS_A_LINE * lines_to_29(o.level).saturating_sub(r.lines) as f64,
        score_at_29: r.score_at_29,
    }
}

fn dot(x: &[(u16, f64)], w: &[f64]) -> f64 {
    x.iter().map(|&(i, x)| x * w[i as usize]).sum()
}

impl ValueGame {
    /// Adds the game's transitions: each playfield to the next, and the last one to nothing
    /// if the game topped out (a game that reached level 29 or its piece limit goes on, and
    /// its last playfield is left out).
    fn add_to(&self, lstd: &mut Lstd, gamma: f64) {
        for (t, (x, _)) in self.locks.iter().enumerate() {
            match self.locks.get(t + 1) {
                Some((next, r)) => lstd.add(x, *r, Some(next), gamma),
                None if self.topped_out => lstd.add(x, -self.top_out_points, None, gamma),
                None => {}
            }
        }
    }

    /// Each playfield and the discounted points that followed it, for measuring the value:
    /// those whose game went on at least `3 / (1 - gamma)` pieces after them or topped out.
    fn returns(&self, gamma: f64) -> Vec<(&Features, f64)> {
        let reach = (3.0 / (1.0 - gamma)) as usize;
        let mut ahead = if self.topped_out {
            -self.top_out_points
        } else {
            0.0
        };
        let mut out = Vec::new();
        for t in (0..self.locks.len()).rev() {
            if self.topped_out || t + reach < self.locks.len() {
                out.push((&self.locks[t].0, ahead));
            }
            ahead = self.locks[t].1 + gamma * ahead;
        }
        out
    }
}

/// One round of fitting the learned value: the games its policy played (the standard profile,
/// corrected by the last round's value from the second round on) and the value fitted to them.
pub struct ValueRound {
    pub index: usize,
    /// Mean score at the transition of the round's games, and the share that topped out.
    pub score_at_29: f64,
    pub topped_out: f64,
    pub samples: u64,
}

/// What fitting the learned value found: the value, and on held-out games played with it the
/// share of the variance of the discounted points that followed each playfield that it
/// explains (R²), and their mean score at the transition.
pub struct ValueFit {
    pub value: Value,
    pub held_out_r2: f64,
    pub held_out_samples: u64,
    pub held_out_score_at_29: f64,
}

/// Fits the learned value (`eval::Value`) by approximate policy iteration: each of `rounds` + 1
/// rounds plays `o.games` games to level 29 from seeds derived from `o.seed` and the round,
/// with the standard profile corrected by the last round's value times `scale` (uncorrected in
/// the first), and fits the value of that play by LSTD: the points (level 0's rates) that
/// follow a playfield, each piece's discounted by `1 - 1 / horizon` (a horizon of about
/// `horizon` pieces). Measured on as many held-out games played with the final value.
/// `played` is called after each game, `report` after each round. The sums are added in the
/// games' order, so the same options give the same value whatever the threads.
pub fn fit_value(
    o: &TrainOptions,
    horizon: usize,
    rounds: usize,
    scale: f64,
    played: &(dyn Fn() + Sync),
    report: &mut dyn FnMut(&ValueRound),
) -> ValueFit {
    let gamma = 1.0 - 1.0 / horizon as f64;
    let games = |value: &Option<Value>, seed: u64| -> Vec<ValueGame> {
        let profile = Profile::standard_valued(value.clone(), scale);
        (0..o.games)
            .into_par_iter()
            .map(|g| {
                let game = value_game(&profile, o, seed.wrapping_mul(7919).wrapping_add(g));
                played();
                game
            })
            .collect()
    };
    let mean_score = |games: &[ValueGame]| {
        games.iter().map(|g| g.score_at_29 as f64).sum::<f64>() / games.len().max(1) as f64
    };
    let mut value: Option<Value> = None;
    for index in 0..=rounds {
        let played = games(&value, o.seed.wrapping_add(index as u64 * 1_000_003));
        let mut lstd = Lstd::new();
        for game in &played {
            game.add_to(&mut lstd, gamma);
        }
        report(&ValueRound {
            index,
            score_at_29: mean_score(&played),
            topped_out: played.iter().filter(|g| g.topped_out).count() as f64
                / played.len().max(1) as f64,
            samples: lstd.n,
        });
        let w = lstd.solve(1.0);
        value = Some(Value {
            horizon: horizon as u32,
            w,
        });
    }
    let value = value.expect("at least one round");
    let held_out = games(&Some(value.clone()), HELD_OUT_SEED);
    let samples: Vec<_> = held_out.iter().flat_map(|g| g.returns(gamma)).collect();
    let mean = samples.iter().map(|s| s.1).sum::<f64>() / samples.len().max(1) as f64;
    let (mut residual, mut total) = (0.0, 0.0);
    for (x, y) in &samples {
        residual += (y - dot(x, &value.w)).powi(2);
        total += (y - mean).powi(2);
    }
    ValueFit {
        held_out_r2: 1.0 - residual / total.max(f64::MIN_POSITIVE),
        held_out_samples: samples.len() as u64,
        held_out_score_at_29: mean_score(&held_out),
        value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_the_transition_candidates_go_on_from_the_standard_profiles_games() {
        let o = TrainOptions {
            trained: Trained::KillScreen,
            generations: 1,
            population: 4,
            games: 2,
            max_pieces: 1,
            level: 18,
            kind: SearchKind::Controller { tap_hz: 30 },
            pieces: Pieces::Nes,
            format: Format::STANDARD,
            objective: Objective::FromTransition,
            seed: 1,
        };
        let whole: Vec<_> = (0..o.games)
            .map(|g| play(&Profile::standard(), &game_config(&o, 5, g)))
            .filter(|r| r.level >= 29)
            .collect();
        assert!(!whole.is_empty());
        let at_29 = transitions(&o, 5, &|| {});
        let scores: Vec<u64> = at_29.iter().map(Game::score).collect();
        let expected: Vec<u64> = whole.iter().map(|r| r.score_at_29).collect();
        assert_eq!(scores, expected);
        // The built-in weights are the standard profile's at levels 29-37: the points after
        // the transition are those of the whole games.
        let after: u64 = whole.iter().map(|r| r.score - r.score_at_29).sum();
        let fitness = fitness(&Weights::strong(), &o, 5, &at_29, &|| {});
        assert_eq!(fitness, after as f64 / whole.len() as f64);
    }

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
        let w = Weights { w: vec![1.0; 7] };
        let profile = Trained::KeepingWell.profile(&w);
        let keeps = |level, height| matches!(profile.at(level, height, true), Profile::KeepingWell(k) if k == &w);
        assert!(keeps(18, 13) && keeps(20, 12) && keeps(28, 12));
        assert!(!keeps(18, 12) && !keeps(20, 11) && !keeps(28, 11) && !keeps(29, 12));
    }

    #[test]
    fn lstd_finds_the_discounted_points_that_follow_each_playfield() {
        // Three locks, each playfield its own feature (1, 2, 3), the points each lock made;
        // the game tops out after the third.
        let game = |topped_out| ValueGame {
            locks: [0.0, 40.0, 1200.0]
                .iter()
                .enumerate()
                .map(|(t, &points)| (vec![(1 + t as u16, 1.0)], points))
                .collect(),
            topped_out,
            top_out_points: 100.0,
            score_at_29: 0,
        };
        let gamma = 0.5;
        let mut lstd = Lstd::new();
        game(true).add_to(&mut lstd, gamma);
        let w = lstd.solve(1e-9);
        let exact = [
            40.0 + gamma * (1200.0 - gamma * 100.0),
            1200.0 - gamma * 100.0,
            -100.0,
        ];
        for (t, v) in exact.iter().enumerate() {
            assert!(
                (w[1 + t] - v).abs() < 1e-4,
                "playfield {t}: {} against {v}",
                w[1 + t]
            );
        }
        let returns =
            |g: &ValueGame| -> Vec<f64> { g.returns(gamma).iter().map(|r| r.1).collect() };
        assert_eq!(returns(&game(true)), [-100.0, 1150.0, 615.0]);
        // A game that goes on: its last playfields are too close to the end to measure.
        assert!(returns(&game(false)).is_empty());
        let mut lstd = Lstd::new();
        game(false).add_to(&mut lstd, gamma);
        assert_eq!(lstd.n, 2, "the last playfield has no transition");
    }
}
