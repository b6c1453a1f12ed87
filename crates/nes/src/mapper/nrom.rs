//! NROM (mapper 0): 16 or 32 KiB PRG, 8 KiB CHR, no registers. NROM-128 mirrors its 16 KiB:
//! the cartridge reduces offsets modulo the ROM size.

use super::{Board, Mirroring};
use crate::header::{Header, RomError};
use crate::state::{Field, StateIo};

#[derive(Clone, Debug)]
pub struct Nrom {
    mirroring: Mirroring,
}

impl Field for Nrom {
    fn visit(&mut self, _: &mut StateIo) {
        // Nothing to store: the mirroring is soldered.
        let Nrom { mirroring: _ } = self;
    }
}

impl Board for Nrom {
    fn new(header: &Header) -> Result<Nrom, RomError> {
        Ok(Nrom {
            mirroring: Mirroring::hardwired(header),
        })
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }
}
