//! Tengen RAMBO-1 (mapper 64; nesdev wiki, "RAMBO-1") and its TLSROM-like board 800037
//! (mapper 158). An MMC3-like pair of registers at $8000/$8001 fills sixteen bank registers:
//! R0-R5 the CHR banks as MMC3's (or, with $8000 bit 5, R0, R8, R1 and R9 as four 1 KiB banks
//! where R0 and R1 had 2 KiB), R6, R7 and RF three 8 KiB PRG banks that $8000 bit 6 rotates,
//! the last bank fixed at $E000. Its IRQ counter is clocked by PPU A12's filtered rises as
//! MMC3's, or every fourth CPU cycle ($C001 bit 0), reloads one or two above its latch after a
//! write to $C001, and raises /IRQ a little after reaching zero: two CPU cycles in the
//! scanline mode, one in the cycle mode (the delays Mesen2 measures the games to need, as is
//! the extra clock after leaving the cycle mode). Mapper 158 takes the nametables' CIRAM
//! pages from bit 7 of the CHR banks, as TxSROM does.

use super::mmc3::A12Filter;
use super::{banked, last_bank, Board, CpuTarget, Mirroring, Needs};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

const BANK_8K: usize = 0x2000;

#[derive(Clone, Debug)]
pub struct Rambo1 {
    /// $8000: bits 0-3 the register $8001 writes, bit 5 1 KiB banks for R0/R1, bit 6 the PRG
    /// rotation, bit 7 the CHR halves swapped.
    bank_select: u8,
    banks: [u8; 16],
    /// $A000 bit 0: horizontal.
    horizontal: bool,
    latch: u8,
    counter: u8,
    reload: bool,
    enabled: bool,
    /// $C001 bit 0: clocked by CPU cycles (divided by four) instead of A12.
    cycle_mode: bool,
    prescaler: u8,
    /// Leaving the cycle mode lets the prescaler clock the counter once more.
    extra_clock: bool,
    /// CPU cycles until a counter that reached zero raises /IRQ.
    irq_delay: u8,
    irq: bool,
    a12: A12Filter,
    /// Mapper 158: nametables from CHR bank bit 7.
    tengen_800037: bool,
    last_bank: usize,
}

impl Field for Rambo1 {
    fn visit(&mut self, io: &mut StateIo) {
        let Rambo1 {
            bank_select,
            banks,
            horizontal,
            latch,
            counter,
            reload,
            enabled,
            cycle_mode,
            prescaler,
            extra_clock,
            irq_delay,
            irq,
            a12,
            tengen_800037: _,
            last_bank: _,
        } = self;
        fields!(io, bank_select, banks, horizontal, latch, counter, reload, enabled);
        fields!(io, cycle_mode, prescaler, extra_clock, irq_delay, irq, a12);
        *prescaler &= 3;
    }
}

impl Board for Rambo1 {
    fn new(header: &Header) -> Result<Rambo1, RomError> {
        Ok(Rambo1 {
            bank_select: 0,
            banks: [0; 16],
            horizontal: false,
            latch: 0,
            counter: 0,
            reload: false,
            enabled: false,
            cycle_mode: false,
            prescaler: 0,
            extra_clock: false,
            irq_delay: 0,
            irq: false,
            a12: A12Filter::default(),
            tengen_800037: header.mapper == 158,
            last_bank: last_bank(header, BANK_8K),
        })
    }

    fn needs(&self) -> Needs {
        Needs {
            cpu_clock: true,
            irq: true,
            // Every fetch as it happens, not `ppu_a12_only`: the IRQ delay and the cycle mode
            // count CPU cycles for more than the A12 filter, so they cannot be told late.
            ppu_bus: true,
            ..Needs::default()
        }
    }

    /// No PRG-RAM on these boards.
    fn map_cpu(&self, addr: u16) -> CpuTarget {
        let [r6, r7, rf] = [self.banks[6], self.banks[7], self.banks[15]].map(usize::from);
        let rotated = self.bank_select & 0x40 != 0;
        let bank = match addr {
            0x8000..=0x9FFF if rotated => rf,
            0x8000..=0x9FFF => r6,
            0xA000..=0xBFFF if rotated => r6,
            0xA000..=0xBFFF => r7,
            0xC000..=0xDFFF if rotated => r7,
            0xC000..=0xDFFF => rf,
            0xE000..=0xFFFF => self.last_bank,
            _ => return CpuTarget::None,
        };
        CpuTarget::PrgRom(banked(bank, BANK_8K, addr))
    }

    fn map_chr(&self, addr: u16) -> usize {
        let slot = (usize::from(addr >> 10) & 7) ^ if self.bank_select & 0x80 != 0 { 4 } else { 0 };
        let one_kib = self.bank_select & 0x20 != 0;
        let bank = match slot {
            0 => self.banks[0],
            1 if one_kib => self.banks[8],
            1 => self.banks[0].wrapping_add(1),
            2 => self.banks[1],
            3 if one_kib => self.banks[9],
            3 => self.banks[1].wrapping_add(1),
            _ => self.banks[slot - 2],
        };
        banked(usize::from(bank), 0x400, addr)
    }

    fn mirroring(&self) -> Mirroring {
        if self.horizontal {
            Mirroring::Horizontal
        } else {
            Mirroring::Vertical
        }
    }

    fn nametable_page(&self, table: usize) -> usize {
        if self.tengen_800037 {
            (self.map_chr(table as u16 * 0x400) >> 17) & 1
        } else {
            self.mirroring().page(table)
        }
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        match addr & 0xE001 {
            0x8000 => self.bank_select = val,
            0x8001 => self.banks[usize::from(self.bank_select & 0x0F)] = val,
            0xA000 => self.horizontal = val & 1 != 0,
            0xC000 => self.latch = val,
            0xC001 => {
                let cycle_mode = val & 1 != 0;
                self.extra_clock |= self.cycle_mode && !cycle_mode;
                if cycle_mode {
                    self.prescaler = 0;
                }
                self.cycle_mode = cycle_mode;
                self.reload = true;
            }
            0xE000 => {
                self.enabled = false;
                self.irq = false;
            }
            0xE001 => self.enabled = true,
            _ => {}
        }
    }

    fn cpu_clock(&mut self) {
        if self.irq_delay > 0 {
            self.irq_delay -= 1;
            self.irq |= self.irq_delay == 0;
        }
        self.a12.cpu_clocks(1);
        if self.cycle_mode || self.extra_clock {
            self.prescaler = (self.prescaler + 1) & 3;
            if self.prescaler == 0 {
                self.extra_clock = false;
                self.clock_counter(1);
            }
        }
    }

    fn ppu_address(&mut self, addr: u16) -> bool {
        if self.a12.rises(addr) && !self.cycle_mode {
            self.clock_counter(2);
        }
        false
    }

    fn irq(&self) -> bool {
        self.irq
    }
}

impl Rambo1 {
    /// One clock of the counter; reaching zero raises /IRQ `delay` CPU cycles later.
    fn clock_counter(&mut self, delay: u8) {
        if self.reload {
            // One above the latch, or two for latches above 1 (Hard Drivin' needs this).
            self.counter = self.latch.wrapping_add(if self.latch <= 1 { 1 } else { 2 });
            self.reload = false;
        } else if self.counter == 0 {
            self.counter = self.latch.wrapping_add(1);
        }
        self.counter = self.counter.wrapping_sub(1);
        if self.counter == 0 && self.enabled {
            self.irq_delay = delay;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board(mapper: u8) -> Rambo1 {
        Rambo1::new(&TestImage::new(mapper.into(), 8, 16).header()).unwrap()
    }

    fn set(m: &mut Rambo1, reg: u8, val: u8) {
        m.write_register(0x8000, m.bank_select & 0xF0 | reg, 0);
        m.write_register(0x8001, val, 0);
    }

    #[test]
    fn prg_rotation_and_chr_modes() {
        let mut m = board(64);
        set(&mut m, 6, 1);
        set(&mut m, 7, 2);
        set(&mut m, 15, 3);
        let bank = |m: &Rambo1, a| match m.map_cpu(a) {
            CpuTarget::PrgRom(off) => off / BANK_8K,
            _ => usize::MAX,
        };
        assert_eq!([0x8000, 0xA000, 0xC000, 0xE000].map(|a| bank(&m, a)), [1, 2, 3, 15]);
        m.write_register(0x8000, 0x40, 0);
        assert_eq!([0x8000, 0xA000, 0xC000, 0xE000].map(|a| bank(&m, a)), [3, 1, 2, 15]);
        assert_eq!(m.map_cpu(0x6000), CpuTarget::None);
        let kib = |m: &Rambo1| std::array::from_fn::<_, 8, _>(|s| m.map_chr(s as u16 * 0x400) / 0x400);
        for (reg, val) in [(0, 0x10), (1, 0x20), (2, 2), (3, 3), (4, 4), (5, 5), (8, 0x30), (9, 0x40)] {
            set(&mut m, reg, val);
        }
        assert_eq!(kib(&m), [0x10, 0x11, 0x20, 0x21, 2, 3, 4, 5]);
        m.write_register(0x8000, 0x20, 0);
        assert_eq!(kib(&m), [0x10, 0x30, 0x20, 0x40, 2, 3, 4, 5]);
        m.write_register(0x8000, 0xA0, 0);
        assert_eq!(kib(&m), [2, 3, 4, 5, 0x10, 0x30, 0x20, 0x40]);
    }

    /// A12 low long enough, then high: one scanline's clock.
    fn scanline(m: &mut Rambo1) {
        m.ppu_address(0x0000);
        for _ in 0..8 {
            m.cpu_clock();
        }
        m.ppu_address(0x1000);
    }

    #[test]
    fn scanline_irq_comes_two_cycles_after_zero() {
        let mut m = board(64);
        m.write_register(0xC000, 2, 0);
        m.write_register(0xC001, 0, 0); // scanline mode, reload: 2 + 2
        m.write_register(0xE001, 0, 0);
        for _ in 0..3 {
            scanline(&mut m);
        }
        assert_eq!((m.counter, m.irq()), (1, false));
        scanline(&mut m);
        assert_eq!(m.counter, 0);
        m.cpu_clock();
        assert!(!m.irq());
        m.cpu_clock();
        assert!(m.irq());
        m.write_register(0xE000, 0, 0);
        assert!(!m.irq(), "acknowledged");
    }

    #[test]
    fn cycle_mode_counts_every_fourth_cpu_cycle() {
        let mut m = board(64);
        m.write_register(0xC000, 1, 0);
        m.write_register(0xC001, 1, 0); // cycle mode, reload: 1 + 1
        m.write_register(0xE001, 0, 0);
        let fired = (1..=40).find(|_| {
            m.cpu_clock();
            m.irq()
        });
        // Clocks at cycles 4 (2 -> 1) and 8 (-> 0), /IRQ one cycle later.
        assert_eq!(fired, Some(9));
        // A12 does not clock it in this mode.
        m.write_register(0xE000, 0, 0);
        let before = m.counter;
        m.ppu_address(0x1000);
        assert_eq!(m.counter, before);
    }

    #[test]
    fn mapper_158_nametables_follow_chr_bit_7() {
        let mut m = board(158);
        set(&mut m, 0, 0x80);
        set(&mut m, 1, 0x00);
        m.write_register(0xA000, 1, 0);
        assert_eq!([0, 1, 2, 3].map(|t| m.nametable_page(t)), [1, 1, 0, 0]);
        let mut m = board(64);
        m.write_register(0xA000, 1, 0);
        assert_eq!([0, 1, 2, 3].map(|t| m.nametable_page(t)), [0, 0, 1, 1]);
    }
}
