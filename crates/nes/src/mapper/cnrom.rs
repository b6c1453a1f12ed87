//! CNROM (mapper 3): fixed 16 or 32 KiB PRG, an 8 KiB CHR bank selected by any write to
//! $8000-$FFFF.

use super::{Board, Mirroring};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Cnrom {
    chr_bank: u8,
    mirroring: Mirroring,
    /// NES 2.0 submapper 2.
    bus_conflicts: bool,
}

impl Field for Cnrom {
    fn visit(&mut self, io: &mut StateIo) {
        let Cnrom {
            chr_bank,
            mirroring: _,
            bus_conflicts: _,
        } = self;
        fields!(io, chr_bank);
    }
}

impl Board for Cnrom {
    fn new(header: &Header) -> Result<Cnrom, RomError> {
        Ok(Cnrom {
            chr_bank: 0,
            mirroring: Mirroring::hardwired(header),
            bus_conflicts: header.submapper == 2,
        })
    }

    fn map_chr(&self, addr: u16) -> usize {
        usize::from(self.chr_bank) * 0x2000 + usize::from(addr & 0x1FFF)
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn write_register(&mut self, _addr: u16, val: u8, _cpu_cycle: u64) {
        self.chr_bank = val;
    }

    fn bus_conflicts(&self) -> bool {
        self.bus_conflicts
    }
}
