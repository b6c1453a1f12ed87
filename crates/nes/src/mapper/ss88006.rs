//! Jaleco SS88006 (mapper 18): every bank register written as nibbles. Three 8 KiB PRG banks
//! ($8000-$8003, $9000-$9001; the last fixed at $E000), PRG-RAM enable and write enable at
//! $9002, eight 1 KiB CHR banks ($A000-$D003, two nibbles each), and a 16-bit reload value
//! ($E000-$E003) for a counter of CPU cycles: $F000 reloads it, $F001 enables it and picks how
//! many of its low bits count (4, 8, 12 or 16), and /IRQ rises when those bits count down to
//! zero ("Jaleco SS88006"). $F002 sets the mirroring. The µPD7756 speech chip some boards carry
//! ($F003) is not emulated.

use super::{banked, Board, CpuTarget, Mirroring, Needs};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Ss88006 {
    prg_banks: [u16; 3],
    chr_banks: [u16; 8],
    /// $9002: bit 0 RAM enabled, bit 1 writable.
    ram_control: u8,
    mirroring: Mirroring,
    irq_reload: u16,
    irq_counter: u16,
    /// $F001: bit 0 counting, bits 1-3 the counter's width.
    irq_control: u8,
    irq: bool,
    last_bank: usize,
}

impl Field for Ss88006 {
    fn visit(&mut self, io: &mut StateIo) {
        let Ss88006 {
            prg_banks,
            chr_banks,
            ram_control,
            mirroring,
            irq_reload,
            irq_counter,
            irq_control,
            irq,
            last_bank: _,
        } = self;
        fields!(io, prg_banks, chr_banks, ram_control, mirroring);
        fields!(io, irq_reload, irq_counter, irq_control, irq);
    }
}

/// Sets nibble `index` (0 the lowest) of `value`.
fn set_nibble(value: &mut u16, index: u16, val: u8) {
    let shift = index * 4;
    *value = *value & !(0x0F << shift) | u16::from(val & 0x0F) << shift;
}

impl Ss88006 {
    /// The bits of the counter that count, per $F001.
    fn irq_mask(&self) -> u16 {
        match self.irq_control {
            c if c & 0x08 != 0 => 0x000F,
            c if c & 0x04 != 0 => 0x00FF,
            c if c & 0x02 != 0 => 0x0FFF,
            _ => 0xFFFF,
        }
    }
}

impl Board for Ss88006 {
    fn new(header: &Header) -> Result<Ss88006, RomError> {
        Ok(Ss88006 {
            prg_banks: [0; 3],
            chr_banks: [0; 8],
            ram_control: 0,
            mirroring: Mirroring::Horizontal,
            irq_reload: 0,
            irq_counter: 0,
            irq_control: 0,
            irq: false,
            last_bank: (header.prg_rom_size / 0x2000).max(1) - 1,
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
        let bank = match addr {
            0x6000..=0x7FFF if self.ram_control & 1 != 0 => {
                return CpuTarget::PrgRam(usize::from(addr - 0x6000))
            }
            0x8000..=0xDFFF => usize::from(self.prg_banks[usize::from(addr >> 13) - 4] & 0x3F),
            0xE000..=0xFFFF => self.last_bank,
            _ => return CpuTarget::None,
        };
        CpuTarget::PrgRom(banked(bank, 0x2000, addr))
    }

    fn prg_ram_writable(&self, _addr: u16) -> bool {
        self.ram_control & 2 != 0
    }

    fn map_chr(&self, addr: u16) -> usize {
        banked(usize::from(self.chr_banks[usize::from(addr >> 10) & 7]), 0x400, addr)
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        let low = addr & 3;
        match (addr & 0xF000, low) {
            (0x8000, _) => set_nibble(&mut self.prg_banks[usize::from(low >> 1)], low & 1, val),
            (0x9000, 0 | 1) => set_nibble(&mut self.prg_banks[2], low, val),
            (0x9000, 2) => self.ram_control = val,
            (0x9000, _) => {}
            (0xA000..=0xD000, _) => {
                let slot = usize::from((addr >> 12) - 0xA) * 2 + usize::from(low >> 1);
                set_nibble(&mut self.chr_banks[slot], low & 1, val);
            }
            (0xE000, _) => set_nibble(&mut self.irq_reload, low, val),
            (_, 0) => {
                self.irq_counter = self.irq_reload;
                self.irq = false;
            }
            (_, 1) => {
                self.irq_control = val;
                self.irq = false;
            }
            (_, 2) => {
                self.mirroring = match val & 3 {
                    0 => Mirroring::Horizontal,
                    1 => Mirroring::Vertical,
                    2 => Mirroring::SingleLow,
                    _ => Mirroring::SingleHigh,
                }
            }
            _ => {}
        }
    }

    fn cpu_clock(&mut self) {
        if self.irq_control & 1 == 0 {
            return;
        }
        let mask = self.irq_mask();
        let counted = (self.irq_counter & mask).wrapping_sub(1) & mask;
        self.irq_counter = self.irq_counter & !mask | counted;
        self.irq |= counted == 0;
    }

    fn irq(&self) -> bool {
        self.irq
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board() -> Ss88006 {
        Ss88006::new(&TestImage::new(18, 16, 16).header()).unwrap()
    }

    #[test]
    fn banks_come_in_nibbles() {
        let mut m = board();
        m.write_register(0x8002, 0x0B, 0);
        m.write_register(0x8003, 0x01, 0);
        m.write_register(0x9001, 0x01, 0);
        assert_eq!(m.map_cpu(0xA000), CpuTarget::PrgRom(0x1B * 0x2000));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(0x10 * 0x2000));
        assert_eq!(m.map_cpu(0xE000), CpuTarget::PrgRom(31 * 0x2000));
        m.write_register(0xD002, 0x04, 0);
        m.write_register(0xD003, 0x07, 0);
        assert_eq!(m.map_chr(0x1C00), 0x74 * 0x400);
        assert_eq!(m.map_cpu(0x6000), CpuTarget::None, "RAM off");
        m.write_register(0x9002, 0x01, 0);
        assert_eq!(m.map_cpu(0x6000), CpuTarget::PrgRam(0));
        assert!(!m.prg_ram_writable(0x6000));
        m.write_register(0xF002, 1, 0);
        assert_eq!(m.mirroring(), Mirroring::Vertical);
    }

    #[test]
    fn only_the_chosen_low_bits_count() {
        let mut m = board();
        for (i, nibble) in [0x2, 0x0, 0x0, 0x1].into_iter().enumerate() {
            m.write_register(0xE000 + i as u16, nibble, 0);
        }
        m.write_register(0xF000, 0, 0); // counter $1002
        m.write_register(0xF001, 0x09, 0); // 4-bit counter
        m.cpu_clock();
        assert!(!m.irq());
        m.cpu_clock();
        assert!(m.irq());
        assert_eq!(m.irq_counter, 0x1000);
        m.write_register(0xF001, 0x09, 0);
        m.cpu_clock();
        assert_eq!((m.irq_counter, m.irq()), (0x100F, false), "wraps in its 4 bits");
    }
}
