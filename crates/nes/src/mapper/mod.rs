//! Mappers: the bank-switching logic of each board. A mapper only translates addresses and
//! keeps its registers; the memories themselves live in [`crate::Cartridge`]. Adding a mapper
//! means a new file here and one arm in each `match` below, nothing in the CPU or PPU.

mod axrom;
mod cnrom;
mod mmc1;
mod mmc3;
mod nrom;
mod uxrom;

pub use axrom::Axrom;
pub use cnrom::Cnrom;
pub use mmc1::Mmc1;
pub use mmc3::Mmc3;
pub use nrom::Nrom;
pub use uxrom::Uxrom;

use crate::cartridge::{Header, RomError};
use crate::state::{Field, StateIo};

/// Where a CPU access in $4020-$FFFF lands, as offsets into the cartridge's memories.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuTarget {
    PrgRom(usize),
    /// PRG-RAM; open bus if the board has none.
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

impl Field for Mirroring {
    fn visit(&mut self, io: &mut StateIo) {
        const ALL: [Mirroring; 4] = [
            Mirroring::Vertical,
            Mirroring::Horizontal,
            Mirroring::SingleLow,
            Mirroring::SingleHigh,
        ];
        let mut index = ALL.iter().position(|m| m == self).unwrap_or(0) as u8;
        io.checked(&mut index, "mirroring", |&i| usize::from(i) < ALL.len());
        *self = ALL[usize::from(index) % ALL.len()];
    }
}

impl Mirroring {
    /// The solder-pad setting of boards without mirroring control.
    pub fn hardwired(header: &Header) -> Mirroring {
        if header.vertical_mirroring {
            Mirroring::Vertical
        } else {
            Mirroring::Horizontal
        }
    }
}

#[derive(Clone, Debug)]
pub enum Mapper {
    Nrom(Nrom),
    Mmc1(Mmc1),
    Uxrom(Uxrom),
    Cnrom(Cnrom),
    Axrom(Axrom),
    Mmc3(Mmc3),
}

/// The board type comes from the ROM's header; only its registers are stored.
impl Field for Mapper {
    fn visit(&mut self, io: &mut StateIo) {
        match self {
            Mapper::Nrom(m) => m.visit(io),
            Mapper::Mmc1(m) => m.visit(io),
            Mapper::Uxrom(m) => m.visit(io),
            Mapper::Cnrom(m) => m.visit(io),
            Mapper::Axrom(m) => m.visit(io),
            Mapper::Mmc3(m) => m.visit(io),
        }
    }
}

impl Mapper {
    pub fn new(header: &Header) -> Result<Mapper, RomError> {
        Ok(match header.mapper {
            0 => Mapper::Nrom(Nrom::new(header)),
            1 => Mapper::Mmc1(Mmc1::new(header)),
            2 => Mapper::Uxrom(Uxrom::new(header)),
            3 => Mapper::Cnrom(Cnrom::new(header)),
            4 => Mapper::Mmc3(Mmc3::new(header)),
            7 => Mapper::Axrom(Axrom::default()),
            _ => {
                return Err(RomError::UnsupportedMapper {
                    mapper: header.mapper,
                    submapper: header.submapper,
                })
            }
        })
    }

    /// Discrete-logic boards whose ROM drives the data bus during register writes (NES 2.0
    /// submapper 2): the register latches the AND of the CPU's value and the ROM's byte.
    pub fn has_bus_conflicts(&self, header: &Header) -> bool {
        matches!(self, Mapper::Uxrom(_) | Mapper::Cnrom(_) | Mapper::Axrom(_))
            && header.submapper == 2
    }

    pub fn map_cpu(&self, addr: u16) -> CpuTarget {
        match self {
            Mapper::Nrom(_) | Mapper::Cnrom(_) => Nrom::map_cpu(addr),
            Mapper::Mmc1(m) => m.map_cpu(addr),
            Mapper::Uxrom(m) => m.map_cpu(addr),
            Mapper::Axrom(m) => m.map_cpu(addr),
            Mapper::Mmc3(m) => m.map_cpu(addr),
        }
    }

    /// Offset into CHR for a PPU pattern-table address ($0000-$1FFF).
    pub fn map_chr(&self, addr: u16) -> usize {
        match self {
            Mapper::Mmc1(m) => m.map_chr(addr),
            Mapper::Cnrom(m) => m.map_chr(addr),
            Mapper::Mmc3(m) => m.map_chr(addr),
            Mapper::Nrom(_) | Mapper::Uxrom(_) | Mapper::Axrom(_) => usize::from(addr & 0x1FFF),
        }
    }

    /// A CPU write to $8000-$FFFF.
    pub fn write_register(&mut self, addr: u16, val: u8, cpu_cycle: u64) {
        match self {
            Mapper::Nrom(_) => {}
            Mapper::Mmc1(m) => m.write_register(addr, val, cpu_cycle),
            Mapper::Uxrom(m) => m.write_register(val),
            Mapper::Cnrom(m) => m.write_register(val),
            Mapper::Axrom(m) => m.write_register(val),
            Mapper::Mmc3(m) => m.write_register(addr, val),
        }
    }

    pub fn mirroring(&self) -> Mirroring {
        match self {
            Mapper::Nrom(m) => m.mirroring,
            Mapper::Mmc1(m) => m.mirroring(),
            Mapper::Uxrom(m) => m.mirroring,
            Mapper::Cnrom(m) => m.mirroring,
            Mapper::Axrom(m) => m.mirroring(),
            Mapper::Mmc3(m) => m.mirroring(),
        }
    }

    /// Whether CPU writes reach PRG-RAM (MMC3 can make it read-only).
    pub fn prg_ram_writable(&self) -> bool {
        match self {
            Mapper::Mmc3(m) => m.prg_ram_writable(),
            _ => true,
        }
    }

    /// One CPU cycle (M2), for mappers that count time.
    pub fn cpu_clock(&mut self) {
        if let Mapper::Mmc3(m) = self {
            m.cpu_clock();
        }
    }

    /// The PPU drove `addr` onto its address bus (fetches, $2006/$2007 accesses): mappers that
    /// watch A12 see every change. Returns whether the banks changed with it.
    pub fn ppu_address(&mut self, addr: u16) -> bool {
        match self {
            Mapper::Mmc3(m) => {
                m.ppu_address(addr);
                false
            }
            Mapper::Mmc1(m) => m.ppu_address(addr),
            _ => false,
        }
    }

    /// Whether [`Self::ppu_address`] can matter at all: otherwise the PPU's addresses need not
    /// reach the mapper.
    pub fn follows_ppu_bus(&self) -> bool {
        match self {
            Mapper::Mmc3(_) => true,
            Mapper::Mmc1(m) => m.follows_ppu_bus(),
            _ => false,
        }
    }

    /// Whether [`Self::ppu_address`] matters now: the PPU then shows the mapper every dot as
    /// it happens.
    pub fn watches_ppu_bus(&self) -> bool {
        match self {
            Mapper::Mmc3(_) => true,
            Mapper::Mmc1(m) => m.watches_ppu_bus(),
            _ => false,
        }
    }

    /// The mapper's /IRQ output.
    pub fn irq(&self) -> bool {
        match self {
            Mapper::Mmc3(m) => m.irq,
            _ => false,
        }
    }
}
