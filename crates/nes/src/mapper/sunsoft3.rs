//! Sunsoft-3 (mapper 67): four 2 KiB CHR banks ($8800, $9800, $A800, $B800), mirroring
//! ($E800), a 16 KiB PRG bank at $8000 ($F800; the last fixed at $C000), and a 16-bit counter
//! of CPU cycles, loaded high byte then low at $C800, started by bit 4 of $D800; when it wraps
//! past $0000 it raises /IRQ and stops. A write to $8000 acknowledges ("INES Mapper 067").

use super::{banked, last_bank, prg_16k_last_fixed, Board, CpuTarget, Mirroring, Needs};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Sunsoft3 {
    chr_banks: [u8; 4],
    prg_bank: u8,
    mirroring: Mirroring,
    irq_counter: u16,
    /// The next $C800 write sets the low byte.
    irq_low_next: bool,
    irq_enabled: bool,
    irq: bool,
    last_bank: usize,
}

impl Field for Sunsoft3 {
    fn visit(&mut self, io: &mut StateIo) {
        let Sunsoft3 {
            chr_banks,
            prg_bank,
            mirroring,
            irq_counter,
            irq_low_next,
            irq_enabled,
            irq,
            last_bank: _,
        } = self;
        fields!(io, chr_banks, prg_bank, mirroring);
        fields!(io, irq_counter, irq_low_next, irq_enabled, irq);
    }
}

impl Board for Sunsoft3 {
    fn new(header: &Header) -> Result<Sunsoft3, RomError> {
        Ok(Sunsoft3 {
            chr_banks: [0; 4],
            prg_bank: 0,
            mirroring: Mirroring::Vertical,
            irq_counter: 0,
            irq_low_next: false,
            irq_enabled: false,
            irq: false,
            last_bank: last_bank(header, 0x4000),
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
        match addr {
            0x6000..=0x7FFF => CpuTarget::PrgRam(usize::from(addr - 0x6000)),
            _ => prg_16k_last_fixed(addr, usize::from(self.prg_bank), self.last_bank),
        }
    }

    fn map_chr(&self, addr: u16) -> usize {
        banked(usize::from(self.chr_banks[usize::from(addr >> 11) & 3]), 0x800, addr)
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        match addr & 0xF800 {
            0x8000 => self.irq = false,
            0x8800 | 0x9800 | 0xA800 | 0xB800 => {
                self.chr_banks[usize::from(addr >> 12 & 3)] = val;
            }
            0xC800 => {
                self.irq_counter = if self.irq_low_next {
                    self.irq_counter & 0xFF00 | u16::from(val)
                } else {
                    self.irq_counter & 0x00FF | u16::from(val) << 8
                };
                self.irq_low_next = !self.irq_low_next;
            }
            0xD800 => {
                self.irq_enabled = val & 0x10 != 0;
                self.irq_low_next = false;
            }
            0xE800 => self.mirroring = Mirroring::from_two_bits(val),
            0xF800 => self.prg_bank = val,
            _ => {}
        }
    }

    fn cpu_clock(&mut self) {
        if self.irq_enabled {
            self.irq_counter = self.irq_counter.wrapping_sub(1);
            if self.irq_counter == 0xFFFF {
                self.irq = true;
                self.irq_enabled = false;
            }
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

    fn board() -> Sunsoft3 {
        Sunsoft3::new(&TestImage::new(67, 8, 16).header()).unwrap()
    }

    #[test]
    fn banks_and_mirroring() {
        let mut m = board();
        m.write_register(0xF800, 2, 0);
        m.write_register(0xA800, 5, 0);
        m.write_register(0xE800, 2, 0);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(2 * 0x4000));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(7 * 0x4000));
        assert_eq!(m.map_chr(0x1001), 5 * 0x800 + 1);
        assert_eq!(m.mirroring(), Mirroring::SingleLow);
    }

    #[test]
    fn counter_wraps_once_and_stops() {
        let mut m = board();
        m.write_register(0xC800, 0x00, 0); // high
        m.write_register(0xC800, 0x01, 0); // low
        m.write_register(0xD800, 0x10, 0);
        m.cpu_clock();
        assert!(!m.irq(), "at $0000");
        m.cpu_clock();
        assert!(m.irq() && !m.irq_enabled);
        m.write_register(0x8000, 0, 0);
        m.cpu_clock();
        assert!(!m.irq());
    }
}
