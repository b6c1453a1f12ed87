//! Mappers: the bank-switching logic of each board. A mapper only translates addresses and
//! keeps its registers; the memories themselves live in [`crate::Cartridge`]. Adding a mapper
//! means a new file here and one arm in each `match` below, nothing in the CPU or PPU.

mod mmc1;
mod nrom;

pub use mmc1::Mmc1;
pub use nrom::Nrom;

use crate::cartridge::{Header, RomError};

/// Where a CPU access in $4020-$FFFF lands, as offsets into the cartridge's memories.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuTarget {
    PrgRom(usize),
    PrgRam(usize),
    /// Nothing answers: the CPU sees open bus.
    None,
}

/// Which CIRAM page each of the four nametables uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mirroring {
    /// $2000=$2800, $2400=$2C00 (horizontal arrangement).
    Vertical,
    /// $2000=$2400, $2800=$2C00.
    Horizontal,
    SingleLow,
    SingleHigh,
}

#[derive(Clone, Debug)]
pub enum Mapper {
    Nrom(Nrom),
    Mmc1(Mmc1),
}

const KIB: usize = 1024;

impl Mapper {
    pub fn new(header: &Header) -> Result<Mapper, RomError> {
        match header.mapper {
            0 => Ok(Mapper::Nrom(Nrom::new(header))),
            1 => Ok(Mapper::Mmc1(Mmc1::new(header))),
            _ => Err(RomError::UnsupportedMapper {
                mapper: header.mapper,
                submapper: header.submapper,
            }),
        }
    }

    /// PRG-RAM to provide when the header declares none (iNES 1.0 cannot say).
    pub fn default_prg_ram(&self) -> usize {
        8 * KIB
    }

    pub fn map_cpu(&self, addr: u16) -> CpuTarget {
        match self {
            Mapper::Nrom(m) => m.map_cpu(addr),
            Mapper::Mmc1(m) => m.map_cpu(addr),
        }
    }

    /// Offset into CHR for a PPU pattern-table address ($0000-$1FFF).
    pub fn map_chr(&self, addr: u16) -> usize {
        match self {
            Mapper::Nrom(_) => usize::from(addr),
            Mapper::Mmc1(m) => m.map_chr(addr),
        }
    }

    /// A CPU write to $8000-$FFFF.
    pub fn write_register(&mut self, addr: u16, val: u8, cpu_cycle: u64) {
        match self {
            Mapper::Nrom(_) => {}
            Mapper::Mmc1(m) => m.write_register(addr, val, cpu_cycle),
        }
    }

    pub fn mirroring(&self, header: &Header) -> Mirroring {
        match self {
            Mapper::Nrom(_) => {
                if header.vertical_mirroring {
                    Mirroring::Vertical
                } else {
                    Mirroring::Horizontal
                }
            }
            Mapper::Mmc1(m) => m.mirroring(),
        }
    }
}
