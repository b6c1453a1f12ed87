//! Emulation speed: whole frames of the project's game (its title's demo) and of shared test
//! ROMs (nestest's menu, two test ROMs at work), measured once the ROM is past its boot.
//!
//! `cargo bench -p nes` (the shared ROMs are skipped, with a note, where the test ROMs are absent)

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nes::Console;
use std::path::Path;

/// Frames per measured iteration.
const FRAMES: u64 = 10;
/// Frames run before measuring: Quadfall reaches its title's demo, the test ROMs their tests.
const WARMUP: u64 = 600;

fn roms() -> Vec<(&'static str, std::path::PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // Where there is no test-ROM folder the paths don't exist, and their ROMs are skipped.
    let shared = testrom::location::dir().unwrap_or_default();
    vec![
        ("quadfall_demo", root.join("roms/quadfall.nes")),
        ("nestest_menu", shared.join("nestest/nestest.nes")),
        ("all_instrs", shared.join("instr_test-v5/all_instrs.nes")),
        (
            "ppu_sprite_hit",
            shared.join("ppu_sprite_hit/ppu_sprite_hit.nes"),
        ),
    ]
}

fn frames(c: &mut Criterion) {
    let mut group = c.benchmark_group("machine");
    group.throughput(Throughput::Elements(FRAMES));
    for (name, path) in roms() {
        let Ok(rom) = std::fs::read(&path) else {
            eprintln!("{name}: {} not found, skipped", path.display());
            continue;
        };
        let mut console = Console::from_ines(&rom).expect("a ROM the machine runs");
        for _ in 0..WARMUP {
            console.run_frame();
        }
        group.bench_function(name, |b| {
            b.iter(|| {
                for _ in 0..FRAMES {
                    console.run_frame();
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, frames);
criterion_main!(benches);
