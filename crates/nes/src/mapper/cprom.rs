//! CPROM (mapper 13): 32 KiB PRG-ROM, 16 KiB CHR-RAM whose first 4 KiB stay at $0000 while a
//! latch at $8000-$FFFF (with bus conflicts) picks the 4 KiB at $1000.

use super::{banked, Board, CpuTarget, Mirroring};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Cprom {
    chr_bank: u8,
    mirroring: Mirroring,
}

impl Field for Cprom {
    fn visit(&mut self, io: &mut StateIo) {
        let Cprom {
            chr_bank,
            mirroring: _,
        } = self;
        fields!(io, chr_bank);
    }
}

impl Board for Cprom {
    fn read_header(header: &mut Header) {
        // 16 KiB of CHR-RAM, which iNES 1.0 cannot state.
        if !header.nes2 && header.chr_rom_size == 0 {
            header.chr_ram_size = 2 * 0x2000;
        }
    }

    fn new(header: &Header) -> Result<Cprom, RomError> {
        Ok(Cprom {
            chr_bank: 0,
            mirroring: Mirroring::hardwired(header),
        })
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        match addr {
            0x8000..=0xFFFF => CpuTarget::PrgRom(usize::from(addr & 0x7FFF)),
            _ => CpuTarget::None,
        }
    }

    fn map_chr(&self, addr: u16) -> usize {
        let bank = if addr & 0x1000 == 0 { 0 } else { self.chr_bank & 3 };
        banked(usize::from(bank), 0x1000, addr)
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn write_register(&mut self, _addr: u16, val: u8, _cpu_cycle: u64) {
        self.chr_bank = val;
    }

    fn bus_conflicts(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    #[test]
    fn latch_switches_the_upper_4k_only() {
        let header = TestImage::new(13, 2, 0).header();
        assert_eq!(header.chr_ram_size, 16 * 1024, "iNES 1.0: CPROM's 16 KiB");
        let mut m = Cprom::new(&header).unwrap();
        m.write_register(0x8000, 2, 0);
        assert_eq!(m.map_chr(0x0005), 5);
        assert_eq!(m.map_chr(0x1005), 2 * 0x1000 + 5);
        m.write_register(0x8000, 3, 0);
        assert_eq!(m.map_chr(0x1FFF), 4 * 0x1000 - 1);
    }
}
