//! MMC2 (mapper 9, PNROM: Punch-Out!!) and MMC4 (mapper 10, FxROM). Each half of the pattern
//! space has two 4 KiB CHR banks and a latch choosing between them, set when the PPU reads
//! the last row of tile $FD or $FE there: the bank switches after that read, so a tile can
//! switch the banks for the rest of its line. MMC2 switches 8 KiB of PRG at $8000 with the
//! last three 8 KiB banks fixed; MMC4 16 KiB at $8000 with the last fixed, and has PRG-RAM.

use super::{Board, CpuTarget, Mirroring, Needs};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Mmc2 {
    prg_bank: u8,
    /// 4 KiB CHR banks: [half][latch], latch 0 for $FD, 1 for $FE.
    chr_banks: [[u8; 2]; 2],
    /// Each half's latch: false $FD, true $FE.
    latches: [bool; 2],
    mirroring: Mirroring,
    /// MMC4: 16 KiB PRG banks, and the $0000 latch reacts to the whole row like the $1000 one.
    mmc4: bool,
    prg_rom_size: usize,
}

impl Field for Mmc2 {
    fn visit(&mut self, io: &mut StateIo) {
        let Mmc2 {
            prg_bank,
            chr_banks,
            latches,
            mirroring,
            mmc4: _,
            prg_rom_size: _,
        } = self;
        fields!(io, prg_bank, chr_banks, latches, mirroring);
    }
}

impl Board for Mmc2 {
    fn new(header: &Header) -> Result<Mmc2, RomError> {
        Ok(Mmc2 {
            prg_bank: 0,
            chr_banks: [[0; 2]; 2],
            latches: [true; 2],
            mirroring: Mirroring::Vertical,
            mmc4: header.mapper == 10,
            prg_rom_size: header.prg_rom_size,
        })
    }

    fn needs(&self) -> Needs {
        Needs {
            ppu_bus: true,
            ..Needs::default()
        }
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        // The fixed banks are the ROM's last 24 KiB (MMC2) or 16 KiB (MMC4).
        let end = self.prg_rom_size.max(0x8000);
        let bank = usize::from(self.prg_bank & 0x0F);
        CpuTarget::PrgRom(match (addr, self.mmc4) {
            (0x6000..=0x7FFF, true) => return CpuTarget::PrgRam(usize::from(addr - 0x6000)),
            (0x8000..=0x9FFF, false) => bank * 0x2000 + usize::from(addr & 0x1FFF),
            (0xA000..=0xFFFF, false) => end - 0x8000 + usize::from(addr & 0x7FFF),
            (0x8000..=0xBFFF, true) => bank * 0x4000 + usize::from(addr & 0x3FFF),
            (0xC000..=0xFFFF, true) => end - 0x4000 + usize::from(addr & 0x3FFF),
            _ => return CpuTarget::None,
        })
    }

    fn map_chr(&self, addr: u16) -> usize {
        let half = usize::from(addr >> 12) & 1;
        let bank = self.chr_banks[half][usize::from(self.latches[half])] & 0x1F;
        usize::from(bank) * 0x1000 + usize::from(addr & 0x0FFF)
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        match addr & 0xF000 {
            0xA000 => self.prg_bank = val,
            0xB000 => self.chr_banks[0][0] = val,
            0xC000 => self.chr_banks[0][1] = val,
            0xD000 => self.chr_banks[1][0] = val,
            0xE000 => self.chr_banks[1][1] = val,
            0xF000 => {
                self.mirroring = if val & 1 == 0 {
                    Mirroring::Vertical
                } else {
                    Mirroring::Horizontal
                }
            }
            _ => {}
        }
    }

    fn ppu_address(&mut self, addr: u16) -> bool {
        let addr = addr & 0x3FFF;
        if addr >= 0x2000 {
            return false;
        }
        let half = usize::from(addr >> 12);
        // MMC2's $0000 latch reacts to the row's first byte only; the others to the whole row.
        let row = if half == 0 && !self.mmc4 {
            addr & 0x0FFF
        } else {
            addr & 0x0FF8
        };
        let latch = match row {
            0x0FD8 => false,
            0x0FE8 => true,
            _ => return false,
        };
        let changed = self.latches[half] != latch;
        self.latches[half] = latch;
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board(mapper: u8) -> Mmc2 {
        let mut m = Mmc2::new(&TestImage::new(mapper.into(), 8, 8).header()).unwrap();
        for (reg, bank) in [(0xB000, 1), (0xC000, 2), (0xD000, 3), (0xE000, 4)] {
            m.write_register(reg, bank, 0);
        }
        m
    }

    fn banks(m: &Mmc2) -> [usize; 2] {
        [m.map_chr(0x0000) / 0x1000, m.map_chr(0x1000) / 0x1000]
    }

    #[test]
    fn tiles_fd_and_fe_switch_their_half() {
        for (mapper, whole_row_low) in [(9, false), (10, true)] {
            let mut m = board(mapper);
            assert_eq!(banks(&m), [2, 4], "power-on: $FE");
            assert!(m.ppu_address(0x0FD8));
            assert_eq!(banks(&m), [1, 4]);
            assert!(!m.ppu_address(0x0FD8), "already $FD");
            assert!(m.ppu_address(0x1FD9));
            assert_eq!(banks(&m), [1, 3]);
            assert!(m.ppu_address(0x1FEF));
            assert_eq!(banks(&m), [1, 4]);
            // Other addresses of the tiles, nametables and other tiles leave the latches.
            for addr in [0x0FE0, 0x0FF8, 0x0FD0, 0x2FE8, 0x1FE0] {
                assert!(!m.ppu_address(addr), "{addr:04X}");
            }
            assert_eq!(
                m.ppu_address(0x0FEA),
                whole_row_low,
                "mapper {mapper}: $0FEA"
            );
        }
    }

    #[test]
    fn prg_windows() {
        let mut mmc2 = board(9);
        mmc2.write_register(0xA000, 3, 0);
        assert_eq!(mmc2.map_cpu(0x8000), CpuTarget::PrgRom(3 * 0x2000));
        assert_eq!(mmc2.map_cpu(0xA000), CpuTarget::PrgRom(13 * 0x2000));
        assert_eq!(mmc2.map_cpu(0xFFFF), CpuTarget::PrgRom(16 * 0x2000 - 1));
        assert_eq!(mmc2.map_cpu(0x6000), CpuTarget::None);
        let mut mmc4 = board(10);
        mmc4.write_register(0xA000, 3, 0);
        assert_eq!(mmc4.map_cpu(0xBFFF), CpuTarget::PrgRom(4 * 0x4000 - 1));
        assert_eq!(mmc4.map_cpu(0xC000), CpuTarget::PrgRom(7 * 0x4000));
        assert_eq!(mmc4.map_cpu(0x6001), CpuTarget::PrgRam(1));
    }
}
