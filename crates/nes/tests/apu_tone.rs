//! The sound of known tones, end to end: a tiny ROM written here sets up one APU channel
//! through its registers, the console runs it, and the samples it hands out are measured.
//! The pitch must be right within 0.5 %, nothing may clip, and no aliasing may show: every
//! component away from the tone's harmonics must stay 60 dB under the strongest one.

use nes::apu::{CPU_CLOCK_HZ, DEFAULT_SAMPLE_RATE};
use nes::Console;

/// An NROM image whose reset code stores `writes` and then spins forever.
fn tone_rom(writes: &[(u16, u8)]) -> Vec<u8> {
    let mut code = vec![0x78]; // SEI
    for &(addr, val) in writes {
        let [lo, hi] = addr.to_le_bytes();
        code.extend_from_slice(&[0xA9, val, 0x8D, lo, hi]); // LDA #val; STA addr
    }
    let spin = 0x8000 + code.len() as u16;
    let [lo, hi] = spin.to_le_bytes();
    code.extend_from_slice(&[0x4C, lo, hi]); // JMP spin
    let mut prg = vec![0xEA; 0x8000];
    prg[..code.len()].copy_from_slice(&code);
    // NMI and IRQ land on the spin loop too; reset starts the code at $8000.
    prg[0x7FFA..].copy_from_slice(&[lo, hi, 0x00, 0x80, lo, hi]);
    let mut rom = b"NES\x1A\x02\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00".to_vec();
    rom.extend_from_slice(&prg);
    rom.extend_from_slice(&[0; 0x2000]);
    rom
}

/// Runs the ROM for `seconds` and returns its 48 kHz output.
fn record(writes: &[(u16, u8)], seconds: f64) -> Vec<i16> {
    let mut console = Console::from_ines(&tone_rom(writes)).expect("valid ROM");
    let mut samples = Vec::new();
    while (samples.len() as f64) < seconds * DEFAULT_SAMPLE_RATE {
        console.run_frame();
        console.take_samples(&mut samples);
    }
    samples
}

/// Magnitude spectrum (Blackman-Harris window) of the first `n` samples, n a power of two.
fn spectrum(samples: &[i16], n: usize) -> Vec<f64> {
    use std::f64::consts::PI;
    let mut re: Vec<f64> = samples[..n]
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let x = 2.0 * PI * i as f64 / n as f64;
            let w =
                0.35875 - 0.48829 * x.cos() + 0.14128 * (2.0 * x).cos() - 0.01168 * (3.0 * x).cos();
            f64::from(s) * w
        })
        .collect();
    let mut im = vec![0.0; n];
    // Iterative radix-2 FFT.
    let bits = n.trailing_zeros();
    for i in 0..n {
        let j = i.reverse_bits() >> (usize::BITS - bits);
        if j > i {
            re.swap(i, j);
        }
    }
    let mut len = 2;
    while len <= n {
        let angle = -2.0 * PI / len as f64;
        for start in (0..n).step_by(len) {
            for k in 0..len / 2 {
                let (wr, wi) = ((angle * k as f64).cos(), (angle * k as f64).sin());
                let (a, b) = (start + k, start + k + len / 2);
                let tr = re[b] * wr - im[b] * wi;
                let ti = re[b] * wi + im[b] * wr;
                re[b] = re[a] - tr;
                im[b] = im[a] - ti;
                re[a] += tr;
                im[a] += ti;
            }
        }
        len <<= 1;
    }
    (0..n / 2).map(|k| re[k].hypot(im[k])).collect()
}

struct ToneReport {
    peak_hz: f64,
    /// Strongest component away from the harmonics of the expected tone, relative to the
    /// strongest component, in dB.
    worst_spur_db: f64,
    loudest_sample: i16,
}

fn analyse(samples: &[i16], expected_hz: f64) -> ToneReport {
    const N: usize = 1 << 15;
    // Skip 0.1 s while the register writes land and the high-pass filters settle.
    let settled = &samples[4800..];
    let mags = spectrum(settled, N);
    let bin_hz = DEFAULT_SAMPLE_RATE / N as f64;
    let peak = (1..mags.len())
        .max_by(|&a, &b| mags[a].total_cmp(&mags[b]))
        .unwrap();
    // Parabolic interpolation of the peak on the log magnitudes.
    let (l, c, r) = (mags[peak - 1].ln(), mags[peak].ln(), mags[peak + 1].ln());
    let offset = 0.5 * (l - r) / (l - 2.0 * c + r);
    let near_harmonic = |k: usize| {
        let f = k as f64 * bin_hz;
        let h = (f / expected_hz).round();
        h >= 1.0 && (f - h * expected_hz).abs() < 8.0 * bin_hz
    };
    // Spurs are looked for up to 20 kHz, where the console's own low-pass takes over.
    let top = (20_000.0 / bin_hz) as usize;
    let worst_spur = (10..top)
        .filter(|&k| !near_harmonic(k))
        .map(|k| mags[k])
        .fold(0.0, f64::max);
    ToneReport {
        peak_hz: (peak as f64 + offset) * bin_hz,
        worst_spur_db: 20.0 * (worst_spur / mags[peak]).log10(),
        loudest_sample: settled.iter().map(|s| s.saturating_abs()).max().unwrap(),
    }
}

fn check_tone(report: &ToneReport, expected_hz: f64) {
    assert!(
        (report.peak_hz / expected_hz - 1.0).abs() < 0.005,
        "peak at {:.2} Hz, expected {expected_hz:.2} Hz",
        report.peak_hz
    );
    assert!(
        report.worst_spur_db < -60.0,
        "aliasing or noise at {:.1} dB",
        report.worst_spur_db
    );
    assert!(
        report.loudest_sample < i16::MAX,
        "the output clips ({})",
        report.loudest_sample
    );
    assert!(
        report.loudest_sample > 1000,
        "hardly audible ({})",
        report.loudest_sample
    );
}

#[test]
fn pulse_plays_its_pitch_without_aliasing() {
    // Period 100: 1789773 / (16 * 101) = 1107.5 Hz. 48000 / 1107.5 is not a whole number, so
    // harmonics past 24 kHz that folded back would land between the tone's own harmonics.
    let samples = record(
        &[
            (0x4015, 0x01),
            (0x4000, 0xBF), // duty 50 %, length halted, constant volume 15
            (0x4002, 100),
            (0x4003, 0x00),
        ],
        1.0,
    );
    check_tone(
        &analyse(&samples, CPU_CLOCK_HZ / (16.0 * 101.0)),
        CPU_CLOCK_HZ / (16.0 * 101.0),
    );
}

#[test]
fn triangle_plays_its_pitch_without_aliasing() {
    // Period 100: 1789773 / (32 * 101) = 553.8 Hz.
    let samples = record(
        &[
            (0x4015, 0x04),
            (0x4008, 0xFF), // control set, linear counter 127: plays on
            (0x400A, 100),
            (0x400B, 0x00),
        ],
        1.0,
    );
    check_tone(
        &analyse(&samples, CPU_CLOCK_HZ / (32.0 * 101.0)),
        CPU_CLOCK_HZ / (32.0 * 101.0),
    );
}

#[test]
fn loudest_mix_does_not_clip() {
    // Every channel at full volume, low pitches (the high-pass filters swing furthest), the
    // DMC level at its top.
    let samples = record(
        &[
            (0x4015, 0x0F),
            (0x4011, 0x7F),
            (0x4000, 0xBF),
            (0x4002, 0xFF),
            (0x4003, 0x07),
            (0x4004, 0xBF),
            (0x4006, 0xFF),
            (0x4007, 0x07),
            (0x4008, 0xFF),
            (0x400A, 0xFF),
            (0x400B, 0x07),
            (0x400C, 0x3F),
            (0x400E, 0x0F),
            (0x400F, 0x00),
        ],
        1.0,
    );
    let loudest = samples.iter().map(|s| s.saturating_abs()).max().unwrap();
    assert!(loudest < i16::MAX, "clips");
    assert!(loudest > 8000, "too quiet: {loudest}");
}
