//! MMC1 (mapper 1, SxROM): a 5-bit serial shift register loaded through writes to $8000-$FFFF,
//! feeding four registers selected by address bits 14-13 of the fifth write.

use super::{CpuTarget, Mirroring};
use crate::cartridge::{wrap, Header};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Mmc1 {
    shift: u8,
    shift_count: u8,
    /// Mirroring (bits 0-1), PRG mode (2-3), CHR 4 KiB mode (4).
    control: u8,
    chr_bank0: u8,
    chr_bank1: u8,
    prg_bank: u8,
    prg_banks: usize,
    /// 8 KiB PRG-RAM banks (SOROM/SXROM have four, selected through the CHR registers).
    prg_ram_banks: usize,
    /// The cycle of the last register write: MMC1 ignores a write on the very next cycle
    /// (the second write of a read-modify-write instruction such as `INC $8000`).
    last_write_cycle: Option<u64>,
}

impl Field for Mmc1 {
    fn visit(&mut self, io: &mut StateIo) {
        let Mmc1 {
            shift,
            shift_count,
            control,
            chr_bank0,
            chr_bank1,
            prg_bank,
            prg_banks: _,
            prg_ram_banks: _,
            last_write_cycle,
        } = self;
        fields!(io, shift, control, chr_bank0, chr_bank1, prg_bank);
        io.checked(shift_count, "MMC1 shift count", |&n| n < 5);
        io.counter(last_write_cycle, "MMC1 write cycle");
    }
}

const BANK_16K: usize = 16 * 1024;
const BANK_4K: usize = 4 * 1024;

impl Mmc1 {
    pub fn new(header: &Header) -> Mmc1 {
        Mmc1 {
            shift: 0,
            shift_count: 0,
            // Power-on: PRG mode 3 (last bank fixed at $C000) so the reset vector is reachable.
            control: 0x0C,
            chr_bank0: 0,
            chr_bank1: 0,
            prg_bank: 0,
            prg_banks: (header.prg_rom_size / BANK_16K).max(1),
            prg_ram_banks: ((header.prg_ram_size + header.prg_nvram_size) / 0x2000).max(1),
            last_write_cycle: None,
        }
    }

    pub fn write_register(&mut self, addr: u16, val: u8, cpu_cycle: u64) {
        let consecutive = self.last_write_cycle.is_some_and(|c| c + 1 == cpu_cycle);
        self.last_write_cycle = Some(cpu_cycle);
        if consecutive {
            return;
        }
        if val & 0x80 != 0 {
            self.shift = 0;
            self.shift_count = 0;
            self.control |= 0x0C;
            return;
        }
        self.shift |= (val & 1) << self.shift_count;
        self.shift_count += 1;
        if self.shift_count == 5 {
            let value = self.shift;
            match addr & 0xE000 {
                0x8000 | 0x9000 => self.control = value,
                0xA000 | 0xB000 => self.chr_bank0 = value,
                0xC000 | 0xD000 => self.chr_bank1 = value,
                _ => self.prg_bank = value,
            }
            self.shift = 0;
            self.shift_count = 0;
        }
    }

    fn prg_ram_enabled(&self) -> bool {
        // MMC1B and later: bit 4 of the PRG register disables PRG-RAM.
        self.prg_bank & 0x10 == 0
    }

    pub fn map_cpu(&self, addr: u16) -> CpuTarget {
        match addr {
            0x6000..=0x7FFF if self.prg_ram_enabled() => {
                let bank = usize::from(self.chr_bank0 >> 2) & 3 & (self.prg_ram_banks - 1);
                CpuTarget::PrgRam(bank * 0x2000 + usize::from(addr - 0x6000))
            }
            0x8000..=0xFFFF => {
                // SUROM/SXROM: CHR register bit 4 selects the 256 KiB half of a 512 KiB PRG.
                let outer = if self.prg_banks > 16 {
                    usize::from(self.chr_bank0 & 0x10)
                } else {
                    0
                };
                let bank = usize::from(self.prg_bank & 0x0F) | outer;
                let high = addr >= 0xC000;
                let bank = match (self.control >> 2) & 3 {
                    0 | 1 => (bank & !1) | usize::from(high),
                    2 => {
                        if high {
                            bank
                        } else {
                            0
                        }
                    }
                    _ => {
                        if high {
                            self.prg_banks - 1
                        } else {
                            bank
                        }
                    }
                };
                CpuTarget::PrgRom(
                    wrap(bank, self.prg_banks) * BANK_16K + usize::from(addr & 0x3FFF),
                )
            }
            _ => CpuTarget::None,
        }
    }

    pub fn map_chr(&self, addr: u16) -> usize {
        let offset = usize::from(addr & 0x0FFF);
        let bank = if self.control & 0x10 != 0 {
            if addr < 0x1000 {
                self.chr_bank0
            } else {
                self.chr_bank1
            }
        } else {
            (self.chr_bank0 & !1) | u8::from(addr >= 0x1000)
        };
        usize::from(bank) * BANK_4K + offset
    }

    pub fn mirroring(&self) -> Mirroring {
        match self.control & 3 {
            0 => Mirroring::SingleLow,
            1 => Mirroring::SingleHigh,
            2 => Mirroring::Vertical,
            _ => Mirroring::Horizontal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serial_write(m: &mut Mmc1, addr: u16, value: u8, cycle: &mut u64) {
        for i in 0..5 {
            *cycle += 2;
            m.write_register(addr, (value >> i) & 1, *cycle);
        }
    }

    fn mmc1(prg_kib: usize) -> Mmc1 {
        let header = crate::cartridge::Header::parse(&{
            let mut h = vec![b'N', b'E', b'S', 0x1A, (prg_kib / 16) as u8, 1, 0x10, 0];
            h.resize(16, 0);
            h
        })
        .unwrap();
        Mmc1::new(&header)
    }

    #[test]
    fn prg_modes_and_chr_4k() {
        let mut m = mmc1(128);
        let mut cycle = 0;
        serial_write(&mut m, 0xE000, 3, &mut cycle);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(3 * BANK_16K));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(7 * BANK_16K));
        serial_write(&mut m, 0x8000, 0x10 | 0x08 | 0x02, &mut cycle); // fix first, 4K CHR
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(0));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(3 * BANK_16K));
        assert_eq!(m.mirroring(), Mirroring::Vertical);
        serial_write(&mut m, 0xC000, 5, &mut cycle);
        assert_eq!(m.map_chr(0x1004), 5 * BANK_4K + 4);
    }

    #[test]
    fn write_on_next_cycle_is_ignored() {
        let mut m = mmc1(32);
        m.write_register(0x8000, 0x01, 10);
        m.write_register(0x8000, 0x80, 11); // ignored: consecutive
        assert_eq!(m.shift_count, 1);
        m.write_register(0x8000, 0x80, 13);
        assert_eq!((m.shift_count, m.control & 0x0C), (0, 0x0C));
    }
}
