//! Ricoh 2C02 PPU: 341 dots x 262 scanlines (NTSC), registers $2000-$2007, rendering.

use crate::cartridge::Cartridge;

pub const WIDTH: usize = 256;
pub const HEIGHT: usize = 240;

#[derive(Clone)]
pub struct Ppu {
    pub scanline: u16,
    pub dot: u16,
    /// Frames completed since power-on.
    pub frame: u64,
    pub oam: [u8; 256],
    pub palette: [u8; 32],
    /// 9-bit pixels: palette index (bits 0-5) and emphasis (bits 6-8).
    pub frame_buffer: Vec<u16>,
}

impl Default for Ppu {
    fn default() -> Self {
        Ppu {
            scanline: 0,
            dot: 0,
            frame: 0,
            oam: [0; 256],
            palette: [0; 32],
            frame_buffer: vec![0; WIDTH * HEIGHT],
        }
    }
}

impl Ppu {
    pub fn reset(&mut self) {}

    /// Advances one dot.
    pub fn step(&mut self, _cart: &mut Cartridge) {
        self.dot += 1;
        if self.dot == 341 {
            self.dot = 0;
            self.scanline += 1;
            if self.scanline == 262 {
                self.scanline = 0;
                self.frame += 1;
            }
        }
    }

    /// CPU read of $2000-$2007 (`addr` already reduced to 0-7).
    pub fn read_register(&mut self, _reg: u16, _cart: &mut Cartridge) -> u8 {
        0
    }

    /// The value a read would return, without side effects.
    pub fn peek_register(&self, _reg: u16, _cart: &Cartridge) -> u8 {
        0
    }

    pub fn write_register(&mut self, _reg: u16, _val: u8, _cart: &mut Cartridge) {}

    /// The /NMI output (true = asserted): VBlank flag and NMI enable both set.
    pub fn nmi_line(&self) -> bool {
        false
    }
}
