//! UxROM (mapper 2): a switchable 16 KiB PRG bank at $8000, the last bank fixed at $C000,
//! 8 KiB CHR-RAM, mirroring hard-wired. Mapper 180 (UNROM with a 74HC08, Crazy Climber) is the
//! same latch wired the other way round: the first bank fixed at $8000, the switchable one at
//! $C000.

use super::{Board, CpuTarget, Mirroring};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

const BANK_16K: usize = 16 * 1024;

#[derive(Clone, Debug)]
pub struct Uxrom {
    prg_bank: u8,
    last_bank: usize,
    /// Mapper 180: the latch selects the bank at $C000.
    switches_high: bool,
    mirroring: Mirroring,
    /// NES 2.0 submapper 2.
    bus_conflicts: bool,
}

impl Field for Uxrom {
    fn visit(&mut self, io: &mut StateIo) {
        let Uxrom {
            prg_bank,
            last_bank: _,
            switches_high: _,
            mirroring: _,
            bus_conflicts: _,
        } = self;
        fields!(io, prg_bank);
    }
}

impl Board for Uxrom {
    const VARIANTS: &'static [(u16, u8)] = &[(2, 0), (2, 2), (180, 0)];

    fn new(header: &Header) -> Result<Uxrom, RomError> {
        Ok(Uxrom {
            prg_bank: 0,
            last_bank: (header.prg_rom_size / BANK_16K).max(1) - 1,
            switches_high: header.mapper == 180,
            mirroring: Mirroring::hardwired(header),
            bus_conflicts: header.submapper == 2,
        })
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        let offset = usize::from(addr & 0x3FFF);
        let switched = usize::from(self.prg_bank);
        let bank = match (addr, self.switches_high) {
            (0x8000..=0xBFFF, false) | (0xC000..=0xFFFF, true) => switched,
            (0x8000..=0xBFFF, true) => 0,
            (0xC000..=0xFFFF, false) => self.last_bank,
            (0x6000..=0x7FFF, _) => return CpuTarget::PrgRam(usize::from(addr - 0x6000)),
            _ => return CpuTarget::None,
        };
        CpuTarget::PrgRom(bank * BANK_16K + offset)
    }

    fn write_register(&mut self, _addr: u16, val: u8, _cpu_cycle: u64) {
        self.prg_bank = val;
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn bus_conflicts(&self) -> bool {
        self.bus_conflicts
    }
}
