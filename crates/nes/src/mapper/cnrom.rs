//! CNROM (mapper 3): fixed 16 or 32 KiB PRG, an 8 KiB CHR bank selected by any write to
//! $8000-$FFFF.

use super::Mirroring;
use crate::cartridge::Header;
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Cnrom {
    chr_bank: u8,
    pub mirroring: Mirroring,
}

impl Field for Cnrom {
    fn visit(&mut self, io: &mut StateIo) {
        let Cnrom {
            chr_bank,
            mirroring: _,
        } = self;
        fields!(io, chr_bank);
    }
}

impl Cnrom {
    pub fn new(header: &Header) -> Cnrom {
        Cnrom {
            chr_bank: 0,
            mirroring: Mirroring::hardwired(header),
        }
    }

    pub fn map_chr(&self, addr: u16) -> usize {
        usize::from(self.chr_bank) * 0x2000 + usize::from(addr & 0x1FFF)
    }

    pub fn write_register(&mut self, val: u8) {
        self.chr_bank = val;
    }
}
