//! Taito X1-017 (mapper 82): registers at $7EF0-$7EFF. Two 2 KiB CHR banks ($7EF0, $7EF1) and
//! four 1 KiB ones ($7EF2-$7EF5), swapped between the pattern tables by $7EF6 bit 1, whose
//! bit 0 is the mirroring (vertical); three 8 KiB PRG banks ($7EFA-$7EFC, bits 2-7; the last
//! fixed at $E000); 5 KiB of RAM at $6000-$73FF in three parts, each answering only after its
//! key was written to $7EF7-$7EF9 ("INES Mapper 082"). Its IRQ ($7EFD-$7EFF), which no game
//! uses, is not emulated.

use super::{banked, chr_two_2k_four_1k, Board, CpuTarget, Mirroring, Needs};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

/// The RAM parts: their ends and the values of $7EF7, $7EF8, $7EF9 that enable them.
const RAM_PARTS: [(u16, u8); 3] = [(0x6800, 0xCA), (0x7000, 0x69), (0x7400, 0x84)];

#[derive(Clone, Debug)]
pub struct X1017 {
    chr_banks: [u8; 6],
    /// $7EF6: bit 0 vertical mirroring, bit 1 the 1 KiB banks at $0000.
    control: u8,
    ram_enable: [u8; 3],
    prg_banks: [u8; 3],
    last_bank: usize,
}

impl Field for X1017 {
    fn visit(&mut self, io: &mut StateIo) {
        let X1017 {
            chr_banks,
            control,
            ram_enable,
            prg_banks,
            last_bank: _,
        } = self;
        fields!(io, chr_banks, control, ram_enable, prg_banks);
    }
}

impl Board for X1017 {
    fn new(header: &Header) -> Result<X1017, RomError> {
        Ok(X1017 {
            chr_banks: [0; 6],
            control: 0,
            ram_enable: [0; 3],
            prg_banks: [0; 3],
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
            0x6000..=0x73FF => {
                let part = RAM_PARTS.iter().position(|&(end, _)| addr < end).unwrap_or(2);
                return if self.ram_enable[part] == RAM_PARTS[part].1 {
                    CpuTarget::PrgRam(usize::from(addr - 0x6000))
                } else {
                    CpuTarget::None
                };
            }
            0x8000..=0xDFFF => usize::from(self.prg_banks[usize::from(addr >> 13) - 4] >> 2),
            0xE000..=0xFFFF => self.last_bank,
            _ => return CpuTarget::None,
        };
        CpuTarget::PrgRom(banked(bank, 0x2000, addr))
    }

    fn map_chr(&self, addr: u16) -> usize {
        chr_two_2k_four_1k(addr, self.chr_banks, self.control & 2 != 0)
    }

    fn mirroring(&self) -> Mirroring {
        if self.control & 1 != 0 {
            Mirroring::Vertical
        } else {
            Mirroring::Horizontal
        }
    }

    fn write_low(&mut self, addr: u16, val: u8) {
        match addr {
            0x7EF0..=0x7EF5 => self.chr_banks[usize::from(addr - 0x7EF0)] = val,
            0x7EF6 => self.control = val,
            0x7EF7..=0x7EF9 => self.ram_enable[usize::from(addr - 0x7EF7)] = val,
            0x7EFA..=0x7EFC => self.prg_banks[usize::from(addr - 0x7EFA)] = val,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    #[test]
    fn banks_inversion_and_keyed_ram() {
        let mut m = X1017::new(&TestImage::new(82, 16, 16).flags(2).header()).unwrap();
        m.write_low(0x7EFB, 5 << 2);
        assert_eq!(m.map_cpu(0xA000), CpuTarget::PrgRom(5 * 0x2000));
        assert_eq!(m.map_cpu(0xE000), CpuTarget::PrgRom(31 * 0x2000));
        m.write_low(0x7EF0, 0x09);
        m.write_low(0x7EF2, 0x21);
        assert_eq!(m.map_chr(0x0400), 9 * 0x400, "2 KiB bank 8-9, second half");
        assert_eq!(m.map_chr(0x1000), 0x21 * 0x400);
        m.write_low(0x7EF6, 3);
        assert_eq!(m.map_chr(0x0000), 0x21 * 0x400, "inverted");
        assert_eq!(m.mirroring(), Mirroring::Vertical);
        assert_eq!(m.map_cpu(0x6900), CpuTarget::None);
        m.write_low(0x7EF8, 0x69);
        assert_eq!(m.map_cpu(0x6900), CpuTarget::PrgRam(0x900));
        assert_eq!(m.map_cpu(0x6000), CpuTarget::None, "its own key each");
        assert_eq!(m.map_cpu(0x7400), CpuTarget::None);
    }
}
