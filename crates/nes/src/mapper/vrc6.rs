//! Konami VRC6 (mappers 24 and 26; "VRC6"): a 16 KiB PRG bank at $8000 and an 8 KiB one at
//! $C000, the last 8 KiB fixed; eight CHR registers that $B003 arranges as 1 or 2 KiB banks
//! and as the nametables' sources (CIRAM pages, or CHR-ROM with $B003 bit 4); PRG-RAM at $6000
//! enabled by $B003 bit 7; the VRC IRQ counter; and its sound: two pulses with eight duty
//! steps and a sawtooth. Mapper 26 (VRC6b) swaps the chip's register lines A0 and A1.
//!
//! The sound is mixed linearly, a pulse at volume 15 as loud as a 2A03 pulse at volume 15, of
//! the opposite polarity (nesdev wiki, "VRC6 audio").

use super::vrc4::VrcIrq;
use super::{banked, outputs_moved, Board, CpuTarget, Mirroring, Needs};
use crate::apu::mixer;
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

const BANK_8K: usize = 0x2000;

#[derive(Clone, Debug)]
pub struct Vrc6 {
    prg_16k: u8,
    prg_8k: u8,
    chr: [u8; 8],
    /// $B003: bits 0-1 the CHR layout, bits 2-3 and 5 the nametables, bit 4 nametables from
    /// CHR-ROM, bit 5 also CHR A10 in 2 KiB banks, bit 7 PRG-RAM enabled.
    control: u8,
    irq: VrcIrq,
    audio: Audio,
    /// VRC6b: A0 and A1 swapped.
    swapped: bool,
    last_bank: usize,
}

impl Field for Vrc6 {
    fn visit(&mut self, io: &mut StateIo) {
        let Vrc6 {
            prg_16k,
            prg_8k,
            chr,
            control,
            irq,
            audio,
            swapped: _,
            last_bank: _,
        } = self;
        fields!(io, prg_16k, prg_8k, chr, control, irq, audio);
    }
}

impl Board for Vrc6 {
    fn new(header: &Header) -> Result<Vrc6, RomError> {
        Ok(Vrc6 {
            prg_16k: 0,
            prg_8k: 0,
            chr: [0; 8],
            control: 0,
            irq: VrcIrq::default(),
            audio: Audio::default(),
            swapped: header.mapper == 26,
            last_bank: (header.prg_rom_size / BANK_8K).max(1) - 1,
        })
    }

    fn needs(&self) -> Needs {
        Needs {
            cpu_clock: true,
            irq: true,
            audio: true,
            ..Needs::default()
        }
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        let bank = match addr {
            0x6000..=0x7FFF if self.control & 0x80 != 0 => {
                return CpuTarget::PrgRam(usize::from(addr - 0x6000))
            }
            0x8000..=0xBFFF => usize::from(self.prg_16k & 0x0F) * 2 + usize::from(addr >> 13 & 1),
            0xC000..=0xDFFF => usize::from(self.prg_8k & 0x1F),
            0xE000..=0xFFFF => self.last_bank,
            _ => return CpuTarget::None,
        };
        CpuTarget::PrgRom(banked(bank, BANK_8K, addr))
    }

    fn prg_ram_writable(&self, _addr: u16) -> bool {
        self.control & 0x80 != 0
    }

    fn map_chr(&self, addr: u16) -> usize {
        let slot = usize::from(addr >> 10) & 7;
        // In 2 KiB banks, bit 5 makes A10 the bank's half; without it both halves are the
        // register's 1 KiB.
        let pair = |reg: usize| {
            let bank = self.chr[reg];
            if self.control & 0x20 != 0 {
                bank & 0xFE | (slot & 1) as u8
            } else {
                bank
            }
        };
        let bank = match self.control & 3 {
            0 => self.chr[slot],
            1 => pair(slot / 2),
            _ if slot < 4 => self.chr[slot],
            _ => pair(4 + (slot - 4) / 2),
        };
        banked(usize::from(bank), 0x400, addr)
    }

    fn mirroring(&self) -> Mirroring {
        match [0, 1, 2, 3].map(|t| self.nametable_page(t)) {
            [0, 1, 0, 1] => Mirroring::Vertical,
            [0, 0, 1, 1] => Mirroring::Horizontal,
            [1, 1, 1, 1] => Mirroring::SingleHigh,
            _ => Mirroring::SingleLow,
        }
    }

    fn nametable_page(&self, table: usize) -> usize {
        usize::from(self.nametable_bank(table) & 1)
    }

    fn nametable_chr(&self, table: usize) -> Option<usize> {
        (self.control & 0x10 != 0).then(|| usize::from(self.nametable_bank(table)) * 0x400)
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        let addr = if self.swapped {
            addr & 0xF000 | (addr & 1) << 1 | (addr & 2) >> 1
        } else {
            addr & 0xF003
        };
        match addr {
            0x8000..=0x8003 => self.prg_16k = val,
            0x9000..=0xB002 => self.audio.write(addr, val),
            0xB003 => self.control = val,
            0xC000..=0xC003 => self.prg_8k = val,
            0xD000..=0xE003 => self.chr[usize::from((addr >> 12) - 0xD) * 4 + usize::from(addr & 3)] = val,
            0xF000 => self.irq.write_latch(val),
            0xF001 => self.irq.write_control(val),
            0xF002 => self.irq.acknowledge(),
            _ => {}
        }
    }

    fn cpu_clock(&mut self) {
        self.irq.clock();
        self.audio.clock();
    }

    fn cpu_clock_sound(&mut self) -> bool {
        self.cpu_clock();
        self.audio.moved()
    }

    fn audio(&self) -> f32 {
        self.audio.level()
    }

    fn irq(&self) -> bool {
        self.irq.irq()
    }
}

impl Vrc6 {
    /// The CHR register value that nametable `table` comes from: bit 0 picks the CIRAM page,
    /// the whole value the CHR-ROM KiB. $B003's bits 5, 3, 2 and 0-1 choose the arrangement.
    fn nametable_bank(&self, table: usize) -> u8 {
        let [r4, r5, r6, r7] = [self.chr[4], self.chr[5], self.chr[6], self.chr[7]];
        let (even, odd) = (|r: u8| r & 0xFE, |r: u8| r | 1);
        let banks = match self.control & 0x2F {
            0x20 | 0x27 => [even(r6), odd(r6), even(r7), odd(r7)],
            0x23 | 0x24 => [even(r6), even(r7), odd(r6), odd(r7)],
            0x28 | 0x2F => [even(r6), even(r6), even(r7), even(r7)],
            0x2B | 0x2C => [odd(r6), odd(r7), odd(r6), odd(r7)],
            _ => match self.control & 7 {
                0 | 6 | 7 => [r6, r6, r7, r7],
                1 | 5 => [r4, r5, r6, r7],
                _ => [r6, r7, r6, r7],
            },
        };
        banks[table & 3]
    }
}

/// One of the VRC6's pulses: a 4-bit volume, a duty of 1-8 sixteenths (or always on), a 12-bit
/// period.
#[derive(Clone, Debug, Default)]
struct Pulse {
    /// $9000: bit 7 ignore the duty, bits 4-6 the duty, bits 0-3 the volume.
    control: u8,
    period: u16,
    enabled: bool,
    timer: u16,
    step: u8,
}

impl Field for Pulse {
    fn visit(&mut self, io: &mut StateIo) {
        let Pulse {
            control,
            period,
            enabled,
            timer,
            step,
        } = self;
        fields!(io, control, period, enabled, timer, step);
        *step &= 15;
    }
}

impl Pulse {
    fn write(&mut self, reg: u16, val: u8) {
        match reg {
            0 => self.control = val,
            1 => self.period = self.period & 0xF00 | u16::from(val),
            2 => {
                self.period = self.period & 0xFF | u16::from(val & 0x0F) << 8;
                self.enabled = val & 0x80 != 0;
                if !self.enabled {
                    self.step = 0;
                }
            }
            _ => {}
        }
    }

    fn clock(&mut self, shift: u8) {
        if !self.enabled {
            return;
        }
        if self.timer == 0 {
            self.timer = self.period >> shift;
            self.step = (self.step + 1) & 15;
        } else {
            self.timer -= 1;
        }
    }

    fn output(&self) -> u8 {
        let on = self.control & 0x80 != 0 || self.step <= self.control >> 4 & 7;
        if self.enabled && on {
            self.control & 0x0F
        } else {
            0
        }
    }
}

/// The sawtooth: an accumulator that adds its rate every other step and restarts every seventh
/// addition; its top five bits are the output.
#[derive(Clone, Debug, Default)]
struct Saw {
    rate: u8,
    period: u16,
    enabled: bool,
    timer: u16,
    step: u8,
    accumulator: u8,
}

impl Field for Saw {
    fn visit(&mut self, io: &mut StateIo) {
        let Saw {
            rate,
            period,
            enabled,
            timer,
            step,
            accumulator,
        } = self;
        fields!(io, rate, period, enabled, timer, step, accumulator);
        *step %= 14;
    }
}

impl Saw {
    fn write(&mut self, reg: u16, val: u8) {
        match reg {
            0 => self.rate = val & 0x3F,
            1 => self.period = self.period & 0xF00 | u16::from(val),
            2 => {
                self.period = self.period & 0xFF | u16::from(val & 0x0F) << 8;
                self.enabled = val & 0x80 != 0;
                if !self.enabled {
                    self.accumulator = 0;
                    self.step = 0;
                }
            }
            _ => {}
        }
    }

    fn clock(&mut self, shift: u8) {
        if !self.enabled {
            return;
        }
        if self.timer > 0 {
            self.timer -= 1;
            return;
        }
        self.timer = self.period >> shift;
        self.step = (self.step + 1) % 14;
        if self.step == 0 {
            self.accumulator = 0;
        } else if self.step & 1 == 0 {
            self.accumulator = self.accumulator.wrapping_add(self.rate);
        }
    }

    fn output(&self) -> u8 {
        if self.enabled {
            self.accumulator >> 3
        } else {
            0
        }
    }
}

#[derive(Clone, Debug, Default)]
struct Audio {
    pulses: [Pulse; 2],
    saw: Saw,
    /// $9003: bit 0 halts the channels, bits 1 and 2 shift the periods right by 4 or 8.
    control: u8,
    /// The outputs the mix last had.
    heard: [u8; 3],
}

impl Field for Audio {
    fn visit(&mut self, io: &mut StateIo) {
        let Audio {
            pulses,
            saw,
            control,
            heard,
        } = self;
        fields!(io, pulses, saw, control, heard);
    }
}

impl Audio {
    fn write(&mut self, addr: u16, val: u8) {
        let reg = addr & 3;
        match addr & 0xF000 {
            _ if addr == 0x9003 => self.control = val,
            0x9000 => self.pulses[0].write(reg, val),
            0xA000 => self.pulses[1].write(reg, val),
            _ => self.saw.write(reg, val),
        }
    }

    fn clock(&mut self) {
        if self.control & 1 != 0 {
            return;
        }
        let shift = match self.control & 6 {
            0 => 0,
            2 => 4,
            _ => 8,
        };
        for pulse in &mut self.pulses {
            pulse.clock(shift);
        }
        self.saw.clock(shift);
    }

    /// Whether the outputs differ from what the mix last took (and takes them).
    fn moved(&mut self) -> bool {
        let now = [
            self.pulses[0].output(),
            self.pulses[1].output(),
            self.saw.output(),
        ];
        outputs_moved(&mut self.heard, now)
    }

    /// The level in the 2A03 mix's units: linear, a step a fifteenth of a 2A03 pulse at
    /// volume 15, of the opposite polarity.
    fn level(&self) -> f32 {
        let sum: u8 = self.heard.iter().sum();
        -f32::from(sum) * mixer::pulses(15) / 15.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board(mapper: u8) -> Vrc6 {
        Vrc6::new(&TestImage::new(mapper.into(), 16, 32).header()).unwrap()
    }

    #[test]
    fn prg_banks_and_ram_enable() {
        let mut m = board(24);
        m.write_register(0x8000, 3, 0);
        m.write_register(0xC000, 9, 0);
        let bank = |m: &Vrc6, a| match m.map_cpu(a) {
            CpuTarget::PrgRom(off) => off / BANK_8K,
            _ => usize::MAX,
        };
        assert_eq!([0x8000, 0xA000, 0xC000, 0xE000].map(|a| bank(&m, a)), [6, 7, 9, 31]);
        assert_eq!(m.map_cpu(0x6000), CpuTarget::None);
        m.write_register(0xB003, 0x80, 0);
        assert_eq!(m.map_cpu(0x6001), CpuTarget::PrgRam(1));
        assert!(m.prg_ram_writable(0x6000));
    }

    #[test]
    fn vrc6b_swaps_the_register_lines() {
        let mut m = board(26);
        m.write_register(0xD001, 0x11, 0); // chip register 2
        m.write_register(0xB003, 0x8C, 0); // lines 0 and 1 both high: $B003 still
        assert_eq!(m.map_chr(0x0800), 0x11 * 0x400);
        assert_eq!(m.control, 0x8C);
    }

    #[test]
    fn chr_layouts_and_nametables() {
        let mut m = board(24);
        for (i, reg) in [0xD000, 0xD001, 0xD002, 0xD003, 0xE000, 0xE001, 0xE002, 0xE003]
            .into_iter()
            .enumerate()
        {
            m.write_register(reg, 0x10 + 2 * i as u8, 0);
        }
        let kib = |m: &Vrc6| std::array::from_fn::<_, 8, _>(|s| m.map_chr(s as u16 * 0x400) / 0x400);
        assert_eq!(kib(&m), [0x10, 0x12, 0x14, 0x16, 0x18, 0x1A, 0x1C, 0x1E]);
        m.write_register(0xB003, 0x21, 0); // 2 KiB banks with A10
        assert_eq!(kib(&m), [0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17]);
        m.write_register(0xB003, 0x22, 0); // 1 KiB, then 2 KiB
        assert_eq!(kib(&m), [0x10, 0x12, 0x14, 0x16, 0x18, 0x19, 0x1A, 0x1B]);
        m.write_register(0xB003, 0x20, 0);
        assert_eq!(m.mirroring(), Mirroring::Vertical);
        m.write_register(0xB003, 0x24, 0);
        assert_eq!(m.mirroring(), Mirroring::Horizontal);
        m.write_register(0xB003, 0x2C, 0);
        assert_eq!(m.mirroring(), Mirroring::SingleHigh);
        m.write_register(0xB003, 0x30, 0); // CHR-ROM nametables, vertical from R6 and R7
        assert_eq!(m.nametable_chr(1), Some(0x1D * 0x400));
    }

    #[test]
    fn irq_counts_cpu_cycles() {
        let mut m = board(24);
        m.write_register(0xF000, 0xFE, 0);
        m.write_register(0xF001, 0x06, 0); // enabled, cycle mode
        m.cpu_clock();
        assert!(!m.irq());
        m.cpu_clock();
        assert!(m.irq());
        m.write_register(0xF002, 0, 0);
        assert!(!m.irq());
    }

    #[test]
    fn pulse_and_saw_sound() {
        let mut m = board(24);
        m.write_register(0x9000, 0x7F, 0); // duty 8/16, volume 15
        m.write_register(0x9001, 0x20, 0);
        m.write_register(0x9002, 0x80, 0);
        let mut levels = Vec::new();
        for _ in 0..2000 {
            if m.cpu_clock_sound() {
                levels.push(m.audio());
            }
        }
        assert!(levels.len() >= 6, "the pulse toggles: {levels:?}");
        let full = mixer::pulses(15);
        assert!(levels
            .iter()
            .all(|&l| l == 0.0 || (l + full).abs() < 1e-6), "{levels:?}");
        // The saw: rate 8 climbs to 48, its top five bits 6, then restarts.
        m.write_register(0x9002, 0x00, 0);
        m.write_register(0xB000, 8, 0);
        m.write_register(0xB001, 0, 0);
        m.write_register(0xB002, 0x80, 0);
        let mut outputs = Vec::new();
        for _ in 0..28 {
            m.cpu_clock();
            outputs.push(m.audio.saw.output());
        }
        assert_eq!(*outputs.iter().max().unwrap(), 6);
        assert!(outputs.contains(&0));
        // Halted: nothing moves.
        m.write_register(0x9003, 1, 0);
        let before = m.audio.saw.accumulator;
        m.cpu_clock();
        m.cpu_clock();
        assert_eq!(m.audio.saw.accumulator, before);
    }
}
