//! GTROM (mapper 111; Membler Industries' "Cheapocabra", nesdev wiki, "GTROM"): one register
//! at $5000-$5FFF and $7000-$7FFF picks a 32 KiB PRG-ROM bank (bits 0-3), one of two 8 KiB
//! pages of CHR-RAM (bit 4) and one of two pages of four nametables (bit 5), which live in the
//! board's RAM after the pattern tables: 16 KiB for the patterns, 8 KiB for the nametables.
//! Bits 6-7 drive two LEDs. Not emulated: the flash saving (writes to the PRG-ROM's flash are
//! ignored) and reads of the register, which latch whatever is on the data bus.

use super::{Board, CpuTarget, Mirroring, Needs};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

/// Where the nametable pages start in the board's RAM.
const NAMETABLES: usize = 0x4000;

#[derive(Clone, Debug)]
pub struct Gtrom {
    register: u8,
}

impl Field for Gtrom {
    fn visit(&mut self, io: &mut StateIo) {
        let Gtrom { register } = self;
        fields!(io, register);
    }
}

impl Board for Gtrom {
    fn read_header(header: &mut Header) {
        // 32 KiB of CHR-RAM, which iNES 1.0 cannot state.
        if !header.nes2 && header.chr_rom_size == 0 {
            header.chr_ram_size = 4 * 0x2000;
        }
    }

    fn new(header: &Header) -> Result<Gtrom, RomError> {
        // The nametables need the board's RAM beyond the patterns.
        if header.chr_rom_size > 0 || header.chr_ram_size < NAMETABLES + 0x2000 {
            return Err(RomError::BadSize("GTROM CHR-RAM (32 KiB, no CHR-ROM)"));
        }
        Ok(Gtrom { register: 0 })
    }

    fn needs(&self) -> Needs {
        Needs {
            low_registers: true,
            ..Needs::default()
        }
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        match addr {
            0x8000..=0xFFFF => CpuTarget::PrgRom(
                usize::from(self.register & 0x0F) * 0x8000 + usize::from(addr & 0x7FFF),
            ),
            _ => CpuTarget::None,
        }
    }

    fn map_chr(&self, addr: u16) -> usize {
        usize::from(self.register >> 4 & 1) * 0x2000 + usize::from(addr & 0x1FFF)
    }

    /// Four screens: what CIRAM would show is never used.
    fn mirroring(&self) -> Mirroring {
        Mirroring::Vertical
    }

    fn nametable_chr(&self, table: usize) -> Option<usize> {
        Some(NAMETABLES + usize::from(self.register >> 5 & 1) * 0x1000 + (table & 3) * 0x400)
    }

    fn write_low(&mut self, addr: u16, val: u8) {
        if matches!(addr, 0x5000..=0x5FFF | 0x7000..=0x7FFF) {
            self.register = val;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board(chr_ram_shift: u8) -> Result<Gtrom, RomError> {
        Gtrom::new(&TestImage::nes2(111, 0, 32, 0).with(11, chr_ram_shift).header())
    }

    #[test]
    fn one_register_picks_prg_chr_and_nametable_pages() {
        let mut m = board(9).unwrap(); // 32 KiB of RAM
        m.write_low(0x5000, 0x05);
        assert_eq!(m.map_cpu(0x8001), CpuTarget::PrgRom(5 * 0x8000 + 1));
        assert_eq!(m.map_chr(0x0010), 0x10);
        assert_eq!(m.nametable_chr(2), Some(0x4800));
        m.write_low(0x7FFF, 0x3F);
        assert_eq!(m.map_cpu(0xFFFF), CpuTarget::PrgRom(16 * 0x8000 - 1));
        assert_eq!(m.map_chr(0x0010), 0x2010);
        assert_eq!(m.nametable_chr(3), Some(0x5C00));
        m.write_low(0x6000, 0);
        assert_eq!(m.register, 0x3F, "$6000-$6FFF is not the register");
    }

    #[test]
    fn too_little_ram_is_refused() {
        assert!(board(7).is_err()); // 8 KiB
    }
}
