//! The console's analogue output stage: two first-order high-passes (90 Hz and 440 Hz) and a
//! first-order low-pass (14 kHz), run at the output sample rate.

use crate::state::{fields, Field, StateIo};
use std::f32::consts::PI;

#[derive(Clone, Default)]
struct HighPass {
    alpha: f32,
    prev_in: f32,
    prev_out: f32,
}

impl Field for HighPass {
    fn visit(&mut self, io: &mut StateIo) {
        let HighPass {
            alpha: _,
            prev_in,
            prev_out,
        } = self;
        fields!(io, prev_in, prev_out);
    }
}

impl HighPass {
    fn new(cutoff: f32, sample_rate: f32) -> HighPass {
        let rc = 1.0 / (2.0 * PI * cutoff);
        HighPass {
            alpha: rc / (rc + 1.0 / sample_rate),
            ..HighPass::default()
        }
    }

    fn run(&mut self, x: f32) -> f32 {
        self.prev_out = self.alpha * (self.prev_out + x - self.prev_in);
        self.prev_in = x;
        self.prev_out
    }
}

#[derive(Clone, Default)]
struct LowPass {
    alpha: f32,
    prev_out: f32,
}

impl Field for LowPass {
    fn visit(&mut self, io: &mut StateIo) {
        let LowPass { alpha: _, prev_out } = self;
        fields!(io, prev_out);
    }
}

impl LowPass {
    fn new(cutoff: f32, sample_rate: f32) -> LowPass {
        let dt = 1.0 / sample_rate;
        let rc = 1.0 / (2.0 * PI * cutoff);
        LowPass {
            alpha: dt / (rc + dt),
            ..LowPass::default()
        }
    }

    fn run(&mut self, x: f32) -> f32 {
        self.prev_out += self.alpha * (x - self.prev_out);
        self.prev_out
    }
}

#[derive(Clone)]
pub struct OutputFilters {
    high_pass_90: HighPass,
    high_pass_440: HighPass,
    low_pass_14k: LowPass,
}

impl Field for OutputFilters {
    fn visit(&mut self, io: &mut StateIo) {
        let OutputFilters {
            high_pass_90,
            high_pass_440,
            low_pass_14k,
        } = self;
        fields!(io, high_pass_90, high_pass_440, low_pass_14k);
    }
}

impl OutputFilters {
    pub fn new(sample_rate: f32) -> OutputFilters {
        OutputFilters {
            high_pass_90: HighPass::new(90.0, sample_rate),
            high_pass_440: HighPass::new(440.0, sample_rate),
            low_pass_14k: LowPass::new(14_000.0, sample_rate),
        }
    }

    /// New coefficients for another rate, keeping the filters' state (no click).
    pub fn set_sample_rate(&mut self, sample_rate: f32) {
        let fresh = OutputFilters::new(sample_rate);
        self.high_pass_90.alpha = fresh.high_pass_90.alpha;
        self.high_pass_440.alpha = fresh.high_pass_440.alpha;
        self.low_pass_14k.alpha = fresh.low_pass_14k.alpha;
    }

    pub fn run(&mut self, x: f32) -> f32 {
        let x = self.high_pass_90.run(x);
        let x = self.high_pass_440.run(x);
        self.low_pass_14k.run(x)
    }
}
