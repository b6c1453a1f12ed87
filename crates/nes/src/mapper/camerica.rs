//! Camerica/Codemasters BF9093 and BF9097 (mapper 71): a 16 KiB PRG bank at $8000 chosen by
//! writes to $C000-$FFFF, the last bank fixed at $C000, 8 KiB CHR-RAM. Only Fire Hawk's BF9097
//! (submapper 1) has a mirroring register, bit 4 choosing one of the two screens, at
//! $8000-$9FFF. Without a submapper the game's writes to $9000-$9FFF are taken as that
//! register, which no other game writes ("INES Mapper 071").

use super::{last_bank, prg_16k_last_fixed, unknown_submapper, Board, CpuTarget, Mirroring};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Camerica {
    prg_bank: u8,
    mirroring: Mirroring,
    /// The lowest address of the mirroring register; none on BF9093.
    mirroring_register: Option<u16>,
    last_bank: usize,
}

impl Field for Camerica {
    fn visit(&mut self, io: &mut StateIo) {
        let Camerica {
            prg_bank,
            mirroring,
            mirroring_register: _,
            last_bank: _,
        } = self;
        fields!(io, prg_bank, mirroring);
    }
}

impl Board for Camerica {
    const VARIANTS: &'static [(u16, u8)] = &[(71, 0), (71, 1)];

    fn new(header: &Header) -> Result<Camerica, RomError> {
        let mirroring_register = match header.submapper {
            0 => Some(0x9000),
            1 => Some(0x8000),
            _ => return unknown_submapper(header),
        };
        Ok(Camerica {
            prg_bank: 0,
            mirroring: Mirroring::hardwired(header),
            mirroring_register,
            last_bank: last_bank(header, 0x4000),
        })
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        prg_16k_last_fixed(addr, usize::from(self.prg_bank), self.last_bank)
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        match addr {
            0xC000..=0xFFFF => self.prg_bank = val,
            0x8000..=0x9FFF if self.mirroring_register.is_some_and(|low| addr >= low) => {
                self.mirroring = Mirroring::one_screen(val & 0x10 != 0)
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board(submapper: u8) -> Result<Camerica, RomError> {
        Camerica::new(&TestImage::nes2(71, submapper, 8, 0).flags(1).header())
    }

    #[test]
    fn prg_bank_and_fire_hawk_mirroring() {
        let mut m = board(0).unwrap();
        m.write_register(0xC000, 3, 0);
        assert_eq!(m.map_cpu(0x8001), CpuTarget::PrgRom(3 * 0x4000 + 1));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(7 * 0x4000));
        assert_eq!(m.mirroring(), Mirroring::Vertical);
        m.write_register(0x8000, 0x10, 0);
        assert_eq!(m.mirroring(), Mirroring::Vertical, "$8000 only on BF9097");
        m.write_register(0x9000, 0x10, 0);
        assert_eq!(m.mirroring(), Mirroring::SingleHigh);
        let mut fire_hawk = board(1).unwrap();
        fire_hawk.write_register(0x8000, 0x10, 0);
        assert_eq!(fire_hawk.mirroring(), Mirroring::SingleHigh);
        fire_hawk.write_register(0x8000, 0x00, 0);
        assert_eq!(fire_hawk.mirroring(), Mirroring::SingleLow);
        assert_eq!(
            board(2).err(),
            Some(RomError::UnsupportedMapper {
                mapper: 71,
                submapper: 2
            })
        );
    }
}
