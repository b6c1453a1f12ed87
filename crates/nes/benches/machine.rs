//! Emulation speed: whole frames of the project's game (its title's demo) and of shared test
//! ROMs (nestest's menu and the busy and MMC3 workloads of docs/speed.md's table against
//! TetaNES and FCEUX), measured once the ROM is past its boot.
//!
//! `cargo bench -p nes` (the shared ROMs are skipped, with a note, where the test ROMs are absent)

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nes::{Buttons, Console};
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
        (
            "accuracycoin_tests",
            shared.join("AccuracyCoin/AccuracyCoin.nes"),
        ),
        ("ppu_vbl_nmi", shared.join("ppu_vbl_nmi/ppu_vbl_nmi.nes")),
        ("oam_stress", shared.join("oam_stress/oam_stress.nes")),
        (
            "holy_diver_batman_m4_mmc3",
            shared.join("holydiverbatman/testroms/M4_P256K_C256K.nes"),
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
        for frame in 0..WARMUP {
            if name == "accuracycoin_tests" {
                // Start on frames 60-61 sets AccuracyCoin running all its tests.
                let start = (60..62).contains(&frame);
                console.set_buttons(0, Buttons(if start { Buttons::START } else { 0 }));
            }
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
