//! Nintendo MMC5 (mapper 5; ExROM). Registers at $5000-$5206, 1 KiB of its own RAM (ExRAM)
//! at $5C00-$5FFF.
//!
//! - PRG: four modes ($5100) of 32, 16 or 8 KiB windows from $5114-$5117, an 8 KiB PRG-RAM bank
//!   at $6000 ($5113). Bit 7 of $5114-$5116 clear puts PRG-RAM in their windows of
//!   $8000-$DFFF instead of ROM. PRG-RAM is writable only with $5102 = 2 and $5103 = 1.
//! - CHR: four modes ($5101) of 8, 4, 2 or 1 KiB banks, in two sets: $5120-$5127 for sprites
//!   and $5128-$512B for the background, told apart only with 8x16 sprites (the MMC5 reads
//!   the sprite size from the CPU's writes to PPUCTRL); $5130 gives the banks' upper bits.
//! - Nametables ($5105): each of the four is CIRAM page 0 or 1, ExRAM, or the fill-mode table
//!   (one tile, $5106, in one palette, $5107).
//! - ExRAM ($5104): mode 0 a nametable, mode 1 extended attributes (each tile's byte in ExRAM
//!   picks its palette and a 4 KiB CHR bank), mode 2 plain RAM, mode 3 read-only RAM.
//! - Vertical split ($5200-$5202): tiles left or right of a column come from ExRAM with their
//!   own vertical scroll and CHR bank.
//! - Scanline IRQ ($5203, $5204) and the in-frame flag, found as the hardware finds them: the
//!   PPU's three reads of the same nametable address at the end of one line and the start of
//!   the next mark a new line, and three CPU cycles without a PPU read mark the frame's end.
//!   The reads counted from a line's start tell the background's fetches (tile, attribute,
//!   pattern) from the sprites'.
//! - The multiplier ($5205 x $5206).
//! - Audio: two pulses like the 2A03's (without sweep, length and envelope at a fixed 240 Hz)
//!   and 8-bit PCM, as loud as the 2A03's pulses and DMC for the same values and of the
//!   opposite polarity (nesdev wiki, "MMC5 audio"). The PCM level comes from writes to $5011,
//!   or in read mode ($5010 bit 0) from every CPU read of $8000-$BFFF; a 0 leaves the level
//!   and trips the PCM IRQ instead (enabled by $5010 bit 7, seen and acknowledged by reading
//!   $5010).
//!
//! Not emulated: the two-chip PRG-RAM wiring of 16 KiB boards (bank bit 2 picking the chip);
//! the RAM banks wrap on the RAM's size.

use super::{outputs_moved, Board, CpuTarget, Mirroring, Needs, PpuRead};
use crate::apu::envelope::Envelope;
use crate::apu::length_counter::LengthCounter;
use crate::apu::mixer;
use crate::apu::pulse::DUTY_TABLE;
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

const BANK_8K: usize = 0x2000;

/// CPU cycles between the audio's 240 Hz clocks of envelope and length counter.
const AUDIO_FRAME: u16 = 7457;

/// PPU reads since a line's start (its first background fetch, number 0): 32 tiles' four
/// fetches, then the eight sprites' four, then the next line's two tiles.
const SPRITE_READS: std::ops::Range<u16> = 128..160;
const PREFETCH_READS: std::ops::Range<u16> = 160..168;

#[derive(Clone, Debug)]
pub struct Mmc5 {
    prg_mode: u8,
    chr_mode: u8,
    /// $5102 and $5103.
    ram_protect: [u8; 2],
    exram_mode: u8,
    /// $5105: two bits per nametable.
    nametables: u8,
    fill_tile: u8,
    fill_colour: u8,
    /// $5113-$5117.
    prg: [u8; 5],
    /// $5120-$512B, with the upper bits of $5130 at the time of the write.
    chr: [u16; 12],
    chr_upper: u8,
    /// The last CHR register written was one of $5128-$512B (with 8x16 sprites).
    last_set_b: bool,
    /// $5200: bit 7 on, bit 6 right side, bits 0-4 the column.
    split: u8,
    split_scroll: u8,
    split_bank: u8,
    irq_target: u8,
    irq_enabled: bool,
    irq_pending: bool,
    multiplicand: u8,
    multiplier: u8,
    /// Boxed: the board list's enum stays as small as its other boards.
    exram: Box<[u8; 0x400]>,
    /// PPUCTRL's sprite size, from the CPU's writes to $2000.
    sprites_8x16: bool,
    in_frame: bool,
    /// Lines since the frame's first.
    scanline: u8,
    /// The PPU's last read address, and how many reads in a row were of it.
    last_read: u16,
    same_reads: u8,
    /// Reads since the current line's start (saturating).
    reads: u16,
    /// CPU cycles left before the lack of PPU reads ends the frame.
    idle: u8,
    /// The ExRAM byte of the last background tile fetched (extended attributes).
    tile_exram: u8,
    audio: Audio,
}

impl Field for Mmc5 {
    fn visit(&mut self, io: &mut StateIo) {
        let Mmc5 {
            prg_mode,
            chr_mode,
            ram_protect,
            exram_mode,
            nametables,
            fill_tile,
            fill_colour,
            prg,
            chr,
            chr_upper,
            last_set_b,
            split,
            split_scroll,
            split_bank,
            irq_target,
            irq_enabled,
            irq_pending,
            multiplicand,
            multiplier,
            exram,
            sprites_8x16,
            in_frame,
            scanline,
            last_read,
            same_reads,
            reads,
            idle,
            tile_exram,
            audio,
        } = self;
        fields!(io, prg_mode, chr_mode, ram_protect, exram_mode, nametables);
        fields!(io, fill_tile, fill_colour, prg, chr, chr_upper, last_set_b);
        fields!(io, split, split_scroll, split_bank, irq_target, irq_enabled);
        fields!(io, irq_pending, multiplicand, multiplier, &mut **exram, sprites_8x16);
        fields!(io, in_frame, scanline, last_read, same_reads, reads, idle);
        fields!(io, tile_exram, audio);
    }
}

impl Board for Mmc5 {
    fn new(_header: &Header) -> Result<Mmc5, RomError> {
        Ok(Mmc5 {
            // Games expect 8 KiB PRG banks and the last bank at $E000 at power-on.
            prg_mode: 3,
            chr_mode: 0,
            ram_protect: [0; 2],
            exram_mode: 0,
            nametables: 0,
            fill_tile: 0,
            fill_colour: 0,
            prg: [0, 0, 0, 0, 0xFF],
            chr: [0; 12],
            chr_upper: 0,
            last_set_b: false,
            split: 0,
            split_scroll: 0,
            split_bank: 0,
            irq_target: 0,
            irq_enabled: false,
            irq_pending: false,
            multiplicand: 0xFF,
            multiplier: 0xFF,
            exram: Box::new([0; 0x400]),
            sprites_8x16: false,
            in_frame: false,
            scanline: 0,
            last_read: 0,
            same_reads: 0,
            reads: u16::MAX,
            idle: 0,
            tile_exram: 0,
            audio: Audio::default(),
        })
    }

    fn needs(&self) -> Needs {
        Needs {
            cpu_clock: true,
            irq: true,
            low_registers: true,
            ppu_bus: true,
            ppu_a12_only: false,
            ppu_reads: true,
            ppu_registers: true,
            audio: true,
            prg_reads: true,
        }
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        let offset = usize::from(addr & 0x1FFF);
        let slot = usize::from(addr >> 13) & 3;
        let ram = |bank: u8| CpuTarget::PrgRam(usize::from(bank & 7) * BANK_8K + offset);
        match addr {
            0x6000..=0x7FFF => return ram(self.prg[0]),
            0x8000..=0xFFFF => {}
            _ => return CpuTarget::None,
        }
        // The register ($5113 + reg) that banks the window, and the bank bits the window's
        // place gives instead (in 32 and 16 KiB windows).
        let (reg, place_bits) = match (self.prg_mode, slot) {
            (0, _) => (4, 3),
            (1 | 2, 0 | 1) => (2, 1),
            (1, _) => (4, 1),
            (2, 2) | (3, _) => (slot + 1, 0),
            _ => (4, 0),
        };
        let val = self.prg[reg];
        let bank = val & !place_bits | slot as u8 & place_bits;
        // $5117 always selects ROM.
        if reg == 4 || val & 0x80 != 0 {
            CpuTarget::PrgRom(usize::from(bank & 0x7F) * BANK_8K + offset)
        } else {
            ram(bank)
        }
    }

    fn map_chr(&self, addr: u16) -> usize {
        self.chr_offset(addr, self.cpu_side_set_b())
    }

    fn mirroring(&self) -> Mirroring {
        match self.nametables {
            0x44 => Mirroring::Vertical,
            0x50 => Mirroring::Horizontal,
            0x55 => Mirroring::SingleHigh,
            _ => Mirroring::SingleLow,
        }
    }

    fn nametable_page(&self, table: usize) -> usize {
        usize::from(self.nametable_source(table) == 1)
    }

    fn prg_ram_writable(&self, _addr: u16) -> bool {
        self.ram_protect == [2, 1]
    }

    fn write_low(&mut self, addr: u16, val: u8) {
        match addr {
            0x5000..=0x5015 => self.audio.write(addr, val),
            0x5100 => self.prg_mode = val & 3,
            0x5101 => self.chr_mode = val & 3,
            0x5102 | 0x5103 => self.ram_protect[usize::from(addr & 1)] = val & 3,
            0x5104 => self.exram_mode = val & 3,
            0x5105 => self.nametables = val,
            0x5106 => self.fill_tile = val,
            0x5107 => self.fill_colour = val & 3,
            0x5113..=0x5117 => self.prg[usize::from(addr - 0x5113)] = val,
            0x5120..=0x512B => {
                self.chr[usize::from(addr - 0x5120)] = u16::from(val) | u16::from(self.chr_upper) << 8;
                self.last_set_b = addr >= 0x5128 && self.sprites_8x16;
            }
            0x5130 => self.chr_upper = val & 3,
            0x5200 => self.split = val,
            0x5201 => self.split_scroll = val,
            0x5202 => self.split_bank = val,
            0x5203 => self.irq_target = val,
            0x5204 => self.irq_enabled = val & 0x80 != 0,
            0x5205 => self.multiplicand = val,
            0x5206 => self.multiplier = val,
            0x5C00..=0x5FFF => {
                let i = usize::from(addr & 0x3FF);
                match self.exram_mode {
                    // Written only while the PPU renders; else a 0 lands.
                    0 | 1 => self.exram[i] = if self.in_frame { val } else { 0 },
                    2 => self.exram[i] = val,
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn read_low(&mut self, addr: u16) -> Option<u8> {
        let val = self.peek_low(addr);
        match addr {
            0x5204 => self.irq_pending = false,
            0x5010 => self.audio.pcm_irq = false,
            _ => {}
        }
        val
    }

    fn peek_low(&self, addr: u16) -> Option<u8> {
        let product = u16::from(self.multiplicand) * u16::from(self.multiplier);
        match addr {
            0x5010 => Some(u8::from(self.audio.pcm_irq_line()) << 7),
            0x5015 => Some(self.audio.status()),
            0x5204 => Some(u8::from(self.irq_pending) << 7 | u8::from(self.in_frame) << 6),
            0x5205 => Some(product as u8),
            0x5206 => Some((product >> 8) as u8),
            0x5C00..=0x5FFF if self.exram_mode >= 2 => Some(self.exram[usize::from(addr & 0x3FF)]),
            _ => None,
        }
    }

    fn cpu_clock(&mut self) {
        if self.idle > 0 {
            self.idle -= 1;
            if self.idle == 0 {
                // Three M2 rises without a PPU read: the PPU has stopped rendering.
                self.in_frame = false;
                self.same_reads = 0;
                self.reads = u16::MAX;
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

    fn prg_read_windows(&self) -> u8 {
        // $8000-$BFFF, in read mode.
        if self.audio.pcm_read_mode {
            0b0011
        } else {
            0
        }
    }

    fn prg_read(&mut self, _addr: u16, val: u8) {
        self.audio.pcm_input(val);
    }

    fn irq(&self) -> bool {
        self.irq_pending && self.irq_enabled || self.audio.pcm_irq_line()
    }

    fn ppu_register_written(&mut self, addr: u16, val: u8) {
        if addr == 0x2000 {
            self.sprites_8x16 = val & 0x20 != 0;
            if !self.sprites_8x16 {
                self.last_set_b = false;
            }
        }
    }

    fn ppu_read(&mut self, addr: u16) -> PpuRead {
        self.watch_read(addr);
        if !self.in_frame {
            return self.plain_read(addr, self.cpu_side_set_b());
        }
        let reads = self.reads;
        let background = reads < SPRITE_READS.start || PREFETCH_READS.contains(&reads);
        if !background {
            let sprite = SPRITE_READS.contains(&reads);
            return self.plain_read(addr, self.sprites_8x16 && !sprite);
        }
        // The tile's column on the screen and its line: the two tiles fetched at the end of a
        // line are the next one's first.
        let (column, next_line) = if reads < SPRITE_READS.start {
            (reads / 4 + 2, false)
        } else {
            ((reads - PREFETCH_READS.start) / 4, true)
        };
        let kind = reads % 4;
        if self.exram_mode <= 1 && self.split & 0x80 != 0 && self.in_split(column) {
            return self.split_read(addr, kind, column, next_line);
        }
        if self.exram_mode == 1 {
            match kind {
                0 => self.tile_exram = self.exram[usize::from(addr & 0x3FF)],
                1 => return PpuRead::Byte((self.tile_exram >> 6) * 0x55),
                _ => {
                    let bank = usize::from(self.tile_exram & 0x3F | self.chr_upper << 6);
                    return PpuRead::Chr(bank * 0x1000 + usize::from(addr & 0xFFF));
                }
            }
        }
        self.plain_read(addr, self.sprites_8x16)
    }

    fn ppu_write(&mut self, addr: u16, val: u8) -> bool {
        if addr < 0x2000 {
            return false;
        }
        match self.nametable_source(usize::from(addr >> 10) & 3) {
            0 | 1 => false,
            2 if self.exram_mode <= 1 => {
                self.exram[usize::from(addr & 0x3FF)] = val;
                true
            }
            _ => true,
        }
    }
}

impl Mmc5 {
    /// What $5105 puts at nametable `table`: 0 and 1 CIRAM's pages, 2 ExRAM, 3 fill mode.
    fn nametable_source(&self, table: usize) -> u8 {
        self.nametables >> (2 * table) & 3
    }

    /// Whether the pattern reads outside rendering use the background set: with 8x16 sprites,
    /// the set last written.
    fn cpu_side_set_b(&self) -> bool {
        self.sprites_8x16 && self.last_set_b
    }

    /// The CHR offset of pattern address `addr` in the sprite set or the background set.
    fn chr_offset(&self, addr: u16, set_b: bool) -> usize {
        let slot = usize::from(addr >> 10) & 7;
        let chr = |reg: usize| usize::from(self.chr[reg]);
        let kib = match (self.chr_mode, set_b) {
            (0, false) => chr(7) * 8 + slot,
            (0, true) => chr(11) * 8 + slot,
            (1, false) => chr(3 + slot / 4 * 4) * 4 + slot % 4,
            (1, true) => chr(11) * 4 + slot % 4,
            (2, false) => chr(1 + slot / 2 * 2) * 2 + slot % 2,
            (2, true) => chr(9 + slot / 2 % 2 * 2) * 2 + slot % 2,
            (_, false) => chr(slot),
            (_, true) => chr(8 + slot % 4),
        };
        kib * 0x400 + usize::from(addr & 0x3FF)
    }

    /// A read as the banks and nametable sources have it.
    fn plain_read(&self, addr: u16, set_b: bool) -> PpuRead {
        if addr < 0x2000 {
            return PpuRead::Chr(self.chr_offset(addr, set_b));
        }
        match self.nametable_source(usize::from(addr >> 10) & 3) {
            0 | 1 => PpuRead::Memory,
            2 if self.exram_mode <= 1 => PpuRead::Byte(self.exram[usize::from(addr & 0x3FF)]),
            2 => PpuRead::Byte(0),
            _ if addr & 0x3FF < 0x3C0 => PpuRead::Byte(self.fill_tile),
            _ => PpuRead::Byte(self.fill_colour * 0x55),
        }
    }

    /// Follows the PPU's reads: a line starts at the third read in a row of one nametable
    /// address (the two unused fetches at the end of a line, then the next line's first).
    fn watch_read(&mut self, addr: u16) {
        self.idle = 3;
        self.reads = self.reads.saturating_add(1);
        if addr == self.last_read && (0x2000..0x3000).contains(&addr) {
            self.same_reads += 1;
            if self.same_reads == 2 {
                self.start_line();
            }
        } else {
            self.same_reads = 0;
        }
        self.last_read = addr;
    }

    fn start_line(&mut self) {
        self.reads = 0;
        if self.in_frame {
            self.scanline = self.scanline.wrapping_add(1);
            if self.scanline == self.irq_target {
                self.irq_pending = true;
            }
        } else {
            self.in_frame = true;
            self.scanline = 0;
        }
    }

    /// Whether tile column `column` (0-33) lies in the split region.
    fn in_split(&self, column: u16) -> bool {
        let edge = u16::from(self.split & 0x1F);
        if self.split & 0x40 != 0 {
            column >= edge
        } else {
            column < edge
        }
    }

    /// A background fetch in the split region: tiles and attributes from ExRAM at the split's
    /// own vertical scroll, patterns from its 4 KiB bank.
    fn split_read(&self, addr: u16, kind: u16, column: u16, next_line: bool) -> PpuRead {
        let line = u16::from(self.scanline) + u16::from(next_line);
        let y = (line + u16::from(self.split_scroll)) % 240;
        let column = column % 32;
        match kind {
            0 => PpuRead::Byte(self.exram[usize::from(y / 8 * 32 + column)]),
            1 => {
                let byte = self.exram[usize::from(0x3C0 + y / 32 * 8 + column / 4)];
                let shift = ((y / 16) & 1) * 4 + ((column / 2) & 1) * 2;
                PpuRead::Byte((byte >> shift & 3) * 0x55)
            }
            _ => {
                let row = (addr & 0xFF8 | y & 7) & 0xFFF;
                PpuRead::Chr(usize::from(self.split_bank) * 0x1000 + usize::from(row))
            }
        }
    }
}

/// One of the MMC5's pulses: the 2A03's without the sweep unit, and no muting of short periods.
#[derive(Clone, Debug, Default)]
struct Pulse {
    duty: u8,
    step: u8,
    period: u16,
    timer: u16,
    envelope: Envelope,
    length: LengthCounter,
}

impl Field for Pulse {
    fn visit(&mut self, io: &mut StateIo) {
        let Pulse {
            duty,
            step,
            period,
            timer,
            envelope,
            length,
        } = self;
        fields!(io, duty, step, period, timer, envelope, length);
        *duty &= 3;
        *step &= 7;
    }
}

impl Pulse {
    fn write(&mut self, reg: u16, val: u8) {
        match reg {
            0 => {
                self.duty = val >> 6;
                self.envelope.write(val);
                self.length.set_halt(val & 0x20 != 0);
            }
            2 => self.period = self.period & 0x700 | u16::from(val),
            3 => {
                self.period = self.period & 0xFF | u16::from(val & 7) << 8;
                self.length.load(val >> 3);
                self.envelope.restart();
                self.step = 0;
            }
            _ => {}
        }
        self.length.apply_writes(false);
    }

    /// One APU cycle (every other CPU cycle) of the timer.
    fn clock_timer(&mut self) {
        if self.timer == 0 {
            self.timer = self.period;
            // Counts down, as the 2A03's sequencer does.
            self.step = self.step.wrapping_sub(1) & 7;
        } else {
            self.timer -= 1;
        }
    }

    fn output(&self) -> u8 {
        if self.length.active() && DUTY_TABLE[usize::from(self.duty)] >> self.step & 1 != 0 {
            self.envelope.output()
        } else {
            0
        }
    }
}

/// The MMC5's sound: two pulses and the PCM channel.
#[derive(Clone, Debug, Default)]
struct Audio {
    pulses: [Pulse; 2],
    pcm: u8,
    pcm_read_mode: bool,
    pcm_irq_enabled: bool,
    pcm_irq: bool,
    /// CPU cycles to the next 240 Hz clock.
    frame: u16,
    /// Odd CPU cycle: the pulses' timers move on even ones.
    odd: bool,
    /// The outputs the mix last had.
    heard: [u8; 3],
}

impl Field for Audio {
    fn visit(&mut self, io: &mut StateIo) {
        let Audio {
            pulses,
            pcm,
            pcm_read_mode,
            pcm_irq_enabled,
            pcm_irq,
            frame,
            odd,
            heard,
        } = self;
        fields!(io, pulses, pcm, pcm_read_mode, pcm_irq_enabled, pcm_irq);
        fields!(io, frame, odd, heard);
    }
}

impl Audio {
    fn write(&mut self, addr: u16, val: u8) {
        match addr {
            0x5000..=0x5003 => self.pulses[0].write(addr & 3, val),
            0x5004..=0x5007 => self.pulses[1].write(addr & 3, val),
            0x5010 => {
                self.pcm_read_mode = val & 1 != 0;
                self.pcm_irq_enabled = val & 0x80 != 0;
            }
            0x5011 if !self.pcm_read_mode => self.pcm_input(val),
            0x5015 => {
                for (i, pulse) in self.pulses.iter_mut().enumerate() {
                    pulse.length.set_enabled(val >> i & 1 != 0);
                }
            }
            _ => {}
        }
    }

    /// A byte for the PCM level, written or read: 0 leaves the level and trips the IRQ, any
    /// other sets the level and clears the trip.
    fn pcm_input(&mut self, val: u8) {
        self.pcm_irq = val == 0;
        if val != 0 {
            self.pcm = val;
        }
    }

    fn pcm_irq_line(&self) -> bool {
        self.pcm_irq && self.pcm_irq_enabled
    }

    fn status(&self) -> u8 {
        u8::from(self.pulses[0].length.active()) | u8::from(self.pulses[1].length.active()) << 1
    }

    fn clock(&mut self) {
        self.odd = !self.odd;
        if !self.odd {
            for pulse in &mut self.pulses {
                pulse.clock_timer();
            }
        }
        if self.frame == 0 {
            self.frame = AUDIO_FRAME - 1;
            for pulse in &mut self.pulses {
                pulse.envelope.quarter_frame();
                pulse.length.half_frame();
            }
        } else {
            self.frame -= 1;
        }
    }

    fn outputs(&self) -> [u8; 3] {
        [self.pulses[0].output(), self.pulses[1].output(), self.pcm]
    }

    /// Whether the outputs differ from what the mix last took (and takes them).
    fn moved(&mut self) -> bool {
        let now = self.outputs();
        outputs_moved(&mut self.heard, now)
    }

    /// The level in the 2A03 mix's units: pulses as loud as the 2A03's, PCM as loud as the
    /// DMC at the same value, both of the opposite polarity.
    fn level(&self) -> f32 {
        let [p1, p2, pcm] = self.heard;
        -(mixer::pulses(p1 + p2) + mixer::dmc_alone(pcm))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;
    use crate::Cartridge;

    fn board() -> Mmc5 {
        Mmc5::new(&TestImage::new(5, 32, 64).header()).unwrap()
    }

    /// An MMC5 cartridge with 64 KiB of PRG-RAM, each 8 KiB of PRG-ROM holding its bank
    /// number in every byte but a 0 at $xx00.
    fn cartridge() -> Cartridge {
        let mut image = TestImage::nes2(5, 0, 32, 1).with(10, 0x0A).image();
        for (bank, bytes) in image[16..16 + 512 * 1024].chunks_mut(BANK_8K).enumerate() {
            bytes.fill(bank as u8);
            bytes.iter_mut().step_by(0x100).for_each(|b| *b = 0);
        }
        Cartridge::from_ines(&image).unwrap()
    }

    /// One line of the PPU's reads with rendering on, from its first (at nametable address
    /// `nt`): background tiles, sprites, the next line's two tiles, then the two unused reads
    /// of the address the next line starts at (`nt` again).
    fn line(m: &mut Mmc5, nt: u16) -> Vec<PpuRead> {
        let mut out = Vec::new();
        let tile = |m: &mut Mmc5, addr: u16, out: &mut Vec<PpuRead>| {
            out.push(m.ppu_read(addr));
            out.push(m.ppu_read(0x23C0));
            out.push(m.ppu_read(0x0010));
            out.push(m.ppu_read(0x0018));
        };
        for t in 0..32 {
            tile(m, nt + t, &mut out);
        }
        for _ in 0..8 {
            out.push(m.ppu_read(nt + 1));
            out.push(m.ppu_read(nt + 1));
            out.push(m.ppu_read(0x1000));
            out.push(m.ppu_read(0x1008));
        }
        for t in 32..34 {
            tile(m, nt + t, &mut out);
        }
        out.push(m.ppu_read(nt));
        out.push(m.ppu_read(nt));
        out
    }

    /// The pre-render line's end: two reads of $2000, which the next line starts at.
    fn frame_start(m: &mut Mmc5) {
        m.ppu_read(0x2000);
        m.ppu_read(0x2000);
    }

    #[test]
    fn multiplier_gives_the_16_bit_product() {
        let mut m = board();
        m.write_low(0x5205, 200);
        m.write_low(0x5206, 123);
        assert_eq!(m.read_low(0x5205), Some((24600 & 0xFF) as u8));
        assert_eq!(m.read_low(0x5206), Some((24600 >> 8) as u8));
    }

    #[test]
    fn prg_modes_and_ram_protect() {
        let mut m = board();
        assert_eq!(m.map_cpu(0xE000), CpuTarget::PrgRom(0x7F * BANK_8K));
        for (reg, val) in [(0x5114, 0x81), (0x5115, 0x82), (0x5116, 0x83), (0x5117, 0x84)] {
            m.write_low(reg, val);
        }
        let banks = |m: &Mmc5| [0x8000, 0xA000, 0xC000, 0xE000].map(|a| match m.map_cpu(a) {
            CpuTarget::PrgRom(off) => off / BANK_8K,
            _ => usize::MAX,
        });
        assert_eq!(banks(&m), [1, 2, 3, 4]);
        m.write_low(0x5100, 2);
        assert_eq!(banks(&m), [2, 3, 3, 4]);
        m.write_low(0x5100, 1);
        assert_eq!(banks(&m), [2, 3, 4, 5]);
        m.write_low(0x5100, 0);
        assert_eq!(banks(&m), [4, 5, 6, 7]);
        m.write_low(0x5113, 2);
        assert_eq!(m.map_cpu(0x6001), CpuTarget::PrgRam(2 * BANK_8K + 1));
        assert!(!m.prg_ram_writable(0x6000));
        m.write_low(0x5102, 2);
        m.write_low(0x5103, 1);
        assert!(m.prg_ram_writable(0x6000));
    }

    #[test]
    fn prg_ram_in_the_rom_windows() {
        let mut cart = cartridge();
        // 8 KiB mode: $5114-$5116 with bit 7 clear show RAM banks at $8000-$DFFF.
        cart.cpu_write(0x5114, 0x03, 0);
        cart.cpu_write(0x5115, 0x85, 0);
        cart.cpu_write(0x5116, 0x07, 0);
        cart.cpu_write(0x5117, 0x06, 0); // bit 7 ignored: ROM
        cart.cpu_write(0x8001, 0x11, 0);
        assert_eq!(cart.cpu_read_prg(0x8001), Some(0), "write-protected");
        cart.cpu_write(0x5102, 2, 0);
        cart.cpu_write(0x5103, 1, 0);
        cart.cpu_write(0x8001, 0x11, 0);
        cart.cpu_write(0xC001, 0x77, 0);
        cart.cpu_write(0xA001, 0x22, 0);
        assert_eq!(
            [0x8001, 0xA001, 0xC001, 0xE001].map(|a| cart.cpu_read_prg(a)),
            [Some(0x11), Some(5), Some(0x77), Some(6)]
        );
        // The same RAM at $6000 through $5113.
        cart.cpu_write(0x5113, 0x03, 0);
        assert_eq!(cart.cpu_read(0x6001), Some(0x11));
        // 16 KiB mode: $5115 with bit 0 replaced by the window's place.
        cart.cpu_write(0x5100, 1, 0);
        cart.cpu_write(0x5115, 0x07, 0);
        assert_eq!(cart.cpu_read_prg(0x8001), Some(0), "RAM bank 6");
        assert_eq!(cart.cpu_read_prg(0xA001), Some(0x77), "RAM bank 7");
        assert_eq!(cart.cpu_peek(0xA001), Some(0x77));
        // Protection back on: RAM keeps its byte.
        cart.cpu_write(0x5103, 0, 0);
        cart.cpu_write(0xA001, 0x55, 0);
        assert_eq!(cart.cpu_read_prg(0xA001), Some(0x77));
    }

    #[test]
    fn pcm_read_mode_takes_reads_of_8000_to_bfff() {
        let mut cart = cartridge();
        cart.cpu_write(0x5114, 0x82, 0);
        cart.cpu_write(0x5115, 0x83, 0);
        let level = |cart: &mut Cartridge| {
            cart.cpu_clock();
            cart.audio()
        };
        // Write mode: reads leave the level.
        cart.cpu_read_prg(0x8001);
        assert_eq!(level(&mut cart), 0.0);
        cart.cpu_write(0x5010, 0x81, 0); // read mode, IRQ on
        cart.cpu_write(0x5011, 0x40, 0);
        assert_eq!(level(&mut cart), 0.0, "writes ignored in read mode");
        assert_eq!(cart.cpu_read_prg(0x8001), Some(2));
        let two = level(&mut cart);
        assert!(two < 0.0, "the byte read is the level");
        cart.cpu_read_prg(0xC001);
        cart.cpu_read_prg(0xE001);
        assert_eq!(level(&mut cart), two, "only $8000-$BFFF");
        cart.cpu_read_prg(0xA001);
        assert!(level(&mut cart) < two, "3 is louder");
        assert!(!cart.irq());
        // A 0 read keeps the level and trips the IRQ; reading $5010 sees and acknowledges it.
        cart.cpu_read_prg(0xA000);
        assert!(cart.irq());
        assert!(level(&mut cart) < two);
        assert_eq!(cart.cpu_peek(0x5010), Some(0x80));
        assert_eq!(cart.cpu_read(0x5010), Some(0x80));
        assert!(!cart.irq());
        assert_eq!(cart.cpu_read(0x5010), Some(0));
        // A non-zero byte clears the trip; with the IRQ disabled a 0 trips it unseen.
        cart.cpu_read_prg(0xA000);
        cart.cpu_read_prg(0xA001);
        assert!(!cart.irq());
        cart.cpu_write(0x5010, 0x01, 0);
        cart.cpu_read_prg(0xA000);
        assert!(!cart.irq());
        assert_eq!(cart.cpu_read(0x5010), Some(0));
        // Peeks are not reads.
        cart.cpu_write(0x5010, 0x81, 0);
        cart.cpu_peek(0x8000);
        assert!(!cart.irq());
    }

    /// Through the console's bus: in read mode, the CPU's read of a 0 at $8000 (PRG-RAM bank 0
    /// there at power-on) raises the IRQ, which the handler takes and acknowledges at $5010.
    #[test]
    fn a_zero_read_interrupts_the_cpu() {
        for (mode, taken) in [(0x81, 1), (0x80, 0)] {
            let mut image = TestImage::nes2(5, 0, 2, 0).with(10, 0x07).image();
            let code = [
                0xA9, 0x00, 0x85, 0x00, 0x85, 0x01, // LDA #0; STA $00; STA $01
                0xA9, 0x40, 0x8D, 0x17, 0x40, // LDA #$40; STA $4017: no APU frame IRQ
                0xA9, mode, 0x8D, 0x10, 0x50, // LDA #mode; STA $5010
                0xAD, 0x00, 0x80, // LDA $8000
                0x58, 0x4C, 0x14, 0xE0, // CLI; JMP $E014
                0xA9, 0x01, 0x85, 0x00, // IRQ: LDA #1; STA $00
                0xAD, 0x10, 0x50, 0x85, 0x01, 0x40, // LDA $5010; STA $01; RTI
            ];
            let last_bank = 16 + 0x6000;
            image[last_bank..last_bank + code.len()].copy_from_slice(&code);
            image[last_bank + 0x1FFC..].copy_from_slice(&[0x00, 0xE0, 0x17, 0xE0]);
            let mut console = crate::Console::from_ines(&image).unwrap();
            console.run_frame();
            assert_eq!(console.bus.peek(0), taken, "$5010 = {mode:02X}");
            assert_eq!(console.bus.peek(1), taken << 7, "$5010 = {mode:02X}");
        }
    }

    #[test]
    fn chr_sets_for_sprites_and_background_with_8x16_sprites() {
        let mut m = board();
        m.write_low(0x5101, 3);
        for i in 0..12 {
            m.write_low(0x5120 + i, 0x10 + i as u8);
        }
        // 8x8 sprites: set A for everything.
        assert_eq!(m.map_chr(0x0400), 0x11 * 0x400);
        m.ppu_register_written(0x2000, 0x20);
        m.write_low(0x512B, 0x1B);
        // Outside rendering: the set last written.
        assert_eq!(m.map_chr(0x0400), 0x19 * 0x400);
        frame_start(&mut m);
        let reads = line(&mut m, 0x2000);
        assert!(m.in_frame);
        assert_eq!(reads[2], PpuRead::Chr(0x18 * 0x400 + 0x10), "background: set B");
        assert_eq!(reads[130], PpuRead::Chr(0x14 * 0x400), "sprites: set A");
        assert_eq!(reads[162], PpuRead::Chr(0x18 * 0x400 + 0x10), "prefetch: set B");
    }

    #[test]
    fn scanline_irq_and_in_frame_flag() {
        let mut m = board();
        m.write_low(0x5203, 3);
        m.write_low(0x5204, 0x80);
        assert_eq!(m.read_low(0x5204), Some(0));
        frame_start(&mut m);
        for _ in 0..3 {
            line(&mut m, 0x2000);
            assert!(!m.irq());
        }
        line(&mut m, 0x2000);
        assert!(m.irq(), "the fourth line is line 3");
        assert_eq!(m.read_low(0x5204), Some(0xC0));
        assert!(!m.irq(), "acknowledged by the read");
        // Three CPU cycles without a read: out of the frame.
        for _ in 0..3 {
            m.cpu_clock();
        }
        assert_eq!(m.read_low(0x5204), Some(0));
    }

    #[test]
    fn exram_modes_fill_mode_and_extended_attributes() {
        let mut m = board();
        m.write_low(0x5104, 2);
        m.write_low(0x5C05, 0x42);
        assert_eq!(m.read_low(0x5C05), Some(0x42));
        m.write_low(0x5104, 3);
        m.write_low(0x5C05, 0x43);
        assert_eq!(m.read_low(0x5C05), Some(0x42), "read-only");
        m.write_low(0x5104, 0);
        assert_eq!(m.read_low(0x5C05), None, "not readable");
        m.write_low(0x5C05, 0x44);
        assert_eq!(m.exram[5], 0, "written as 0 outside rendering");
        // $2000: CIRAM 0, $2400: CIRAM 1, $2800: ExRAM, $2C00: fill.
        m.write_low(0x5105, 0b11_10_01_00);
        m.write_low(0x5106, 0x29);
        m.write_low(0x5107, 2);
        assert_eq!(m.nametable_page(1), 1);
        assert!(m.ppu_write(0x2805, 0x77));
        assert_eq!(m.ppu_read(0x2805), PpuRead::Byte(0x77));
        assert_eq!(m.ppu_read(0x2C10), PpuRead::Byte(0x29));
        assert_eq!(m.ppu_read(0x2FC1), PpuRead::Byte(0xAA));
        assert_eq!(m.ppu_read(0x2010), PpuRead::Memory);
        // Extended attributes: tile 0's byte picks palette 3 and 4 KiB bank 5 (| $5130's 1 << 6).
        m.write_low(0x5104, 1);
        m.write_low(0x5130, 1);
        m.exram[0] = 0xC5;
        frame_start(&mut m);
        let reads = line(&mut m, 0x2000);
        assert_eq!(reads[1], PpuRead::Byte(0xFF));
        assert_eq!(reads[2], PpuRead::Chr(0x45 * 0x1000 + 0x10));
    }

    #[test]
    fn vertical_split_reads_exram() {
        let mut m = board();
        m.write_low(0x5200, 0x80 | 4); // left of column 4
        m.write_low(0x5201, 8); // scrolled one tile row down
        m.write_low(0x5202, 3);
        m.exram[32 + 2] = 0x66; // row 1, column 2
        frame_start(&mut m);
        let reads = line(&mut m, 0x2000);
        assert_eq!(reads[0], PpuRead::Byte(0x66), "column 2 of the split's row 1");
        assert_eq!(reads[2], PpuRead::Chr(3 * 0x1000 + 0x10));
        assert_eq!(reads[8], PpuRead::Memory, "column 4 is outside");
    }

    #[test]
    fn pulses_sound_and_move_the_level() {
        let mut m = board();
        m.write_low(0x5015, 1);
        m.write_low(0x5000, 0xBF); // duty 2, constant volume 15
        m.write_low(0x5002, 0x10);
        m.write_low(0x5003, 0x08);
        assert_eq!(m.read_low(0x5015), Some(1));
        let mut levels = std::collections::BTreeSet::new();
        for _ in 0..1000 {
            if m.cpu_clock_sound() {
                levels.insert((m.audio() * 1e6) as i64);
            }
        }
        assert!(levels.len() >= 2, "the pulse toggles: {levels:?}");
        assert!(levels.iter().all(|&l| l <= 0), "reversed polarity");
        m.write_low(0x5011, 0x80);
        m.cpu_clock_sound();
        assert!(m.audio() < -0.05);
    }
}
