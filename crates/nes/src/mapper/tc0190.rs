//! Taito TC0190 (mapper 33): two 8 KiB PRG banks ($8000, $8001; the last two fixed at $C000),
//! two 2 KiB CHR banks ($8002, $8003) and four 1 KiB ones ($A000-$A003), bit 6 of $8000 the
//! mirroring ("INES Mapper 033"). Registers repeat every four bytes.

use super::{banked, Board, CpuTarget, Mirroring};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Tc0190 {
    /// $8000 (bits 0-5; bit 6 mirroring) and $8001.
    prg_banks: [u8; 2],
    /// 2 KiB banks at $0000 and $0800, then 1 KiB banks at $1000-$1C00.
    chr_banks: [u8; 6],
    second_last: usize,
}

impl Field for Tc0190 {
    fn visit(&mut self, io: &mut StateIo) {
        let Tc0190 {
            prg_banks,
            chr_banks,
            second_last: _,
        } = self;
        fields!(io, prg_banks, chr_banks);
    }
}

impl Board for Tc0190 {
    fn new(header: &Header) -> Result<Tc0190, RomError> {
        Ok(Tc0190 {
            prg_banks: [0, 0],
            chr_banks: [0; 6],
            second_last: (header.prg_rom_size / 0x2000).max(2) - 2,
        })
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        let bank = match addr {
            0x8000..=0xBFFF => usize::from(self.prg_banks[usize::from(addr >> 13) & 1] & 0x3F),
            0xC000..=0xDFFF => self.second_last,
            0xE000..=0xFFFF => self.second_last + 1,
            _ => return CpuTarget::None,
        };
        CpuTarget::PrgRom(banked(bank, 0x2000, addr))
    }

    fn map_chr(&self, addr: u16) -> usize {
        match addr & 0x1FFF {
            0x0000..=0x0FFF => {
                banked(usize::from(self.chr_banks[usize::from(addr >> 11) & 1]), 0x800, addr)
            }
            _ => banked(
                usize::from(self.chr_banks[2 + (usize::from(addr >> 10) & 3)]),
                0x400,
                addr,
            ),
        }
    }

    fn mirroring(&self) -> Mirroring {
        Mirroring::from_two_bits(self.prg_banks[0] >> 6 & 1)
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        let reg = usize::from(addr & 3);
        match (addr & 0xE000, reg) {
            (0x8000, 0 | 1) => self.prg_banks[reg] = val,
            (0x8000, _) => self.chr_banks[reg - 2] = val,
            (0xA000, _) => self.chr_banks[2 + reg] = val,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banks_and_mirroring() {
        let mut h = vec![b'N', b'E', b'S', 0x1A, 8, 16, 0x10, 0x20];
        h.resize(16, 0);
        let mut m = Tc0190::new(&Header::parse(&h).unwrap()).unwrap();
        m.write_register(0x8000, 0x43, 0);
        m.write_register(0x8005, 4, 0);
        m.write_register(0x8002, 5, 0);
        m.write_register(0xA003, 9, 0);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(3 * 0x2000));
        assert_eq!(m.map_cpu(0xA000), CpuTarget::PrgRom(4 * 0x2000));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(14 * 0x2000));
        assert_eq!(m.map_chr(0x0401), 5 * 0x800 + 0x401);
        assert_eq!(m.map_chr(0x1C01), 9 * 0x400 + 1);
        assert_eq!(m.mirroring(), Mirroring::Horizontal);
    }
}
