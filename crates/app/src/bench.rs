//! `nestor bench`: emulation speed, headless. Warm-up frames first, then timed frames. With
//! `--ai` the native AI plays (its searches are timed too), as when `nestor` runs Quadfall.

use crate::ai_play::AiArgs;
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
    #[command(flatten)]
    ai: AiArgs,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(args.frames > 0, "--frames must be at least 1");
    let (name, mut console) = load_console(&args.rom)?;
    let driver_used = args.ai.ai.is_some();
    let mut driver = match args.ai.ai {
        Some(_) => Some(args.ai.driver()?),
        None => None,
    };
    let progress = ProgressBar::new(args.warmup + args.frames).with_style(
        ProgressStyle::with_template("bench {bar:30} {pos}/{len} frames").expect("valid template"),
    );
    let mut seconds = 0.0;
    let mut frames = 0;
    testrom::contain_panics(|| {
        let first = console.bus.ppu.frame;
        // The AI runs the game a game frame at a time, which is not always one PPU frame:
        // frames are counted by the PPU.
        let mut run_until = |frame: u64| {
            while console.bus.ppu.frame < frame {
                match &mut driver {
                    Some(driver) => driver.step(&mut console),
                    None => console.run_frame(),
                }
                progress.set_position(console.bus.ppu.frame - first);
            }
            console.bus.ppu.frame
        };
        let start_frame = run_until(first + args.warmup);
        let start = Instant::now();
        frames = run_until(start_frame + args.frames) - start_frame;
        seconds = start.elapsed().as_secs_f64();
    })
    .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    progress.finish_and_clear();
    let fps = frames as f64 / seconds;
    if args.json {
        let json = serde_json::json!({
            "rom": name,
            "frames": frames,
            "ai": args.ai.ai,
            "warmup": args.warmup,
            "seconds": seconds,
            "fps": fps,
            "speed": fps / REAL_TIME_FPS,
        });
        println!("{json}");
    } else {
        println!(
            "{name}{}: {frames} frames in {seconds:.3} s = {fps:.1} frames/s ({:.2}x real time)",
            if driver_used { ", AI playing" } else { "" },
            fps / REAL_TIME_FPS
        );
    }
    Ok(ExitCode::SUCCESS)
}
