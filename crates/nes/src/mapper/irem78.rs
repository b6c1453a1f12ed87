//! Mapper 78: CNROM and UNROM on one latch at $8000-$FFFF. Bits 0-2 the 16 KiB PRG bank at
//! $8000 (the last fixed at $C000), bits 4-7 the 8 KiB CHR bank, bit 3 the mirroring, wired
//! differently on the two boards: Jaleco JF-16 (submapper 1, Uchuusen: Cosmo Carrier) picks a
//! single screen, Irem IF-12 (submapper 3, Holy Diver) horizontal (0) or vertical (1). The
//! header reader turns iNES 1.0's four-screen hint into submapper 3.

use super::{Board, CpuTarget, Mirroring};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

const BANK_16K: usize = 16 * 1024;

#[derive(Clone, Debug)]
pub struct Irem78 {
    latch: u8,
    last_bank: usize,
    /// IF-12: bit 3 selects horizontal or vertical; JF-16: one of the two screens.
    if12: bool,
}

impl Field for Irem78 {
    fn visit(&mut self, io: &mut StateIo) {
        let Irem78 {
            latch,
            last_bank: _,
            if12: _,
        } = self;
        fields!(io, latch);
    }
}

impl Board for Irem78 {
    fn new(header: &Header) -> Result<Irem78, RomError> {
        let if12 = match header.submapper {
            1 => false,
            3 => true,
            submapper => {
                return Err(RomError::UnsupportedMapper {
                    mapper: header.mapper,
                    submapper,
                })
            }
        };
        Ok(Irem78 {
            latch: 0,
            last_bank: (header.prg_rom_size / BANK_16K).max(1) - 1,
            if12,
        })
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        let bank = match addr {
            0x8000..=0xBFFF => usize::from(self.latch & 7),
            0xC000..=0xFFFF => self.last_bank,
            _ => return CpuTarget::None,
        };
        CpuTarget::PrgRom(bank * BANK_16K + usize::from(addr & 0x3FFF))
    }

    fn map_chr(&self, addr: u16) -> usize {
        usize::from(self.latch >> 4) * 0x2000 + usize::from(addr & 0x1FFF)
    }

    fn mirroring(&self) -> Mirroring {
        match (self.if12, self.latch & 8 != 0) {
            (true, false) => Mirroring::Horizontal,
            (true, true) => Mirroring::Vertical,
            (false, false) => Mirroring::SingleLow,
            (false, true) => Mirroring::SingleHigh,
        }
    }

    fn write_register(&mut self, _addr: u16, val: u8, _cpu_cycle: u64) {
        self.latch = val;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(header_tail: &[u8]) -> Result<Irem78, RomError> {
        let mut h = vec![b'N', b'E', b'S', 0x1A, 8, 8];
        h.extend_from_slice(header_tail);
        h.resize(16, 0);
        Irem78::new(&Header::parse(&h).unwrap())
    }

    fn mirrorings(mut board: Irem78) -> [Mirroring; 2] {
        [0x00, 0x08].map(|val| {
            board.write_register(0x8000, val, 0);
            board.mirroring()
        })
    }

    #[test]
    fn bit_3_is_wired_per_submapper() {
        use Mirroring::*;
        // NES 2.0: mapper 78 ($4E), submapper in byte 8.
        let if12 = board(&[0xE0, 0x48, 0x30]).unwrap();
        assert_eq!(mirrorings(if12), [Horizontal, Vertical]);
        let jf16 = board(&[0xE0, 0x48, 0x10]).unwrap();
        assert_eq!(mirrorings(jf16), [SingleLow, SingleHigh]);
        // iNES 1.0: the four-screen bit marks Holy Diver.
        assert_eq!(
            mirrorings(board(&[0xE8, 0x40]).unwrap()),
            [Horizontal, Vertical]
        );
        assert_eq!(
            mirrorings(board(&[0xE0, 0x40]).unwrap()),
            [SingleLow, SingleHigh]
        );
        assert_eq!(
            board(&[0xE0, 0x48, 0x20]).err(),
            Some(RomError::UnsupportedMapper {
                mapper: 78,
                submapper: 2
            })
        );
    }
}
