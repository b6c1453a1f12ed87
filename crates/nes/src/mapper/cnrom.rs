//! CNROM (mapper 3): fixed 16 or 32 KiB PRG, an 8 KiB CHR bank selected by any write to
//! $8000-$FFFF.
//!
//! Mapper 185 is CNROM with 8 KiB of CHR-ROM whose chip turns latch bits 1-0 into two
//! chip selects (CS1, CS2): the ROM answers for one value only and the pattern tables read as
//! open bus otherwise, a copy protection the games check. NES 2.0 submappers 4-7 name the
//! value (0-3); without them the games' values are guessed (see [`chr_enabled_by_guess`]).

use super::{Board, Mirroring};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Cnrom {
    latch: u8,
    mirroring: Mirroring,
    /// Mapper 3 NES 2.0 submapper 2, and mapper 185.
    bus_conflicts: bool,
    /// Mapper 185: the chip select value that enables CHR-ROM, `None` if the header does not
    /// say.
    protection: Option<Protection>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Protection {
    ChipSelect(u8),
    Unknown,
}

impl Field for Cnrom {
    fn visit(&mut self, io: &mut StateIo) {
        let Cnrom {
            latch,
            mirroring: _,
            bus_conflicts: _,
            protection: _,
        } = self;
        fields!(io, latch);
    }
}

/// The games' own values, for images without a submapper: every known game enables CHR with
/// a latch whose low nibble is not zero, except Spy vs. Spy's disabling $13 (Seicross v2 is
/// the one game this gets wrong).
fn chr_enabled_by_guess(latch: u8) -> bool {
    latch & 0x0F != 0 && latch != 0x13
}

impl Board for Cnrom {
    const VARIANTS: &'static [(u16, u8)] = &[(3, 0), (3, 2), (185, 0), (185, 4), (185, 5), (185, 6), (185, 7)];

    fn new(header: &Header) -> Result<Cnrom, RomError> {
        let protection = (header.mapper == 185).then(|| match header.submapper {
            sub @ 4..=7 => Protection::ChipSelect(sub - 4),
            _ => Protection::Unknown,
        });
        Ok(Cnrom {
            latch: 0,
            mirroring: Mirroring::hardwired(header),
            bus_conflicts: header.submapper == 2 || protection.is_some(),
            protection,
        })
    }

    fn map_chr(&self, addr: u16) -> usize {
        // Mapper 185's latch bits go to chip selects, not address lines.
        let bank = if self.protection.is_some() {
            0
        } else {
            usize::from(self.latch)
        };
        bank * 0x2000 + usize::from(addr & 0x1FFF)
    }

    fn chr_enabled(&self) -> bool {
        match self.protection {
            None => true,
            Some(Protection::ChipSelect(value)) => self.latch & 3 == value,
            Some(Protection::Unknown) => chr_enabled_by_guess(self.latch),
        }
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn write_register(&mut self, _addr: u16, val: u8, _cpu_cycle: u64) {
        self.latch = val;
    }

    fn bus_conflicts(&self) -> bool {
        self.bus_conflicts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board(mapper: u8, submapper: u8) -> Cnrom {
        Cnrom::new(&TestImage::nes2(mapper.into(), submapper, 2, 1).header()).unwrap()
    }

    #[test]
    fn mapper_185_submappers_name_the_chip_select_value() {
        for submapper in 4..=7 {
            let mut m = board(185, submapper);
            assert!(m.bus_conflicts());
            for latch in 0..=0xFF {
                m.write_register(0x8000, latch, 0);
                assert_eq!(m.chr_enabled(), latch & 3 == submapper - 4, "{latch:02X}");
                assert_eq!(m.map_chr(0x1234), 0x1234, "no CHR banking");
            }
        }
    }

    #[test]
    fn mapper_185_without_submapper_guesses_the_games_values() {
        let mut m = board(185, 0);
        // The wiki's table: each game's disabling then enabling value.
        for (off, on) in [(0xF0, 0x0F), (0x00, 0x33), (0x00, 0x11), (0x20, 0x22), (0x13, 0x21)] {
            m.write_register(0x8000, off, 0);
            assert!(!m.chr_enabled(), "{off:02X}");
            m.write_register(0x8000, on, 0);
            assert!(m.chr_enabled(), "{on:02X}");
        }
    }

    #[test]
    fn mapper_3_always_answers_and_banks() {
        let mut m = board(3, 0);
        m.write_register(0x8000, 2, 0);
        assert!(m.chr_enabled());
        assert_eq!(m.map_chr(0x0010), 0x4010);
        assert!(!m.bus_conflicts());
        assert!(board(3, 2).bus_conflicts());
    }
}
