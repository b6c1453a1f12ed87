//! blargg's `apu_mixer` ROMs themselves (square, triangle, noise, dmc), rendered through the
//! console: each plays a channel at a 998.7 Hz tone while its timed $4011 writes play the
//! inverse on the DMC's DAC, between two beeps. The residue's tone (the periodic part of the
//! output between the beeps) is measured against the tone of the same ROM with its
//! `STA $4011` instructions turned into `BIT $4011` (same timing, no write): the channel with
//! the DAC held where the shell left it.
//!
//! The ROMs write whole DAC levels from tables rounded off the nesdev wiki's mixer formulas, so
//! some residue remains even on hardware; the limits sit above what the formulas leave and
//! below what the wiki's 203-entry TND table left (triangle 14.2 %, noise 16.8 %, DMC 2.6 %).
//! The ROMs are not part of the test-ROM folder's manifest, so the test is ignored unless asked
//! for: put blargg's `apu_mixer/` folder (his layout in nes-test-roms) in a test-ROM folder and
//! run `NESTOR_TEST_ROMS=<folder> cargo test --release -p nes --test apu_mixer_roms --
//! --ignored`. Asked for, a missing ROM fails it.

use nes::apu::CPU_CLOCK_HZ;
use nes::Console;

/// Output samples per tone period (1792 CPU cycles): the sample rate is set to make it whole.
const SAMPLES_PER_PERIOD: usize = 48;
/// Tone periods per measured window.
const WINDOW_PERIODS: usize = 100;
/// Beyond this RMS a window belongs to a beep.
const BEEP_RMS: f64 = 500.0;

/// Per window of the ROM's output until it reports its end: the RMS of its periodic part (the
/// window's average period, less its mean) and its overall RMS.
fn render(rom: &[u8]) -> Vec<(f64, f64)> {
    let mut console = Console::from_ines(rom).expect("valid iNES image");
    console.set_sample_rate(CPU_CLOCK_HZ * SAMPLES_PER_PERIOD as f64 / 1792.0);
    let mut samples = Vec::new();
    for _ in 0..60 * 60 {
        console.run_frame();
        console.take_samples(&mut samples);
        let signature = [0x6001, 0x6002, 0x6003].map(|a| console.peek(a));
        if signature == [0xDE, 0xB0, 0x61] && console.peek(0x6000) < 0x80 {
            break;
        }
    }
    let len = SAMPLES_PER_PERIOD * WINDOW_PERIODS;
    samples
        .chunks_exact(len)
        .map(|window| {
            let mean = window.iter().map(|&s| f64::from(s)).sum::<f64>() / len as f64;
            let mut period = [0.0; SAMPLES_PER_PERIOD];
            let mut energy = 0.0;
            for (i, &s) in window.iter().enumerate() {
                let s = f64::from(s) - mean;
                period[i % SAMPLES_PER_PERIOD] += s / WINDOW_PERIODS as f64;
                energy += s * s;
            }
            let tone = period.iter().map(|x| x * x).sum::<f64>() / SAMPLES_PER_PERIOD as f64;
            (tone.sqrt(), (energy / len as f64).sqrt())
        })
        .collect()
}

/// The residue's tone between the beeps, as a fraction of the channel's tone alone.
fn residue(rom: &[u8]) -> f64 {
    let mut alone = rom.to_vec();
    for i in 16..alone.len() - 2 {
        if alone[i..i + 3] == [0x8D, 0x11, 0x40] {
            alone[i] = 0x2C;
        }
    }
    let (cancelled, alone) = (render(rom), render(&alone));
    let beeps: Vec<usize> = (0..cancelled.len())
        .filter(|&i| cancelled[i].1 > BEEP_RMS)
        .collect();
    // From a little after the first beep's end to a little before the second's start.
    let first_end = beeps
        .iter()
        .copied()
        .find(|i| !beeps.contains(&(i + 1)))
        .expect("a first beep");
    let second = *beeps.last().expect("a second beep");
    assert!(second > first_end + 20, "beeps at {beeps:?}");
    let section = first_end + 3..(second - 6).min(alone.len());
    let energy = |windows: &[(f64, f64)]| -> f64 {
        windows[section.clone()].iter().map(|w| w.0 * w.0).sum()
    };
    (energy(&cancelled) / energy(&alone)).sqrt()
}

#[test]
#[ignore = "needs blargg's apu_mixer ROMs, which the test-ROM folder does not have"]
fn apu_mixer_roms_are_near_silent_between_the_beeps() {
    for (name, limit) in [
        ("square", 0.03),
        ("triangle", 0.05),
        ("noise", 0.12),
        ("dmc", 0.022),
    ] {
        let path = testrom::location::path(&format!("apu_mixer/{name}.nes"));
        let rom = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (see this file's header)", path.display()));
        let residue = residue(&rom);
        println!("apu_mixer/{name}: residue {:.2}%", 100.0 * residue);
        assert!(
            residue < limit,
            "apu_mixer/{name}: residue {:.2}% of the tone, limit {:.1}%",
            100.0 * residue,
            100.0 * limit
        );
    }
}
