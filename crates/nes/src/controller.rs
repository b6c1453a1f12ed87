//! Standard controller: an 8-bit parallel-in, serial-out shift register read through $4016/$4017.

use crate::state::{fields, Field, StateIo};

/// Button bits in the order the shift register reports them (bit 0 first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Buttons(pub u8);

impl Buttons {
    pub const A: u8 = 0x01;
    pub const B: u8 = 0x02;
    pub const SELECT: u8 = 0x04;
    pub const START: u8 = 0x08;
    pub const UP: u8 = 0x10;
    pub const DOWN: u8 = 0x20;
    pub const LEFT: u8 = 0x40;
    pub const RIGHT: u8 = 0x80;
}

#[derive(Clone, Debug, Default)]
pub struct Controller {
    /// Buttons currently held, as the host last set them.
    pub buttons: Buttons,
    shift: u8,
    /// Reads after the eighth return 1 (the official pad shifts in ones).
    reads: u8,
    strobe: bool,
}

impl Field for Controller {
    fn visit(&mut self, io: &mut StateIo) {
        let Controller {
            buttons,
            shift,
            reads,
            strobe,
        } = self;
        fields!(io, &mut buttons.0, shift, reads, strobe);
    }
}

impl Controller {
    /// A write to $4016 bit 0 drives the strobe line of both pads.
    pub fn write_strobe(&mut self, high: bool) {
        self.strobe = high;
        if high {
            self.reload();
        }
    }

    fn reload(&mut self) {
        self.shift = self.buttons.0;
        self.reads = 0;
    }

    /// Serial data bit (D0) for a read of the port; clocks the register unless strobed.
    pub fn read(&mut self) -> u8 {
        if self.strobe {
            self.reload();
            return self.shift & 1;
        }
        let bit = if self.reads >= 8 { 1 } else { self.shift & 1 };
        if self.reads < 8 {
            self.shift >>= 1;
            self.reads += 1;
        }
        bit
    }

    /// The bit the next read would return, without clocking.
    pub fn peek(&self) -> u8 {
        if self.strobe {
            self.buttons.0 & 1
        } else if self.reads >= 8 {
            1
        } else {
            self.shift & 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_buttons_then_ones() {
        let mut pad = Controller {
            buttons: Buttons(Buttons::A | Buttons::START | Buttons::RIGHT),
            ..Default::default()
        };
        pad.write_strobe(true);
        pad.write_strobe(false);
        let bits: Vec<u8> = (0..10).map(|_| pad.read()).collect();
        assert_eq!(bits, [1, 0, 0, 1, 0, 0, 0, 1, 1, 1]);
    }

    #[test]
    fn strobe_high_keeps_returning_a() {
        let mut pad = Controller {
            buttons: Buttons(Buttons::A),
            ..Default::default()
        };
        pad.write_strobe(true);
        assert_eq!((pad.read(), pad.read()), (1, 1));
    }
}
