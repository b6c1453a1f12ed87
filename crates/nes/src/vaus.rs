//! Arkanoid "Vaus" controller, NES version (nesdev wiki, "Arkanoid controller"): a knob on a
//! potentiometer and one button. A strobe latches the knob's 8-bit reading into a shift
//! register, which reads shift out MSB first on D4; D3 is the button (1: pressed), not
//! latched. The wire carries the converter's count inverted; `knob` is the value the game
//! assembles, which Arkanoid expects in $54-$F4 and which falls as the knob turns clockwise
//! (the paddle moves right).

use crate::state::{fields, Field, StateIo};

/// The game's reading with the knob fully counterclockwise (left) and the span of the
/// knob's range ($A0 steps, Arkanoid's $54-$F4).
const LEFTMOST: u8 = 0xF4;
const SPAN: u16 = 0xA0;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vaus {
    /// The knob's position as the game reads it.
    pub knob: u8,
    pub button: bool,
    shift: u8,
    reads: u8,
    strobe: bool,
}

impl Default for Vaus {
    /// The knob at the middle of its range.
    fn default() -> Vaus {
        Vaus {
            knob: Vaus::knob_at(128),
            button: false,
            shift: 0,
            reads: 8,
            strobe: false,
        }
    }
}

impl Field for Vaus {
    fn visit(&mut self, io: &mut StateIo) {
        let Vaus {
            knob,
            button,
            shift,
            reads,
            strobe,
        } = self;
        fields!(io, knob, button, shift, reads, strobe);
    }
}

impl Vaus {
    /// The knob turned so that the paddle sits under column `x` (0-255) of the picture: its
    /// range spread over the picture's width, left to right.
    pub fn knob_at(x: u8) -> u8 {
        LEFTMOST - ((u16::from(x) * SPAN) >> 8) as u8
    }

    pub fn write_strobe(&mut self, high: bool) {
        self.strobe = high;
        if high {
            self.shift = self.knob;
            self.reads = 0;
        }
    }

    /// D3 and D4 of a read; clocks the shift register unless strobed. After the eighth read
    /// the register is empty and D4 reads 0.
    pub fn read(&mut self) -> u8 {
        let bits = self.peek();
        if !self.strobe && self.reads < 8 {
            self.shift <<= 1;
            self.reads += 1;
        }
        bits
    }

    /// What the next read would return, without clocking.
    pub fn peek(&self) -> u8 {
        let data = if self.strobe {
            self.knob >> 7
        } else if self.reads < 8 {
            self.shift >> 7
        } else {
            0
        };
        data << 4 | u8::from(self.button) << 3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte a game assembles from D4 over eight reads after a strobe, as vaus-test does.
    fn read_knob(vaus: &mut Vaus) -> u8 {
        vaus.write_strobe(true);
        vaus.write_strobe(false);
        (0..8).fold(0, |byte, _| byte << 1 | (vaus.read() >> 4 & 1))
    }

    #[test]
    fn the_knob_shifts_out_msb_first_on_d4() {
        let mut vaus = Vaus {
            knob: 0xA5,
            ..Vaus::default()
        };
        assert_eq!(read_knob(&mut vaus), 0xA5);
        assert_eq!(vaus.read(), 0, "the register is empty after eight reads");
    }

    #[test]
    fn the_button_is_on_d3_on_every_read() {
        let mut vaus = Vaus {
            knob: 0xFF,
            button: true,
            ..Vaus::default()
        };
        vaus.write_strobe(true);
        vaus.write_strobe(false);
        assert_eq!(vaus.read(), 0x18);
        let bits: Vec<u8> = (0..9).map(|_| vaus.read() & 0x08).collect();
        assert_eq!(bits, [0x08; 9]);
    }

    #[test]
    fn a_strobe_latches_the_knob_where_it_is() {
        let mut vaus = Vaus {
            knob: 0x60,
            ..Vaus::default()
        };
        vaus.write_strobe(true);
        vaus.write_strobe(false);
        vaus.knob = 0xF0;
        let byte = (0..8).fold(0, |byte, _| byte << 1 | (vaus.read() >> 4 & 1));
        assert_eq!(byte, 0x60, "turning during the read changes nothing");
        assert_eq!(read_knob(&mut vaus), 0xF0);
    }

    #[test]
    fn the_picture_s_width_spans_arkanoid_s_range() {
        assert_eq!(Vaus::knob_at(0), 0xF4);
        assert_eq!(Vaus::knob_at(255), 0x55);
        assert!(Vaus::knob_at(100) > Vaus::knob_at(101));
    }
}
