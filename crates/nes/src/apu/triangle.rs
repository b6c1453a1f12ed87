//! The triangle channel, $4008-$400B.

use super::length_counter::LengthCounter;
use super::{timer, Voice};
use crate::state::{fields, Field, StateIo};

/// The 32-step sequence: 15 down to 0, then 0 up to 15.
const SEQUENCE: [u8; 32] = [
    15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
    13, 14, 15,
];

#[derive(Clone, Default)]
pub struct Triangle {
    /// $4008 bit 7: halts the length counter and keeps the linear counter reloading.
    control: bool,
    linear_reload_value: u8,
    pub(super) linear_counter: u8,
    linear_reload: bool,
    /// 11-bit timer period, in CPU cycles.
    period: u16,
    timer: u16,
    step: u8,
    pub length: LengthCounter,
}

impl Field for Triangle {
    fn visit(&mut self, io: &mut StateIo) {
        let Triangle {
            control,
            linear_reload_value,
            linear_counter,
            linear_reload,
            period,
            timer,
            step,
            length,
        } = self;
        fields!(
            io,
            control,
            linear_reload_value,
            linear_counter,
            linear_reload,
            period,
            timer
        );
        io.checked(step, "triangle step", |&s| usize::from(s) < SEQUENCE.len());
        fields!(io, length);
    }
}

impl Triangle {
    pub fn write(&mut self, reg: u16, val: u8) {
        match reg {
            0 => {
                self.control = val & 0x80 != 0;
                self.length.set_halt(self.control);
                self.linear_reload_value = val & 0x7F;
            }
            1 => {}
            2 => self.period = (self.period & 0x700) | u16::from(val),
            _ => {
                self.period = (self.period & 0xFF) | (u16::from(val & 7) << 8);
                self.length.load(val >> 3);
                self.linear_reload = true;
            }
        }
    }

    /// Clocked every CPU cycle; true when the sequencer moved.
    pub fn step_timer(&mut self) -> bool {
        if self.timer == 0 {
            self.timer = self.period;
            if self.sequencing() {
                self.step = (self.step + 1) & 31;
                return true;
            }
        } else {
            self.timer -= 1;
        }
        false
    }

    /// Periods 0 and 1 would play at 56 and 28 kHz, which the console's filters turn into a
    /// constant level; holding the step gives that level without the buzz of resampling an
    /// ultrasonic wave (games write period 0 to silence the triangle).
    fn sequencing(&self) -> bool {
        self.linear_counter > 0 && self.length.active() && self.period >= 2
    }

    /// `clocks` timer clocks at once.
    pub fn run(&mut self, clocks: u64) {
        let steps = timer::run(&mut self.timer, self.period, clocks);
        if self.sequencing() {
            self.step = (u64::from(self.step) + steps) as u8 & 31;
        }
    }

    /// Timer clocks until the sequencer next moves; None while it holds its step.
    pub fn clocks_to_change(&self) -> Option<u64> {
        self.sequencing()
            .then(|| timer::clocks_to_expiry(self.timer))
    }

    pub fn quarter_frame(&mut self) {
        if self.linear_reload {
            self.linear_counter = self.linear_reload_value;
        } else if self.linear_counter > 0 {
            self.linear_counter -= 1;
        }
        if !self.control {
            self.linear_reload = false;
        }
    }

    pub fn half_frame(&mut self) {
        self.length.half_frame();
    }

    /// The triangle keeps its level when silenced, it only stops stepping.
    pub fn output(&self) -> u8 {
        SEQUENCE[usize::from(self.step)]
    }

    pub fn voice(&self, clock_hz: f64) -> Voice {
        Voice {
            volume: if self.sequencing() { 15 } else { 0 },
            period: self.period,
            mode: 0,
            frequency: clock_hz / (32.0 * f64::from(self.period + 1)),
        }
    }

    /// Reset puts the sequence back to its first step.
    pub fn reset_phase(&mut self) {
        self.step = 0;
    }
}
