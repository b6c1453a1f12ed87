//! Sunsoft-4 (mapper 68): a 16 KiB PRG bank at $8000 with the last fixed at $C000, four 2 KiB
//! CHR banks, and the nametables from CIRAM or, at the flip of a bit, from two 1 KiB banks in
//! the upper 128 KiB of CHR-ROM ("INES Mapper 068"). Registers every $1000 from $8000: the
//! four CHR banks, the two nametable banks, the nametable control, the PRG bank.
//!
//! NES 2.0 submapper 1 (Nantettatte!! Baseball, with its option-ROM cartridge behind a
//! licensing timer) is not supported.

use super::{
    banked, last_bank, prg_16k_last_fixed, unknown_submapper, Board, CpuTarget, Mirroring,
};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Sunsoft4 {
    /// 2 KiB banks at $0000, $0800, $1000 and $1800.
    chr_banks: [u8; 4],
    /// 1 KiB banks of the upper 128 KiB for the two nametables.
    nametable_banks: [u8; 2],
    /// $E000: mirroring (bits 0-1), nametables from CHR-ROM (bit 4).
    nametable_control: u8,
    /// $F000: the PRG bank (bits 0-3), PRG-RAM enabled (bit 4).
    prg: u8,
    last_bank: usize,
}

impl Field for Sunsoft4 {
    fn visit(&mut self, io: &mut StateIo) {
        let Sunsoft4 {
            chr_banks,
            nametable_banks,
            nametable_control,
            prg,
            last_bank: _,
        } = self;
        fields!(io, chr_banks, nametable_banks, nametable_control, prg);
    }
}

impl Board for Sunsoft4 {
    fn new(header: &Header) -> Result<Sunsoft4, RomError> {
        if header.submapper != 0 {
            return unknown_submapper(header);
        }
        Ok(Sunsoft4 {
            chr_banks: [0; 4],
            nametable_banks: [0; 2],
            nametable_control: 0,
            prg: 0,
            last_bank: last_bank(header, 0x4000),
        })
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        match addr {
            0x6000..=0x7FFF if self.prg & 0x10 != 0 => {
                CpuTarget::PrgRam(usize::from(addr - 0x6000))
            }
            _ => prg_16k_last_fixed(addr, usize::from(self.prg & 0x0F), self.last_bank),
        }
    }

    fn map_chr(&self, addr: u16) -> usize {
        let bank = self.chr_banks[usize::from(addr >> 11) & 3];
        banked(usize::from(bank), 0x800, addr)
    }

    fn mirroring(&self) -> Mirroring {
        Mirroring::from_two_bits(self.nametable_control)
    }

    /// The mirroring picks the register for each nametable as it picks the CIRAM page.
    fn nametable_chr(&self, table: usize) -> Option<usize> {
        let bank = self.nametable_banks[self.mirroring().page(table)];
        (self.nametable_control & 0x10 != 0).then(|| usize::from(bank | 0x80) * 0x400)
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        match addr & 0xF000 {
            0x8000..=0xB000 => self.chr_banks[usize::from(addr >> 12) & 3] = val,
            0xC000 | 0xD000 => self.nametable_banks[usize::from(addr >> 12) & 1] = val,
            0xE000 => self.nametable_control = val,
            _ => self.prg = val,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board() -> Sunsoft4 {
        Sunsoft4::new(&TestImage::nes2(68, 0, 8, 32).header()).unwrap()
    }

    #[test]
    fn prg_bank_and_prg_ram_enable() {
        let mut m = board();
        assert_eq!(m.map_cpu(0x6000), CpuTarget::None, "PRG-RAM off at power-on");
        m.write_register(0xF000, 0x13, 0);
        assert_eq!(m.map_cpu(0x8001), CpuTarget::PrgRom(3 * 0x4000 + 1));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(7 * 0x4000));
        assert_eq!(m.map_cpu(0x6002), CpuTarget::PrgRam(2));
    }

    #[test]
    fn chr_banks_of_2k() {
        let mut m = board();
        m.write_register(0x9000, 5, 0);
        m.write_register(0xB000, 9, 0);
        assert_eq!(m.map_chr(0x0801), 5 * 0x800 + 1);
        assert_eq!(m.map_chr(0x1FFF), 9 * 0x800 + 0x7FF);
    }

    #[test]
    fn nametables_from_chr_rom_follow_the_mirroring() {
        let mut m = board();
        m.write_register(0xC000, 0x01, 0);
        m.write_register(0xD000, 0x82, 0); // bit 7 is forced anyway
        let tables = |m: &Sunsoft4| [0, 1, 2, 3].map(|t| m.nametable_chr(t).map(|o| o / 0x400));
        assert_eq!(tables(&m), [None; 4], "CIRAM until $E000 bit 4");
        m.write_register(0xE000, 0x10, 0); // vertical
        assert_eq!(tables(&m), [Some(0x81), Some(0x82), Some(0x81), Some(0x82)]);
        m.write_register(0xE000, 0x11, 0); // horizontal
        assert_eq!(tables(&m), [Some(0x81), Some(0x81), Some(0x82), Some(0x82)]);
        m.write_register(0xE000, 0x13, 0); // one screen, second register
        assert_eq!(tables(&m), [Some(0x82); 4]);
        m.write_register(0xE000, 0x02, 0);
        assert_eq!(m.mirroring(), Mirroring::SingleLow);
    }
}
