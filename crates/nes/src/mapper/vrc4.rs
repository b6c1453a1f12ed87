//! Konami VRC2 and VRC4 (mappers 21, 22, 23, 25; "VRC2 and VRC4"): two switchable 8 KiB PRG
//! banks, the last two fixed, eight 1 KiB CHR banks each written as two nibbles, mirroring,
//! PRG-RAM at $6000. VRC4 adds one-screen mirroring, a PRG swap mode that trades $8000 and
//! $C000, and the VRC IRQ counter ([`VrcIrq`], which VRC6 shares). The boards connect two CPU
//! address lines to the chip's register select lines A0 and A1, differently per board; the
//! NES 2.0 submapper says which, and without it both candidate lines are ORed. VRC2a (mapper
//! 22) leaves out CHR A10: its banks are the register value halved. VRC4's WRAM-enable bit is
//! not emulated (the RAM is always on); neither is VRC2's one-bit latch in $6000-$6FFF without
//! RAM.

use super::{banked, prg_8k_swappable, unknown_submapper, Board, CpuTarget, Mirroring, Needs};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

/// IRQ control ($F002): re-enable on acknowledge, enable, cycle mode (else scanline mode).
const IRQ_ENABLE_AFTER_ACK: u8 = 0x01;
const IRQ_ENABLE: u8 = 0x02;
const IRQ_CYCLE_MODE: u8 = 0x04;
/// Scanline mode: the prescaler counts 341 PPU dots, three per CPU cycle ("VRC IRQ").
const PRESCALER_PERIOD: i16 = 341;

#[derive(Clone, Debug)]
pub struct Vrc4 {
    prg_banks: [u8; 2],
    /// 9-bit 1 KiB banks, written a nibble at a time.
    chr_banks: [u16; 8],
    mirroring: Mirroring,
    /// $9002: bit 1 swaps $8000 and $C000 (VRC4).
    prg_mode: u8,
    irq: VrcIrq,
    /// The CPU address lines wired to the chip's A0 and A1, as masks.
    select_lines: [u16; 2],
    vrc2: bool,
    /// VRC2a: CHR A10 not connected.
    chr_halved: bool,
    second_last: usize,
}

impl Field for Vrc4 {
    fn visit(&mut self, io: &mut StateIo) {
        let Vrc4 {
            prg_banks,
            chr_banks,
            mirroring,
            prg_mode,
            irq,
            select_lines: _,
            vrc2: _,
            chr_halved: _,
            second_last: _,
        } = self;
        fields!(io, prg_banks, chr_banks, mirroring, prg_mode, irq);
    }
}

/// The VRC IRQ counter of VRC4, VRC6 and VRC7: an 8-bit counter counting up from a latch,
/// by CPU cycles or by scanlines (a prescaler of 341 PPU dots), that raises /IRQ when it wraps.
#[derive(Clone, Debug)]
pub(super) struct VrcIrq {
    latch: u8,
    counter: u8,
    control: u8,
    prescaler: i16,
    irq: bool,
}

impl Default for VrcIrq {
    fn default() -> VrcIrq {
        VrcIrq {
            latch: 0,
            counter: 0,
            control: 0,
            prescaler: PRESCALER_PERIOD,
            irq: false,
        }
    }
}

impl Field for VrcIrq {
    fn visit(&mut self, io: &mut StateIo) {
        let VrcIrq {
            latch,
            counter,
            control,
            prescaler,
            irq,
        } = self;
        fields!(io, latch, counter, control, irq);
        io.checked(prescaler, "VRC prescaler", |p| {
            (1..=PRESCALER_PERIOD).contains(p)
        });
    }
}

impl VrcIrq {
    /// The latch's low nibble (`high` false) or high nibble, as VRC4 writes it.
    pub(super) fn write_latch_nibble(&mut self, val: u8, high: bool) {
        self.latch = if high {
            self.latch & 0x0F | val << 4
        } else {
            self.latch & 0xF0 | val & 0x0F
        };
    }

    /// The whole latch, as VRC6 and VRC7 write it.
    pub(super) fn write_latch(&mut self, val: u8) {
        self.latch = val;
    }

    /// The control register: enabling reloads the counter and the prescaler.
    pub(super) fn write_control(&mut self, val: u8) {
        self.control = val;
        self.irq = false;
        if val & IRQ_ENABLE != 0 {
            self.counter = self.latch;
            self.prescaler = PRESCALER_PERIOD;
        }
    }

    /// The acknowledge: /IRQ released, the enable bit copied from the re-enable bit.
    pub(super) fn acknowledge(&mut self) {
        self.irq = false;
        let enable = (self.control & IRQ_ENABLE_AFTER_ACK) << 1;
        self.control = self.control & !IRQ_ENABLE | enable;
    }

    /// One CPU cycle.
    pub(super) fn clock(&mut self) {
        if self.control & IRQ_ENABLE == 0 {
            return;
        }
        if self.control & IRQ_CYCLE_MODE == 0 {
            self.prescaler -= 3;
            if self.prescaler > 0 {
                return;
            }
            self.prescaler += PRESCALER_PERIOD;
        }
        if self.counter == 0xFF {
            self.counter = self.latch;
            self.irq = true;
        } else {
            self.counter += 1;
        }
    }

    pub(super) fn irq(&self) -> bool {
        self.irq
    }
}

impl Board for Vrc4 {
    const VARIANTS: &'static [(u16, u8)] = &[(21, 0), (21, 1), (21, 2), (22, 0), (23, 0), (23, 1), (23, 2), (23, 3), (25, 0), (25, 1), (25, 2), (25, 3)];

    fn new(header: &Header) -> Result<Vrc4, RomError> {
        // (chip's A0, chip's A1, VRC2) per mapper and submapper.
        let (a0, a1, vrc2) = match (header.mapper, header.submapper) {
            (21, 0) => (0x42, 0x84, false),
            (21, 1) => (0x02, 0x04, false), // VRC4a
            (21, 2) => (0x40, 0x80, false), // VRC4c
            (22, 0) => (0x02, 0x01, true),  // VRC2a
            (23, 0) => (0x05, 0x0A, false),
            (23, 1) => (0x01, 0x02, false), // VRC4f
            (23, 2) => (0x04, 0x08, false), // VRC4e
            (23, 3) => (0x01, 0x02, true),  // VRC2b
            (25, 0) => (0x0A, 0x05, false),
            (25, 1) => (0x02, 0x01, false), // VRC4b
            (25, 2) => (0x08, 0x04, false), // VRC4d
            (25, 3) => (0x02, 0x01, true),  // VRC2c
            _ => return unknown_submapper(header),
        };
        Ok(Vrc4 {
            prg_banks: [0, 0],
            chr_banks: [0; 8],
            mirroring: Mirroring::Vertical,
            prg_mode: 0,
            irq: VrcIrq::default(),
            select_lines: [a0, a1],
            vrc2,
            chr_halved: header.mapper == 22,
            second_last: (header.prg_rom_size / 0x2000).max(2) - 2,
        })
    }

    fn needs(&self) -> Needs {
        Needs {
            cpu_clock: !self.vrc2,
            irq: !self.vrc2,
            ..Needs::default()
        }
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        let banks = self.prg_banks.map(|bank| bank & 0x1F);
        prg_8k_swappable(addr, banks, self.prg_mode & 0x02 != 0, self.second_last)
    }

    fn map_chr(&self, addr: u16) -> usize {
        let bank = self.chr_banks[usize::from(addr >> 10) & 7];
        let bank = if self.chr_halved { bank >> 1 } else { bank };
        banked(usize::from(bank), 0x400, addr)
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        let [a0, a1] = self.select_lines;
        let reg = usize::from(addr & a0 != 0) | usize::from(addr & a1 != 0) << 1;
        match (addr & 0xF000, reg) {
            (0x8000, _) => self.prg_banks[0] = val,
            (0xA000, _) => self.prg_banks[1] = val,
            (0x9000, _) if self.vrc2 => self.mirroring = Mirroring::from_two_bits(val & 1),
            (0x9000, 0 | 1) => self.mirroring = Mirroring::from_two_bits(val),
            (0x9000, _) => self.prg_mode = val,
            (0xB000..=0xE000, _) => {
                // Two banks per page, the low nibble at even registers, the high at odd ones.
                let slot = usize::from((addr >> 12) - 0xB) * 2 + reg / 2;
                let bank = &mut self.chr_banks[slot];
                *bank = if reg & 1 == 0 {
                    *bank & 0x1F0 | u16::from(val & 0x0F)
                } else {
                    *bank & 0x00F | u16::from(val & 0x1F) << 4
                };
            }
            _ if self.vrc2 => {}
            (_, 0 | 1) => self.irq.write_latch_nibble(val, reg == 1),
            (_, 2) => self.irq.write_control(val),
            _ => self.irq.acknowledge(),
        }
    }

    fn cpu_clock(&mut self) {
        self.irq.clock();
    }

    fn irq(&self) -> bool {
        self.irq.irq()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board(mapper: u8, submapper: u8) -> Result<Vrc4, RomError> {
        Vrc4::new(&TestImage::nes2(mapper.into(), submapper, 16, 32).header())
    }

    /// Writes CHR bank 1 ($0400) as the board's two registers for it: chip register 2 and 3 of
    /// $B000, at the CPU addresses `low` and `high`.
    fn chr1(m: &mut Vrc4, low: u16, high: u16, bank: u16) -> usize {
        m.write_register(low, (bank & 0x0F) as u8, 0);
        m.write_register(high, (bank >> 4) as u8, 0);
        m.map_chr(0x0400) / 0x400
    }

    #[test]
    fn each_board_selects_registers_with_its_lines() {
        for (mapper, submapper, low, high) in [
            (21, 1, 0xB004, 0xB006),
            (21, 2, 0xB080, 0xB0C0),
            (21, 0, 0xB080, 0xB006),
            (23, 1, 0xB002, 0xB003),
            (23, 2, 0xB008, 0xB00C),
            (23, 3, 0xB002, 0xB003),
            (25, 1, 0xB001, 0xB003),
            (25, 2, 0xB004, 0xB00C),
            (25, 3, 0xB001, 0xB003),
        ] {
            let mut m = board(mapper, submapper).unwrap();
            assert_eq!(chr1(&mut m, low, high, 0x1A5), 0x1A5, "{mapper}.{submapper}");
        }
        // VRC2a: A0 and A1 swapped, CHR A10 not connected.
        let mut vrc2a = board(22, 0).unwrap();
        assert_eq!(chr1(&mut vrc2a, 0xB001, 0xB003, 0x0B), 5);
        assert!(board(22, 1).is_err() && board(25, 4).is_err());
        assert_eq!(vrc2a.needs(), Needs::default(), "VRC2 has no IRQ");
    }

    #[test]
    fn prg_swap_mode_and_mirroring() {
        let mut m = board(23, 1).unwrap();
        m.write_register(0x8000, 3, 0);
        m.write_register(0xA000, 4, 0);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(3 * 0x2000));
        assert_eq!(m.map_cpu(0xA000), CpuTarget::PrgRom(4 * 0x2000));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(30 * 0x2000));
        m.write_register(0x9002, 0x02, 0);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(30 * 0x2000));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(3 * 0x2000));
        assert_eq!(m.map_cpu(0xE000), CpuTarget::PrgRom(31 * 0x2000));
        m.write_register(0x9000, 3, 0);
        assert_eq!(m.mirroring(), Mirroring::SingleHigh);
        let mut vrc2 = board(23, 3).unwrap();
        vrc2.write_register(0x9002, 0x03, 0);
        assert_eq!(vrc2.mirroring(), Mirroring::Horizontal, "VRC2: one bit");
        assert_eq!(vrc2.map_cpu(0x8000), CpuTarget::PrgRom(0), "VRC2: no swap mode");
    }

    #[test]
    fn irq_counts_cycles_or_scanlines_from_the_latch() {
        let mut m = board(25, 1).unwrap();
        // Latch $FD (low nibble at chip register 0, high at 1 of $F000); cycle mode.
        m.write_register(0xF000, 0x0D, 0);
        m.write_register(0xF002, 0x0F, 0);
        m.write_register(0xF001, IRQ_ENABLE | IRQ_CYCLE_MODE | IRQ_ENABLE_AFTER_ACK, 0);
        m.cpu_clock(); // $FE
        m.cpu_clock(); // $FF
        assert!(!m.irq());
        m.cpu_clock(); // wraps to the latch
        assert!(m.irq());
        assert_eq!(m.irq.counter, 0xFD);
        m.write_register(0xF003, 0, 0);
        assert!(!m.irq() && m.irq.control & IRQ_ENABLE != 0, "acknowledged, still on");

        // Scanline mode: one count per 341 dots, 113 2/3 CPU cycles.
        m.write_register(0xF000, 0x0F, 0);
        m.write_register(0xF002, 0x0F, 0);
        m.write_register(0xF001, IRQ_ENABLE, 0);
        for _ in 0..113 {
            m.cpu_clock();
        }
        assert!(!m.irq());
        m.cpu_clock();
        assert!(m.irq(), "after 114 cycles");
        m.write_register(0xF003, 0, 0);
        assert_eq!(m.irq.control & IRQ_ENABLE, 0, "acknowledge copies the A bit");
    }
}
