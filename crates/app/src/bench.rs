//! `nestor bench`: emulation speed, headless, through the same session as every front end.
//! Warm-up frames first, then timed frames. With `--ai` the native AI plays (its searches are
//! timed too), with `--movie` a movie does, with `--lua` scripts run beside (their printing
//! dropped); `--rewind` and `--run-ahead` cost what they cost in the window.

use crate::ai_play::{AiArgs, AiPlayer};
use crate::{load_console, RomArg};
use indicatif::{ProgressBar, ProgressStyle};
use session::movies::Movies;
use session::Session;
use std::cell::RefCell;
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    rom: RomArg,
    /// Frames to time.
    #[arg(long, default_value_t = 3000)]
    frames: u64,
    /// Untimed frames run first (boot, menus).
    #[arg(long, default_value_t = 120)]
    warmup: u64,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    ai: AiArgs,
    /// Keep the rewind ring filling every frame, as the window does, and report its size.
    #[arg(long)]
    rewind: bool,
    /// Run this many frames ahead of the machine each frame (0-4), as `run --run-ahead` does.
    #[arg(long, value_name = "N", default_value_t = 0)]
    run_ahead: u8,
    /// Play this FCEUX movie (.fm2) back while timing.
    #[arg(long, value_name = "FILE", conflicts_with = "ai")]
    movie: Option<PathBuf>,
    /// Run this FCEUX Lua script beside (repeatable); what it prints is dropped.
    #[arg(long = "lua", value_name = "SCRIPT")]
    lua: Vec<PathBuf>,
    /// Turn the machine's fast paths off (idle loops run instruction by instruction, OAM DMA
    /// cycle by cycle, every cycle in full): what they save, measured; the machine runs the
    /// same either way.
    #[arg(long)]
    no_fast_forward: bool,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(args.frames > 0, "--frames must be at least 1");
    let (name, mut console) = load_console(&args.rom)?;
    console.set_fast_forward(!args.no_fast_forward);
    // A benchmark never touches the user's saves: no battery file.
    let mut session = Session::new(console);
    session
        .set_run_ahead(args.run_ahead)
        .map_err(anyhow::Error::msg)?;
    if args.rewind {
        session.set_rewind(Some(session::rewind::DEFAULT_BUDGET));
    }
    let driver_used = args.ai.ai.is_some();
    if driver_used {
        let driver = Rc::new(RefCell::new(args.ai.driver()?));
        session.set_player(Box::new(AiPlayer::new(driver)), true);
    }
    if let Some(movie) = &args.movie {
        let movies = Movies::open(Some(movie), None, "bench", session.console())?;
        session.set_movies(movies);
    }
    if !args.lua.is_empty() {
        let quiet: lua::Output = Rc::new(|stream, text: &str| {
            if stream == lua::Stream::Err {
                eprintln!("{text}");
            }
        });
        let mut scripts = lua::Scripts::with_output(crate::rom_bytes(&args.rom)?.1, &name, quiet);
        if crate::run::sandbox_in_config() {
            scripts.set_sandbox(session::files::data_dir());
        }
        for path in &args.lua {
            scripts
                .load(session.console_mut(), path)
                .map_err(anyhow::Error::msg)?;
        }
        session.set_scripts(scripts);
    }
    let progress = ProgressBar::new(args.warmup + args.frames).with_style(
        ProgressStyle::with_template("bench {bar:30} {pos}/{len} frames").expect("valid template"),
    );
    // The console's frame rate: the speed a player needs.
    let real_time = session.console().region().frame_rate();
    let mut seconds = 0.0;
    let frames = args.frames;
    testrom::contain_panics(|| {
        let mut run = |frames: u64| {
            for _ in 0..frames {
                session.frame();
                progress.inc(1);
            }
        };
        run(args.warmup);
        let start = Instant::now();
        run(args.frames);
        seconds = start.elapsed().as_secs_f64();
    })
    .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    progress.finish_and_clear();
    let fps = frames as f64 / seconds;
    // Frames the ring goes back, and its size in MiB.
    let ring = session
        .rewind_ring()
        .map(|ring| (ring.depth(), ring.bytes() as f64 / f64::from(1 << 20)));
    if args.json {
        let mut json = serde_json::json!({
            "rom": name,
            "frames": frames,
            "ai": args.ai.ai.as_ref().map(|_| args.ai.profile().unwrap_or("strong")),
            "warmup": args.warmup,
            "seconds": seconds,
            "fps": fps,
            "speed": fps / real_time,
            "fast_forward": !args.no_fast_forward,
        });
        if let Some((depth, mib)) = ring {
            json["rewind_frames"] = depth.into();
            json["rewind_mib"] = mib.into();
        }
        println!("{json}");
    } else {
        println!(
            "{name}{}{}: {frames} frames in {seconds:.3} s = {fps:.1} frames/s ({:.2}x real time)",
            if driver_used { ", AI playing" } else { "" },
            if args.no_fast_forward {
                ", no fast paths"
            } else {
                ""
            },
            fps / real_time
        );
        if let Some((depth, mib)) = ring {
            println!("rewind ring: {depth} frames in {mib:.2} MiB");
        }
    }
    Ok(ExitCode::SUCCESS)
}
