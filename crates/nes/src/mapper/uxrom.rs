//! UxROM (mapper 2): a switchable 16 KiB PRG bank at $8000, the last bank fixed at $C000,
//! 8 KiB CHR-RAM, mirroring hard-wired.

use super::{CpuTarget, Mirroring};
use crate::cartridge::Header;
use crate::state::{fields, Field, StateIo};

const BANK_16K: usize = 16 * 1024;

#[derive(Clone, Debug)]
pub struct Uxrom {
    prg_bank: u8,
    last_bank: usize,
    pub mirroring: Mirroring,
}

impl Field for Uxrom {
    fn visit(&mut self, io: &mut StateIo) {
        let Uxrom {
            prg_bank,
            last_bank: _,
            mirroring: _,
        } = self;
        fields!(io, prg_bank);
    }
}

impl Uxrom {
    pub fn new(header: &Header) -> Uxrom {
        Uxrom {
            prg_bank: 0,
            last_bank: (header.prg_rom_size / BANK_16K).max(1) - 1,
            mirroring: Mirroring::hardwired(header),
        }
    }

    pub fn map_cpu(&self, addr: u16) -> CpuTarget {
        let offset = usize::from(addr & 0x3FFF);
        match addr {
            0x8000..=0xBFFF => CpuTarget::PrgRom(usize::from(self.prg_bank) * BANK_16K + offset),
            0xC000..=0xFFFF => CpuTarget::PrgRom(self.last_bank * BANK_16K + offset),
            0x6000..=0x7FFF => CpuTarget::PrgRam(usize::from(addr - 0x6000)),
            _ => CpuTarget::None,
        }
    }

    pub fn write_register(&mut self, val: u8) {
        self.prg_bank = val;
    }
}
