//! UNROM 512 (mapper 30): UNROM with up to 512 KiB PRG and 32 KiB CHR-RAM. One latch, bits 0-4
//! the 16 KiB PRG bank at $8000 (the last fixed at $C000), bits 5-6 the 8 KiB CHR-RAM bank,
//! bit 7 the screen when the one-screen pad is fitted; else the header's horizontal, vertical
//! or four-screen wiring. The self-flashable board (battery bit) takes the latch at
//! $C000-$FFFF only, its flash at $8000-$BFFF; saving to flash is not emulated: those writes
//! are ignored. Submappers ("UNROM 512"): 0 bus conflicts unless flashable, 1 none, 2 always;
//! 3 (H/V register) and 4 (LED register) are not supported.

use super::{banked, last_bank, prg_16k_last_fixed, unknown_submapper, Board, CpuTarget, Mirroring};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Unrom512 {
    latch: u8,
    /// The soldered mirroring; `None` with the one-screen pad, where bit 7 chooses.
    hardwired: Option<Mirroring>,
    flashable: bool,
    bus_conflicts: bool,
    last_bank: usize,
}

impl Field for Unrom512 {
    fn visit(&mut self, io: &mut StateIo) {
        let Unrom512 {
            latch,
            hardwired: _,
            flashable: _,
            bus_conflicts: _,
            last_bank: _,
        } = self;
        fields!(io, latch);
    }
}

impl Board for Unrom512 {
    fn read_header(header: &mut Header) {
        // 32 KiB of CHR-RAM, which iNES 1.0 cannot state.
        if !header.nes2 && header.chr_rom_size == 0 {
            header.chr_ram_size = 4 * 0x2000;
        }
        // The four-screen bit without the vertical one: the one-screen pad ("UNROM 512",
        // nametable configuration).
        if header.four_screen && !header.vertical_mirroring {
            header.one_screen = true;
            header.four_screen = false;
        }
    }

    const VARIANTS: &'static [(u16, u8)] = &[(30, 0), (30, 1), (30, 2)];

    fn new(header: &Header) -> Result<Unrom512, RomError> {
        let bus_conflicts = match header.submapper {
            0 => !header.battery,
            1 => false,
            2 => true,
            _ => return unknown_submapper(header),
        };
        Ok(Unrom512 {
            latch: 0,
            hardwired: (!header.one_screen).then(|| Mirroring::hardwired(header)),
            flashable: header.battery,
            bus_conflicts,
            last_bank: last_bank(header, 0x4000),
        })
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        prg_16k_last_fixed(addr, usize::from(self.latch & 0x1F), self.last_bank)
    }

    fn map_chr(&self, addr: u16) -> usize {
        banked(usize::from(self.latch >> 5 & 3), 0x2000, addr)
    }

    fn mirroring(&self) -> Mirroring {
        self.hardwired
            .unwrap_or(Mirroring::one_screen(self.latch & 0x80 != 0))
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        if addr >= 0xC000 || !self.flashable {
            self.latch = val;
        }
    }

    fn bus_conflicts(&self) -> bool {
        self.bus_conflicts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn header(flags6: u8, submapper: u8) -> Header {
        TestImage::nes2(30, submapper, 32, 0).flags(flags6).header()
    }

    #[test]
    fn latch_banks_and_the_one_screen_pad() {
        let h = header(0x08, 0);
        assert!(h.one_screen && !h.four_screen);
        let mut m = Unrom512::new(&h).unwrap();
        assert!(m.bus_conflicts());
        m.write_register(0x8000, 0xE5, 0);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(5 * 0x4000));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(31 * 0x4000));
        assert_eq!(m.map_chr(0x0003), 3 * 0x2000 + 3);
        assert_eq!(m.mirroring(), Mirroring::SingleHigh);
        m.write_register(0x8000, 0x05, 0);
        assert_eq!(m.mirroring(), Mirroring::SingleLow);

        let four = header(0x09, 0);
        assert!(four.four_screen && !four.one_screen);
        let mut vertical = Unrom512::new(&header(0x01, 0)).unwrap();
        vertical.write_register(0x8000, 0x80, 0);
        assert_eq!(vertical.mirroring(), Mirroring::Vertical);
    }

    #[test]
    fn flashable_board_latches_at_c000_without_conflicts() {
        let mut m = Unrom512::new(&header(0x02, 0)).unwrap();
        assert!(!m.bus_conflicts());
        m.write_register(0x8000, 3, 0);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(0), "flash commands");
        m.write_register(0xC000, 3, 0);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(3 * 0x4000));
        assert!(!Unrom512::new(&header(0, 1)).unwrap().bus_conflicts());
        assert!(Unrom512::new(&header(0, 3)).is_err());
    }
}
