//! Namco 129/163 (mapper 19) and its sound-less cousins Namco 175 and 340 (mapper 210;
//! nesdev wiki, "Namco 163", "iNES Mapper 210"). Three switchable 8 KiB PRG banks and the last
//! fixed at $E000; eight 1 KiB CHR banks; on the 163 four nametable registers, each a CIRAM
//! page (values $E0-$FF) or a KiB of CHR-ROM, PRG-RAM write-protected 2 KiB at a time, a
//! 15-bit IRQ counter of CPU cycles, and 128 bytes of chip RAM behind a data port at $4800
//! that holds the sound's wavetables and its eight channels' registers.
//!
//! The sound clocks one channel every 15 CPU cycles, the enabled ones in turn from the last;
//! a channel adds its frequency to its phase and plays the 4-bit sample the phase points at,
//! times its volume. The chip sends the channels to its DAC one after another; the mix takes
//! their mean, what the console's filters leave of the multiplexing. NES 2.0 submappers 3-5
//! name the board's mixing resistor: a full-volume channel 11-13, 16-17 or 18-19.5 dB louder
//! than a 2A03 pulse at full volume (taken at 12, 16.5 and 18.75 dB; unspecified, submapper
//! 0, as 4); submappers 1 and 2 have no sound.
//!
//! Not emulated: pattern-table banks $E0-$FF showing CIRAM (they show CHR-ROM), and the
//! battery that keeps the chip's 128 bytes on submapper 1.

use super::{banked, last_bank, outputs_moved, unknown_submapper, Board, CpuTarget, Mirroring};
use super::Needs;
use crate::apu::mixer;
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

const BANK_8K: usize = 0x2000;

/// Which chip the board carries.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Chip {
    /// Namco 129/163, its sound `db` louder than the 2A03 at full volume (`None`: silent).
    Namco163 { db: Option<f32> },
    /// Namco 175: hard-wired mirroring, PRG-RAM enabled by $C000.
    Namco175,
    /// Namco 340: mirroring in $E000's high bits, no PRG-RAM.
    Namco340,
}

#[derive(Clone, Debug)]
pub struct Namco163 {
    /// $E800 and $F000: the banks at $A000 and $C000 ($E000 has $8000's).
    prg_banks: [u8; 2],
    chr_banks: [u8; 8],
    /// The 163's nametable registers for $2000-$2C00.
    nametables: [u8; 4],
    /// $E000: the PRG bank, bit 6 the 163's sound off, bits 6-7 the 340's mirroring.
    prg_control: u8,
    /// $F800 on the 163 (bit 6 with bits 4-7 $4 lets writes through, bits 0-3 protect each
    /// 2 KiB); $C000 bit 0 on the 175 (PRG-RAM enabled).
    ram_control: u8,
    /// $5000/$5800: bit 15 counts, bits 0-14 the count; /IRQ at $7FFF.
    irq_counter: u16,
    irq: bool,
    sound: Sound,
    chip: Chip,
    hardwired: Mirroring,
    last_bank: usize,
}

impl Field for Namco163 {
    fn visit(&mut self, io: &mut StateIo) {
        let Namco163 {
            prg_banks,
            chr_banks,
            nametables,
            prg_control,
            ram_control,
            irq_counter,
            irq,
            sound,
            chip: _,
            hardwired: _,
            last_bank: _,
        } = self;
        fields!(io, prg_banks, chr_banks, nametables, prg_control, ram_control);
        fields!(io, irq_counter, irq, sound);
    }
}

impl Board for Namco163 {
    const VARIANTS: &'static [(u16, u8)] = &[(19, 0), (19, 1), (19, 2), (19, 3), (19, 4), (19, 5), (210, 0), (210, 1), (210, 2)];

    fn new(header: &Header) -> Result<Namco163, RomError> {
        let chip = match (header.mapper, header.submapper) {
            (19, 0 | 4) => Chip::Namco163 { db: Some(16.5) },
            (19, 1 | 2) => Chip::Namco163 { db: None },
            (19, 3) => Chip::Namco163 { db: Some(12.0) },
            (19, 5) => Chip::Namco163 { db: Some(18.75) },
            // Without a submapper, the 175: its mirroring is the header's.
            (210, 0 | 1) => Chip::Namco175,
            (210, 2) => Chip::Namco340,
            _ => return unknown_submapper(header),
        };
        Ok(Namco163 {
            prg_banks: [0; 2],
            chr_banks: [0; 8],
            nametables: [0; 4],
            prg_control: 0,
            ram_control: 0,
            irq_counter: 0,
            irq: false,
            sound: Sound::default(),
            chip,
            hardwired: Mirroring::hardwired(header),
            last_bank: last_bank(header, BANK_8K),
        })
    }

    fn needs(&self) -> Needs {
        match self.chip {
            Chip::Namco163 { db } => Needs {
                cpu_clock: true,
                irq: true,
                low_registers: true,
                audio: db.is_some(),
                ..Needs::default()
            },
            _ => Needs::default(),
        }
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        let bank = match addr {
            0x6000..=0x7FFF => {
                return match self.chip {
                    Chip::Namco340 => CpuTarget::None,
                    Chip::Namco175 if self.ram_control & 1 == 0 => CpuTarget::None,
                    _ => CpuTarget::PrgRam(usize::from(addr - 0x6000)),
                }
            }
            0x8000..=0x9FFF => usize::from(self.prg_control & 0x3F),
            0xA000..=0xDFFF => usize::from(self.prg_banks[usize::from(addr >> 13) - 5] & 0x3F),
            0xE000..=0xFFFF => self.last_bank,
            _ => return CpuTarget::None,
        };
        CpuTarget::PrgRom(banked(bank, BANK_8K, addr))
    }

    fn prg_ram_writable(&self, addr: u16) -> bool {
        match self.chip {
            Chip::Namco163 { .. } => {
                self.ram_control & 0xF0 == 0x40 && self.ram_control >> ((addr >> 11) & 3) & 1 == 0
            }
            _ => true,
        }
    }

    fn map_chr(&self, addr: u16) -> usize {
        banked(usize::from(self.chr_banks[usize::from(addr >> 10) & 7]), 0x400, addr)
    }

    fn mirroring(&self) -> Mirroring {
        match self.chip {
            Chip::Namco163 { .. } => match self.nametables.map(|n| n & 1) {
                [0, 1, 0, 1] => Mirroring::Vertical,
                [0, 0, 1, 1] => Mirroring::Horizontal,
                [1, 1, 1, 1] => Mirroring::SingleHigh,
                _ => Mirroring::SingleLow,
            },
            Chip::Namco175 => self.hardwired,
            Chip::Namco340 => match self.prg_control >> 6 {
                0 => Mirroring::SingleLow,
                1 => Mirroring::Vertical,
                2 => Mirroring::Horizontal,
                _ => Mirroring::SingleHigh,
            },
        }
    }

    fn nametable_page(&self, table: usize) -> usize {
        match self.chip {
            Chip::Namco163 { .. } => usize::from(self.nametables[table & 3] & 1),
            _ => self.mirroring().page(table),
        }
    }

    fn nametable_chr(&self, table: usize) -> Option<usize> {
        let bank = self.nametables[table & 3];
        (matches!(self.chip, Chip::Namco163 { .. }) && bank < 0xE0)
            .then(|| usize::from(bank) * 0x400)
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        let is_163 = matches!(self.chip, Chip::Namco163 { .. });
        let register = addr & 0xF800;
        let index = usize::from(register >> 11 & 3);
        match register {
            0x8000..=0xB800 => self.chr_banks[usize::from(register - 0x8000) >> 11] = val,
            0xC000 if self.chip == Chip::Namco175 => self.ram_control = val,
            0xC000..=0xD800 if is_163 => self.nametables[index] = val,
            0xE000 => self.prg_control = val,
            0xE800 | 0xF000 => self.prg_banks[index - 1] = val,
            0xF800 if is_163 => {
                self.ram_control = val;
                self.sound.address = val;
            }
            _ => {}
        }
    }

    fn write_low(&mut self, addr: u16, val: u8) {
        match addr & 0xF800 {
            0x4800 => self.sound.write(val),
            0x5000 => {
                self.irq_counter = self.irq_counter & 0xFF00 | u16::from(val);
                self.irq = false;
            }
            0x5800 => {
                self.irq_counter = self.irq_counter & 0x00FF | u16::from(val) << 8;
                self.irq = false;
            }
            _ => {}
        }
    }

    fn read_low(&mut self, addr: u16) -> Option<u8> {
        let val = self.peek_low(addr);
        if addr & 0xF800 == 0x4800 {
            self.sound.advance();
        }
        val
    }

    fn peek_low(&self, addr: u16) -> Option<u8> {
        match addr & 0xF800 {
            0x4800 => Some(self.sound.ram[usize::from(self.sound.address & 0x7F)]),
            0x5000 => Some(self.irq_counter as u8),
            0x5800 => Some((self.irq_counter >> 8) as u8),
            _ => None,
        }
    }

    fn cpu_clock(&mut self) {
        // It counts up while enabled and stops at $7FFF. (The 175 and 340 have no counter, and
        // may see some cycles and not others.)
        if matches!(self.chip, Chip::Namco163 { .. })
            && self.irq_counter & 0x8000 != 0 && self.irq_counter & 0x7FFF != 0x7FFF {
            self.irq_counter += 1;
            if self.irq_counter & 0x7FFF == 0x7FFF {
                self.irq = true;
            }
        }
    }

    fn cpu_clock_sound(&mut self) -> bool {
        self.cpu_clock();
        match self.chip {
            Chip::Namco163 { db: Some(_) } if self.prg_control & 0x40 == 0 => self.sound.clock(),
            _ => false,
        }
    }

    fn audio(&self) -> f32 {
        match self.chip {
            Chip::Namco163 { db: Some(db) } => self.sound.level(db),
            _ => 0.0,
        }
    }

    fn irq(&self) -> bool {
        self.irq
    }
}

/// CPU cycles between two channel updates.
const UPDATE_CYCLES: u8 = 15;

/// The 163's sound: its RAM, in which channel `c` keeps its registers at $40 + 8c: frequency
/// (18 bits at +0, +2, +4 bits 0-1), phase (24 bits at +1, +3, +5), wave length (256 - +4's
/// bits 2-7 samples), wave start (+6, in samples) and volume (+7 bits 0-3); $7F bits 4-6
/// are the number of enabled channels less one.
#[derive(Clone, Debug)]
struct Sound {
    ram: [u8; 0x80],
    /// $F800: bits 0-6 the RAM address of the data port, bit 7 its auto-increment.
    address: u8,
    /// CPU cycles since the last update.
    cycles: u8,
    /// The channel the next update clocks.
    channel: u8,
    /// Each channel's last output: (sample - 8) * volume.
    outputs: [i8; 8],
    /// The mean's sum and count the mix last took.
    heard: [u8; 3],
}

impl Default for Sound {
    fn default() -> Sound {
        Sound {
            ram: [0; 0x80],
            address: 0,
            cycles: 0,
            channel: 7,
            outputs: [0; 8],
            heard: [0; 3],
        }
    }
}

impl Field for Sound {
    fn visit(&mut self, io: &mut StateIo) {
        let Sound {
            ram,
            address,
            cycles,
            channel,
            outputs,
            heard,
        } = self;
        fields!(io, ram, address, cycles, channel, outputs, heard);
        *cycles %= UPDATE_CYCLES;
        *channel &= 7;
    }
}

impl Sound {
    fn write(&mut self, val: u8) {
        self.ram[usize::from(self.address & 0x7F)] = val;
        self.advance();
    }

    /// After a data port access: the next address if auto-increment is on.
    fn advance(&mut self) {
        if self.address & 0x80 != 0 {
            self.address = 0x80 | ((self.address & 0x7F) + 1) & 0x7F;
        }
    }

    fn enabled_channels(&self) -> u8 {
        (self.ram[0x7F] >> 4 & 7) + 1
    }

    /// One CPU cycle; whether the output moved (it moves only when a channel is updated).
    fn clock(&mut self) -> bool {
        self.cycles += 1;
        if self.cycles < UPDATE_CYCLES {
            return false;
        }
        self.cycles = 0;
        let channel = usize::from(self.channel);
        self.update(channel);
        self.channel = if self.channel <= 8 - self.enabled_channels() {
            7
        } else {
            self.channel - 1
        };
        self.moved()
    }

    /// One step of channel `c`: its phase moves on by its frequency, wrapping at its wave's
    /// length, and it plays the sample there.
    fn update(&mut self, c: usize) {
        let regs = 0x40 + 8 * c;
        let reg: [u32; 8] = std::array::from_fn(|i| u32::from(self.ram[regs + i]));
        let frequency = (reg[4] & 3) << 16 | reg[2] << 8 | reg[0];
        let phase = reg[5] << 16 | reg[3] << 8 | reg[1];
        let length = (256 - (reg[4] & 0xFC)) << 16;
        let phase = (phase + frequency) % length;
        [self.ram[regs + 1], self.ram[regs + 3], self.ram[regs + 5]] =
            [phase as u8, (phase >> 8) as u8, (phase >> 16) as u8];
        let position = ((phase >> 16) + reg[6]) as u8;
        let byte = self.ram[usize::from(position >> 1)];
        let sample = if position & 1 == 0 { byte & 0x0F } else { byte >> 4 };
        let volume = reg[7] as i8 & 0x0F;
        self.outputs[c] = (sample as i8 - 8) * volume;
    }

    /// Whether the mean of the enabled channels moved since the mix last took it (and takes
    /// it).
    fn moved(&mut self) -> bool {
        let count = self.enabled_channels();
        let sum: i16 = self.outputs[usize::from(8 - count)..]
            .iter()
            .map(|&o| i16::from(o))
            .sum();
        let [low, high] = sum.to_le_bytes();
        outputs_moved(&mut self.heard, [low, high, count])
    }

    /// The level in the 2A03 mix's units, a full-scale channel (samples 0 and 15 at volume 15)
    /// `db` louder than a 2A03 pulse at volume 15.
    fn level(&self, db: f32) -> f32 {
        let [low, high, count] = self.heard;
        let mean = f32::from(i16::from_le_bytes([low, high])) / f32::from(count.max(1));
        mean * mixer::pulses(15) * 10f32.powf(db / 20.0) / 225.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board(mapper: u16, submapper: u8) -> Namco163 {
        Namco163::new(&TestImage::nes2(mapper, submapper, 16, 32).header()).unwrap()
    }

    fn bank(m: &Namco163, addr: u16) -> usize {
        match m.map_cpu(addr) {
            CpuTarget::PrgRom(off) => off / BANK_8K,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn prg_chr_and_nametable_banks() {
        let mut m = board(19, 0);
        m.write_register(0xE000, 0x45, 0); // bank 5, sound off
        m.write_register(0xE800, 6, 0);
        m.write_register(0xF000, 7, 0);
        assert_eq!([0x8000, 0xA000, 0xC000, 0xE000].map(|a| bank(&m, a)), [5, 6, 7, 31]);
        m.write_register(0xB800, 0x33, 0);
        assert_eq!(m.map_chr(0x1C05), 0x33 * 0x400 + 5);
        for (i, val) in [0xE0, 0xE1, 0xE0, 0xE1].into_iter().enumerate() {
            m.write_register(0xC000 + 0x800 * i as u16, val, 0);
        }
        assert_eq!(m.mirroring(), Mirroring::Vertical);
        assert_eq!(m.nametable_chr(0), None);
        m.write_register(0xD800, 0x12, 0);
        assert_eq!(m.nametable_chr(3), Some(0x12 * 0x400));
    }

    #[test]
    fn prg_ram_writes_need_the_key_and_an_unprotected_2k() {
        let mut m = board(19, 0);
        assert!(!m.prg_ram_writable(0x6000), "locked at power-on");
        m.write_register(0xF800, 0x42, 0); // key, $6800-$6FFF protected
        assert!(m.prg_ram_writable(0x6000));
        assert!(!m.prg_ram_writable(0x6800));
        assert!(m.prg_ram_writable(0x7FFF));
        m.write_register(0xF800, 0x50, 0);
        assert!(!m.prg_ram_writable(0x6000));
    }

    #[test]
    fn irq_counts_up_to_7fff_and_stops() {
        let mut m = board(19, 0);
        m.write_low(0x5000, 0xFD);
        m.write_low(0x5800, 0xFF); // enabled, $7FFD
        m.cpu_clock();
        assert!(!m.irq());
        m.cpu_clock();
        assert!(m.irq());
        m.cpu_clock();
        assert_eq!(m.peek_low(0x5000), Some(0xFF), "stopped at $7FFF");
        m.write_low(0x5000, 0);
        assert!(!m.irq(), "acknowledged");
        m.write_low(0x5800, 0x00);
        m.cpu_clock();
        assert_eq!(m.peek_low(0x5000), Some(0), "disabled");
    }

    #[test]
    fn data_port_auto_increments_on_reads_and_writes() {
        let mut m = board(19, 0);
        m.write_register(0xF800, 0xFE, 0); // $7E, auto-increment
        m.write_low(0x4800, 0x11);
        m.write_low(0x4800, 0x22);
        m.write_low(0x4800, 0x33); // wraps to $00
        m.write_register(0xF800, 0xFE, 0);
        assert_eq!(m.peek_low(0x4800), Some(0x11));
        assert_eq!(m.read_low(0x4800), Some(0x11));
        assert_eq!(m.read_low(0x4800), Some(0x22));
        assert_eq!(m.read_low(0x4800), Some(0x33));
        m.write_register(0xF800, 0x00, 0);
        m.read_low(0x4800);
        assert_eq!(m.read_low(0x4800), Some(0x33), "no increment");
    }

    /// One channel playing a square wave from a 2-sample table: samples 15 and 0.
    fn square(m: &mut Namco163, frequency: u32, volume: u8, channels: u8) {
        let mut write = |addr: u8, val: u8| {
            m.write_register(0xF800, addr, 0);
            m.write_low(0x4800, val);
        };
        write(0x00, 0x0F); // samples 0 and 1: 15, 0
        write(0x78, frequency as u8);
        write(0x7A, (frequency >> 8) as u8);
        write(0x7C, 0xFC | (frequency >> 16) as u8 & 3); // length 4 samples
        write(0x7E, 0);
        write(0x7F, (channels - 1) << 4 | volume);
    }

    #[test]
    fn a_channel_plays_its_wave_every_15_cycles_per_enabled_channel() {
        let mut m = board(19, 3);
        // The phase moves one sample (1 << 16) per update, every 15 cycles, through a wave of
        // four: 15, 0, 0, 0.
        square(&mut m, 1 << 16, 15, 1);
        let mut changes = Vec::new();
        for cycle in 0..200 {
            if m.cpu_clock_sound() {
                changes.push((cycle, m.audio()));
            }
        }
        let full = mixer::pulses(15) * 10f32.powf(12.0 / 20.0);
        let times: Vec<i32> = changes.iter().map(|c| c.0).collect();
        // From the first update on: samples 0, 0, 0, then 15.
        assert_eq!(&times[..3], [14, 59, 74], "{changes:?}");
        assert!((changes[0].1 - -120.0 * full / 225.0).abs() < 1e-6);
        assert!((changes[1].1 - 105.0 * full / 225.0).abs() < 1e-6);
        // Two channels enabled: the mean, with channel 6 silent, halves it; updates of
        // channel 7 come every 30 cycles.
        let mut m = board(19, 3);
        square(&mut m, 1 << 16, 15, 2);
        let mut levels = Vec::new();
        for _ in 0..200 {
            if m.cpu_clock_sound() {
                levels.push(m.audio());
            }
        }
        assert!((levels[1] - 105.0 * full / 450.0).abs() < 1e-6, "{levels:?}");
    }

    #[test]
    fn sound_off_and_silent_submappers() {
        let mut m = board(19, 2);
        assert!(!m.needs().audio);
        let mut m4 = board(19, 4);
        square(&mut m4, 1 << 16, 15, 1);
        m4.write_register(0xE000, 0x40, 0);
        for _ in 0..100 {
            assert!(!m4.cpu_clock_sound());
        }
        square(&mut m, 1 << 16, 15, 1);
        assert_eq!(m.audio(), 0.0);
    }

    #[test]
    fn namco_175_and_340() {
        let mut m = board(210, 1);
        assert_eq!(m.needs(), Needs::default());
        assert_eq!(m.map_cpu(0x6000), CpuTarget::None);
        m.write_register(0xC000, 1, 0);
        assert_eq!(m.map_cpu(0x6001), CpuTarget::PrgRam(1));
        m.write_register(0xC800, 0x12, 0); // no nametable registers
        assert_eq!(m.nametable_chr(1), None);
        let mut m = board(210, 2);
        m.write_register(0xE000, 0x83, 0);
        assert_eq!((bank(&m, 0x8000), m.mirroring()), (3, Mirroring::Horizontal));
        m.write_register(0xE000, 0x43, 0);
        assert_eq!(m.mirroring(), Mirroring::Vertical);
        m.write_register(0xC000, 1, 0);
        assert_eq!(m.map_cpu(0x6000), CpuTarget::None);
    }
}
