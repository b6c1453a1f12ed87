//! Band-limited resampling from the CPU clock to the host's sample rate.
//!
//! The mixed APU level is a step function of CPU cycles. Each change is added as a windowed-sinc
//! impulse (a band-limited step's derivative) at its exact fractional position in the output
//! stream, so nothing above the output's Nyquist frequency folds back as aliasing; summing the
//! impulses gives the output samples. This is the idea of Shay Green's blip_buf.

use crate::state::{fields, Field, StateIo};
use std::sync::OnceLock;

/// Output samples each step is spread over (also the latency, in samples, is half of this).
const TAPS: usize = 32;
/// Sub-sample positions a step can take.
const PHASES: usize = 128;
/// Low-pass cutoff as a fraction of the output rate: the Blackman window's transition band
/// (about 5.5 / TAPS wide) then ends at the Nyquist frequency.
const CUTOFF: f64 = 0.41;
/// Fractional bits of sample positions.
const FRAC_BITS: u32 = 32;

type Kernel = [[f32; TAPS]; PHASES];

/// One impulse per phase, each row summing to exactly 1 so steps keep their height.
fn kernel() -> &'static Kernel {
    static KERNEL: OnceLock<Box<Kernel>> = OnceLock::new();
    KERNEL.get_or_init(|| {
        let mut kernel = Box::new([[0.0; TAPS]; PHASES]);
        let half = (TAPS / 2) as f64;
        for (phase, row) in kernel.iter_mut().enumerate() {
            let frac = phase as f64 / PHASES as f64;
            let taps: Vec<f64> = (0..TAPS)
                .map(|i| {
                    let t = i as f64 - half - frac;
                    let x = std::f64::consts::PI * 2.0 * CUTOFF * t;
                    let sinc = if x == 0.0 { 1.0 } else { x.sin() / x };
                    let w = std::f64::consts::PI * t / half;
                    let blackman = 0.42 + 0.5 * w.cos() + 0.08 * (2.0 * w).cos();
                    if t.abs() >= half {
                        0.0
                    } else {
                        sinc * blackman
                    }
                })
                .collect();
            let sum: f64 = taps.iter().sum();
            for (out, tap) in row.iter_mut().zip(&taps) {
                *out = (tap / sum) as f32;
            }
        }
        kernel
    })
}

#[derive(Clone)]
pub struct Resampler {
    clock_rate: f64,
    sample_rate: f64,
    /// Output samples per CPU cycle, fixed point.
    step: u64,
    /// The current cycle's position in output samples after `deltas[0]`, fixed point.
    pos: u64,
    /// Level changes spread over output samples, summed when the samples are taken.
    deltas: Vec<f32>,
    /// The input level at `pos`.
    level: f32,
    /// The output level before `deltas[0]`.
    sum: f32,
}

/// The sample rate is the host's setting, not the machine's: a loaded state keeps the current one.
impl Field for Resampler {
    fn visit(&mut self, io: &mut StateIo) {
        let Resampler {
            clock_rate: _,
            sample_rate: _,
            step: _,
            pos,
            deltas,
            level,
            sum,
        } = self;
        fields!(io, deltas, level, sum);
        io.counter(pos, "resampler position");
    }
}

impl Resampler {
    pub fn new(clock_rate: f64, sample_rate: f64) -> Resampler {
        let mut resampler = Resampler {
            clock_rate,
            sample_rate,
            step: 0,
            pos: 0,
            deltas: vec![0.0; TAPS],
            level: 0.0,
            sum: 0.0,
        };
        resampler.set_sample_rate(sample_rate);
        resampler
    }

    pub fn sample_rate(&self) -> f64 {
        self.sample_rate
    }

    /// May change every frame (dynamic rate control); the kernel is in output-sample units,
    /// so only the step changes.
    pub fn set_sample_rate(&mut self, sample_rate: f64) {
        self.sample_rate = sample_rate;
        self.step = (sample_rate / self.clock_rate * (1u64 << FRAC_BITS) as f64).round() as u64;
    }

    /// The input level during the current cycle.
    #[inline]
    pub fn set_level(&mut self, level: f32) {
        if level != self.level {
            self.add_step(level);
        }
    }

    fn add_step(&mut self, level: f32) {
        let delta = level - self.level;
        self.level = level;
        let mut index = (self.pos >> FRAC_BITS) as usize;
        if index > self.sample_rate as usize {
            // Nobody has taken the output for a second: drop it.
            self.take_samples(|_| {});
            index = 0;
        }
        let phase = (self.pos >> (FRAC_BITS - PHASES.trailing_zeros())) as usize & (PHASES - 1);
        if self.deltas.len() < index + TAPS {
            self.deltas.resize(index + TAPS, 0.0);
        }
        for (out, tap) in self.deltas[index..index + TAPS]
            .iter_mut()
            .zip(&kernel()[phase])
        {
            *out += delta * tap;
        }
    }

    /// Moves on by `cycles` CPU cycles, over which the level holds.
    #[inline]
    pub fn advance(&mut self, cycles: u64) {
        self.pos += self.step * cycles;
    }

    /// Hands out every finished sample (all those before the current cycle), at most the last
    /// second of them.
    pub fn take_samples(&mut self, mut emit: impl FnMut(f32)) {
        let mut count = (self.pos >> FRAC_BITS) as usize;
        let keep = self.sample_rate as usize;
        if count > keep {
            let dropped = (count - keep).min(self.deltas.len());
            self.sum += self.deltas.drain(..dropped).sum::<f32>();
            self.pos -= ((count - keep) as u64) << FRAC_BITS;
            count = keep;
        }
        if self.deltas.len() < count + TAPS {
            self.deltas.resize(count + TAPS, 0.0);
        }
        for delta in &self.deltas[..count] {
            self.sum += delta;
            emit(self.sum);
        }
        self.deltas.drain(..count);
        self.pos -= (count as u64) << FRAC_BITS;
    }
}
