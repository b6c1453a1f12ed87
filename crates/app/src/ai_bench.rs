//! `nestor ai-bench`: plays simulated games with the native AI and summarises them
//! (the logic lives in `ai::bench`).

use anyhow::Context;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The competition format: zero (the game as it is: no reaction delay, no double kill
    /// screen, no cap) or standard (18 frames of reaction, two rows a frame from level 39, the
    /// game capped at level 49 = 430 lines from 18).
    #[arg(long, default_value = "zero")]
    format: String,
    /// Frames from a spawn until the preview is seen, instead of the format's (0-60).
    #[arg(long)]
    reaction: Option<u32>,
    /// The game ends when the level reaches this, instead of the format's cap (0: no cap).
    #[arg(long)]
    cap_level: Option<u8>,
    /// Number of games, played in parallel.
    #[arg(long, default_value_t = 10)]
    games: u64,
    /// Starting level.
    #[arg(long, default_value_t = 18)]
    level: u8,
    /// Evaluation profile: classic (the article's) or strong.
    #[arg(long, default_value = "strong")]
    profile: String,
    /// The strong profile's weights from a file (JSON or TOML, as `ai-train --out` writes).
    #[arg(long)]
    weights: Option<std::path::PathBuf>,
    /// A learned value (JSON, as `ai-train --fit-value` writes) correcting the standard
    /// format's strong profile below level 29 in place of the built-in one (see
    /// crates/ai/weights/README.md).
    #[arg(long)]
    value: Option<std::path::PathBuf>,
    /// The scale of the standard format's value correction: rating units a point of the value
    /// (0: the trained weights alone).
    #[arg(long, default_value_t = ai::eval::VALUE_SCALE)]
    value_scale: f64,
    /// controller (frame-exact inputs under gravity) or placement (gravity ignored).
    #[arg(long, default_value = "controller")]
    search: String,
    /// Maximum tap rate of the controller search: 30, 20, 15, 12 or 10.
    #[arg(long, default_value_t = 30)]
    tap_hz: u32,
    /// Piece source: nes (the game's picker and RNG) or uniform.
    #[arg(long, default_value = "nes")]
    pieces: String,
    /// Stop each game after this many pieces (0: play each to its game over, which from level
    /// 18 can take minutes a game).
    #[arg(long, default_value_t = 1500)]
    max_pieces: u64,
    /// Seed of the first game (game i uses a seed derived from seed and i).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// Write each game's figures here, one JSON object a line (seed, score, score_at_19/29/39,
    /// lines, level, pieces, Tetrises), for `--against` or other tools.
    #[arg(long, value_name = "FILE")]
    games_out: Option<std::path::PathBuf>,
    /// Compare with an earlier run's `--games-out` game by game (the same seed: the same
    /// pieces): the mean difference a game and its standard error.
    #[arg(long, value_name = "FILE")]
    against: Option<std::path::PathBuf>,
}

pub fn run(a: &Args) -> anyhow::Result<ExitCode> {
    let o = ai::bench::BenchOptions {
        format: a.format.clone(),
        reaction: a.reaction,
        cap_level: a.cap_level,
        games: a.games,
        level: a.level,
        profile: a.profile.clone(),
        weights: a.weights.clone(),
        value: a.value.clone(),
        value_scale: a.value_scale,
        search: a.search.clone(),
        tap_hz: a.tap_hz,
        pieces: a.pieces.clone(),
        max_pieces: (a.max_pieces > 0).then_some(a.max_pieces),
        seed: a.seed,
        json: a.json,
    };
    // Read first: a bad file must not cost the run.
    let against = match &a.against {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let games = ai::bench::read_games(&text)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            let seeds: std::collections::HashSet<u64> = games.iter().map(|g| g.seed).collect();
            if !(0..a.games).any(|i| seeds.contains(&ai::bench::game_seed(a.seed, i))) {
                anyhow::bail!(
                    "{}: none of its games has a seed of this run's (the same --seed pairs them)",
                    path.display()
                );
            }
            Some((path, games))
        }
        None => None,
    };
    let mut report = ai::bench::run(&o).map_err(anyhow::Error::msg)?;
    if let Some(path) = &a.games_out {
        crate::run::write_atomic(path, ai::bench::games_text(&report.per_game).as_bytes())?;
    }
    if let Some((path, games)) = against {
        let paired = ai::bench::paired(&games, &report.per_game)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        report.paired = Some(paired);
    }
    if a.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.to_text());
    }
    Ok(ExitCode::SUCCESS)
}
