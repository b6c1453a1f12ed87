//! Sunsoft FME-7 (mapper 69; JLROM, JSROM). A command register at $8000-$9FFF picks what the
//! parameter register at $A000-$BFFF sets: eight 1 KiB CHR banks, PRG-ROM or PRG-RAM at $6000,
//! three 8 KiB PRG-ROM banks (the last fixed at $E000), mirroring, and a 16-bit counter
//! decremented every CPU cycle that raises /IRQ when it wraps from $0000 to $FFFF. The
//! Sunsoft 5B's audio at $C000-$FFFF is not emulated yet.

use super::{Board, CpuTarget, Mirroring, Needs};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

const BANK_8K: usize = 8 * 1024;

/// Command $D: bit 0 lets the counter raise /IRQ, bit 7 makes it count.
const IRQ_ENABLE: u8 = 0x01;
const COUNTER_ENABLE: u8 = 0x80;

#[derive(Clone, Debug)]
pub struct Fme7 {
    command: u8,
    chr_banks: [u8; 8],
    /// Command 8: bits 0-5 the bank, bit 6 RAM (else ROM), bit 7 RAM enabled.
    low_bank: u8,
    prg_banks: [u8; 3],
    mirroring: Mirroring,
    irq_control: u8,
    irq_counter: u16,
    irq: bool,
    last_bank: usize,
}

impl Field for Fme7 {
    fn visit(&mut self, io: &mut StateIo) {
        let Fme7 {
            command,
            chr_banks,
            low_bank,
            prg_banks,
            mirroring,
            irq_control,
            irq_counter,
            irq,
            last_bank: _,
        } = self;
        fields!(io, command, chr_banks, low_bank, prg_banks, mirroring);
        fields!(io, irq_control, irq_counter, irq);
    }
}

impl Board for Fme7 {
    fn new(header: &Header) -> Result<Fme7, RomError> {
        Ok(Fme7 {
            command: 0,
            chr_banks: [0; 8],
            low_bank: 0,
            prg_banks: [0; 3],
            mirroring: Mirroring::Vertical,
            irq_control: 0,
            irq_counter: 0,
            irq: false,
            last_bank: (header.prg_rom_size / BANK_8K).max(1) - 1,
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
        let offset = usize::from(addr & 0x1FFF);
        let bank = match addr {
            0x6000..=0x7FFF => {
                let bank = usize::from(self.low_bank & 0x3F);
                return match self.low_bank >> 6 {
                    0 | 2 => CpuTarget::PrgRom(bank * BANK_8K + offset),
                    1 => CpuTarget::None,
                    _ => CpuTarget::PrgRam(bank * BANK_8K + offset),
                };
            }
            0x8000..=0xDFFF => usize::from(self.prg_banks[usize::from(addr >> 13) - 4] & 0x3F),
            0xE000..=0xFFFF => self.last_bank,
            _ => return CpuTarget::None,
        };
        CpuTarget::PrgRom(bank * BANK_8K + offset)
    }

    fn map_chr(&self, addr: u16) -> usize {
        usize::from(self.chr_banks[usize::from(addr >> 10) & 7]) * 0x400 + usize::from(addr & 0x3FF)
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        match addr {
            0x8000..=0x9FFF => self.command = val & 0x0F,
            0xA000..=0xBFFF => self.write_parameter(val),
            _ => {}
        }
    }

    fn cpu_clock(&mut self) {
        if self.irq_control & COUNTER_ENABLE != 0 {
            self.irq_counter = self.irq_counter.wrapping_sub(1);
            if self.irq_counter == 0xFFFF && self.irq_control & IRQ_ENABLE != 0 {
                self.irq = true;
            }
        }
    }

    fn irq(&self) -> bool {
        self.irq
    }
}

impl Fme7 {
    fn write_parameter(&mut self, val: u8) {
        match self.command {
            0..=7 => self.chr_banks[usize::from(self.command)] = val,
            8 => self.low_bank = val,
            9..=0x0B => self.prg_banks[usize::from(self.command - 9)] = val,
            0x0C => self.mirroring = Mirroring::from_two_bits(val),
            0x0D => {
                // Any write acknowledges.
                self.irq_control = val;
                self.irq = false;
            }
            0x0E => self.irq_counter = self.irq_counter & 0xFF00 | u16::from(val),
            _ => self.irq_counter = self.irq_counter & 0x00FF | u16::from(val) << 8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board() -> Fme7 {
        let mut h = vec![b'N', b'E', b'S', 0x1A, 8, 8, 0x50, 0x40];
        h.resize(16, 0);
        Fme7::new(&Header::parse(&h).unwrap()).unwrap()
    }

    fn command(m: &mut Fme7, command: u8, val: u8) {
        m.write_register(0x8000, command, 0);
        m.write_register(0xA000, val, 0);
    }

    #[test]
    fn counter_raises_irq_when_it_wraps_past_zero() {
        let mut m = board();
        command(&mut m, 0x0E, 2);
        command(&mut m, 0x0F, 0);
        command(&mut m, 0x0D, COUNTER_ENABLE | IRQ_ENABLE);
        for _ in 0..2 {
            m.cpu_clock();
        }
        assert!(!m.irq(), "at $0000 still");
        m.cpu_clock();
        assert!(m.irq(), "$0000 to $FFFF");
        command(&mut m, 0x0D, COUNTER_ENABLE);
        assert!(!m.irq(), "acknowledged");
        // Counting without the IRQ enabled wraps silently; stopped, it does not count.
        for _ in 0..0x10000 {
            m.cpu_clock();
        }
        assert!(!m.irq());
        assert_eq!(m.irq_counter, 0xFFFF);
        command(&mut m, 0x0D, IRQ_ENABLE);
        m.cpu_clock();
        assert_eq!((m.irq_counter, m.irq()), (0xFFFF, false));
    }

    #[test]
    fn the_6000_window_holds_rom_ram_or_nothing() {
        let mut m = board();
        command(&mut m, 8, 0x05);
        assert_eq!(m.map_cpu(0x6001), CpuTarget::PrgRom(5 * BANK_8K + 1));
        command(&mut m, 8, 0x40);
        assert_eq!(m.map_cpu(0x6001), CpuTarget::None, "RAM disabled");
        command(&mut m, 8, 0xC0);
        assert_eq!(m.map_cpu(0x6001), CpuTarget::PrgRam(1));
        command(&mut m, 0x0B, 4);
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(4 * BANK_8K));
        assert_eq!(m.map_cpu(0xE000), CpuTarget::PrgRom(15 * BANK_8K));
    }
}
