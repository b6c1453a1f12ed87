//! The envelope generator shared by the pulses and the noise channel: a constant volume or a
//! decaying level clocked by the frame counter's quarter-frame signal.

use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug, Default)]
pub struct Envelope {
    start: bool,
    looping: bool,
    constant_volume: bool,
    /// Constant volume, or the divider's period.
    volume: u8,
    divider: u8,
    decay: u8,
}

impl Field for Envelope {
    fn visit(&mut self, io: &mut StateIo) {
        let Envelope {
            start,
            looping,
            constant_volume,
            volume,
            divider,
            decay,
        } = self;
        fields!(io, start, looping, constant_volume);
        for level in [volume, divider, decay] {
            io.checked(level, "envelope level", |&v| v < 16);
        }
    }
}

impl Envelope {
    /// The low six bits of $4000/$4004/$400C: --LC VVVV.
    pub fn write(&mut self, val: u8) {
        self.looping = val & 0x20 != 0;
        self.constant_volume = val & 0x10 != 0;
        self.volume = val & 0x0F;
    }

    /// A write to the channel's length register restarts the envelope.
    pub fn restart(&mut self) {
        self.start = true;
    }

    pub fn quarter_frame(&mut self) {
        if self.start {
            self.start = false;
            self.decay = 15;
            self.divider = self.volume;
        } else if self.divider == 0 {
            self.divider = self.volume;
            if self.decay > 0 {
                self.decay -= 1;
            } else if self.looping {
                self.decay = 15;
            }
        } else {
            self.divider -= 1;
        }
    }

    pub fn output(&self) -> u8 {
        if self.constant_volume {
            self.volume
        } else {
            self.decay
        }
    }
}
