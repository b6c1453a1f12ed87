//! Sunsoft FME-7 (mapper 69; JLROM, JSROM). A command register at $8000-$9FFF picks what the
//! parameter register at $A000-$BFFF sets: eight 1 KiB CHR banks, PRG-ROM or PRG-RAM at $6000,
//! three 8 KiB PRG-ROM banks (the last fixed at $E000), mirroring, and a 16-bit counter
//! decremented every CPU cycle that raises /IRQ when it wraps from $0000 to $FFFF.
//!
//! The Sunsoft 5B is an FME-7 with a YM2149F sound generator inside, selected at $C000 and
//! written at $E000 (nesdev wiki, "Sunsoft 5B audio"): three square tones, one noise and one
//! envelope generator that any channel may take, at logarithmic volumes. Boards without the
//! sound chip never write there, so every mapper 69 board has it. The nesdev wiki gives no
//! level against the 2A03 that could be checked; Mesen2's mixer weighs a channel at volume 15
//! 3.6 times a 2A03 pulse at volume 15, and so does this one.

use super::{outputs_moved, Board, CpuTarget, Mirroring, Needs};
use crate::apu::mixer;
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
    audio: Sunsoft5b,
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
            audio,
            last_bank: _,
        } = self;
        fields!(io, command, chr_banks, low_bank, prg_banks, mirroring);
        fields!(io, irq_control, irq_counter, irq, audio);
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
            audio: Sunsoft5b::default(),
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
            0xC000..=0xDFFF => self.audio.select = val,
            _ => self.audio.write(val),
        }
    }

    fn cpu_clock(&mut self) {
        if self.irq_control & COUNTER_ENABLE != 0 {
            self.irq_counter = self.irq_counter.wrapping_sub(1);
            if self.irq_counter == 0xFFFF && self.irq_control & IRQ_ENABLE != 0 {
                self.irq = true;
            }
        }
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

/// CPU cycles per tick of the 5B's counters: the YM2149F divides its clock by 8, and the 5B
/// runs it at M2 with its divider by 2 on (the pitches Gimmick! plays show it).
const TICK: u8 = 16;

/// Envelope shape bits (register $0D).
const HOLD: u8 = 0x01;
const ALTERNATE: u8 = 0x02;
const ATTACK: u8 = 0x04;
const CONTINUE: u8 = 0x08;

/// The 5B's sound: a YM2149F's registers $00-$0D and the counters behind them.
#[derive(Clone, Debug)]
struct Sunsoft5b {
    /// $C000: bits 0-3 the register $E000 writes; any of bits 4-7 set locks $E000 out.
    select: u8,
    /// Registers $00-$05: the tones' 12-bit half periods, in ticks.
    tone_periods: [u16; 3],
    /// Register $06: the noise's 5-bit period, in ticks.
    noise_period: u8,
    /// Register $07: bits 0-2 turn the tones off, bits 3-5 the noise, for channels A-C.
    disable: u8,
    /// Registers $08-$0A: bit 4 takes the envelope's level, else bits 0-3 are the volume.
    volumes: [u8; 3],
    /// Registers $0B-$0C: ticks per envelope step.
    envelope_period: u16,
    /// Register $0D.
    envelope_shape: u8,
    /// CPU cycles into the current tick.
    prescaler: u8,
    tone_counters: [u16; 3],
    /// The tones' square outputs.
    tones: [bool; 3],
    noise_counter: u8,
    /// The noise's 17-bit shift register; bit 0 is its output.
    noise: u32,
    envelope_counter: u16,
    /// Steps into the envelope's current ramp of 32.
    envelope_step: u8,
    /// The ramp falls (its level is the step's complement).
    envelope_falling: bool,
    /// The envelope stopped at the end of its ramp.
    envelope_holding: bool,
    /// The channels' 5-bit levels the mix last took (0: silent).
    heard: [u8; 3],
}

impl Default for Sunsoft5b {
    fn default() -> Sunsoft5b {
        Sunsoft5b {
            select: 0,
            tone_periods: [0; 3],
            noise_period: 0,
            disable: 0,
            volumes: [0; 3],
            envelope_period: 0,
            envelope_shape: 0,
            prescaler: 0,
            tone_counters: [0; 3],
            tones: [false; 3],
            noise_counter: 0,
            noise: 1,
            envelope_counter: 0,
            envelope_step: 0,
            envelope_falling: true,
            envelope_holding: true,
            heard: [0; 3],
        }
    }
}

impl Field for Sunsoft5b {
    fn visit(&mut self, io: &mut StateIo) {
        let Sunsoft5b {
            select,
            tone_periods,
            noise_period,
            disable,
            volumes,
            envelope_period,
            envelope_shape,
            prescaler,
            tone_counters,
            tones,
            noise_counter,
            noise,
            envelope_counter,
            envelope_step,
            envelope_falling,
            envelope_holding,
            heard,
        } = self;
        fields!(io, select, tone_periods, noise_period, disable, volumes);
        fields!(io, envelope_period, envelope_shape, prescaler, tone_counters, tones);
        fields!(io, noise_counter, noise, envelope_counter, envelope_step);
        fields!(io, envelope_falling, envelope_holding, heard);
        // Counters stay below what their periods can reach.
        *prescaler %= TICK;
        for counter in tone_counters {
            *counter &= 0xFFF;
        }
        *noise_counter &= 0x3F;
        *envelope_counter = (*envelope_counter).min(0xFFFE);
        *envelope_step &= 31;
        *noise &= 0x1FFFF;
        for level in heard {
            *level &= 31;
        }
    }
}

impl Sunsoft5b {
    /// A write to $E000: the selected register takes it.
    fn write(&mut self, val: u8) {
        if self.select & 0xF0 != 0 {
            return;
        }
        let channel = usize::from(self.select >> 1) % 3;
        match self.select {
            0 | 2 | 4 => {
                self.tone_periods[channel] = self.tone_periods[channel] & 0xF00 | u16::from(val)
            }
            1 | 3 | 5 => {
                self.tone_periods[channel] =
                    self.tone_periods[channel] & 0xFF | u16::from(val & 0x0F) << 8
            }
            6 => self.noise_period = val & 0x1F,
            7 => self.disable = val,
            8..=0x0A => self.volumes[usize::from(self.select - 8)] = val & 0x1F,
            0x0B => self.envelope_period = self.envelope_period & 0xFF00 | u16::from(val),
            0x0C => self.envelope_period = self.envelope_period & 0x00FF | u16::from(val) << 8,
            0x0D => {
                // Writing the shape restarts the envelope.
                self.envelope_shape = val & 0x0F;
                self.envelope_counter = 0;
                self.envelope_step = 0;
                self.envelope_falling = val & ATTACK == 0;
                self.envelope_holding = false;
            }
            _ => {} // the I/O ports, not wired
        }
    }

    fn clock(&mut self) {
        self.prescaler += 1;
        if self.prescaler < TICK {
            return;
        }
        self.prescaler = 0;
        for ((counter, &period), tone) in self
            .tone_counters
            .iter_mut()
            .zip(&self.tone_periods)
            .zip(&mut self.tones)
        {
            // A period of 0 counts as 1.
            *counter += 1;
            if *counter >= period.max(1) {
                *counter = 0;
                *tone = !*tone;
            }
        }
        // The noise shifts at half the rate a tone of its period toggles.
        self.noise_counter += 1;
        if self.noise_counter >= 2 * self.noise_period.max(1) {
            self.noise_counter = 0;
            let feedback = (self.noise ^ self.noise >> 3) & 1;
            self.noise = self.noise >> 1 | feedback << 16;
        }
        self.envelope_counter += 1;
        if self.envelope_counter >= self.envelope_period.max(1) {
            self.envelope_counter = 0;
            self.step_envelope();
        }
    }

    /// One step of the envelope's 32-step ramp; at its end the shape decides what follows.
    fn step_envelope(&mut self) {
        if self.envelope_holding {
            return;
        }
        if self.envelope_step < 31 {
            self.envelope_step += 1;
            return;
        }
        let shape = self.envelope_shape;
        if shape & CONTINUE == 0 {
            // Silent from then on.
            self.envelope_falling = true;
            self.envelope_holding = true;
        } else if shape & HOLD != 0 {
            self.envelope_falling ^= shape & ALTERNATE != 0;
            self.envelope_holding = true;
        } else {
            self.envelope_step = 0;
            self.envelope_falling ^= shape & ALTERNATE != 0;
        }
    }

    fn envelope_level(&self) -> u8 {
        if self.envelope_falling {
            31 - self.envelope_step
        } else {
            self.envelope_step
        }
    }

    /// Channel `channel`'s 5-bit level now: the envelope's, or the 4-bit volume v as 2v + 1
    /// (0 silent), where its tone and noise, each on or turned off, let it through.
    fn output(&self, channel: usize) -> u8 {
        let tone = self.tones[channel] || self.disable >> channel & 1 != 0;
        let noise = self.noise & 1 != 0 || self.disable >> (channel + 3) & 1 != 0;
        if !(tone && noise) {
            return 0;
        }
        match self.volumes[channel] {
            v if v & 0x10 != 0 => self.envelope_level(),
            0 => 0,
            v => 2 * v + 1,
        }
    }

    /// Whether the outputs differ from what the mix last took (and takes them).
    fn moved(&mut self) -> bool {
        let now = [self.output(0), self.output(1), self.output(2)];
        outputs_moved(&mut self.heard, now)
    }

    /// The level in the 2A03 mix's units: each level step is 1.5 dB, a channel at level 31
    /// (volume 15) 3.6 times a 2A03 pulse at volume 15.
    fn level(&self) -> f32 {
        let full = 3.6 * mixer::pulses(15);
        self.heard
            .iter()
            .filter(|&&l| l != 0)
            .map(|&l| full * 10f32.powf(-1.5 * f32::from(31 - l) / 20.0))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board() -> Fme7 {
        Fme7::new(&TestImage::new(69, 8, 8).header()).unwrap()
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

    fn sound(m: &mut Fme7, register: u8, val: u8) {
        m.write_register(0xC000, register, 0);
        m.write_register(0xE000, val, 0);
    }

    /// The CPU cycles at which the level the mix takes changes, over `cycles` cycles.
    fn changes(m: &mut Fme7, cycles: usize) -> Vec<(usize, f32)> {
        let mut changes = Vec::new();
        for cycle in 0..cycles {
            if m.cpu_clock_sound() {
                changes.push((cycle, m.audio()));
            }
        }
        changes
    }

    #[test]
    fn a_tone_toggles_every_16_cycles_per_period_step() {
        let mut m = board();
        sound(&mut m, 0, 3);
        sound(&mut m, 1, 0);
        sound(&mut m, 7, 0b11_1110); // tone A only
        sound(&mut m, 8, 15);
        let edges = changes(&mut m, 1000);
        let times: Vec<usize> = edges.iter().map(|e| e.0).collect();
        assert!(times.windows(2).all(|w| w[1] - w[0] == 48), "{times:?}");
        let full = 3.6 * mixer::pulses(15);
        assert!(edges.iter().all(|&(_, l)| l == 0.0 || (l - full).abs() < 1e-5));
        // 3 dB per volume step: volume 11 is a quarter as loud as volume 15.
        sound(&mut m, 8, 11);
        let loud = changes(&mut m, 200).iter().map(|e| e.1).fold(0.0, f32::max);
        assert!((loud - full / 3.98).abs() < 1e-3, "{loud}");
    }

    #[test]
    fn writes_are_locked_out_by_the_selects_high_bits() {
        let mut m = board();
        sound(&mut m, 0x18, 15);
        assert_eq!(m.audio.volumes[0], 0);
        sound(&mut m, 0x08, 0x1F);
        assert_eq!(m.audio.volumes[0], 0x1F);
    }

    #[test]
    fn both_disabled_holds_the_volume_and_the_envelope_runs_its_shapes() {
        let mut m = board();
        sound(&mut m, 7, 0x3F); // tone and noise off: the channel is its level alone
        sound(&mut m, 8, 0x10); // from the envelope
        sound(&mut m, 0x0B, 1);
        let levels = |m: &mut Fme7, steps: usize| -> Vec<u8> {
            (0..steps)
                .map(|_| {
                    for _ in 0..16 {
                        m.cpu_clock();
                    }
                    m.audio.output(0)
                })
                .collect()
        };
        // Attack then silence (/___).
        sound(&mut m, 0x0D, ATTACK);
        let ramp = levels(&mut m, 34);
        assert_eq!(&ramp[..31], (1..=31).collect::<Vec<u8>>());
        assert_eq!(&ramp[31..], [0, 0, 0]);
        // Decay, then hold high (\\‾‾‾).
        sound(&mut m, 0x0D, CONTINUE | ALTERNATE | HOLD);
        let ramp = levels(&mut m, 34);
        assert_eq!((ramp[0], ramp[30]), (30, 0));
        assert_eq!(&ramp[31..], [31, 31, 31]);
        // Triangle (/\\/\\): both ends twice.
        sound(&mut m, 0x0D, CONTINUE | ATTACK | ALTERNATE);
        let ramp = levels(&mut m, 64);
        assert_eq!(&ramp[29..34], [30, 31, 31, 30, 29]);
        // Saw (\\|\\|).
        sound(&mut m, 0x0D, CONTINUE);
        let ramp = levels(&mut m, 33);
        assert_eq!(&ramp[30..], [0, 31, 30]);
    }

    #[test]
    fn noise_is_a_17_bit_shift_register() {
        let mut m = board();
        sound(&mut m, 6, 1);
        sound(&mut m, 7, 0b11_0111); // noise on A only
        sound(&mut m, 8, 15);
        // Maximal length: back to its start after 2^17 - 1 shifts, not before.
        let start = m.audio.noise;
        let mut shifts = 0;
        loop {
            for _ in 0..32 {
                m.cpu_clock();
            }
            shifts += 1;
            if m.audio.noise == start {
                break;
            }
        }
        assert_eq!(shifts, (1 << 17) - 1);
        assert!(m.audio.noise < 1 << 17);
        assert_eq!(m.audio.output(0) != 0, m.audio.noise & 1 == 1);
    }
}
