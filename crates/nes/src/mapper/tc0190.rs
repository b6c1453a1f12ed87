//! Taito TC0190 (mapper 33): two 8 KiB PRG banks ($8000, $8001; the last two fixed at $C000),
//! two 2 KiB CHR banks ($8002, $8003) and four 1 KiB ones ($A000-$A003), bit 6 of $8000 the
//! mirroring ("INES Mapper 033"). Registers repeat every four bytes.
//!
//! Taito's TC0690 (mapper 48) adds MMC3's scanline counter at $C000-$C003 (latch, reload,
//! enable, disable), whose latch takes the complement of the value written, and moves the
//! mirroring bit to bit 6 of $E000 ("INES Mapper 048"). The few cycles by which its IRQ is
//! said to come later than MMC3's are not modelled.

use super::mmc3::ScanlineCounter;
use super::{banked, Board, CpuTarget, Mirroring, Needs};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Tc0190 {
    /// $8000 (bits 0-5; bit 6 mirroring) and $8001.
    prg_banks: [u8; 2],
    /// 2 KiB banks at $0000 and $0800, then 1 KiB banks at $1000-$1C00.
    chr_banks: [u8; 6],
    second_last: usize,
    /// TC0690: the counter, and $E000 with the mirroring.
    tc0690: Option<(ScanlineCounter, u8)>,
}

impl Field for Tc0190 {
    fn visit(&mut self, io: &mut StateIo) {
        let Tc0190 {
            prg_banks,
            chr_banks,
            second_last: _,
            tc0690,
        } = self;
        fields!(io, prg_banks, chr_banks);
        if let Some((counter, mirroring)) = tc0690 {
            fields!(io, counter, mirroring);
        }
    }
}

impl Board for Tc0190 {
    fn new(header: &Header) -> Result<Tc0190, RomError> {
        Ok(Tc0190 {
            prg_banks: [0, 0],
            chr_banks: [0; 6],
            second_last: (header.prg_rom_size / 0x2000).max(2) - 2,
            tc0690: (header.mapper == 48).then(|| (ScanlineCounter::new(false), 0)),
        })
    }

    fn needs(&self) -> Needs {
        match self.tc0690 {
            Some(_) => ScanlineCounter::NEEDS,
            None => Needs::default(),
        }
    }

    fn irq(&self) -> bool {
        self.tc0690.as_ref().is_some_and(|(counter, _)| counter.irq())
    }

    fn cpu_clock(&mut self) {
        self.cpu_clocks(1);
    }

    fn cpu_clocks(&mut self, n: u8) {
        if let Some((counter, _)) = &mut self.tc0690 {
            counter.cpu_clocks(n);
        }
    }

    fn ppu_address(&mut self, addr: u16) -> bool {
        if let Some((counter, _)) = &mut self.tc0690 {
            counter.ppu_address(addr);
        }
        false
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        let bank = match addr {
            0x8000..=0xBFFF => usize::from(self.prg_banks[usize::from(addr >> 13) & 1] & 0x3F),
            0xC000..=0xDFFF => self.second_last,
            0xE000..=0xFFFF => self.second_last + 1,
            _ => return CpuTarget::None,
        };
        CpuTarget::PrgRom(banked(bank, 0x2000, addr))
    }

    fn map_chr(&self, addr: u16) -> usize {
        match addr & 0x1FFF {
            0x0000..=0x0FFF => {
                banked(usize::from(self.chr_banks[usize::from(addr >> 11) & 1]), 0x800, addr)
            }
            _ => banked(
                usize::from(self.chr_banks[2 + (usize::from(addr >> 10) & 3)]),
                0x400,
                addr,
            ),
        }
    }

    fn mirroring(&self) -> Mirroring {
        let register = match self.tc0690 {
            Some((_, mirroring)) => mirroring,
            None => self.prg_banks[0],
        };
        Mirroring::from_two_bits(register >> 6 & 1)
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        let reg = usize::from(addr & 3);
        match (addr & 0xE000, reg) {
            (0x8000, 0 | 1) => self.prg_banks[reg] = val,
            (0x8000, _) => self.chr_banks[reg - 2] = val,
            (0xA000, _) => self.chr_banks[2 + reg] = val,
            _ => {
                let Some((counter, mirroring)) = &mut self.tc0690 else {
                    return;
                };
                match (addr & 0xE000, reg) {
                    (0xC000, 0) => counter.set_latch(!val),
                    (0xC000, 1) => counter.reload(),
                    (0xC000, _) => counter.enable(reg == 2),
                    _ => *mirroring = val,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board(mapper: u8) -> Tc0190 {
        Tc0190::new(&TestImage::new(mapper.into(), 8, 16).header()).unwrap()
    }

    #[test]
    fn banks_and_mirroring() {
        let mut m = board(33);
        m.write_register(0x8000, 0x43, 0);
        m.write_register(0x8005, 4, 0);
        m.write_register(0x8002, 5, 0);
        m.write_register(0xA003, 9, 0);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(3 * 0x2000));
        assert_eq!(m.map_cpu(0xA000), CpuTarget::PrgRom(4 * 0x2000));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(14 * 0x2000));
        assert_eq!(m.map_chr(0x0401), 5 * 0x800 + 0x401);
        assert_eq!(m.map_chr(0x1C01), 9 * 0x400 + 1);
        assert_eq!(m.mirroring(), Mirroring::Horizontal);
    }

    #[test]
    fn tc0690_mirroring_at_e000_and_inverted_counter_latch() {
        let mut m = board(48);
        assert_eq!(m.needs(), ScanlineCounter::NEEDS);
        m.write_register(0x8000, 0x43, 0);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(3 * 0x2000));
        assert_eq!(m.mirroring(), Mirroring::Vertical, "$8000 bit 6 is PRG only");
        m.write_register(0xE000, 0x40, 0);
        assert_eq!(m.mirroring(), Mirroring::Horizontal);
        // $FE written: the counter reloads to 1, so the second scanline raises the IRQ.
        m.write_register(0xC000, 0xFE, 0);
        m.write_register(0xC001, 0, 0);
        m.write_register(0xC002, 0, 0);
        let mut scanlines = 0;
        while !m.irq() {
            m.ppu_address(0x0000);
            for _ in 0..8 {
                m.cpu_clock();
            }
            m.ppu_address(0x1000);
            scanlines += 1;
            assert!(scanlines < 300, "no IRQ");
        }
        assert_eq!(scanlines, 2);
        m.write_register(0xC003, 0, 0);
        assert!(!m.irq(), "$C003 acknowledges");
        assert!(!board(33).irq());
        assert_eq!(board(33).needs(), Needs::default());
    }
}
