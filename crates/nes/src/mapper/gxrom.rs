//! Boards whose one latch picks a 32 KiB PRG bank and the CHR banks, mirroring hard-wired. They
//! differ in where the latch answers and how its bits are wired:
//! - GxROM and MHROM (66): $8000-$FFFF, bits 4-5 the PRG bank, bits 0-1 the 8 KiB CHR bank.
//! - Color Dreams (11): $8000-$FFFF with bus conflicts, bits 0-1 PRG, bits 4-7 CHR.
//! - Jaleco JF-11/JF-14 (140): $6000-$7FFF, bits 4-5 PRG, bits 0-3 CHR.
//! - Jaleco/Konami J87 (87): $6000-$7FFF, CHR only, with bit 0 the high bit and bit 1 the low
//!   ("INES Mapper 087").
//! - Sunsoft-1 (184): $6000-$7FFF, two 4 KiB CHR banks, bits 0-2 at $0000 and bits 4-6 at
//!   $1000, whose top bit the chip always drives high ("INES Mapper 184").

use super::{banked, Board, CpuTarget, Mirroring, Needs};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wiring {
    Gxrom,
    ColorDreams,
    Jf11,
    J87,
    Sunsoft1,
}

#[derive(Clone, Debug)]
pub struct Gxrom {
    latch: u8,
    wiring: Wiring,
    mirroring: Mirroring,
}

impl Field for Gxrom {
    fn visit(&mut self, io: &mut StateIo) {
        let Gxrom {
            latch,
            wiring: _,
            mirroring: _,
        } = self;
        fields!(io, latch);
    }
}

impl Gxrom {
    /// The latch answers in $6000-$7FFF (there is no PRG-RAM), else in $8000-$FFFF.
    fn latch_low(&self) -> bool {
        matches!(self.wiring, Wiring::Jf11 | Wiring::J87 | Wiring::Sunsoft1)
    }

    fn prg_bank(&self) -> u8 {
        match self.wiring {
            Wiring::Gxrom | Wiring::Jf11 => self.latch >> 4 & 3,
            Wiring::ColorDreams => self.latch & 3,
            Wiring::J87 | Wiring::Sunsoft1 => 0,
        }
    }

    /// The 4 KiB CHR banks at $0000 and $1000.
    fn chr_banks(&self) -> [u8; 2] {
        let bank_8k = match self.wiring {
            Wiring::Gxrom => self.latch & 3,
            Wiring::ColorDreams => self.latch >> 4,
            Wiring::Jf11 => self.latch & 0x0F,
            Wiring::J87 => (self.latch & 1) << 1 | (self.latch >> 1 & 1),
            Wiring::Sunsoft1 => return [self.latch & 7, self.latch >> 4 & 7 | 4],
        };
        [bank_8k * 2, bank_8k * 2 + 1]
    }
}

impl Board for Gxrom {
    fn new(header: &Header) -> Result<Gxrom, RomError> {
        let wiring = match header.mapper {
            11 => Wiring::ColorDreams,
            87 => Wiring::J87,
            140 => Wiring::Jf11,
            184 => Wiring::Sunsoft1,
            _ => Wiring::Gxrom,
        };
        Ok(Gxrom {
            latch: 0,
            wiring,
            mirroring: Mirroring::hardwired(header),
        })
    }

    fn needs(&self) -> Needs {
        Needs {
            low_registers: self.latch_low(),
            ..Needs::default()
        }
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        match addr {
            0x8000..=0xFFFF => CpuTarget::PrgRom(banked(usize::from(self.prg_bank()), 0x8000, addr)),
            _ => CpuTarget::None,
        }
    }

    fn map_chr(&self, addr: u16) -> usize {
        let bank = self.chr_banks()[usize::from(addr >> 12) & 1];
        banked(usize::from(bank), 0x1000, addr)
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn write_register(&mut self, _addr: u16, val: u8, _cpu_cycle: u64) {
        if !self.latch_low() {
            self.latch = val;
        }
    }

    fn write_low(&mut self, addr: u16, val: u8) {
        if addr >= 0x6000 && self.latch_low() {
            self.latch = val;
        }
    }

    fn bus_conflicts(&self) -> bool {
        self.wiring == Wiring::ColorDreams
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board(mapper: u8) -> Gxrom {
        Gxrom::new(&TestImage::new(mapper.into(), 8, 16).header()).unwrap()
    }

    /// The PRG bank and the two 4 KiB CHR banks after writing `val` to `addr`.
    fn after(mapper: u8, addr: u16, val: u8) -> (usize, [usize; 2]) {
        let mut m = board(mapper);
        if addr < 0x8000 {
            m.write_low(addr, val);
        } else {
            m.write_register(addr, val, 0);
        }
        let CpuTarget::PrgRom(prg) = m.map_cpu(0x8000) else {
            panic!("no PRG-ROM at $8000");
        };
        (prg / 0x8000, [m.map_chr(0x0000) / 0x1000, m.map_chr(0x1000) / 0x1000])
    }

    #[test]
    fn each_wiring_reads_its_own_bits() {
        assert_eq!(after(66, 0x8000, 0x21), (2, [2, 3]));
        assert_eq!(after(11, 0x8000, 0x52), (2, [10, 11]));
        assert_eq!(after(140, 0x6000, 0x25), (2, [10, 11]));
        assert_eq!(after(140, 0x8000, 0x25), (0, [0, 1]), "140 ignores $8000");
        assert_eq!(after(87, 0x7000, 0x01), (0, [4, 5]), "bit 0 is the high bit");
        assert_eq!(after(87, 0x7000, 0x02), (0, [2, 3]));
        assert_eq!(after(184, 0x6000, 0x13), (0, [3, 5]), "$1000 bank 4-7");
        assert_eq!(after(184, 0x8000, 0x13), (0, [0, 4]));
        assert!(board(11).bus_conflicts() && !board(66).bus_conflicts());
        assert!(board(184).needs().low_registers && !board(66).needs().low_registers);
    }
}
