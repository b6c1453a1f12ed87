//! The cancellations of blargg's `apu_mixer` listening tests, measured: a channel plays a
//! 998.7 Hz tone while timed $4011 writes play its inverse on the DMC's DAC, so that the mix is
//! flat if the mixer adds the channels as the hardware does. The residue's tone (the periodic
//! part of the output) must stay under 1 % of the tone the channel plays alone.
//!
//! The inverse levels come from the nesdev wiki's "APU Mixer" formulas, the measurements
//! blargg's own tables are rounded from. blargg writes whole DAC levels, which leaves a few
//! percent of quantisation hiss on hardware too; here a level between two steps is held by
//! switching between them every 56 cycles, at ultrasonic rates the resampler removes, so the
//! residue shows the mixer's error and not the rounding.

use nes::apu::{Apu, CPU_CLOCK_HZ};

/// The tone: $6F into a pulse period, 32 triangle steps of 56 cycles.
const PERIOD: u64 = 1792;
const HALF: u64 = PERIOD / 2;
/// Output samples per tone period: the sample rate is set so a period is a whole number of them.
const SAMPLES_PER_PERIOD: usize = 48;
/// The resampler's delay, in samples (half its kernel).
const RESAMPLER_DELAY: usize = 16;
/// Periods each level is held before the measured ones: the output filters settle.
const SETTLE_PERIODS: usize = 8;
/// The DAC switches between neighbouring levels within slices this long.
const DAC_SLICE: u64 = 56;

/// The hardware mix of the triangle, noise and DMC outputs (nesdev wiki, "APU Mixer").
fn tnd(triangle: f64, noise: f64, dmc: f64) -> f64 {
    let sum = triangle / 8227.0 + noise / 12241.0 + dmc / 22638.0;
    159.79 * sum / (1.0 + 100.0 * sum)
}

/// The hardware mix of the two pulses, by the sum of their outputs.
fn pulse(sum: f64) -> f64 {
    95.88 * sum / (8128.0 + 100.0 * sum)
}

/// The DAC level that brings the TND group to `level` beside the given triangle and noise.
fn dac_for(level: f64, triangle: f64, noise: f64) -> f64 {
    let sum = level / (159.79 - 100.0 * level);
    22638.0 * (sum - triangle / 8227.0 - noise / 12241.0)
}

/// An APU run cycle by cycle through timed register writes, as a 6502 program would.
struct Bench {
    apu: Apu,
    cycle: u64,
    samples: Vec<i16>,
    /// Play the inverse waveform on the DAC; without it, the DAC holds the level it has while
    /// the channel is at zero, and the channel's tone is heard alone.
    cancel: bool,
    /// Start cycle and length in periods of each level held.
    segments: Vec<(u64, usize)>,
}

impl Bench {
    /// A freshly powered APU, as the tests need it: the triangle holds 15 from power-on, which
    /// would turn the DMC and noise down, so (as blargg's shell does) it is run to the step
    /// that outputs 0 and stopped there, unless the triangle is the channel under test.
    fn new(cancel: bool, triangle_to_zero: bool) -> Bench {
        let mut apu = Apu::default();
        apu.set_sample_rate(CPU_CLOCK_HZ * SAMPLES_PER_PERIOD as f64 / PERIOD as f64);
        let mut bench = Bench {
            apu,
            cycle: 0,
            samples: Vec::new(),
            cancel,
            segments: Vec::new(),
        };
        if triangle_to_zero {
            start_triangle(&mut bench);
            // Step 16 (output 0) comes on the 16th move, 15 * 56 cycles after the first.
            bench.wait(15 * 56 + 28);
            bench.write(0x4015, 0x00);
        }
        bench
    }

    fn write(&mut self, addr: u16, val: u8) {
        self.apu.write_register(addr, val);
    }

    fn wait(&mut self, cycles: u64) {
        self.apu.run(cycles);
        self.cycle += cycles;
        self.apu.take_samples(&mut self.samples);
    }

    /// Holds the DAC at `level` for `cycles` from now: the inverse level, or `silent` (the
    /// level while the channel is at zero) when only the channel is to be heard.
    fn hold_dac(&mut self, level: f64, silent: f64, cycles: u64) {
        let level = if self.cancel { level } else { silent };
        // The formulas' rounding may put a level at an end a hair outside.
        assert!((-1e-9..=127.0 + 1e-9).contains(&level), "DAC level {level}");
        let level = level.clamp(0.0, 127.0);
        let low = level.floor();
        let high_cycles = ((level - low) * DAC_SLICE as f64).round() as u64;
        let mut left = cycles;
        while left > 0 {
            let slice = left.min(DAC_SLICE);
            let high = high_cycles.min(slice);
            self.write(0x4011, low as u8);
            self.wait(slice - high);
            if high > 0 {
                self.write(0x4011, low as u8 + 1);
                self.wait(high);
            }
            left -= slice;
        }
    }

    /// Marks the start of a level held for `periods` periods.
    fn segment(&mut self, periods: usize) {
        self.segments.push((self.cycle, periods));
    }

    /// The energy of the output's periodic part, summed over the measured periods of each
    /// segment: their average waveform, less its mean.
    fn tone_energy(&self) -> f64 {
        let mut energy = 0.0;
        for &(start, periods) in &self.segments {
            let first = (start as f64 * SAMPLES_PER_PERIOD as f64 / PERIOD as f64).round() as usize
                + RESAMPLER_DELAY
                + SETTLE_PERIODS * SAMPLES_PER_PERIOD;
            let measured = periods - SETTLE_PERIODS;
            let mut average = [0.0; SAMPLES_PER_PERIOD];
            for period in 0..measured {
                let at = first + period * SAMPLES_PER_PERIOD;
                for (sum, &sample) in average.iter_mut().zip(&self.samples[at..]) {
                    *sum += f64::from(sample) / measured as f64;
                }
            }
            let mean = average.iter().sum::<f64>() / SAMPLES_PER_PERIOD as f64;
            energy += average.iter().map(|x| (x - mean).powi(2)).sum::<f64>();
        }
        energy
    }
}

/// Runs a test both ways and checks that the residue's tone is under 1 % of the channel's
/// alone.
fn assert_cancels(channel: &str, triangle_to_zero: bool, play: impl Fn(&mut Bench)) {
    let mut runs = [true, false].map(|cancel| {
        let mut bench = Bench::new(cancel, triangle_to_zero);
        play(&mut bench);
        bench
    });
    // One more period so the last segment's samples are out of the resampler.
    for bench in &mut runs {
        bench.wait(PERIOD);
    }
    let [residue, alone] = runs.map(|bench| bench.tone_energy());
    let percent = 100.0 * (residue / alone).sqrt();
    eprintln!("{channel}: residue {percent:.2} % of the tone alone");
    assert!(percent < 1.0, "{channel}: residue {percent:.2} %");
}

/// Starts pulse 1 (and pulse 2 if `both`) at a 50 % duty and the tone's period, silent, with
/// the sweep off, and waits until the cycle before the first high half: the sequencer restarts
/// on the $4003 write and moves to its first high step on the next timer clock.
fn start_pulses(bench: &mut Bench, both: bool) {
    let channels: &[u16] = if both { &[0x4000, 0x4004] } else { &[0x4000] };
    bench.write(0x4015, if both { 0x03 } else { 0x01 });
    for &base in channels {
        bench.write(base, 0xB0);
        bench.write(base + 1, 0x7F);
        bench.write(base + 2, 0x6F);
        bench.write(base + 3, 0x00);
    }
    // The timer, at period 0 until now, next clocks on the coming get cycle.
    if !bench.apu.next_cycle_is_get() {
        bench.wait(1);
    }
}

/// One tone period of the pulses: DAC at `high` while they are high, `low` after.
fn pulse_period(bench: &mut Bench, high: f64, low: f64) {
    bench.hold_dac(high, low, HALF);
    bench.hold_dac(low, low, HALF);
}

#[test]
fn square_cancels_against_the_dac() {
    // Both pulses in every total from 1 to 30, split two ways (one full, or even): the pulse
    // DACs' non-linearity, one pulse's effect on the other, and that the pulse group's
    // non-linearity is apart from the DMC's. The DAC sits at 127 while the pulses are low.
    assert_cancels("square", true, |bench| {
        start_pulses(bench, true);
        for total in 1..=30u8 {
            let full = total.min(15);
            for (pulse1, pulse2) in [(full, total - full), (total - total / 2, total / 2)] {
                bench.segment(16);
                bench.write(0x4000, 0xB0 | pulse1);
                bench.write(0x4004, 0xB0 | pulse2);
                let high = dac_for(tnd(0.0, 0.0, 127.0) - pulse(f64::from(total)), 0.0, 0.0);
                for _ in 0..16 {
                    pulse_period(bench, high, 127.0);
                }
            }
        }
    });
}

#[test]
fn dmc_dac_cancels_a_square() {
    // Pulse 1 at full volume over the DAC's range: the DAC's non-linearity. While the pulse is
    // high the DAC is at `base`; while it is low, at the level giving the same output.
    assert_cancels("DMC", true, |bench| {
        start_pulses(bench, false);
        bench.write(0x4000, 0xBF);
        for base in (0..=80).step_by(2) {
            bench.segment(16);
            let low = dac_for(pulse(15.0) + tnd(0.0, 0.0, f64::from(base)), 0.0, 0.0);
            for _ in 0..16 {
                pulse_period(bench, f64::from(base), low);
            }
        }
    });
}

/// Starts the triangle from power-on at the tone's period: its sequencer moves from its first
/// step on the next cycle, and every 56 cycles after.
fn start_triangle(bench: &mut Bench) {
    // The linear counter loads (and keeps loading) at the next quarter frame; with the length
    // counter still 0 the sequencer holds its first step.
    bench.write(0x4008, 0xFF);
    bench.write(0x400B, 0x00);
    bench.wait(20_000);
    // The timer has been clocking at period 0, so it expires on the next cycle.
    bench.write(0x4015, 0x04);
    bench.write(0x400A, 0x37);
    bench.write(0x400B, 0x00);
}

/// The triangle's 32-step sequence.
fn triangle_output(step: u64) -> f64 {
    let step = step % 32;
    (if step < 16 { 15 - step } else { step - 16 }) as f64
}

#[test]
fn triangle_cancels_against_the_dac() {
    // The triangle against its inverse, with the DAC's base level rising: the triangle's
    // weight against the DMC and the DAC's attenuation of it.
    assert_cancels("triangle", false, |bench| {
        start_triangle(bench);
        let mut step = 1;
        for base in (0..=85).step_by(5) {
            bench.segment(16);
            let level = tnd(15.0, 0.0, f64::from(base));
            let silent = dac_for(level, 0.0, 0.0);
            for _ in 0..16 * 32 {
                let dac = dac_for(level, triangle_output(step), 0.0);
                bench.hold_dac(dac, silent, PERIOD / 32);
                step += 1;
            }
        }
    });
}

/// The DAC level under noise of `volume` that gives the same mean output as `base` alone: the
/// noise at its shortest period is on half the time.
fn dac_under_noise(volume: f64, base: f64) -> f64 {
    let target = tnd(0.0, 0.0, base);
    let mean = |dac| (tnd(0.0, volume, dac) + tnd(0.0, 0.0, dac)) / 2.0;
    let (mut below, mut above) = (0.0, base);
    for _ in 0..50 {
        let mid = (below + above) / 2.0;
        if mean(mid) < target {
            below = mid;
        } else {
            above = mid;
        }
    }
    below
}

#[test]
fn noise_cancels_against_the_dac() {
    // Noise at its shortest period is a hiss; keyed on and off each half period it makes a
    // tone, cancelled by the DAC: the noise's weight against the DMC, and the DAC's
    // attenuation of it. The hiss itself stays, and is not periodic: many periods average it
    // out of the measured tone.
    const PERIODS: usize = 4000;
    assert_cancels("noise", true, |bench| {
        bench.write(0x4015, 0x08);
        bench.write(0x400E, 0x00);
        bench.write(0x400F, 0x00);
        for (volume, base) in [(15u8, 20.0), (15, 60.0), (15, 110.0), (8, 40.0), (4, 80.0)] {
            bench.segment(PERIODS);
            let on = dac_under_noise(f64::from(volume), base);
            for _ in 0..PERIODS {
                bench.write(0x400C, 0x30 | volume);
                bench.hold_dac(on, base, HALF);
                bench.write(0x400C, 0x30);
                bench.hold_dac(base, base, HALF);
            }
        }
    });
}
