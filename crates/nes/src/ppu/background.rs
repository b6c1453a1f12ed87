//! Background: the tile fetch pipeline, its shift registers, and the scroll counter in v.
//!
//! Each tile takes 8 dots: nametable byte, attribute byte, pattern low, pattern high, each
//! read on the first dot of a two-dot access. Dots 1-256 fetch tiles 3-34 of the line, 321-336
//! prefetch the next line's first two, 337-340 make two unused nametable reads.

use super::{ctrl, Ppu, PRE_RENDER_LINE};
use crate::cartridge::Cartridge;
use crate::state::{fields, Field, StateIo};

/// Byte i of `SPREAD[b]` is bit 7 - i of `b`: a row of eight pixels' bits, a byte per pixel.
const SPREAD: [u64; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            table[b] |= ((b as u64 >> (7 - i)) & 1) << (8 * i);
            i += 1;
        }
        b += 1;
    }
    table
};

/// Fetch latches and the 16-bit shift registers (high byte: the tile being drawn).
#[derive(Clone, Default)]
pub(super) struct Pipeline {
    tile: u8,
    attribute: u8,
    pattern_low: u8,
    pattern_high: u8,
    shift_low: u16,
    shift_high: u16,
    attr_low: u16,
    attr_high: u16,
}

impl Field for Pipeline {
    fn visit(&mut self, io: &mut StateIo) {
        let Pipeline {
            tile,
            attribute,
            pattern_low,
            pattern_high,
            shift_low,
            shift_high,
            attr_low,
            attr_high,
        } = self;
        fields!(
            io,
            tile,
            attribute,
            pattern_low,
            pattern_high,
            shift_low,
            shift_high
        );
        fields!(io, attr_low, attr_high);
    }
}

impl Pipeline {
    /// `dots` dots' worth of shifting.
    pub(super) fn shift(&mut self, dots: u16) {
        self.shift_low <<= dots;
        // The high plane's serial input is wired to 1 (drawn only when a reload is skipped).
        self.shift_high = self.shift_high << dots | ((1 << dots) - 1);
        self.attr_low <<= dots;
        self.attr_high <<= dots;
    }

    /// Loads the fetched tile into the low bytes of the shift registers.
    pub(super) fn reload(&mut self) {
        self.shift_low = (self.shift_low & 0xFF00) | u16::from(self.pattern_low);
        self.shift_high = (self.shift_high & 0xFF00) | u16::from(self.pattern_high);
        let spread = |bit: u8| if self.attribute & bit != 0 { 0xFF } else { 0 };
        self.attr_low = (self.attr_low & 0xFF00) | spread(1);
        self.attr_high = (self.attr_high & 0xFF00) | spread(2);
    }

    /// The palette addresses of the current pixel and the seven after it, as [`Self::pixel`]
    /// gives them dot by dot while the registers shift (the whole of a tile's 8 dots).
    pub(super) fn pixels(&self, fine_x: u8) -> [u8; 8] {
        // One byte per pixel, all eight at once.
        let row = |reg: u16| SPREAD[usize::from(((reg << fine_x) >> 8) as u8)];
        let pattern = row(self.shift_low) | row(self.shift_high) << 1;
        let attribute = row(self.attr_low) << 2 | row(self.attr_high) << 3;
        // 0xFF in the bytes of opaque pixels: colour 0 takes no palette bits.
        let opaque = (row(self.shift_low) | row(self.shift_high)) * 0xFF;
        ((pattern | attribute) & opaque).to_le_bytes()
    }

    /// The 4-bit background palette address of the current pixel (0 = transparent).
    pub(super) fn pixel(&self, fine_x: u8) -> u8 {
        let bit = 15 - u16::from(fine_x);
        let take = |reg: u16, shift: u8| (((reg >> bit) & 1) as u8) << shift;
        let colour = take(self.shift_low, 0) | take(self.shift_high, 1);
        if colour == 0 {
            0
        } else {
            colour | take(self.attr_low, 2) | take(self.attr_high, 3)
        }
    }
}

impl Ppu {
    /// The background fetches and scroll updates of one dot (rendering on).
    pub(super) fn background_dot(&mut self, cart: &mut Cartridge) {
        let dot = self.render_dot;
        match dot {
            1..=256 | 321..=336 => match dot % 8 {
                1 => self.fetch_tile(cart),
                3 => self.fetch_attribute(cart),
                5 => self.fetch_pattern_low(cart),
                7 => self.fetch_pattern_high(cart),
                0 => {
                    self.increment_coarse_x();
                    if dot == 256 {
                        self.increment_y();
                    }
                }
                _ => {}
            },
            257 => self.copy_horizontal(),
            280..=304 if self.render_line == PRE_RENDER_LINE => self.copy_vertical(),
            337 | 339 => {
                cart.ppu_read(0x2000 | (self.v & 0x0FFF));
            }
            _ => {}
        }
    }

    /// A whole tile's four fetches, for a render part running a line at a time (nothing
    /// watches the PPU's address bus then, so only the values matter).
    #[inline]
    pub(super) fn fetch_all(&mut self, cart: &mut Cartridge) {
        self.fetch_tile(cart);
        self.fetch_attribute(cart);
        self.fetch_pattern_low(cart);
        self.fetch_pattern_high(cart);
    }

    fn fetch_tile(&mut self, cart: &mut Cartridge) {
        self.bg.tile = cart.ppu_read(0x2000 | (self.v & 0x0FFF));
    }

    fn fetch_attribute(&mut self, cart: &mut Cartridge) {
        let v = self.v;
        let addr = 0x23C0 | (v & 0x0C00) | ((v >> 4) & 0x38) | ((v >> 2) & 0x07);
        let shift = ((v >> 4) & 4) | (v & 2);
        self.bg.attribute = (cart.ppu_read(addr) >> shift) & 3;
    }

    fn fetch_pattern_low(&mut self, cart: &mut Cartridge) {
        self.bg.pattern_low = cart.ppu_read(self.bg_pattern_addr());
    }

    fn fetch_pattern_high(&mut self, cart: &mut Cartridge) {
        self.bg.pattern_high = cart.ppu_read(self.bg_pattern_addr() | 8);
    }

    fn bg_pattern_addr(&self) -> u16 {
        let table = u16::from(self.ppu_ctrl & ctrl::BG_TABLE) << 8;
        table | u16::from(self.bg.tile) << 4 | (self.v >> 12) & 7
    }

    /// Next tile column, wrapping into the horizontally adjacent nametable.
    pub(super) fn increment_coarse_x(&mut self) {
        if self.v & 0x001F == 31 {
            self.v = (self.v & !0x001F) ^ 0x0400;
        } else {
            self.v += 1;
        }
    }

    /// Next pixel row: fine Y, then coarse Y, wrapping after row 29 into the vertically
    /// adjacent nametable (rows 30 and 31 wrap to 0 without switching).
    pub(super) fn increment_y(&mut self) {
        if self.v & 0x7000 != 0x7000 {
            self.v += 0x1000;
            return;
        }
        self.v &= !0x7000;
        let coarse_y = match (self.v >> 5) & 31 {
            29 => {
                self.v ^= 0x0800;
                0
            }
            31 => 0,
            y => y + 1,
        };
        self.v = (self.v & !0x03E0) | coarse_y << 5;
    }

    pub(super) fn copy_horizontal(&mut self) {
        self.v = (self.v & !0x041F) | (self.t & 0x041F);
    }

    pub(super) fn copy_vertical(&mut self) {
        self.v = (self.v & !0x7BE0) | (self.t & 0x7BE0);
    }
}
