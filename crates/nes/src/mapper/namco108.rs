//! Namco 108 (mapper 206, DxROM; Tengen MIMIC-1), MMC3's predecessor: a bank select register at
//! even addresses of $8000-$9FFF and the bank data at odd ones, choosing two 8 KiB PRG banks
//! (R6, R7 at $8000 and $A000; the last two fixed at $C000), two 2 KiB CHR banks (R0, R1) and
//! four 1 KiB ones (R2-R5). No IRQ, no PRG-RAM, mirroring soldered. Its boards:
//! - NAMCOT-3443 (88): CHR A16 follows PPU A12, so $0000-$0FFF sees the first 64 KiB of CHR
//!   and $1000-$1FFF the second ("INES Mapper 088").
//! - NAMCOT-3453 (154): the same, and bit 6 of any write to $8000-$FFFF picks one of the two
//!   screens ("INES Mapper 154").
//! - NAMCOT-3446 (76): R2-R5 choose 2 KiB banks for the four quarters of the pattern space, R0
//!   and R1 nothing ("INES Mapper 076").
//! - NAMCOT-3425 (95): bit 5 of R0 and R1 drives CIRAM A10 for $2000-$27FF and $2800-$2FFF
//!   ("INES Mapper 095").

use super::{banked, chr_two_2k_four_1k, Board, CpuTarget, Mirroring};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wiring {
    Dxrom,
    Namcot3443,
    Namcot3453,
    Namcot3446,
    Namcot3425,
}

#[derive(Clone, Debug)]
pub struct Namco108 {
    bank_select: u8,
    banks: [u8; 8],
    mirroring: Mirroring,
    wiring: Wiring,
    prg_banks: usize,
}

impl Field for Namco108 {
    fn visit(&mut self, io: &mut StateIo) {
        let Namco108 {
            bank_select,
            banks,
            mirroring,
            wiring: _,
            prg_banks: _,
        } = self;
        fields!(io, bank_select, banks, mirroring);
    }
}

impl Board for Namco108 {
    fn new(header: &Header) -> Result<Namco108, RomError> {
        let wiring = match header.mapper {
            76 => Wiring::Namcot3446,
            88 => Wiring::Namcot3443,
            95 => Wiring::Namcot3425,
            154 => Wiring::Namcot3453,
            _ => Wiring::Dxrom,
        };
        Ok(Namco108 {
            bank_select: 0,
            banks: [0; 8],
            mirroring: if wiring == Wiring::Namcot3453 {
                Mirroring::SingleLow
            } else {
                Mirroring::hardwired(header)
            },
            wiring,
            prg_banks: (header.prg_rom_size / 0x2000).max(2),
        })
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        let bank = match addr {
            0x8000..=0x9FFF => usize::from(self.banks[6] & 0x0F),
            0xA000..=0xBFFF => usize::from(self.banks[7] & 0x0F),
            0xC000..=0xDFFF => self.prg_banks - 2,
            0xE000..=0xFFFF => self.prg_banks - 1,
            _ => return CpuTarget::None,
        };
        CpuTarget::PrgRom(banked(bank, 0x2000, addr))
    }

    fn map_chr(&self, addr: u16) -> usize {
        if self.wiring == Wiring::Namcot3446 {
            let bank = self.banks[2 + (usize::from(addr >> 11) & 3)] & 0x3F;
            return banked(usize::from(bank), 0x800, addr);
        }
        let banks = std::array::from_fn(|i| self.banks[i] & 0x3F);
        let offset = chr_two_2k_four_1k(addr, banks, false);
        // NAMCOT-3443/3453: CHR A16 is PPU A12.
        match self.wiring {
            Wiring::Namcot3443 | Wiring::Namcot3453 if addr & 0x1000 != 0 => offset | 0x10000,
            _ => offset,
        }
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn nametable_page(&self, table: usize) -> usize {
        if self.wiring == Wiring::Namcot3425 {
            usize::from(self.banks[table / 2] >> 5 & 1)
        } else {
            self.mirroring.page(table)
        }
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        if self.wiring == Wiring::Namcot3453 {
            self.mirroring = Mirroring::one_screen(val & 0x40 != 0);
        }
        match addr {
            0x8000..=0x9FFF if addr & 1 == 0 => self.bank_select = val & 7,
            0x8000..=0x9FFF => self.banks[usize::from(self.bank_select)] = val,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board(mapper: u8) -> Namco108 {
        let mut m = Namco108::new(&TestImage::new(mapper.into(), 8, 16).header()).unwrap();
        for (reg, bank) in [0x22, 0x25, 0x08, 0x09, 0x0A, 0x0B, 3, 4].into_iter().enumerate() {
            m.write_register(0x8000, reg as u8, 0);
            m.write_register(0x8001, bank, 0);
        }
        m
    }

    /// The 1 KiB CHR bank at each of the eight slots.
    fn chr(m: &Namco108) -> [usize; 8] {
        std::array::from_fn(|slot| m.map_chr(slot as u16 * 0x400) / 0x400)
    }

    #[test]
    fn prg_and_chr_banks_per_board() {
        let m = board(206);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(3 * 0x2000));
        assert_eq!(m.map_cpu(0xA000), CpuTarget::PrgRom(4 * 0x2000));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(14 * 0x2000));
        assert_eq!(m.map_cpu(0xE000), CpuTarget::PrgRom(15 * 0x2000));
        assert_eq!(chr(&m), [0x22, 0x23, 0x24, 0x25, 8, 9, 10, 11]);
        assert_eq!(chr(&board(88)), [0x22, 0x23, 0x24, 0x25, 0x48, 0x49, 0x4A, 0x4B]);
        assert_eq!(chr(&board(76)), [16, 17, 18, 19, 20, 21, 22, 23]);
        let mut m = board(206);
        m.write_register(0xA001, 7, 0);
        assert_eq!(m.map_cpu(0xA000), CpuTarget::PrgRom(4 * 0x2000), "nothing past $9FFF");
    }

    #[test]
    fn mirroring_per_board() {
        let mut m154 = board(154);
        m154.write_register(0xE000, 0x40, 0);
        assert_eq!(m154.mirroring(), Mirroring::SingleHigh);
        m154.write_register(0x8000, 0x00, 0);
        assert_eq!(m154.mirroring(), Mirroring::SingleLow);
        let m95 = board(95);
        let pages: [usize; 4] = std::array::from_fn(|table| m95.nametable_page(table));
        assert_eq!(pages, [1, 1, 1, 1]);
        let mut m95 = m95;
        m95.write_register(0x8000, 1, 0);
        m95.write_register(0x8001, 0x05, 0);
        let pages: [usize; 4] = std::array::from_fn(|table| m95.nametable_page(table));
        assert_eq!(pages, [1, 1, 0, 0]);
    }
}
