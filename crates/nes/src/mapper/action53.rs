//! Action 53 (mapper 28, INL-ROM multicarts): a register number written to $5000-$5FFF, its
//! value to $8000-$FFFF. $00: 8 KiB CHR-RAM bank; $01: inner PRG bank; $80: mirroring, PRG
//! bank mode (32 KiB, or 16 KiB with the outer bank's first or last half fixed) and the
//! outer bank's size; $81: the outer bank, in 32 KiB units.

use super::{Board, CpuTarget, Mirroring, Needs};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

const BANK_16K: usize = 16 * 1024;

#[derive(Clone, Debug)]
pub struct Action53 {
    select: u8,
    chr_bank: u8,
    inner_bank: u8,
    mode: u8,
    outer_bank: u8,
}

impl Field for Action53 {
    fn visit(&mut self, io: &mut StateIo) {
        let Action53 {
            select,
            chr_bank,
            inner_bank,
            mode,
            outer_bank,
        } = self;
        fields!(io, select, chr_bank, inner_bank, mode, outer_bank);
    }
}

impl Board for Action53 {
    fn new(_: &Header) -> Result<Action53, RomError> {
        // The last outer bank in 32 KiB mode puts the ROM's end, with the reset vector, at $8000.
        Ok(Action53 {
            select: 0,
            chr_bank: 0,
            inner_bank: 0,
            mode: 0,
            outer_bank: 0xFF,
        })
    }

    fn needs(&self) -> Needs {
        Needs {
            low_registers: true,
            ..Needs::default()
        }
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        if addr < 0x8000 {
            return CpuTarget::None;
        }
        let high = addr >= 0xC000;
        let outer = usize::from(self.outer_bank) << 1;
        let inner = usize::from(self.inner_bank & 0x0F);
        let size = (self.mode >> 4) & 3;
        let bank = match ((self.mode >> 2) & 3, high) {
            (0 | 1, _) => {
                // 32 KiB banks: the inner bank replaces the outer bank's low bits.
                let mask = (2usize << size) - 2;
                (outer & !mask) | (inner << 1 & mask) | usize::from(high)
            }
            (2, false) => outer,
            (3, true) => outer | 1,
            _ => {
                let mask = (2usize << size) - 1;
                (outer & !mask) | (inner & mask)
            }
        };
        CpuTarget::PrgRom(bank * BANK_16K + usize::from(addr & 0x3FFF))
    }

    fn map_chr(&self, addr: u16) -> usize {
        usize::from(self.chr_bank & 3) * 0x2000 + usize::from(addr & 0x1FFF)
    }

    fn mirroring(&self) -> Mirroring {
        match self.mode & 3 {
            0 => Mirroring::SingleLow,
            1 => Mirroring::SingleHigh,
            2 => Mirroring::Vertical,
            _ => Mirroring::Horizontal,
        }
    }

    fn write_low(&mut self, addr: u16, val: u8) {
        if (0x5000..=0x5FFF).contains(&addr) {
            self.select = val & 0x81;
        }
    }

    fn write_register(&mut self, _addr: u16, val: u8, _cpu_cycle: u64) {
        match self.select {
            0x00 | 0x01 => {
                if self.select == 0 {
                    self.chr_bank = val;
                } else {
                    self.inner_bank = val;
                }
                // One-screen modes take their page from D4, as AxROM does.
                if self.mode & 2 == 0 {
                    self.mode = self.mode & !1 | (val >> 4) & 1;
                }
            }
            0x80 => self.mode = val,
            _ => self.outer_bank = val,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board() -> Action53 {
        Action53::new(&TestImage::new(28, 32, 0).header()).unwrap()
    }

    fn write(m: &mut Action53, reg: u8, val: u8) {
        m.write_low(0x5000, reg);
        m.write_register(0x8000, val, 0);
    }

    fn banks(m: &Action53) -> [usize; 2] {
        [0x8000, 0xC000].map(|addr| match m.map_cpu(addr) {
            CpuTarget::PrgRom(off) => off / BANK_16K,
            other => panic!("{other:?}"),
        })
    }

    #[test]
    fn prg_modes_and_outer_bank_sizes() {
        let mut m = board();
        write(&mut m, 0x81, 0x03); // outer 32 KiB bank 3: 16 KiB banks 6 and 7
        write(&mut m, 0x01, 0x05);
        write(&mut m, 0x80, 0x00); // 32 KiB, size 32 KiB: the inner bank is ignored
        assert_eq!(banks(&m), [6, 7]);
        write(&mut m, 0x80, 0x10); // 32 KiB banks within 64 KiB: inner bit 0
        assert_eq!(banks(&m), [6, 7]);
        write(&mut m, 0x01, 0x04);
        assert_eq!(banks(&m), [4, 5]);
        write(&mut m, 0x80, 0x2C); // UNROM, 128 KiB: inner bits 0-2 at $8000, 7 fixed
        write(&mut m, 0x01, 0x05);
        assert_eq!(banks(&m), [5, 7]);
        write(&mut m, 0x80, 0x28); // mapper 180-like: 6 fixed at $8000
        assert_eq!(banks(&m), [6, 5]);
    }

    #[test]
    fn one_screen_page_follows_d4_of_user_writes() {
        let mut m = board();
        write(&mut m, 0x80, 0x00);
        write(&mut m, 0x00, 0x10);
        assert_eq!(m.mirroring(), Mirroring::SingleHigh);
        write(&mut m, 0x01, 0x00);
        assert_eq!(m.mirroring(), Mirroring::SingleLow);
        write(&mut m, 0x80, 0x02);
        write(&mut m, 0x00, 0x10);
        assert_eq!(m.mirroring(), Mirroring::Vertical);
    }
}
