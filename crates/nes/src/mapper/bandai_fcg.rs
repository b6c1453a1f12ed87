//! Bandai FCG-1/FCG-2 and LZ93D50 (mappers 16 and 159): eight 1 KiB CHR banks (registers 0-7),
//! a 16 KiB PRG bank at $8000 (register 8; the last fixed at $C000), mirroring (9), and a 16-bit
//! counter of CPU cycles (A: enable; B, C: low and high byte) that raises /IRQ when it counts
//! down to zero. The FCG chips take the registers at $6000-$7FFF and B/C set the counter
//! itself; the LZ93D50 takes them at $8000-$FFFF, B/C set a latch copied into the counter by a
//! write to A ("INES Mapper 016"). Submapper 4 is FCG, 5 the LZ93D50, 0 both. The serial EEPROM
//! of 16.5 and 159 (register D, reads at $6000-$7FFF) is not emulated: it reads as open bus and
//! saves are lost.

use super::{banked, last_bank, prg_16k_last_fixed, unknown_submapper, Board, CpuTarget, Mirroring, Needs};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct BandaiFcg {
    chr_banks: [u8; 8],
    prg_bank: u8,
    mirroring: Mirroring,
    irq_latch: u16,
    irq_counter: u16,
    irq_enabled: bool,
    irq: bool,
    /// Registers at $6000-$7FFF (FCG-1/2).
    fcg: bool,
    /// Registers at $8000-$FFFF with a reload latch (LZ93D50).
    lz93d50: bool,
    last_bank: usize,
}

impl Field for BandaiFcg {
    fn visit(&mut self, io: &mut StateIo) {
        let BandaiFcg {
            chr_banks,
            prg_bank,
            mirroring,
            irq_latch,
            irq_counter,
            irq_enabled,
            irq,
            fcg: _,
            lz93d50: _,
            last_bank: _,
        } = self;
        fields!(io, chr_banks, prg_bank, mirroring);
        fields!(io, irq_latch, irq_counter, irq_enabled, irq);
    }
}

impl BandaiFcg {
    fn write(&mut self, reg: u16, val: u8) {
        match reg {
            0..=7 => self.chr_banks[usize::from(reg)] = val,
            8 => self.prg_bank = val,
            9 => self.mirroring = Mirroring::from_two_bits(val),
            0xA => {
                self.irq_enabled = val & 1 != 0;
                self.irq = false;
                if self.lz93d50 {
                    self.irq_counter = self.irq_latch;
                }
            }
            0xB | 0xC => {
                let target = if self.lz93d50 {
                    &mut self.irq_latch
                } else {
                    &mut self.irq_counter
                };
                *target = if reg == 0xB {
                    *target & 0xFF00 | u16::from(val)
                } else {
                    *target & 0x00FF | u16::from(val) << 8
                };
            }
            _ => {}
        }
    }
}

impl Board for BandaiFcg {
    const VARIANTS: &'static [(u16, u8)] = &[(16, 0), (16, 4), (16, 5), (159, 0)];

    fn new(header: &Header) -> Result<BandaiFcg, RomError> {
        let (fcg, lz93d50) = match (header.mapper, header.submapper) {
            (16, 0) => (true, true),
            (16, 4) => (true, false),
            (16, 5) | (159, 0) => (false, true),
            _ => return unknown_submapper(header),
        };
        Ok(BandaiFcg {
            chr_banks: [0; 8],
            prg_bank: 0,
            mirroring: Mirroring::Vertical,
            irq_latch: 0,
            irq_counter: 0,
            irq_enabled: false,
            irq: false,
            fcg,
            lz93d50,
            last_bank: last_bank(header, 0x4000),
        })
    }

    fn needs(&self) -> Needs {
        Needs {
            cpu_clock: true,
            irq: true,
            low_registers: self.fcg,
            ..Needs::default()
        }
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        prg_16k_last_fixed(addr, usize::from(self.prg_bank & 0x0F), self.last_bank)
    }

    fn map_chr(&self, addr: u16) -> usize {
        banked(usize::from(self.chr_banks[usize::from(addr >> 10) & 7]), 0x400, addr)
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        if self.lz93d50 {
            self.write(addr & 0x0F, val);
        }
    }

    fn write_low(&mut self, addr: u16, val: u8) {
        if self.fcg && addr >= 0x6000 {
            self.write(addr & 0x0F, val);
        }
    }

    fn cpu_clock(&mut self) {
        if self.irq_enabled {
            self.irq_counter = self.irq_counter.wrapping_sub(1);
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

    fn board(mapper: u8, submapper: u8) -> Result<BandaiFcg, RomError> {
        BandaiFcg::new(&TestImage::nes2(mapper.into(), submapper, 16, 32).header())
    }

    #[test]
    fn each_chip_has_its_register_window() {
        let mut fcg = board(16, 4).unwrap();
        fcg.write_register(0x8008, 3, 0);
        assert_eq!(fcg.map_cpu(0x8000), CpuTarget::PrgRom(0));
        fcg.write_low(0x6008, 3);
        fcg.write_low(0x7FF5, 9);
        assert_eq!(fcg.map_cpu(0x8000), CpuTarget::PrgRom(3 * 0x4000));
        assert_eq!(fcg.map_cpu(0xC000), CpuTarget::PrgRom(15 * 0x4000));
        assert_eq!(fcg.map_chr(0x1400), 9 * 0x400);
        let mut lz = board(159, 0).unwrap();
        lz.write_low(0x6008, 3);
        lz.write_register(0xC009, 1, 0);
        assert_eq!(lz.map_cpu(0x8000), CpuTarget::PrgRom(0));
        assert_eq!(lz.mirroring(), Mirroring::Horizontal);
        assert!(!lz.needs().low_registers);
        assert!(board(16, 1).is_err());
    }

    #[test]
    fn lz93d50_counts_from_its_latch_fcg_from_the_counter() {
        for (submapper, counts_from_latch) in [(5, true), (4, false)] {
            let mut m = board(16, submapper).unwrap();
            m.write(0xB, 2);
            m.write(0xC, 0);
            m.write(0xA, 1);
            m.cpu_clock();
            assert!(!m.irq());
            m.cpu_clock();
            assert!(m.irq(), "16.{submapper}");
            m.write(0xA, 1);
            assert!(!m.irq(), "acknowledged");
            let reloaded = if counts_from_latch { 2 } else { 0 };
            assert_eq!(m.irq_counter, reloaded, "16.{submapper}");
        }
    }
}
