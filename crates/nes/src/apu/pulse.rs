//! The two pulse (square) channels, $4000-$4003 and $4004-$4007.

use super::envelope::Envelope;
use super::length_counter::LengthCounter;
use super::{timer, Voice};
use crate::state::{fields, Field, StateIo};

/// Output of the 8-step sequencer per duty setting, bit n for step n (the step counts down):
/// 12.5 %, 25 %, 50 % and 25 % negated.
pub(crate) const DUTY_TABLE: [u8; 4] = [0b1000_0000, 0b1100_0000, 0b1111_0000, 0b0011_1111];

#[derive(Clone, Default)]
pub struct Pulse {
    /// Pulse 1 negates its sweep change in ones' complement (period - change - 1),
    /// pulse 2 in two's complement.
    ones_complement: bool,
    duty: u8,
    step: u8,
    /// 11-bit timer period, in APU cycles.
    pub(super) period: u16,
    timer: u16,
    pub length: LengthCounter,
    envelope: Envelope,
    sweep_enabled: bool,
    sweep_period: u8,
    sweep_negate: bool,
    sweep_shift: u8,
    sweep_divider: u8,
    sweep_reload: bool,
}

impl Field for Pulse {
    fn visit(&mut self, io: &mut StateIo) {
        let Pulse {
            ones_complement: _,
            duty,
            step,
            period,
            timer,
            length,
            envelope,
            sweep_enabled,
            sweep_period,
            sweep_negate,
            sweep_shift,
            sweep_divider,
            sweep_reload,
        } = self;
        io.checked(duty, "pulse duty", |&d| usize::from(d) < DUTY_TABLE.len());
        io.checked(step, "pulse step", |&s| s < 8);
        fields!(
            io,
            period,
            timer,
            length,
            envelope,
            sweep_enabled,
            sweep_period,
            sweep_negate
        );
        fields!(io, sweep_divider, sweep_reload);
        io.checked(sweep_shift, "sweep shift", |&s| s < 8);
    }
}

impl Pulse {
    pub fn pulse1() -> Pulse {
        Pulse {
            ones_complement: true,
            ..Pulse::default()
        }
    }

    pub fn pulse2() -> Pulse {
        Pulse::default()
    }

    /// `reg` is the address's low two bits.
    pub fn write(&mut self, reg: u16, val: u8) {
        match reg {
            0 => {
                self.duty = val >> 6;
                self.length.set_halt(val & 0x20 != 0);
                self.envelope.write(val);
            }
            1 => {
                self.sweep_enabled = val & 0x80 != 0;
                self.sweep_period = (val >> 4) & 7;
                self.sweep_negate = val & 0x08 != 0;
                self.sweep_shift = val & 7;
                self.sweep_reload = true;
            }
            2 => self.period = (self.period & 0x700) | u16::from(val),
            _ => {
                self.period = (self.period & 0xFF) | (u16::from(val & 7) << 8);
                self.length.load(val >> 3);
                self.step = 0;
                self.envelope.restart();
            }
        }
    }

    /// Clocked once per APU cycle (every other CPU cycle); true when the sequencer moved while
    /// the channel can be heard.
    pub fn step_timer(&mut self) -> bool {
        if self.timer == 0 {
            self.timer = self.period;
            self.step = self.step.wrapping_sub(1) & 7;
            self.period >= 8 && self.length.active()
        } else {
            self.timer -= 1;
            false
        }
    }

    /// `clocks` timer clocks at once.
    pub fn run(&mut self, clocks: u64) {
        let steps = timer::run(&mut self.timer, self.period, clocks);
        self.step = (u64::from(self.step) + 8 - steps % 8) as u8 & 7;
    }

    /// Timer clocks until the output may change: the sequencer reaching a step of the other
    /// level; None while the channel is silent whatever its sequencer does.
    pub fn clocks_to_change(&self) -> Option<u64> {
        if !self.length.active() || self.muted() || self.envelope.output() == 0 {
            return None;
        }
        let duty = DUTY_TABLE[usize::from(self.duty)];
        let level = |step: u8| duty >> (step & 7) & 1;
        let steps = (1..8).find(|&n| level(self.step.wrapping_sub(n)) != level(self.step))?;
        let span = u64::from(self.period) + 1;
        Some(timer::clocks_to_expiry(self.timer) + u64::from(steps - 1) * span)
    }

    pub fn quarter_frame(&mut self) {
        self.envelope.quarter_frame();
    }

    pub fn half_frame(&mut self) {
        self.length.half_frame();
        if self.sweep_divider == 0 && self.sweep_enabled && self.sweep_shift != 0 && !self.muted() {
            self.period = self.target_period();
        }
        if self.sweep_divider == 0 || self.sweep_reload {
            self.sweep_divider = self.sweep_period;
            self.sweep_reload = false;
        } else {
            self.sweep_divider -= 1;
        }
    }

    /// The period the sweep unit is heading for; computed all the time, even with the sweep off.
    fn target_period(&self) -> u16 {
        let change = self.period >> self.sweep_shift;
        if self.sweep_negate {
            self.period
                .saturating_sub(change)
                .saturating_sub(u16::from(self.ones_complement))
        } else {
            self.period + change
        }
    }

    /// Periods under 8 and sweep targets past $7FF silence the channel.
    fn muted(&self) -> bool {
        self.period < 8 || self.target_period() > 0x7FF
    }

    pub fn output(&self) -> u8 {
        let high = DUTY_TABLE[usize::from(self.duty)] >> self.step & 1 != 0;
        if high && self.length.active() && !self.muted() {
            self.envelope.output()
        } else {
            0
        }
    }

    pub fn voice(&self, clock_hz: f64) -> Voice {
        let sounding = self.length.active() && !self.muted();
        Voice {
            volume: if sounding { self.envelope.output() } else { 0 },
            period: self.period,
            mode: self.duty,
            frequency: clock_hz / (16.0 * f64::from(self.period + 1)),
        }
    }
}
