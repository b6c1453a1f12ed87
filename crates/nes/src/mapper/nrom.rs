//! NROM (mapper 0): 16 or 32 KiB PRG, 8 KiB CHR, no registers.

use super::{CpuTarget, Mirroring};
use crate::cartridge::Header;
use crate::state::{Field, StateIo};

#[derive(Clone, Debug)]
pub struct Nrom {
    pub mirroring: Mirroring,
}

impl Field for Nrom {
    fn visit(&mut self, _: &mut StateIo) {
        // Nothing to store: the mirroring is soldered.
        let Nrom { mirroring: _ } = self;
    }
}

impl Nrom {
    pub fn new(header: &Header) -> Nrom {
        Nrom {
            mirroring: Mirroring::hardwired(header),
        }
    }

    /// Fixed PRG at $8000 (NROM-128 mirrors its 16 KiB: the cartridge reduces the offset modulo
    /// the ROM size) and PRG-RAM at $6000; CNROM wires PRG the same way.
    pub fn map_cpu(addr: u16) -> CpuTarget {
        match addr {
            0x8000..=0xFFFF => CpuTarget::PrgRom(usize::from(addr - 0x8000)),
            0x6000..=0x7FFF => CpuTarget::PrgRam(usize::from(addr - 0x6000)),
            _ => CpuTarget::None,
        }
    }
}
