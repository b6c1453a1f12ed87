//! `nestor bench`: emulation speed, headless. Warm-up frames first, then timed frames.

use crate::{load_console, RomArg};
use indicatif::{ProgressBar, ProgressStyle};
use std::process::ExitCode;
use std::time::Instant;

/// NTSC frame rate: the speed a player needs.
const REAL_TIME_FPS: f64 = 60.0988;

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
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(args.frames > 0, "--frames must be at least 1");
    let (name, mut console) = load_console(&args.rom)?;
    let progress = ProgressBar::new(args.warmup + args.frames).with_style(
        ProgressStyle::with_template("bench {bar:30} {pos}/{len} frames").expect("valid template"),
    );
    let mut seconds = 0.0;
    testrom::contain_panics(|| {
        for _ in 0..args.warmup {
            console.run_frame();
            progress.inc(1);
        }
        let start = Instant::now();
        for _ in 0..args.frames {
            console.run_frame();
            progress.inc(1);
        }
        seconds = start.elapsed().as_secs_f64();
    })
    .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    progress.finish_and_clear();
    let fps = args.frames as f64 / seconds;
    if args.json {
        let json = serde_json::json!({
            "rom": name,
            "frames": args.frames,
            "warmup": args.warmup,
            "seconds": seconds,
            "fps": fps,
            "speed": fps / REAL_TIME_FPS,
        });
        println!("{json}");
    } else {
        println!(
            "{name}: {} frames in {seconds:.3} s = {fps:.1} frames/s ({:.2}x real time)",
            args.frames,
            fps / REAL_TIME_FPS
        );
    }
    Ok(ExitCode::SUCCESS)
}
