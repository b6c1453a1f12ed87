//! `ai-bench`: many simulated games in parallel (rayon) with a progress bar (indicatif), summarised
//! as median, mean and percentiles per metric.

use crate::controller::tap_period;
use crate::eval::{Profile, Value, Weights, STRONG_NAMES};
use crate::planner::SearchKind;
use crate::sim::{play_counting, Format, GameConfig, GameResult, LevelBand, Pieces};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The options of `nestor ai-bench`.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// "zero" or "standard" (`sim::Format`).
    pub format: String,
    /// Frames of reaction instead of the format's.
    pub reaction: Option<u32>,
    /// Cap level instead of the format's (0: none).
    pub cap_level: Option<u8>,
    pub games: u64,
    pub level: u8,
    /// "classic" or "strong".
    pub profile: String,
    /// The strong profile's weights from this file instead of the built-in ones (a file that
    /// cannot be read: a one-line warning, and the built-in ones).
    pub weights: Option<std::path::PathBuf>,
    /// A learned value (`ai-train --fit-value`) correcting the standard format's strong
    /// profile below level 29 in place of the built-in one (a file that cannot be read: a
    /// one-line warning, and the built-in one), times `value_scale` rating units a point (0:
    /// no correction).
    pub value: Option<std::path::PathBuf>,
    pub value_scale: f64,
    /// "controller" or "placement".
    pub search: String,
    pub tap_hz: u32,
    /// "nes" or "uniform".
    pub pieces: String,
    pub max_pieces: Option<u64>,
    pub seed: u64,
    pub json: bool,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            format: "zero".into(),
            reaction: None,
            cap_level: None,
            games: 10,
            level: 18,
            profile: "strong".into(),
            weights: None,
            value: None,
            value_scale: crate::eval::VALUE_SCALE,
            search: "controller".into(),
            tap_hz: 30,
            pieces: "nes".into(),
            max_pieces: None,
            seed: 1,
            json: false,
        }
    }
}

/// median, mean and percentiles of one metric over the games.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Default)]
pub struct Summary {
    pub median: f64,
    pub mean: f64,
    pub p1: f64,
    pub p10: f64,
    pub p90: f64,
    pub p99: f64,
}

impl Summary {
    pub fn of(mut v: Vec<f64>) -> Summary {
        if v.is_empty() {
            return Summary::default();
        }
        v.sort_by(f64::total_cmp);
        let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
        Summary {
            median: q(0.5),
            mean: v.iter().sum::<f64>() / v.len() as f64,
            p1: q(0.01),
            p10: q(0.1),
            p90: q(0.9),
            p99: q(0.99),
        }
    }
}

/// Line clears by their lines.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Default)]
pub struct Clears {
    pub singles: f64,
    pub doubles: f64,
    pub triples: f64,
    pub tetrises: f64,
}

/// The `--json` object.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    pub games: u64,
    pub format: Format,
    pub lines: Summary,
    pub score: Summary,
    pub level: Summary,
    pub pieces: Summary,
    pub tetris_rate: Summary,
    pub score_at_19: Summary,
    pub score_at_29: Summary,
    pub score_at_39: Summary,
    pub decision_ms: Summary,
    /// Line clears by their lines, per game on average: below level 29, at levels 29-38 (a
    /// row a frame) and from 39.
    pub clears_before_29: Clears,
    pub clears_29_to_38: Clears,
    pub clears_from_39: Clears,
    /// Share of the games started below level 29 that ended below it (topped out), and the
    /// same for level 39.
    pub ended_before_29: f64,
    pub ended_before_39: f64,
    /// Share of the pieces below level 29 that spawned with the well Tetris-ready, all games
    /// pooled.
    pub ready_before_29: f64,
    /// Share of games whose uncapped score reached 999,999.
    pub maxout_share: f64,
    /// Mean spawns between full clears (null when there was none).
    pub full_clear_interval: Option<f64>,
    #[serde(skip)]
    pub lock_rows: [u64; 20],
    /// Controller plans that did not land where the search promised (must be 0).
    pub mispredictions: u64,
    /// Each game's own figures (`--games-out`).
    #[serde(skip)]
    pub per_game: Vec<GameLine>,
    /// This run against an earlier one's games (`--against`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired: Option<Paired>,
}

/// One game's figures: a line of `nestor ai-bench --games-out`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct GameLine {
    pub game: u64,
    pub seed: u64,
    pub score: u64,
    pub score_at_19: u64,
    pub score_at_29: u64,
    pub score_at_39: u64,
    pub lines: u64,
    pub level: u8,
    pub pieces: u64,
    pub tetrises: u64,
}

impl GameLine {
    fn of(game: u64, seed: u64, r: &GameResult) -> GameLine {
        GameLine {
            game,
            seed,
            score: r.score,
            score_at_19: r.score_at_19,
            score_at_29: r.score_at_29,
            score_at_39: r.score_at_39,
            lines: r.lines,
            level: r.level,
            pieces: r.pieces,
            tetrises: r.clears.iter().map(|band| band[3]).sum(),
        }
    }
}

/// The games as `--games-out` writes them: one JSON object a line.
pub fn games_text(games: &[GameLine]) -> String {
    games
        .iter()
        .map(|g| serde_json::to_string(g).expect("plain numbers") + "\n")
        .collect()
}

/// Reads what [`games_text`] wrote; an error names the first line that is not a game.
pub fn read_games(text: &str) -> Result<Vec<GameLine>, String> {
    (text.lines().enumerate())
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line).map_err(|e| format!("line {}: not a game ({e})", n + 1))
        })
        .collect()
}

/// The mean of a per-game difference and its standard error.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Difference {
    pub mean: f64,
    pub se: f64,
}

impl Difference {
    fn of(d: &[f64]) -> Difference {
        let n = d.len() as f64;
        let mean = d.iter().sum::<f64>() / n;
        let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        Difference {
            mean,
            se: (var / n).sqrt(),
        }
    }
}

/// A run against an earlier one, game by game (the same seed: the same pieces as long as the
/// two play alike): this run's figures less the earlier run's. Paired, the pieces' luck, which
/// decides most of a game's score, cancels out.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Paired {
    pub games: usize,
    pub score: Difference,
    pub score_at_19: Difference,
    pub score_at_29: Difference,
    pub score_at_39: Difference,
    pub lines: Difference,
}

/// Pairs the games of `new` with those of `base` by seed.
pub fn paired(base: &[GameLine], new: &[GameLine]) -> Result<Paired, String> {
    let base: std::collections::HashMap<u64, &GameLine> =
        base.iter().map(|g| (g.seed, g)).collect();
    let pairs: Vec<(&GameLine, &GameLine)> = new
        .iter()
        .filter_map(|g| Some((*base.get(&g.seed)?, g)))
        .collect();
    if pairs.is_empty() {
        return Err("no game has a seed of this run's (the same --seed pairs them)".into());
    }
    let difference = |f: fn(&GameLine) -> u64| {
        let d: Vec<f64> = (pairs.iter())
            .map(|(b, n)| f(n) as f64 - f(b) as f64)
            .collect();
        Difference::of(&d)
    };
    Ok(Paired {
        games: pairs.len(),
        score: difference(|g| g.score),
        score_at_19: difference(|g| g.score_at_19),
        score_at_29: difference(|g| g.score_at_29),
        score_at_39: difference(|g| g.score_at_39),
        lines: difference(|g| g.lines),
    })
}

/// Checks the options and builds the game configuration and profile.
pub fn configure(o: &BenchOptions) -> Result<(Profile, GameConfig), String> {
    if !(o.value_scale.is_finite() && o.value_scale >= 0.0) {
        return Err("--value-scale is a number from 0".into());
    }
    let profile = match (o.profile.as_str(), &o.weights) {
        _ if o.value.is_some() && (o.profile != "strong" || o.weights.is_some()) => {
            return Err("--value corrects the standard format's built-in strong profile".into())
        }
        ("strong", Some(path)) => {
            Profile::Strong(Weights::load_or(path, &STRONG_NAMES, Weights::strong))
        }
        (_, Some(_)) => return Err("--weights are the strong profile's".into()),
        ("strong", None) if o.format == "standard" => {
            let value = match &o.value {
                Some(path) => Value::load(path).unwrap_or_else(|e| {
                    eprintln!(
                        "value {}: {e}; playing with the built-in one",
                        path.display()
                    );
                    Value::builtin()
                }),
                None => Value::builtin(),
            };
            Profile::standard_valued(Some(value), o.value_scale)
        }
        (_, None) if o.value.is_some() => {
            return Err("--value corrects the standard format's strong profile".into())
        }
        (name, None) => Profile::by_name(name)
            .ok_or_else(|| format!("unknown profile '{name}' (classic or strong)"))?,
    };
    let kind = match o.search.as_str() {
        "placement" => SearchKind::Placement,
        "controller" => {
            tap_period(o.tap_hz).ok_or_else(|| {
                format!(
                    "unsupported tap rate {} Hz (30, 20, 15, 12 or 10)",
                    o.tap_hz
                )
            })?;
            SearchKind::Controller { tap_hz: o.tap_hz }
        }
        s => return Err(format!("unknown search '{s}' (controller or placement)")),
    };
    let pieces = match o.pieces.as_str() {
        "nes" => Pieces::Nes,
        "uniform" => Pieces::Uniform,
        s => return Err(format!("unknown piece source '{s}' (nes or uniform)")),
    };
    if o.games == 0 {
        return Err("--games must be at least 1".into());
    }
    let format = Format::from_options(&o.format, o.reaction, o.cap_level, o.level)?;
    if format.reaction > 0 && kind == SearchKind::Placement {
        return Err("a reaction delay needs the controller search (--reaction 0)".into());
    }
    let cfg = GameConfig {
        level: o.level,
        kind,
        pieces,
        max_pieces: o.max_pieces,
        seed: o.seed,
        two_deep: true,
        format,
    };
    Ok((profile, cfg))
}

/// The seed of game `game` of a run from `first` (`--seed`).
pub fn game_seed(first: u64, game: u64) -> u64 {
    first.wrapping_mul(1_000_003).wrapping_add(game)
}

/// Plays the games in parallel and summarises them.
pub fn run(o: &BenchOptions) -> Result<BenchReport, String> {
    let (profile, cfg) = configure(o)?;
    // Counted in pieces, so that it moves during the first games; without a cap the length
    // is unknown.
    let bar = match o.max_pieces {
        Some(cap) => ProgressBar::new(o.games * cap).with_style(
            ProgressStyle::with_template(
                "{bar:40} {pos}/{len} pieces (at most) {elapsed_precise} eta {eta}",
            )
            .expect("static template"),
        ),
        None => ProgressBar::no_length().with_style(
            ProgressStyle::with_template("{pos} pieces {elapsed_precise}")
                .expect("static template"),
        ),
    };
    let seed = |i: u64| game_seed(o.seed, i);
    let results: Vec<GameResult> = (0..o.games)
        .into_par_iter()
        .map(|i| {
            let cfg = GameConfig {
                seed: seed(i),
                ..cfg.clone()
            };
            play_counting(&profile, &cfg, &|| bar.inc(1))
        })
        .collect();
    bar.finish_and_clear();
    let mut report = summarise(cfg.format, &results);
    report.per_game = (0..o.games)
        .zip(&results)
        .map(|(i, r)| GameLine::of(i, seed(i), r))
        .collect();
    Ok(report)
}

pub fn summarise(format: Format, results: &[GameResult]) -> BenchReport {
    let metric = |f: &dyn Fn(&GameResult) -> f64| Summary::of(results.iter().map(f).collect());
    let decision_ms: Vec<f64> = results
        .iter()
        .flat_map(|r| r.decision_ms.iter().map(|&t| t as f64))
        .collect();
    let spawns: u64 = results.iter().map(|r| r.pieces).sum();
    let clears: u64 = results.iter().map(|r| r.full_clears).sum();
    let mut lock_rows = [0; 20];
    for r in results {
        for (a, b) in lock_rows.iter_mut().zip(r.lock_rows) {
            *a += b;
        }
    }
    let games = results.len().max(1) as f64;
    let clears_in = |band: LevelBand| {
        let per_game = |lines: usize| {
            results
                .iter()
                .map(|r| r.clears[band as usize][lines - 1])
                .sum::<u64>() as f64
                / games
        };
        Clears {
            singles: per_game(1),
            doubles: per_game(2),
            triples: per_game(3),
            tetrises: per_game(4),
        }
    };
    let ended_below = |level: u8| {
        let started = results.iter().filter(|r| r.start_level < level);
        let ended = started.clone().filter(|r| r.level < level).count();
        ended as f64 / started.count().max(1) as f64
    };
    BenchReport {
        games: results.len() as u64,
        format,
        lines: metric(&|r| r.lines as f64),
        score: metric(&|r| r.score as f64),
        level: metric(&|r| r.level as f64),
        pieces: metric(&|r| r.pieces as f64),
        tetris_rate: metric(&|r| {
            if r.lines == 0 {
                0.0
            } else {
                r.tetris_lines as f64 / r.lines as f64
            }
        }),
        score_at_19: metric(&|r| r.score_at_19 as f64),
        score_at_29: metric(&|r| r.score_at_29 as f64),
        score_at_39: metric(&|r| r.score_at_39 as f64),
        decision_ms: Summary::of(decision_ms),
        clears_before_29: clears_in(LevelBand::Before29),
        clears_29_to_38: clears_in(LevelBand::From29To38),
        clears_from_39: clears_in(LevelBand::From39),
        ended_before_29: ended_below(29),
        ended_before_39: ended_below(39),
        ready_before_29: results.iter().map(|r| r.ready_before_29).sum::<u64>() as f64
            / results
                .iter()
                .map(|r| r.pieces_before_29)
                .sum::<u64>()
                .max(1) as f64,
        maxout_share: results.iter().filter(|r| r.score >= 999_999).count() as f64
            / results.len().max(1) as f64,
        full_clear_interval: (clears > 0).then(|| spawns as f64 / clears as f64),
        lock_rows,
        mispredictions: results.iter().map(|r| r.mispredictions).sum(),
        per_game: Vec::new(),
        paired: None,
    }
}

impl BenchReport {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("plain numbers")
    }

    /// The human-readable report, with the lock-row histogram.
    pub fn to_text(&self) -> String {
        let f = &self.format;
        let cap = f.cap_level.map_or("none".into(), |l| format!("level {l}"));
        let mut s = format!(
            "games: {}\nformat: reaction {} frames, double kill screen {}, cap {cap}\n",
            self.games,
            f.reaction,
            if f.double_kill_screen {
                "from 39"
            } else {
                "off"
            },
        );
        s += &format!(
            "{:<13}{:>13}{:>13}{:>13}{:>13}{:>13}{:>13}\n",
            "", "median", "mean", "p1", "p10", "p90", "p99"
        );
        for (name, m) in [
            ("lines", &self.lines),
            ("score", &self.score),
            ("level", &self.level),
            ("pieces", &self.pieces),
            ("tetris_rate", &self.tetris_rate),
            ("score_at_19", &self.score_at_19),
            ("score_at_29", &self.score_at_29),
            ("score_at_39", &self.score_at_39),
            ("decision_ms", &self.decision_ms),
        ] {
            s += &format!(
                "{name:<13}{:>13.3}{:>13.3}{:>13.3}{:>13.3}{:>13.3}{:>13.3}\n",
                m.median, m.mean, m.p1, m.p10, m.p90, m.p99
            );
        }
        for (levels, c) in [
            ("below level 29", &self.clears_before_29),
            ("at levels 29-38", &self.clears_29_to_38),
            ("from level 39", &self.clears_from_39),
        ] {
            s += &format!(
                "clears {levels}, per game: {:.1} singles, {:.1} doubles, {:.1} triples, \
                 {:.1} Tetrises\n",
                c.singles, c.doubles, c.triples, c.tetrises
            );
        }
        s += &format!(
            "ended below level 29: {:.3} of the games, below 39: {:.3}\n\
             Tetris-ready below level 29: {:.3} of the spawns\n",
            self.ended_before_29, self.ended_before_39, self.ready_before_29
        );
        s += &format!("maxout_share: {:.3}\n", self.maxout_share);
        match self.full_clear_interval {
            Some(v) => s += &format!("full_clear_interval: {v:.1} spawns\n"),
            None => s += "full_clear_interval: no full clear\n",
        }
        s += &format!(
            "mispredictions: {}\nlocks by row (origin y):\n",
            self.mispredictions
        );
        let total: u64 = self.lock_rows.iter().sum::<u64>().max(1);
        for (y, &n) in self.lock_rows.iter().enumerate() {
            s += &format!("  row {y:2}: {:8.4}%\n", n as f64 * 100.0 / total as f64);
        }
        if let Some(p) = &self.paired {
            s += &format!(
                "against the earlier run, {} games paired by seed (this run less that one, \
                 mean a game ± standard error):\n",
                p.games
            );
            for (name, d) in [
                ("score", &p.score),
                ("score_at_19", &p.score_at_19),
                ("score_at_29", &p.score_at_29),
                ("score_at_39", &p.score_at_39),
                ("lines", &p.lines),
            ] {
                s += &format!("  {name:<13}{:>+13.1} ± {:.1}\n", d.mean, d.se);
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(seed: u64, score: u64, lines: u64) -> GameLine {
        GameLine {
            game: seed,
            seed,
            score,
            score_at_19: score / 2,
            score_at_29: score,
            score_at_39: score,
            lines,
            level: 18,
            pieces: 100,
            tetrises: 3,
        }
    }

    #[test]
    fn games_read_back_as_written_and_a_bad_line_is_named() {
        let games = [game(5, 1000, 10), game(6, 2000, 20)];
        assert_eq!(read_games(&games_text(&games)).unwrap(), games);
        let text = games_text(&games) + "{\"game\": 2}\n";
        let err = read_games(&text).unwrap_err();
        assert!(err.starts_with("line 3: not a game"), "{err}");
    }

    #[test]
    fn pairs_are_made_by_seed_and_differences_have_their_standard_error() {
        let base = [
            game(1, 100, 10),
            game(2, 200, 20),
            game(3, 300, 30),
            game(9, 0, 0),
        ];
        // Out of order, and seed 4 has no partner: three pairs, differences 10, 30, 50.
        let new = [
            game(3, 350, 31),
            game(4, 999, 99),
            game(1, 110, 10),
            game(2, 230, 20),
        ];
        let p = paired(&base, &new).unwrap();
        assert_eq!(p.games, 3);
        assert_eq!(p.score.mean, 30.0);
        // Sample variance 400, over 3 pairs.
        assert!((p.score.se - (400.0f64 / 3.0).sqrt()).abs() < 1e-9);
        assert_eq!(p.score_at_19.mean, 15.0);
        assert_eq!(p.lines.mean, 1.0 / 3.0);
        assert!(paired(&base, &[game(7, 1, 1)]).is_err());
    }
}
