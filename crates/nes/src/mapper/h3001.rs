//! Irem H3001 (mapper 65): two 8 KiB PRG banks ($8000 and $A000) with a swap mode ($9000 bit 7)
//! trading $8000 and $C000, eight 1 KiB CHR banks at $B000-$B007, mirroring at $9001, and a
//! 16-bit counter that counts CPU cycles down to zero, raises /IRQ there and stops
//! ("INES Mapper 065"). Games expect PRG banks 0 and 1 at power-on.

use super::{banked, prg_8k_swappable, Board, CpuTarget, Mirroring, Needs};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct H3001 {
    prg_banks: [u8; 2],
    chr_banks: [u8; 8],
    /// $9000 bit 7: swap mode.
    prg_mode: u8,
    mirroring: Mirroring,
    irq_reload: u16,
    irq_counter: u16,
    irq_enabled: bool,
    irq: bool,
    second_last: usize,
}

impl Field for H3001 {
    fn visit(&mut self, io: &mut StateIo) {
        let H3001 {
            prg_banks,
            chr_banks,
            prg_mode,
            mirroring,
            irq_reload,
            irq_counter,
            irq_enabled,
            irq,
            second_last: _,
        } = self;
        fields!(io, prg_banks, chr_banks, prg_mode, mirroring);
        fields!(io, irq_reload, irq_counter, irq_enabled, irq);
    }
}

impl Board for H3001 {
    fn new(header: &Header) -> Result<H3001, RomError> {
        Ok(H3001 {
            prg_banks: [0, 1],
            chr_banks: [0; 8],
            prg_mode: 0,
            mirroring: Mirroring::Vertical,
            irq_reload: 0,
            irq_counter: 0,
            irq_enabled: false,
            irq: false,
            second_last: (header.prg_rom_size / 0x2000).max(2) - 2,
        })
    }

    fn needs(&self) -> Needs {
        Needs {
            cpu_clock: true,
            irq: true,
            ..Needs::default()
        }
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        prg_8k_swappable(addr, self.prg_banks, self.prg_mode & 0x80 != 0, self.second_last)
    }

    fn map_chr(&self, addr: u16) -> usize {
        banked(usize::from(self.chr_banks[usize::from(addr >> 10) & 7]), 0x400, addr)
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        match addr {
            0x8000 => self.prg_banks[0] = val,
            0xA000 => self.prg_banks[1] = val,
            0x9000 => self.prg_mode = val,
            // Bit 6 set: one screen; else bit 7 horizontal.
            0x9001 => {
                self.mirroring = match val >> 6 {
                    0 => Mirroring::Vertical,
                    2 => Mirroring::Horizontal,
                    _ => Mirroring::SingleLow,
                }
            }
            0x9003 => {
                self.irq_enabled = val & 0x80 != 0;
                self.irq = false;
            }
            0x9004 => {
                self.irq_counter = self.irq_reload;
                self.irq = false;
            }
            0x9005 => self.irq_reload = self.irq_reload & 0x00FF | u16::from(val) << 8,
            0x9006 => self.irq_reload = self.irq_reload & 0xFF00 | u16::from(val),
            0xB000..=0xB007 => self.chr_banks[usize::from(addr & 7)] = val,
            _ => {}
        }
    }

    fn cpu_clock(&mut self) {
        if self.irq_enabled && self.irq_counter > 0 {
            self.irq_counter -= 1;
            self.irq |= self.irq_counter == 0;
        }
    }

    fn irq(&self) -> bool {
        self.irq
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board() -> H3001 {
        H3001::new(&TestImage::new(65, 16, 16).header()).unwrap()
    }

    #[test]
    fn banks_and_swap_mode() {
        let mut m = board();
        assert_eq!(m.map_cpu(0xA000), CpuTarget::PrgRom(0x2000), "bank 1 at power-on");
        m.write_register(0x8000, 7, 0);
        m.write_register(0x9000, 0x80, 0);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(30 * 0x2000));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(7 * 0x2000));
        m.write_register(0xB007, 3, 0);
        assert_eq!(m.map_chr(0x1C00), 3 * 0x400);
        m.write_register(0x9001, 0x80, 0);
        assert_eq!(m.mirroring(), Mirroring::Horizontal);
    }

    #[test]
    fn counter_stops_at_zero_with_irq() {
        let mut m = board();
        m.write_register(0x9005, 0x00, 0);
        m.write_register(0x9006, 0x03, 0);
        m.write_register(0x9004, 0, 0);
        m.write_register(0x9003, 0x80, 0);
        m.cpu_clock();
        m.cpu_clock();
        assert!(!m.irq());
        m.cpu_clock();
        assert!(m.irq());
        m.write_register(0x9003, 0x80, 0);
        for _ in 0..10 {
            m.cpu_clock();
        }
        assert!(!m.irq() && m.irq_counter == 0, "stopped, no new IRQ");
    }
}
