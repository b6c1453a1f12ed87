//! Konami VRC7 (mapper 85; nesdev wiki, "VRC7", "VRC7 audio"): three switchable 8 KiB PRG
//! banks and the last fixed at $E000, eight 1 KiB CHR banks, mirroring, PRG-RAM enabled by
//! $E000 bit 7, the VRC IRQ counter, and a YM2413-derived FM synthesizer of six two-operator
//! channels. The chip's second register line is A4 on VRC7a (Lagrange Point, submapper 2) and
//! A3 on VRC7b (Tiny Toon Adventures 2, submapper 1); without a submapper either answers.
//!
//! The synthesis follows the YM2413's documented structure: each channel's modulator, with
//! self-feedback, shifts the phase of its carrier; phases advance by F-number << octave times
//! the operator's multiple, one sample every 36 CPU cycles (the chip's 3.58 MHz / 72); sine
//! waves (or their positive halves) are looked up as log-sines and turned linear through an
//! exponential table; the envelopes (attack, decay to the sustain level, sustain, release) and
//! the total levels, key scaling and channel volumes attenuate in 0.375 dB steps; the
//! tremolo (4.8 dB at 3.7 Hz) and vibrato (14 cents at 6.4 Hz) are the wiki's figures. The
//! instruments are the VRC7's own 15, as dumped from the chip (the wiki's table), and a custom
//! one in registers $00-$07. The envelope rates are those of the common YM2413 models, not
//! measured on a VRC7; the wiki gives no level against the 2A03, so a channel's full-scale
//! sine peaks as high as a 2A03 pulse at volume 15.

use super::vrc4::VrcIrq;
use super::{banked, last_bank, outputs_moved, unknown_submapper, Board, CpuTarget, Mirroring};
use super::Needs;
use crate::apu::mixer;
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};
use std::sync::OnceLock;

const BANK_8K: usize = 0x2000;

#[derive(Clone, Debug)]
pub struct Vrc7 {
    prg_banks: [u8; 3],
    chr_banks: [u8; 8],
    /// $E000: bits 0-1 mirroring, bit 6 silences and resets the sound, bit 7 PRG-RAM enabled.
    control: u8,
    irq: VrcIrq,
    opll: Opll,
    /// The address bit of the chip's second register line: A3, A4 or both.
    line: u16,
    last_bank: usize,
}

impl Field for Vrc7 {
    fn visit(&mut self, io: &mut StateIo) {
        let Vrc7 {
            prg_banks,
            chr_banks,
            control,
            irq,
            opll,
            line: _,
            last_bank: _,
        } = self;
        fields!(io, prg_banks, chr_banks, control, irq, opll);
    }
}

impl Board for Vrc7 {
    const VARIANTS: &'static [(u16, u8)] = &[(85, 0), (85, 1), (85, 2)];

    fn new(header: &Header) -> Result<Vrc7, RomError> {
        let line = match header.submapper {
            0 => 0x18,
            1 => 0x08,
            2 => 0x10,
            _ => return unknown_submapper(header),
        };
        Ok(Vrc7 {
            prg_banks: [0; 3],
            chr_banks: [0; 8],
            control: 0,
            irq: VrcIrq::default(),
            opll: Opll::default(),
            line,
            last_bank: last_bank(header, BANK_8K),
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
            0x8000..=0xDFFF => usize::from(self.prg_banks[usize::from(addr >> 13) - 4] & 0x3F),
            0xE000..=0xFFFF => self.last_bank,
            _ => return CpuTarget::None,
        };
        CpuTarget::PrgRom(banked(bank, BANK_8K, addr))
    }

    fn prg_ram_writable(&self, _addr: u16) -> bool {
        self.control & 0x80 != 0
    }

    fn map_chr(&self, addr: u16) -> usize {
        banked(usize::from(self.chr_banks[usize::from(addr >> 10) & 7]), 0x400, addr)
    }

    fn mirroring(&self) -> Mirroring {
        Mirroring::from_two_bits(self.control)
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        // The audio ports decode A4 and A5 on both variants.
        if addr & 0xF030 == 0x9010 {
            self.opll.address = val;
            return;
        }
        if addr & 0xF030 == 0x9030 {
            self.opll.write(val);
            return;
        }
        let high = usize::from(addr & self.line != 0);
        match addr & 0xF000 {
            0x8000 => self.prg_banks[high] = val,
            0x9000 if high == 0 => self.prg_banks[2] = val,
            0xA000..=0xD000 => self.chr_banks[usize::from((addr >> 12) - 0xA) * 2 + high] = val,
            0xE000 if high == 0 => {
                self.control = val;
                if val & 0x40 != 0 {
                    self.opll = Opll::default();
                }
            }
            0xE000 => self.irq.write_latch(val),
            0xF000 if high == 0 => self.irq.write_control(val),
            0xF000 => self.irq.acknowledge(),
            _ => {}
        }
    }

    fn cpu_clock(&mut self) {
        self.irq.clock();
    }

    fn cpu_clock_sound(&mut self) -> bool {
        self.irq.clock();
        if self.control & 0x40 != 0 {
            return outputs_moved(&mut self.opll.heard, [0; 2]);
        }
        self.opll.clock()
    }

    fn audio(&self) -> f32 {
        self.opll.level()
    }

    fn irq(&self) -> bool {
        self.irq.irq()
    }
}

/// The VRC7's instruments 1-15, registers $00-$07 of each (nesdev wiki, "VRC7 audio").
const PATCHES: [[u8; 8]; 15] = [
    [0x03, 0x21, 0x05, 0x06, 0xE8, 0x81, 0x42, 0x27],
    [0x13, 0x41, 0x14, 0x0D, 0xD8, 0xF6, 0x23, 0x12],
    [0x11, 0x11, 0x08, 0x08, 0xFA, 0xB2, 0x20, 0x12],
    [0x31, 0x61, 0x0C, 0x07, 0xA8, 0x64, 0x61, 0x27],
    [0x32, 0x21, 0x1E, 0x06, 0xE1, 0x76, 0x01, 0x28],
    [0x02, 0x01, 0x06, 0x00, 0xA3, 0xE2, 0xF4, 0xF4],
    [0x21, 0x61, 0x1D, 0x07, 0x82, 0x81, 0x11, 0x07],
    [0x23, 0x21, 0x22, 0x17, 0xA2, 0x72, 0x01, 0x17],
    [0x35, 0x11, 0x25, 0x00, 0x40, 0x73, 0x72, 0x01],
    [0xB5, 0x01, 0x0F, 0x0F, 0xA8, 0xA5, 0x51, 0x02],
    [0x17, 0xC1, 0x24, 0x07, 0xF8, 0xF8, 0x22, 0x12],
    [0x71, 0x23, 0x11, 0x06, 0x65, 0x74, 0x18, 0x16],
    [0x01, 0x02, 0xD3, 0x05, 0xC9, 0x95, 0x03, 0x02],
    [0x61, 0x63, 0x0C, 0x00, 0x94, 0xC0, 0x33, 0xF6],
    [0x21, 0x72, 0x0D, 0x00, 0xC1, 0xD5, 0x56, 0x06],
];

/// CPU cycles per output sample.
const SAMPLE_CYCLES: u8 = 36;

/// Twice the frequency multiple of each MULT value.
const MULTIPLES: [u32; 16] = [1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 20, 24, 24, 30, 30];

/// Key scaling's attenuation by the F-number's top four bits at octave 7, in 0.25 dB.
const KEY_SCALE: [i32; 16] = [0, 72, 96, 111, 120, 129, 135, 141, 144, 150, 153, 156, 159, 162, 165, 168];

/// The greatest attenuation, in 0.375 dB steps: silence.
const MUTE: u8 = 127;

/// The vibrato's steps, in 1/1024 of the phase increment (about 14 cents at the peaks), and
/// the samples each lasts (eight of them make 6.4 Hz).
const VIBRATO: [i32; 8] = [0, 4, 8, 4, 0, -4, -8, -4];
const VIBRATO_SAMPLES: u16 = 971;
/// The tremolo's depth in 0.375 dB steps (4.8 dB) and the samples each step up or down lasts
/// (26 steps make 3.7 Hz).
const TREMOLO_DEPTH: u8 = 13;
const TREMOLO_SAMPLES: u16 = 517;

/// The YM2413's log-sine and exponential tables: a quarter sine wave as -log2 in 1/256
/// units, and 2^(i/256) - 1 in 1/1024 units.
struct Tables {
    log_sine: [u16; 256],
    exp: [u16; 256],
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| Tables {
        log_sine: std::array::from_fn(|i| {
            let sine = ((i as f64 + 0.5) * std::f64::consts::PI / 512.0).sin();
            (-sine.log2() * 256.0).round() as u16
        }),
        exp: std::array::from_fn(|i| ((2f64.powf(i as f64 / 256.0) - 1.0) * 1024.0).round() as u16),
    })
}

/// An operator's output, -4095 to 4095: the sine (or its positive half if `half`) at the
/// 10-bit `phase`, attenuated by `attenuation` 0.375 dB steps.
fn operator_output(phase: u32, attenuation: u32, half: bool) -> i32 {
    let negative = phase & 0x200 != 0;
    if negative && half {
        return 0;
    }
    let t = tables();
    let quarter = if phase & 0x100 != 0 { !phase & 0xFF } else { phase & 0xFF };
    let level = u32::from(t.log_sine[quarter as usize]) + (attenuation << 4);
    let shift = level >> 8;
    if shift > 12 {
        return 0;
    }
    let linear = ((u32::from(t.exp[(level & 0xFF) as usize ^ 0xFF]) | 0x400) << 1) >> shift;
    if negative {
        -(linear as i32)
    } else {
        linear as i32
    }
}

/// An envelope's stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Attack,
    Decay,
    Sustain,
    Release,
    Off,
}

impl Field for Stage {
    fn visit(&mut self, io: &mut StateIo) {
        const ALL: [Stage; 5] = [Stage::Attack, Stage::Decay, Stage::Sustain, Stage::Release, Stage::Off];
        let mut index = ALL.iter().position(|s| s == self).unwrap_or(0) as u8;
        io.checked(&mut index, "envelope stage", |&i| usize::from(i) < ALL.len());
        *self = ALL[usize::from(index) % ALL.len()];
    }
}

/// One operator: its phase and its envelope.
#[derive(Clone, Debug)]
struct Operator {
    /// 19 bits; the top 10 index the sine.
    phase: u32,
    stage: Stage,
    /// 0 (loudest) to [`MUTE`], in 0.375 dB steps.
    envelope: u8,
    /// Fractions of an envelope step, in 1/32768.
    envelope_counter: u32,
}

impl Default for Operator {
    fn default() -> Operator {
        Operator {
            phase: 0,
            stage: Stage::Off,
            envelope: MUTE,
            envelope_counter: 0,
        }
    }
}

impl Field for Operator {
    fn visit(&mut self, io: &mut StateIo) {
        let Operator {
            phase,
            stage,
            envelope,
            envelope_counter,
        } = self;
        fields!(io, phase, stage, envelope, envelope_counter);
        *phase &= 0x7FFFF;
        *envelope = (*envelope).min(MUTE);
        *envelope_counter &= 0x7FFF;
    }
}

/// An operator's settings from its instrument's eight bytes.
#[derive(Clone, Copy)]
struct Settings {
    tremolo: bool,
    vibrato: bool,
    sustained: bool,
    key_scaled_rate: bool,
    multiple: u32,
    key_scale_level: u8,
    half_sine: bool,
    attack: u8,
    decay: u8,
    sustain_level: u8,
    release: u8,
}

impl Settings {
    /// Operator `op` (0 modulator, 1 carrier) of an instrument's eight bytes.
    fn of(patch: &[u8; 8], op: usize) -> Settings {
        let flags = patch[op];
        Settings {
            tremolo: flags & 0x80 != 0,
            vibrato: flags & 0x40 != 0,
            sustained: flags & 0x20 != 0,
            key_scaled_rate: flags & 0x10 != 0,
            multiple: MULTIPLES[usize::from(flags & 0x0F)],
            key_scale_level: patch[2 + op] >> 6,
            half_sine: patch[3] & (0x08 << op) != 0,
            attack: patch[4 + op] >> 4,
            decay: patch[4 + op] & 0x0F,
            sustain_level: patch[6 + op] >> 4,
            release: patch[6 + op] & 0x0F,
        }
    }
}

impl Operator {
    fn key_on(&mut self) {
        self.phase = 0;
        self.stage = Stage::Attack;
        self.envelope_counter = 0;
    }

    fn key_off(&mut self) {
        if self.stage != Stage::Off {
            self.stage = Stage::Release;
        }
    }

    /// One sample of the envelope. `key_rate` is the channel's rate scaling (octave and
    /// F-number's top bit), `sustain_on` the channel's sustain bit.
    fn step_envelope(&mut self, s: &Settings, key_rate: u8, sustain_on: bool) {
        let scaled = if s.key_scaled_rate { key_rate } else { key_rate >> 2 };
        let rate = match self.stage {
            Stage::Attack => s.attack,
            Stage::Decay => s.decay,
            Stage::Sustain if s.sustained => 0,
            Stage::Sustain => s.release,
            Stage::Release if sustain_on => 5,
            Stage::Release if s.sustained => s.release,
            Stage::Release => 7,
            Stage::Off => return,
        };
        if rate == 0 {
            return;
        }
        let effective = (4 * rate + scaled).min(63);
        let (high, low) = (u32::from(effective >> 2), u32::from(effective & 3));
        if self.stage == Stage::Attack {
            if rate == 15 {
                self.envelope = 0;
            } else {
                // An exponential approach to full level, each step a fraction of what is left.
                self.envelope_counter += (4 + low) << (high + 1);
                while self.envelope_counter >= 1 << 15 && self.envelope > 0 {
                    self.envelope_counter -= 1 << 15;
                    self.envelope -= (self.envelope >> 3) + 1;
                }
            }
            if self.envelope == 0 {
                self.stage = Stage::Decay;
                self.envelope_counter = 0;
            }
            return;
        }
        self.envelope_counter += (4 + low) << (high - 1);
        let steps = self.envelope_counter >> 15;
        self.envelope_counter &= 0x7FFF;
        self.envelope = (u32::from(self.envelope) + steps).min(u32::from(MUTE)) as u8;
        match self.stage {
            Stage::Decay if self.envelope >= s.sustain_level * 8 => self.stage = Stage::Sustain,
            _ if self.envelope == MUTE => self.stage = Stage::Off,
            _ => {}
        }
    }
}

/// The FM synthesizer.
#[derive(Clone, Debug, Default)]
struct Opll {
    /// $9010: the register $9030 writes.
    address: u8,
    custom: [u8; 8],
    /// $10-$15: F-number bits 0-7.
    fnum_low: [u8; 6],
    /// $20-$25: bit 0 F-number bit 8, bits 1-3 octave, bit 4 key on, bit 5 sustain.
    keys: [u8; 6],
    /// $30-$35: bits 4-7 instrument, bits 0-3 volume (3 dB steps).
    instruments: [u8; 6],
    /// Modulator then carrier of each channel.
    operators: [[Operator; 2]; 6],
    /// Each modulator's last two outputs, for its feedback.
    feedback: [[i16; 2]; 6],
    cycles: u8,
    vibrato_step: u8,
    vibrato_samples: u16,
    /// 0 to twice [`TREMOLO_DEPTH`]: up, then down.
    tremolo_step: u8,
    tremolo_samples: u16,
    /// The channels' sum the mix last took.
    heard: [u8; 2],
}

impl Field for Opll {
    fn visit(&mut self, io: &mut StateIo) {
        let Opll {
            address,
            custom,
            fnum_low,
            keys,
            instruments,
            operators,
            feedback,
            cycles,
            vibrato_step,
            vibrato_samples,
            tremolo_step,
            tremolo_samples,
            heard,
        } = self;
        fields!(io, address, custom, fnum_low, keys, instruments, operators, feedback);
        fields!(io, cycles, vibrato_step, vibrato_samples, tremolo_step, tremolo_samples);
        fields!(io, heard);
        *cycles %= SAMPLE_CYCLES;
        *vibrato_step &= 7;
        *vibrato_samples %= VIBRATO_SAMPLES;
        *tremolo_step %= 2 * TREMOLO_DEPTH;
        *tremolo_samples %= TREMOLO_SAMPLES;
    }
}

impl Opll {
    fn write(&mut self, val: u8) {
        let reg = self.address;
        let channel = usize::from(reg & 0x0F);
        match reg {
            0x00..=0x07 => self.custom[usize::from(reg)] = val,
            0x10..=0x15 => self.fnum_low[channel] = val,
            0x20..=0x25 => {
                let was_on = self.keys[channel] & 0x10 != 0;
                self.keys[channel] = val;
                match (was_on, val & 0x10 != 0) {
                    (false, true) => self.operators[channel].iter_mut().for_each(Operator::key_on),
                    (true, false) => self.operators[channel].iter_mut().for_each(Operator::key_off),
                    _ => {}
                }
            }
            0x30..=0x35 => self.instruments[channel] = val,
            _ => {}
        }
    }

    fn patch(&self, channel: usize) -> [u8; 8] {
        match self.instruments[channel] >> 4 {
            0 => self.custom,
            n => PATCHES[usize::from(n) - 1],
        }
    }

    /// One CPU cycle; whether the output moved (it moves once a sample).
    fn clock(&mut self) -> bool {
        self.cycles += 1;
        if self.cycles < SAMPLE_CYCLES {
            return false;
        }
        self.cycles = 0;
        self.step_lfos();
        let sum: i32 = (0..6).map(|c| self.channel_sample(c)).sum();
        outputs_moved(&mut self.heard, (sum as i16).to_le_bytes())
    }

    fn step_lfos(&mut self) {
        self.vibrato_samples += 1;
        if self.vibrato_samples >= VIBRATO_SAMPLES {
            self.vibrato_samples = 0;
            self.vibrato_step = (self.vibrato_step + 1) & 7;
        }
        self.tremolo_samples += 1;
        if self.tremolo_samples >= TREMOLO_SAMPLES {
            self.tremolo_samples = 0;
            self.tremolo_step = (self.tremolo_step + 1) % (2 * TREMOLO_DEPTH);
        }
    }

    fn tremolo(&self) -> u32 {
        let step = self.tremolo_step;
        u32::from(if step > TREMOLO_DEPTH { 2 * TREMOLO_DEPTH - step } else { step })
    }

    /// Channel `c`'s carrier output this sample, after stepping its operators.
    fn channel_sample(&mut self, c: usize) -> i32 {
        let patch = self.patch(c);
        let keys = self.keys[c];
        let fnum = u32::from(keys & 1) << 8 | u32::from(self.fnum_low[c]);
        let octave = u32::from(keys >> 1 & 7);
        let key_rate = (octave << 1 | fnum >> 8) as u8;
        let sustain_on = keys & 0x20 != 0;
        let key_scale = KEY_SCALE[(fnum >> 5) as usize] - 24 * (7 - octave as i32);
        let volume = u32::from(self.instruments[c] & 0x0F) * 8;
        let total_level = u32::from(patch[2] & 0x3F) * 2;
        let mut output = 0;
        for op in 0..2 {
            let s = Settings::of(&patch, op);
            let vibrato = VIBRATO[usize::from(self.vibrato_step)];
            let tremolo = self.tremolo();
            let operator = &mut self.operators[c][op];
            operator.step_envelope(&s, key_rate, sustain_on);
            let mut increment = (fnum << octave) * s.multiple / 2;
            if s.vibrato {
                increment = (increment as i32 + ((increment as i32 * vibrato) >> 10)) as u32;
            }
            operator.phase = (operator.phase + increment) & 0x7FFFF;
            let mut attenuation = u32::from(operator.envelope);
            if s.key_scale_level > 0 && key_scale > 0 {
                attenuation += ((key_scale >> (3 - s.key_scale_level)) * 2 / 3) as u32;
            }
            attenuation += if op == 0 { total_level } else { volume };
            if s.tremolo {
                attenuation += tremolo;
            }
            let phase = operator.phase >> 9;
            let silent = operator.envelope == MUTE;
            if op == 0 {
                let [older, last] = self.feedback[c];
                let feedback = match u32::from(patch[3] & 7) {
                    0 => 0,
                    fb => (i32::from(older) + i32::from(last)) >> (8 - fb),
                };
                let out = match silent {
                    true => 0,
                    false => operator_output(phase.wrapping_add(feedback as u32), attenuation, s.half_sine),
                };
                self.feedback[c] = [last, out as i16];
                output = out;
            } else {
                // The modulator's full scale moves the carrier's phase by two cycles.
                let phase = phase.wrapping_add((output >> 1) as u32);
                output = match silent {
                    true => 0,
                    false => operator_output(phase, attenuation, s.half_sine),
                };
            }
        }
        output
    }

    /// The level in the 2A03 mix's units: a channel's full scale (4095) as a 2A03 pulse at
    /// volume 15.
    fn level(&self) -> f32 {
        f32::from(i16::from_le_bytes(self.heard)) * mixer::pulses(15) / 4095.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board(submapper: u8) -> Vrc7 {
        Vrc7::new(&TestImage::nes2(85, submapper, 16, 32).header()).unwrap()
    }

    fn bank(m: &Vrc7, addr: u16) -> usize {
        match m.map_cpu(addr) {
            CpuTarget::PrgRom(off) => off / BANK_8K,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn banks_on_either_register_line() {
        for (submapper, second) in [(1, 0x8008), (2, 0x8010), (0, 0x8008), (0, 0x8010)] {
            let mut m = board(submapper);
            m.write_register(0x8000, 3, 0);
            m.write_register(second, 4, 0);
            m.write_register(0x9000, 5, 0);
            assert_eq!([0x8000, 0xA000, 0xC000, 0xE000].map(|a| bank(&m, a)), [3, 4, 5, 31]);
            m.write_register(0xD000 | (second & 0x18), 0x21, 0);
            assert_eq!(m.map_chr(0x1C00), 0x21 * 0x400);
        }
        let mut m = board(2);
        m.write_register(0x8008, 9, 0); // A3 is not a register line on VRC7a
        assert_eq!(bank(&m, 0x8000), 9);
        m.write_register(0xE000, 0x83, 0);
        assert_eq!(m.mirroring(), Mirroring::SingleHigh);
        assert_eq!(m.map_cpu(0x6001), CpuTarget::PrgRam(1));
    }

    #[test]
    fn irq_counts_cpu_cycles() {
        let mut m = board(2);
        m.write_register(0xE010, 0xFE, 0);
        m.write_register(0xF000, 0x06, 0); // enabled, cycle mode
        m.cpu_clock();
        assert!(!m.irq());
        m.cpu_clock();
        assert!(m.irq());
        m.write_register(0xF010, 0, 0);
        assert!(!m.irq());
    }

    fn sound(m: &mut Vrc7, reg: u8, val: u8) {
        m.write_register(0x9010, reg, 0);
        m.write_register(0x9030, val, 0);
    }

    /// The levels of `samples` samples.
    fn play(m: &mut Vrc7, samples: usize) -> Vec<f32> {
        let mut levels = Vec::new();
        let mut last = m.audio();
        for _ in 0..samples * usize::from(SAMPLE_CYCLES) {
            if m.cpu_clock_sound() {
                last = m.audio();
            }
            if m.opll.cycles == 0 {
                levels.push(last);
            }
        }
        levels
    }

    #[test]
    fn a_pure_sine_at_the_f_number_s_frequency() {
        let mut m = board(2);
        // Custom instrument: carrier multiple 1, instant attack, no decay, sustained; the
        // modulator silent (total level 63).
        for (reg, val) in [(0, 0x20), (1, 0x21), (2, 0x3F), (3, 0), (4, 0xF0), (5, 0xF0), (6, 0), (7, 0)] {
            sound(&mut m, reg, val);
        }
        sound(&mut m, 0x30, 0x00); // custom, full volume
        sound(&mut m, 0x10, 0x00);
        sound(&mut m, 0x20, 0x10 | 4 << 1 | 1); // key on, octave 4, F-number 256
        let levels = play(&mut m, 2048);
        // 49716 * 256 / 2^(19-4) = 388 Hz: a cycle every 128 samples.
        let rises = levels
            .windows(2)
            .filter(|w| w[0] < 0.0 && w[1] >= 0.0)
            .count();
        assert_eq!(rises, 16, "{:?}", &levels[..140]);
        let peak = levels.iter().cloned().fold(0.0, f32::max);
        assert!((peak / mixer::pulses(15) - 1.0).abs() < 0.01, "{peak}");
        // Volume 4: 12 dB down.
        sound(&mut m, 0x30, 0x04);
        let peak = play(&mut m, 256).iter().cloned().fold(0.0, f32::max);
        assert!((peak / mixer::pulses(15) - 0.251).abs() < 0.01, "{peak}");
        // Key off with a release rate: it fades to silence.
        sound(&mut m, 7, 0x0F);
        sound(&mut m, 0x20, 4 << 1 | 1);
        let tail = play(&mut m, 2000);
        assert!(tail[1900..].iter().all(|&l| l == 0.0));
        assert_eq!(m.opll.operators[0][1].stage, Stage::Off);
    }

    #[test]
    fn envelope_attacks_decays_to_sustain_and_holds() {
        let mut op = Operator::default();
        let patch = [0x20, 0x20, 0, 0, 0x88, 0x88, 0x40, 0x40];
        let s = Settings::of(&patch, 1);
        op.key_on();
        let mut stages = vec![op.stage];
        for _ in 0..200_000 {
            op.step_envelope(&s, 0, false);
            if *stages.last().unwrap() != op.stage {
                stages.push(op.stage);
            }
        }
        assert_eq!(stages, [Stage::Attack, Stage::Decay, Stage::Sustain]);
        assert_eq!(op.envelope, 32, "sustain level 4: 12 dB");
    }

    #[test]
    fn modulation_and_built_in_instruments_sound() {
        let mut m = board(2);
        for c in 0..6 {
            sound(&mut m, 0x30 + c, (c + 1) << 4);
            sound(&mut m, 0x10 + c, 0x80 + 16 * c);
            sound(&mut m, 0x20 + c, 0x10 | 3 << 1);
        }
        let levels = play(&mut m, 4000);
        let distinct: std::collections::BTreeSet<i32> =
            levels.iter().map(|&l| (l * 1e5) as i32).collect();
        assert!(distinct.len() > 500, "{}", distinct.len());
        assert!(levels.iter().all(|l| l.abs() < 6.0 * mixer::pulses(15)));
        // $E000 bit 6 silences and resets it.
        m.write_register(0xE000, 0x40, 0);
        assert!(!(0..100).any(|_| m.cpu_clock_sound()));
        assert_eq!(m.opll.keys, [0; 6]);
    }
}
