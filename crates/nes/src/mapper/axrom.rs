//! AxROM (mapper 7): a switchable 32 KiB PRG bank and one-screen mirroring chosen by bit 4.

use super::{Board, CpuTarget, Mirroring};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Axrom {
    reg: u8,
    /// NES 2.0 submapper 2.
    bus_conflicts: bool,
}

impl Field for Axrom {
    fn visit(&mut self, io: &mut StateIo) {
        let Axrom {
            reg,
            bus_conflicts: _,
        } = self;
        fields!(io, reg);
    }
}

impl Board for Axrom {
    const VARIANTS: &'static [(u16, u8)] = &[(7, 0), (7, 2)];

    fn new(header: &Header) -> Result<Axrom, RomError> {
        Ok(Axrom {
            reg: 0,
            bus_conflicts: header.submapper == 2,
        })
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        match addr {
            0x8000..=0xFFFF => CpuTarget::PrgRom(
                usize::from(self.reg & 0x0F) * 0x8000 + usize::from(addr & 0x7FFF),
            ),
            0x6000..=0x7FFF => CpuTarget::PrgRam(usize::from(addr - 0x6000)),
            _ => CpuTarget::None,
        }
    }

    fn write_register(&mut self, _addr: u16, val: u8, _cpu_cycle: u64) {
        self.reg = val;
    }

    fn mirroring(&self) -> Mirroring {
        if self.reg & 0x10 == 0 {
            Mirroring::SingleLow
        } else {
            Mirroring::SingleHigh
        }
    }

    fn bus_conflicts(&self) -> bool {
        self.bus_conflicts
    }
}
