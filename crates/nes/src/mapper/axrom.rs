//! AxROM (mapper 7): a switchable 32 KiB PRG bank and one-screen mirroring chosen by bit 4.

use super::{CpuTarget, Mirroring};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug, Default)]
pub struct Axrom {
    reg: u8,
}

impl Field for Axrom {
    fn visit(&mut self, io: &mut StateIo) {
        let Axrom { reg } = self;
        fields!(io, reg);
    }
}

impl Axrom {
    pub fn map_cpu(&self, addr: u16) -> CpuTarget {
        match addr {
            0x8000..=0xFFFF => CpuTarget::PrgRom(
                usize::from(self.reg & 0x0F) * 0x8000 + usize::from(addr & 0x7FFF),
            ),
            0x6000..=0x7FFF => CpuTarget::PrgRam(usize::from(addr - 0x6000)),
            _ => CpuTarget::None,
        }
    }

    pub fn write_register(&mut self, val: u8) {
        self.reg = val;
    }

    pub fn mirroring(&self) -> Mirroring {
        if self.reg & 0x10 == 0 {
            Mirroring::SingleLow
        } else {
            Mirroring::SingleHigh
        }
    }
}
