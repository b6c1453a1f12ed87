//! Irem G-101 (mapper 32): two 8 KiB PRG banks ($8000-$8007 and $A000-$A007) with a swap mode
//! trading $8000 and $C000, eight 1 KiB CHR banks at $B000-$B007, and at $9000-$9007 bit 0
//! the mirroring (vertical, horizontal) and bit 1 the swap mode. Major League's board
//! (submapper 1) ties the nametables to one screen and ignores $9000 ("INES Mapper 032").

use super::{banked, prg_8k_swappable, unknown_submapper, Board, CpuTarget, Mirroring};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct G101 {
    prg_banks: [u8; 2],
    chr_banks: [u8; 8],
    /// $9000: bit 0 horizontal, bit 1 the swap mode.
    control: u8,
    major_league: bool,
    second_last: usize,
}

impl Field for G101 {
    fn visit(&mut self, io: &mut StateIo) {
        let G101 {
            prg_banks,
            chr_banks,
            control,
            major_league: _,
            second_last: _,
        } = self;
        fields!(io, prg_banks, chr_banks, control);
    }
}

impl Board for G101 {
    const VARIANTS: &'static [(u16, u8)] = &[(32, 0), (32, 1)];

    fn new(header: &Header) -> Result<G101, RomError> {
        if header.submapper > 1 {
            return unknown_submapper(header);
        }
        Ok(G101 {
            prg_banks: [0, 1],
            chr_banks: [0; 8],
            control: 0,
            major_league: header.submapper == 1,
            second_last: (header.prg_rom_size / 0x2000).max(2) - 2,
        })
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        let banks = self.prg_banks.map(|bank| bank & 0x1F);
        prg_8k_swappable(addr, banks, self.control & 0x02 != 0, self.second_last)
    }

    fn map_chr(&self, addr: u16) -> usize {
        banked(usize::from(self.chr_banks[usize::from(addr >> 10) & 7]), 0x400, addr)
    }

    fn mirroring(&self) -> Mirroring {
        if self.major_league {
            Mirroring::SingleLow
        } else {
            Mirroring::from_two_bits(self.control & 1)
        }
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        match addr & 0xF000 {
            0x8000 => self.prg_banks[0] = val,
            0x9000 if !self.major_league => self.control = val,
            0xA000 => self.prg_banks[1] = val,
            0xB000 => self.chr_banks[usize::from(addr & 7)] = val,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board(submapper: u8) -> G101 {
        G101::new(&TestImage::nes2(32, submapper, 8, 16).header()).unwrap()
    }

    #[test]
    fn banks_swap_mode_and_mirroring() {
        let mut m = board(0);
        m.write_register(0x8000, 5, 0);
        m.write_register(0xA000, 6, 0);
        m.write_register(0xB003, 9, 0);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(5 * 0x2000));
        assert_eq!(m.map_cpu(0xA000), CpuTarget::PrgRom(6 * 0x2000));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(14 * 0x2000));
        assert_eq!(m.map_chr(0x0C01), 9 * 0x400 + 1);
        m.write_register(0x9000, 3, 0);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(14 * 0x2000));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(5 * 0x2000));
        assert_eq!(m.mirroring(), Mirroring::Horizontal);
        let mut major_league = board(1);
        major_league.write_register(0x9000, 3, 0);
        assert_eq!(major_league.mirroring(), Mirroring::SingleLow);
        assert_eq!(major_league.map_cpu(0x8000), CpuTarget::PrgRom(0));
    }
}
