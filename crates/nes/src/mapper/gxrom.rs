//! GxROM and MHROM (mapper 66): one latch at $8000-$FFFF, bits 4-5 the 32 KiB PRG bank, bits
//! 0-1 the 8 KiB CHR bank; mirroring hard-wired.

use super::{Board, CpuTarget, Mirroring};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Gxrom {
    latch: u8,
    mirroring: Mirroring,
}

impl Field for Gxrom {
    fn visit(&mut self, io: &mut StateIo) {
        let Gxrom {
            latch,
            mirroring: _,
        } = self;
        fields!(io, latch);
    }
}

impl Board for Gxrom {
    fn new(header: &Header) -> Result<Gxrom, RomError> {
        Ok(Gxrom {
            latch: 0,
            mirroring: Mirroring::hardwired(header),
        })
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        match addr {
            0x8000..=0xFFFF => CpuTarget::PrgRom(
                usize::from(self.latch >> 4 & 3) * 0x8000 + usize::from(addr & 0x7FFF),
            ),
            _ => CpuTarget::None,
        }
    }

    fn map_chr(&self, addr: u16) -> usize {
        usize::from(self.latch & 3) * 0x2000 + usize::from(addr & 0x1FFF)
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn write_register(&mut self, _addr: u16, val: u8, _cpu_cycle: u64) {
        self.latch = val;
    }
}
