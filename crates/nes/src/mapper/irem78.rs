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
    fn read_header(header: &mut Header) {
        // iNES 1.0 marks Holy Diver's H/V board (78.3) with the four-screen bit; without it
        // the image is Cosmo Carrier's one-screen board (78.1).
        if !header.nes2 {
            header.submapper = if header.four_screen { 3 } else { 1 };
            header.four_screen = false;
        }
    }

    const VARIANTS: &'static [(u16, u8)] = &[(78, 1), (78, 3)];

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
    use crate::header::TestImage;

    fn board(image: TestImage) -> Result<Irem78, RomError> {
        Irem78::new(&image.header())
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
        let if12 = board(TestImage::nes2(78, 3, 8, 8)).unwrap();
        assert_eq!(mirrorings(if12), [Horizontal, Vertical]);
        let jf16 = board(TestImage::nes2(78, 1, 8, 8)).unwrap();
        assert_eq!(mirrorings(jf16), [SingleLow, SingleHigh]);
        // iNES 1.0: the four-screen bit marks Holy Diver.
        assert_eq!(
            mirrorings(board(TestImage::new(78, 8, 8).flags(8)).unwrap()),
            [Horizontal, Vertical]
        );
        assert_eq!(
            mirrorings(board(TestImage::new(78, 8, 8)).unwrap()),
            [SingleLow, SingleHigh]
        );
        assert_eq!(
            board(TestImage::nes2(78, 2, 8, 8)).err(),
            Some(RomError::UnsupportedMapper {
                mapper: 78,
                submapper: 2
            })
        );
    }
}
