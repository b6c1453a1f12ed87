//! `nestor ai-train`: tunes the strong profile's weights (or the standard format's for levels
//! 29-37, or those it survives the double kill screen with) with the noisy cross-entropy method
//! on the simulator (`ai::train`), then compares the result with the start on held-out games.

use ai::eval::Weights;
use ai::planner::SearchKind;
use ai::sim::{Format, Pieces};
use ai::train::{fitness, train, transitions, Objective, TrainOptions, Trained, HELD_OUT_SEED};
use anyhow::{anyhow, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Seed of the run: the same seed and options give the same weights.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Generations of the cross-entropy method (0: only compare --start on the held-out games).
    #[arg(long, default_value_t = 6)]
    generations: u32,
    /// Weight vectors tried per generation (the best quarter are kept).
    #[arg(long, default_value_t = 12)]
    population: usize,
    /// Games per candidate (all candidates of a generation play the same pieces), and held-out
    /// games.
    #[arg(long, default_value_t = 8)]
    games: u64,
    /// Pieces per game at most.
    #[arg(long, default_value_t = 900)]
    max_pieces: u64,
    /// Starting level.
    #[arg(long, default_value_t = 18)]
    level: u8,
    /// What a candidate is scored on: transition (the uncapped score at level 29, where the
    /// game ends), score (within --max-pieces), survive (pieces placed) or from-transition
    /// (the points from level 29 to the standard format's cap, every candidate going on from
    /// the playfields the standard profile leaves there; --max-pieces does not apply).
    #[arg(long, default_value = "transition")]
    objective: String,
    /// The competition format of the games: zero or standard (see ai-bench).
    #[arg(long, default_value = "zero")]
    format: String,
    /// controller (frame-exact inputs under gravity) or placement (gravity ignored).
    #[arg(long, default_value = "controller")]
    search: String,
    /// Maximum tap rate of the controller search: 30, 20, 15, 12 or 10.
    #[arg(long, default_value_t = 30)]
    tap_hz: u32,
    /// Which weights to train: strong (the strong profile's, at every level), keeping-well (the
    /// standard format's on a high stack below level 29), kill-screen (its building at levels
    /// 29-37), kill-screen-survival (survival there instead) or double-kill-screen (its
    /// survival from level 38); all but strong with --format standard.
    #[arg(long, default_value = "strong")]
    weights_of: String,
    /// Weights to start from (JSON or TOML; default: the built-in strong weights, for the
    /// kill screen's survival the double kill screen's with a ready row worth -100, for the
    /// double kill screen the classic function's).
    #[arg(long)]
    start: Option<PathBuf>,
    /// Fit the learned value instead (weights/README.md): the points that follow a
    /// playfield over about HORIZON pieces (each piece's discounted by 1 - 1/HORIZON), by
    /// least-squares temporal differences over --games games to level 29 of the standard
    /// format's strong profile without its value (with --format standard), measured on as
    /// many held-out games; written as JSON to --out.
    #[arg(long, value_name = "HORIZON")]
    fit_value: Option<usize>,
    /// With --fit-value: rounds of policy iteration after the first fit, each playing new
    /// games with the profile corrected by the last fit's value.
    #[arg(long, default_value_t = 0)]
    rounds: usize,
    /// With --fit-value: the scale of the value's correction in the games of those rounds
    /// (rating units a point, as ai-bench's --value-scale).
    #[arg(long, default_value_t = ai::eval::VALUE_SCALE)]
    value_scale: f64,
    /// Where to write the trained weights: TOML for a name ending in .toml, else JSON.
    #[arg(long, default_value = "weights.json")]
    out: PathBuf,
}

pub fn run(a: &Args) -> anyhow::Result<ExitCode> {
    let objective = Objective::by_name(&a.objective).ok_or_else(|| {
        anyhow!(
            "unknown objective '{}' (transition, score, survive or from-transition)",
            a.objective
        )
    })?;
    let format = Format::by_name(&a.format)
        .ok_or_else(|| anyhow!("unknown format '{}' (standard or zero)", a.format))?;
    let kind = match a.search.as_str() {
        "placement" if format.reaction == 0 => SearchKind::Placement,
        "placement" => bail!("the {} format needs the controller search", a.format),
        "controller" => {
            ai::controller::tap_period(a.tap_hz).ok_or_else(|| {
                anyhow!(
                    "unsupported tap rate {} Hz (30, 20, 15, 12 or 10)",
                    a.tap_hz
                )
            })?;
            SearchKind::Controller { tap_hz: a.tap_hz }
        }
        s => bail!("unknown search '{s}' (controller or placement)"),
    };
    let trained = Trained::by_name(&a.weights_of).ok_or_else(|| {
        anyhow!(
            "unknown weights '{}' (strong, keeping-well, kill-screen, kill-screen-survival or double-kill-screen)",
            a.weights_of
        )
    })?;
    if trained != Trained::Strong && (format != Format::STANDARD || a.fit_value.is_some()) {
        bail!(
            "the {} weights are trained in the standard format (--format standard), without --fit-value",
            a.weights_of
        );
    }
    if objective == Objective::FromTransition
        && (matches!(trained, Trained::Strong | Trained::KeepingWell)
            || a.fit_value.is_some()
            || a.level >= 29)
    {
        bail!(
            "the from-transition objective trains the standard format's weights from level 29 \
             (--weights-of kill-screen, kill-screen-survival or double-kill-screen, from a level below 29)"
        );
    }
    if a.population < 4 || a.games == 0 || a.max_pieces == 0 {
        bail!("--population must be at least 4, --games and --max-pieces at least 1");
    }
    let o = TrainOptions {
        trained,
        generations: a.generations,
        population: a.population,
        games: a.games,
        max_pieces: a.max_pieces,
        level: a.level,
        kind,
        pieces: Pieces::Nes,
        format,
        objective,
        seed: a.seed,
    };
    if let Some(horizon) = a.fit_value {
        return fit_value(a, &o, horizon);
    }
    let start = match (&a.start, trained) {
        (Some(path), _) => Weights::load_or(path, trained.names(), trained.builtin()),
        (None, Trained::DoubleKillScreen) => Weights::classic_survival(),
        (None, _) => trained.builtin()(),
    };
    let t0 = Instant::now();
    let held_out_runs = if a.generations > 0 { 2 } else { 1 };
    // The from-transition objective first plays each generation's games to level 29.
    let runs_a_generation = a.population as u64 + u64::from(objective == Objective::FromTransition);
    let games = (a.generations as u64 * runs_a_generation
        + held_out_runs
        + u64::from(objective == Objective::FromTransition))
        * a.games;
    let bar = ProgressBar::new(games).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games {elapsed_precise} eta {eta}")
            .expect("static template"),
    );
    let played = || bar.inc(1);
    let held_out = transitions(&o, HELD_OUT_SEED, &played);
    let start_fitness = fitness(&start, &o, HELD_OUT_SEED, &held_out, &played);
    // Printed above the bar, and also when stderr is not a terminal (a log).
    let say = |line: String| bar.suspend(|| eprintln!("{line}"));
    say(format!(
        "start: {start_fitness:.0} on {} held-out games",
        a.games
    ));
    if a.generations == 0 {
        bar.finish_and_clear();
        return Ok(ExitCode::SUCCESS);
    }
    let weights = train(
        &o,
        &start,
        |g| {
            say(format!(
                "generation {}: best {:.0}, mean {:.0}",
                g.index + 1,
                g.best_fitness,
                g.mean_fitness
            ))
        },
        &played,
    );
    let trained_fitness = fitness(&weights, &o, HELD_OUT_SEED, &held_out, &played);
    bar.finish_and_clear();
    crate::run::write_atomic(
        &a.out,
        weights.file_text(&a.out, trained.names()).as_bytes(),
    )?;
    let verdict = if trained_fitness > start_fitness {
        "better than the start"
    } else {
        "not better than the start: keep the start's weights"
    };
    println!(
        "held-out ({} games, seed {HELD_OUT_SEED}): start {start_fitness:.0}, trained \
         {trained_fitness:.0} ({verdict})\n{} generations of {} in {:.0} s; wrote {}",
        a.games,
        a.generations,
        a.population,
        t0.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `--fit-value`: fits the learned value and writes it.
fn fit_value(a: &Args, o: &TrainOptions, horizon: usize) -> anyhow::Result<ExitCode> {
    if horizon < 2 {
        bail!("--fit-value needs a horizon of at least 2 pieces");
    }
    if o.format != Format::STANDARD {
        bail!("--fit-value fits the standard format's profile (--format standard)");
    }
    if !(a.value_scale.is_finite() && a.value_scale > 0.0) {
        bail!("--value-scale must be a positive number");
    }
    let t0 = Instant::now();
    let bar = ProgressBar::new((a.rounds as u64 + 2) * o.games).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games {elapsed_precise} eta {eta}")
            .expect("static template"),
    );
    let fit = ai::train::fit_value(
        o,
        horizon,
        a.rounds,
        a.value_scale,
        &|| bar.inc(1),
        &mut |r| {
            bar.suspend(|| {
                println!(
                    "round {}: pre-29 mean {:.0}, {:.0}% topped out, {} samples",
                    r.index,
                    r.score_at_29,
                    100.0 * r.topped_out,
                    r.samples
                )
            })
        },
    );
    bar.finish_and_clear();
    let text = serde_json::to_string(&fit.value).expect("finite numbers") + "\n";
    crate::run::write_atomic(&a.out, text.as_bytes())?;
    println!(
        "held-out ({} games, seed {HELD_OUT_SEED}, played with the value): pre-29 mean {:.0}; \
         R² {:.3} of the discounted points over {} samples\n{:.0} s; wrote {}",
        o.games,
        fit.held_out_score_at_29,
        fit.held_out_r2,
        fit.held_out_samples,
        t0.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
