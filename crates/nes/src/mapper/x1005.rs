//! Taito X1-005 (mapper 80): registers at $7EF0-$7EFF. Two 2 KiB CHR banks ($7EF0, $7EF1), four
//! 1 KiB ones ($7EF2-$7EF5), mirroring ($7EF6/7 bit 0: vertical), three 8 KiB PRG banks
//! ($7EFA-$7EFF in pairs; the last fixed at $E000), and 128 bytes of RAM at $7F00-$7FFF
//! (mirrored once) that answer only after $A3 was written to $7EF8/9 ("INES Mapper 080").

use super::{banked, chr_two_2k_four_1k, Board, CpuTarget, Mirroring, Needs};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

/// The value of $7EF8/$7EF9 that enables the internal RAM.
const RAM_KEY: u8 = 0xA3;

#[derive(Clone, Debug)]
pub struct X1005 {
    /// 2 KiB at $0000 and $0800 (in 1 KiB units, bit 0 ignored), then 1 KiB at $1000-$1C00.
    chr_banks: [u8; 6],
    prg_banks: [u8; 3],
    mirroring: Mirroring,
    ram_enable: u8,
    last_bank: usize,
}

impl Field for X1005 {
    fn visit(&mut self, io: &mut StateIo) {
        let X1005 {
            chr_banks,
            prg_banks,
            mirroring,
            ram_enable,
            last_bank: _,
        } = self;
        fields!(io, chr_banks, prg_banks, mirroring, ram_enable);
    }
}

impl Board for X1005 {
    fn new(header: &Header) -> Result<X1005, RomError> {
        Ok(X1005 {
            chr_banks: [0; 6],
            prg_banks: [0; 3],
            mirroring: Mirroring::Horizontal,
            ram_enable: 0,
            last_bank: (header.prg_rom_size / 0x2000).max(1) - 1,
        })
    }

    fn needs(&self) -> Needs {
        Needs {
            low_registers: true,
            ..Needs::default()
        }
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        let bank = match addr {
            0x7F00..=0x7FFF if self.ram_enable == RAM_KEY => {
                return CpuTarget::PrgRam(usize::from(addr & 0x7F))
            }
            0x8000..=0xDFFF => usize::from(self.prg_banks[usize::from(addr >> 13) - 4]),
            0xE000..=0xFFFF => self.last_bank,
            _ => return CpuTarget::None,
        };
        CpuTarget::PrgRom(banked(bank, 0x2000, addr))
    }

    fn map_chr(&self, addr: u16) -> usize {
        chr_two_2k_four_1k(addr, self.chr_banks, false)
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn write_low(&mut self, addr: u16, val: u8) {
        match addr {
            0x7EF0..=0x7EF5 => self.chr_banks[usize::from(addr - 0x7EF0)] = val,
            0x7EF6 | 0x7EF7 => {
                self.mirroring = if val & 1 != 0 {
                    Mirroring::Vertical
                } else {
                    Mirroring::Horizontal
                }
            }
            0x7EF8 | 0x7EF9 => self.ram_enable = val,
            0x7EFA..=0x7EFF => self.prg_banks[usize::from(addr - 0x7EFA) / 2] = val,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    #[test]
    fn registers_below_8000_and_the_keyed_ram() {
        let mut m = X1005::new(&TestImage::new(80, 8, 16).flags(2).header()).unwrap();
        m.write_low(0x7EFB, 3);
        m.write_low(0x7EFE, 9);
        m.write_low(0x7EF1, 0x07);
        m.write_low(0x7EF5, 0x21);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(3 * 0x2000));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(9 * 0x2000));
        assert_eq!(m.map_cpu(0xE000), CpuTarget::PrgRom(15 * 0x2000));
        assert_eq!(m.map_chr(0x0C00), 7 * 0x400, "2 KiB bank 6-7, second half");
        assert_eq!(m.map_chr(0x1C00), 0x21 * 0x400);
        m.write_low(0x7EF6, 1);
        assert_eq!(m.mirroring(), Mirroring::Vertical);
        assert_eq!(m.map_cpu(0x7F80), CpuTarget::None);
        m.write_low(0x7EF8, RAM_KEY);
        assert_eq!(m.map_cpu(0x7F80), CpuTarget::PrgRam(0));
        assert_eq!(m.map_cpu(0x7000), CpuTarget::None);
    }
}
