//! `ai-bench`: many simulated games in parallel (rayon) with a progress bar (indicatif), summarised
//! as median, mean, p10 and p90 per metric.

use crate::controller::tap_period;
use crate::eval::Profile;
use crate::planner::SearchKind;
use crate::sim::{play_counting, GameConfig, GameResult, Pieces};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;

/// The options of `nestor ai-bench`.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub games: u64,
    pub level: u8,
    /// "classic" or "strong".
    pub profile: String,
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
            games: 10,
            level: 18,
            profile: "strong".into(),
            search: "controller".into(),
            tap_hz: 30,
            pieces: "nes".into(),
            max_pieces: None,
            seed: 1,
            json: false,
        }
    }
}

/// median, mean, p10, p90 of one metric over the games.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Summary {
    pub median: f64,
    pub mean: f64,
    pub p10: f64,
    pub p90: f64,
}

impl Summary {
    pub fn of(mut v: Vec<f64>) -> Summary {
        if v.is_empty() {
            return Summary {
                median: 0.0,
                mean: 0.0,
                p10: 0.0,
                p90: 0.0,
            };
        }
        v.sort_by(f64::total_cmp);
        let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
        Summary {
            median: q(0.5),
            mean: v.iter().sum::<f64>() / v.len() as f64,
            p10: q(0.1),
            p90: q(0.9),
        }
    }
}

/// The `--json` object.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    pub games: u64,
    pub lines: Summary,
    pub score: Summary,
    pub level: Summary,
    pub pieces: Summary,
    pub tetris_rate: Summary,
    pub score_at_29: Summary,
    pub placement_ms: Summary,
    /// Share of games whose uncapped score reached 999,999.
    pub maxout_share: f64,
    /// Mean spawns between full clears (null when there was none).
    pub full_clear_interval: Option<f64>,
    #[serde(skip)]
    pub lock_rows: [u64; 20],
    #[serde(skip)]
    pub mispredictions: u64,
}

/// Checks the options and builds the game configuration and profile.
pub fn configure(o: &BenchOptions) -> Result<(Profile, GameConfig), String> {
    let profile = Profile::by_name(&o.profile)
        .ok_or_else(|| format!("unknown profile '{}' (classic or strong)", o.profile))?;
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
    let cfg = GameConfig {
        level: o.level,
        kind,
        pieces,
        max_pieces: o.max_pieces,
        seed: o.seed,
        two_deep: true,
        until_29: false,
    };
    Ok((profile, cfg))
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
    let results: Vec<GameResult> = (0..o.games)
        .into_par_iter()
        .map(|i| {
            let cfg = GameConfig {
                seed: o.seed.wrapping_mul(1_000_003).wrapping_add(i),
                ..cfg.clone()
            };
            play_counting(&profile, &cfg, &|| bar.inc(1))
        })
        .collect();
    bar.finish_and_clear();
    Ok(summarise(&results))
}

pub fn summarise(results: &[GameResult]) -> BenchReport {
    let metric = |f: &dyn Fn(&GameResult) -> f64| Summary::of(results.iter().map(f).collect());
    let placement: Vec<f64> = results
        .iter()
        .flat_map(|r| r.placement_ms.iter().map(|&t| t as f64))
        .collect();
    let spawns: u64 = results.iter().map(|r| r.pieces).sum();
    let clears: u64 = results.iter().map(|r| r.full_clears).sum();
    let mut lock_rows = [0; 20];
    for r in results {
        for (a, b) in lock_rows.iter_mut().zip(r.lock_rows) {
            *a += b;
        }
    }
    BenchReport {
        games: results.len() as u64,
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
        score_at_29: metric(&|r| r.score_at_29 as f64),
        placement_ms: Summary::of(placement),
        maxout_share: results.iter().filter(|r| r.score >= 999_999).count() as f64
            / results.len().max(1) as f64,
        full_clear_interval: (clears > 0).then(|| spawns as f64 / clears as f64),
        lock_rows,
        mispredictions: results.iter().map(|r| r.mispredictions).sum(),
    }
}

impl BenchReport {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("plain numbers")
    }

    /// The human-readable report, with the lock-row histogram.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "games: {}\n{:<13}{:>14}{:>14}{:>14}{:>14}\n",
            self.games, "", "median", "mean", "p10", "p90"
        );
        for (name, m) in [
            ("lines", &self.lines),
            ("score", &self.score),
            ("level", &self.level),
            ("pieces", &self.pieces),
            ("tetris_rate", &self.tetris_rate),
            ("score_at_29", &self.score_at_29),
            ("placement_ms", &self.placement_ms),
        ] {
            s += &format!(
                "{name:<13}{:>14.3}{:>14.3}{:>14.3}{:>14.3}\n",
                m.median, m.mean, m.p10, m.p90
            );
        }
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
        s
    }
}
