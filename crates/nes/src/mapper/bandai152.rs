//! Bandai's 74161 boards: one latch at $8000-$FFFF, with bus conflicts, choosing the 16 KiB PRG
//! bank at $8000 (the last fixed at $C000) and the 8 KiB CHR bank. Mapper 70: bits 4-7 PRG,
//! bits 0-3 CHR, mirroring hard-wired. Mapper 152: bits 4-6 PRG, bits 0-3 CHR, bit 7 one of
//! the two screens ("INES Mapper 152").

use super::{banked, last_bank, prg_16k_last_fixed, Board, CpuTarget, Mirroring};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Bandai152 {
    latch: u8,
    /// Mapper 70's soldered mirroring; `None` on 152, where bit 7 chooses.
    hardwired: Option<Mirroring>,
    last_bank: usize,
}

impl Field for Bandai152 {
    fn visit(&mut self, io: &mut StateIo) {
        let Bandai152 {
            latch,
            hardwired: _,
            last_bank: _,
        } = self;
        fields!(io, latch);
    }
}

impl Board for Bandai152 {
    fn new(header: &Header) -> Result<Bandai152, RomError> {
        Ok(Bandai152 {
            latch: 0,
            hardwired: (header.mapper == 70).then(|| Mirroring::hardwired(header)),
            last_bank: last_bank(header, 0x4000),
        })
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        let bits = if self.hardwired.is_some() { 0x0F } else { 0x07 };
        prg_16k_last_fixed(addr, usize::from(self.latch >> 4 & bits), self.last_bank)
    }

    fn map_chr(&self, addr: u16) -> usize {
        banked(usize::from(self.latch & 0x0F), 0x2000, addr)
    }

    fn mirroring(&self) -> Mirroring {
        self.hardwired
            .unwrap_or(Mirroring::one_screen(self.latch & 0x80 != 0))
    }

    fn write_register(&mut self, _addr: u16, val: u8, _cpu_cycle: u64) {
        self.latch = val;
    }

    fn bus_conflicts(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board(mapper: u8) -> Bandai152 {
        let image = TestImage::new(mapper.into(), 16, 16).flags(1);
        Bandai152::new(&image.header()).unwrap()
    }

    #[test]
    fn banks_and_mirroring() {
        let mut m152 = board(152);
        m152.write_register(0x8000, 0xB5, 0);
        assert_eq!(m152.map_cpu(0x8000), CpuTarget::PrgRom(3 * 0x4000));
        assert_eq!(m152.map_cpu(0xC000), CpuTarget::PrgRom(15 * 0x4000));
        assert_eq!(m152.map_chr(0x0001), 5 * 0x2000 + 1);
        assert_eq!(m152.mirroring(), Mirroring::SingleHigh);
        m152.write_register(0x8000, 0x35, 0);
        assert_eq!(m152.mirroring(), Mirroring::SingleLow);
        let mut m70 = board(70);
        m70.write_register(0x8000, 0xB5, 0);
        assert_eq!(m70.map_cpu(0x8000), CpuTarget::PrgRom(11 * 0x4000));
        assert_eq!(m70.mirroring(), Mirroring::Vertical);
    }
}
