//! `nestor soak`: the AI plays Quadfall for a long run (a million frames by default) to show
//! that speed holds and memory stays flat: frames per second and resident memory after the
//! warm-up and at the end, with the live heap bytes counted by the binary's allocator (RSS
//! also holds pages the allocator keeps, the heap count says what the program still uses).
//! Exits 1 if memory grew by 1 MiB or more.

use crate::ai_play::{AiArgs, AiPlayer};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use session::Session;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::RefCell;
use std::process::ExitCode;
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

/// The system allocator, counting the bytes allocated and not yet freed.
struct Counting;

static HEAP_BYTES: AtomicUsize = AtomicUsize::new(0);

#[global_allocator]
static ALLOCATOR: Counting = Counting;

// SAFETY: every call is passed on to `System` unchanged; only the counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            HEAP_BYTES.fetch_add(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            HEAP_BYTES.fetch_add(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        HEAP_BYTES.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, new_size) };
        if !q.is_null() {
            HEAP_BYTES.fetch_add(new_size, Relaxed);
            HEAP_BYTES.fetch_sub(layout.size(), Relaxed);
        }
        q
    }
}

fn heap_kib() -> u64 {
    HEAP_BYTES.load(Relaxed) as u64 / 1024
}

/// Growth past this after warm-up counts as a leak.
const FLAT_LIMIT_KIB: u64 = 1024;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    ai: AiArgs,
    /// Frames to run after the warm-up.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    frames: u64,
    /// Frames run before the first memory reading (boot, menus, the first games).
    #[arg(long, default_value_t = 3600)]
    warmup: u64,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Resident set size in KiB (VmRSS of /proc/self/status: statm's resident pages, in KiB).
fn resident_kib() -> anyhow::Result<u64> {
    let status =
        std::fs::read_to_string("/proc/self/status").context("cannot read /proc/self/status")?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .context("no VmRSS line in /proc/self/status")
}

/// CPU time used by this process in seconds: utime + stime of /proc/self/stat, in the kernel's
/// 100 Hz clock ticks. On a busy machine it shows the speed the wall clock hides.
fn cpu_seconds() -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").context("cannot read /proc/self/stat")?;
    // Fields after the command name, which ends with the last ')': state is field 3, utime 14.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |field: usize| fields.get(field - 3).and_then(|f| f.parse::<u64>().ok());
    match (ticks(14), ticks(15)) {
        (Some(user), Some(system)) => Ok((user + system) as f64 / 100.0),
        _ => anyhow::bail!("unexpected /proc/self/stat"),
    }
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let driver = Rc::new(RefCell::new(args.ai.driver()?));
    let mut session = Session::new(nes::Console::from_ines(crate::GAME_ROM)?);
    session.set_player(Box::new(AiPlayer::new(driver.clone())), true);
    let progress = ProgressBar::new(args.warmup + args.frames).with_style(
        ProgressStyle::with_template("soak {bar:30} {pos}/{len} frames {msg}")
            .expect("valid template"),
    );
    // The session takes the sound every frame, as for a front end.
    let mut frame = || {
        session.frame();
        progress.inc(1);
    };
    let (mut start_kib, mut peak_kib, mut heap_start_kib) = (0, 0, 0);
    let (mut seconds, mut cpu) = (0.0, 0.0);
    testrom::contain_panics(|| -> anyhow::Result<()> {
        for _ in 0..args.warmup {
            frame();
        }
        start_kib = resident_kib()?;
        heap_start_kib = heap_kib();
        peak_kib = start_kib;
        let start = Instant::now();
        let cpu_start = cpu_seconds()?;
        for done in 1..=args.frames {
            frame();
            if done.is_multiple_of(10_000) {
                let now = resident_kib()?;
                peak_kib = peak_kib.max(now);
                let fps = done as f64 / start.elapsed().as_secs_f64();
                progress.set_message(format!(
                    "{fps:.0} frames/s, {:.1} MiB resident, {:.1} MiB heap",
                    mib(now),
                    mib(heap_kib())
                ));
            }
        }
        seconds = start.elapsed().as_secs_f64();
        cpu = cpu_seconds()? - cpu_start;
        Ok(())
    })
    .map_err(|e| anyhow::anyhow!("quadfall.nes: {e}"))??;
    progress.finish_and_clear();
    let end_kib = resident_kib()?;
    let heap_end_kib = heap_kib();
    let peak_kib = peak_kib.max(end_kib);
    let growth_kib = end_kib.saturating_sub(start_kib);
    let flat = growth_kib < FLAT_LIMIT_KIB;
    let fps = args.frames as f64 / seconds;
    let cpu_fps = args.frames as f64 / cpu;
    let stats = &driver.borrow().stats;
    if args.json {
        let json = serde_json::json!({
            "frames": args.frames,
            "warmup": args.warmup,
            "seconds": seconds,
            "fps": fps,
            "cpu_seconds": cpu,
            "cpu_fps": cpu_fps,
            "rss_start_kib": start_kib,
            "rss_end_kib": end_kib,
            "rss_peak_kib": peak_kib,
            "rss_growth_kib": growth_kib,
            "heap_start_kib": heap_start_kib,
            "heap_end_kib": heap_end_kib,
            "flat": flat,
            "games": stats.games,
            "lines": stats.lines,
            "pieces": stats.pieces,
        });
        println!("{json}");
    } else {
        println!(
            "soak: {} frames in {seconds:.1} s = {fps:.1} frames/s ({cpu_fps:.1} frames/s of CPU \
             time); resident memory {:.2} MiB \
             after warm-up, {:.2} MiB at the end (peak {:.2} MiB, growth {growth_kib} KiB: {}); \
             heap {:.2} -> {:.2} MiB; AI: {} games, {} pieces",
            args.frames,
            mib(start_kib),
            mib(end_kib),
            mib(peak_kib),
            if flat { "flat" } else { "NOT flat" },
            mib(heap_start_kib),
            mib(heap_end_kib),
            stats.games,
            stats.pieces,
        );
    }
    Ok(if flat {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
