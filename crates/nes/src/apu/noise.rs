//! The noise channel, $400C-$400F: a 15-bit LFSR.

use super::envelope::Envelope;
use super::length_counter::LengthCounter;
use super::{timer, Voice};
use crate::state::{fields, Field, StateIo};

/// Periods in CPU cycles; the timer runs on APU cycles, so it counts half of these.
const NTSC_PERIODS: [u16; 16] = [
    4, 8, 16, 32, 64, 96, 128, 160, 202, 254, 380, 508, 762, 1016, 2034, 4068,
];
const PAL_PERIODS: [u16; 16] = [
    4, 8, 14, 30, 60, 88, 118, 148, 188, 236, 354, 472, 708, 944, 1890, 3778,
];

#[derive(Clone)]
pub struct Noise {
    /// Mode 1 takes the feedback from bit 6 (93-step loops) instead of bit 1.
    short_mode: bool,
    /// Period in APU cycles.
    period: u16,
    timer: u16,
    pub(super) shift: u16,
    pub length: LengthCounter,
    envelope: Envelope,
    /// The region's periods (see [`Noise::set_pal`]).
    periods: &'static [u16; 16],
}

impl Field for Noise {
    fn visit(&mut self, io: &mut StateIo) {
        let Noise {
            short_mode,
            period,
            timer,
            shift,
            length,
            envelope,
            periods: _,
        } = self;
        fields!(io, short_mode, period, timer, shift, length, envelope);
    }
}

impl Default for Noise {
    fn default() -> Noise {
        Noise {
            short_mode: false,
            period: NTSC_PERIODS[0] / 2,
            timer: 0,
            shift: 1,
            length: LengthCounter::default(),
            envelope: Envelope::default(),
            periods: &NTSC_PERIODS,
        }
    }
}

impl Noise {
    /// The 2A07's periods instead of the 2A03's.
    pub fn set_pal(&mut self, pal: bool) {
        self.periods = if pal { &PAL_PERIODS } else { &NTSC_PERIODS };
        self.period = self.periods[0] / 2;
    }

    pub fn write(&mut self, reg: u16, val: u8) {
        match reg {
            0 => {
                self.length.set_halt(val & 0x20 != 0);
                self.envelope.write(val);
            }
            1 => {}
            2 => {
                self.short_mode = val & 0x80 != 0;
                self.period = self.periods[usize::from(val & 0x0F)] / 2;
            }
            _ => {
                self.length.load(val >> 3);
                self.envelope.restart();
            }
        }
    }

    /// Clocked once per APU cycle; true when the shift register moved while the channel can be
    /// heard.
    pub fn step_timer(&mut self) -> bool {
        if self.timer == 0 {
            self.timer = self.reload();
            self.shift_lfsr(1);
            self.length.active()
        } else {
            self.timer -= 1;
            false
        }
    }

    fn reload(&self) -> u16 {
        self.period.wrapping_sub(1)
    }

    /// `n` shifts of the 15-bit LFSR (feedback: bit 0 XOR bit 1, or bit 6 in short mode, into
    /// bit 14), up to `15 - tap` at once: over so many shifts every feedback bit comes from
    /// bits of the starting value (the first new bit reaches the tap only after that).
    fn shift_lfsr(&mut self, mut n: u64) {
        let tap = if self.short_mode { 6 } else { 1 };
        while n > 0 {
            let k = n.min(15 - tap) as u16;
            let feedback = (self.shift ^ (self.shift >> tap)) & ((1 << k) - 1);
            self.shift = (self.shift >> k) | (feedback << (15 - k));
            n -= u64::from(k);
        }
    }

    /// `clocks` timer clocks at once.
    pub fn run(&mut self, clocks: u64) {
        let reload = self.reload();
        let expiries = timer::run(&mut self.timer, reload, clocks);
        self.shift_lfsr(expiries);
    }

    /// Timer clocks until the output may change; None while the channel is silent.
    pub fn clocks_to_change(&self) -> Option<u64> {
        (self.length.active() && self.envelope.output() != 0)
            .then(|| timer::clocks_to_expiry(self.timer))
    }

    pub fn quarter_frame(&mut self) {
        self.envelope.quarter_frame();
    }

    pub fn half_frame(&mut self) {
        self.length.half_frame();
    }

    pub fn output(&self) -> u8 {
        if self.shift & 1 == 0 && self.length.active() {
            self.envelope.output()
        } else {
            0
        }
    }

    /// The period as its $400E index; mode 1 is the short (93-step) sequence.
    pub fn voice(&self, clock_hz: f64) -> Voice {
        let index = self.periods.iter().position(|&p| p / 2 == self.period);
        Voice {
            volume: if self.length.active() {
                self.envelope.output()
            } else {
                0
            },
            period: index.unwrap_or(0) as u16,
            mode: u8::from(self.short_mode),
            frequency: clock_hz / f64::from(self.period * 2),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shifts taken many at a time give what single shifts give, in both modes.
    #[test]
    fn shifts_at_once_match_single_shifts() {
        for short_mode in [false, true] {
            for start in [1u16, 0x4000, 0x1234, 0x7FFF, 0x2AAA] {
                for n in 0..200 {
                    let mut bulk = Noise {
                        short_mode,
                        shift: start,
                        ..Noise::default()
                    };
                    let mut single = bulk.clone();
                    bulk.shift_lfsr(n);
                    for _ in 0..n {
                        let tap = if short_mode { 6 } else { 1 };
                        let feedback = (single.shift ^ (single.shift >> tap)) & 1;
                        single.shift = (single.shift >> 1) | (feedback << 14);
                    }
                    assert_eq!(
                        bulk.shift, single.shift,
                        "mode {short_mode}, {start:#x}, {n}"
                    );
                }
            }
        }
    }
}
