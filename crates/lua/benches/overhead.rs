//! Cost of a script that reads 200 bytes a frame, against the bare machine running the same
//! frames of the project's game (target: at most 10% more instructions), and of one that reads
//! a PPU register ($2002) 200 times a frame instead (target: within 10% of the RAM reads).
//!
//! `cargo bench -p lua` (add `-- bare`, `-- host`, `-- reads` or `-- ppu` to time one set-up
//! once, e.g. under `valgrind --tool=callgrind`).

use lua::Scripts;
use nes::Console;
use std::path::Path;
use std::time::{Duration, Instant};

const FRAMES: u32 = 600;
const ROUNDS: usize = 9;

fn rom() -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../roms/quadfall.nes");
    std::fs::read(path).expect("roms/quadfall.nes")
}

/// Time of `FRAMES` frames of one set-up.
fn round(rom: &[u8], script: Option<Option<&str>>) -> Duration {
    let mut console = Console::from_ines(rom).expect("rom");
    let Some(script) = script else {
        // The host's frames end where the PPU enters line 240: so do these, over the same
        // stretch of the game.
        let start = Instant::now();
        for _ in 0..FRAMES {
            console.run_frame();
        }
        return start.elapsed();
    };
    let mut scripts = Scripts::new(rom.to_vec(), "quadfall");
    if let Some(script) = script {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("benches")
            .join(script);
        scripts.load(&mut console, &path).expect("bench script");
    }
    let start = Instant::now();
    for _ in 0..FRAMES {
        scripts.run_frame(&mut console);
    }
    start.elapsed()
}

fn main() {
    let rom = rom();
    let setups = [
        ("bare", None),
        ("host", Some(None)),
        ("reads", Some(Some("read200.lua"))),
        ("ppu", Some(Some("ppu200.lua"))),
    ];
    if let Some((name, setup)) = std::env::args()
        .skip(1)
        .find_map(|arg| setups.iter().find(|(name, _)| *name == arg))
    {
        let time = round(&rom, *setup);
        println!(
            "{name}: {:.1} us/frame",
            time.as_secs_f64() * 1e6 / f64::from(FRAMES)
        );
        return;
    }
    // Rounds alternate between the set-ups so that load on the machine hits all of them alike;
    // each keeps its fastest round.
    let mut best = [Duration::MAX; 4];
    for _ in 0..ROUNDS {
        for ((_, setup), best) in setups.iter().zip(best.iter_mut()) {
            *best = (*best).min(round(&rom, *setup));
        }
    }
    let [bare, host, reads, ppu] = best;
    let per_frame = |d: Duration| d.as_secs_f64() * 1e6 / f64::from(FRAMES);
    let overhead = |d: Duration| (d.as_secs_f64() / bare.as_secs_f64() - 1.0) * 100.0;
    println!(
        "bare machine:              {:8.1} us/frame",
        per_frame(bare)
    );
    println!(
        "scripting host, no script: {:8.1} us/frame ({:+.1}%)",
        per_frame(host),
        overhead(host)
    );
    println!(
        "script reading 200 bytes:  {:8.1} us/frame ({:+.1}%)",
        per_frame(reads),
        overhead(reads)
    );
    println!(
        "script reading $2002 200x: {:8.1} us/frame ({:+.1}%)",
        per_frame(ppu),
        overhead(ppu)
    );
}
