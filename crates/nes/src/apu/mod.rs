//! The 2A03's audio processing unit: two pulses, triangle, noise, DMC, frame counter, and the
//! path from their outputs to host-rate samples (non-linear mix, band-limited resampling, the
//! console's filters).
//!
//! Time: `step()` is one CPU cycle, called by the bus before the cycle's memory access, so a
//! register write or a $4015 read in cycle N sees the APU after cycle N's clocks. Pulse, noise and
//! DMC timers run on APU cycles (every other CPU cycle); DMA get cycles are the CPU cycles on
//! which those timers are clocked.
//!
//! Events: most cycles change nothing anyone can see (a timer counts down, the frame counter
//! counts). `step()` only counts them; a cycle on which something may happen (a channel's
//! output may move, the DMC's output unit is clocked, the frame counter or a $4015 write acts,
//! the cycle after a register access or a DMA) runs in full, after the timers jump over the
//! cycles since the last one. So the mixed level is constant between full cycles, and the
//! resampler sees exactly the steps it saw when every cycle ran. The IRQ line, $4015, the DMA
//! request and the DMC level change only on full cycles or on accesses, so they are always
//! current; the timers are brought up to date before any access and for a save state.

mod dmc;
pub(crate) mod envelope;
mod filters;
mod frame_counter;
pub(crate) mod length_counter;
pub(crate) mod mixer;
mod noise;
pub(crate) mod pulse;
mod resampler;
mod timer;
mod triangle;

use crate::state::{fields, Field, StateIo};
use dmc::Dmc;
pub use dmc::DmcSample;
use filters::OutputFilters;
use frame_counter::{Clocks, FrameCounter};
use noise::Noise;
use pulse::Pulse;
use resampler::Resampler;
use triangle::Triangle;

/// The NTSC CPU clock (see [`crate::Region::cpu_clock_hz`] for the others).
pub const CPU_CLOCK_HZ: f64 = crate::Region::Ntsc.cpu_clock_hz();
pub const DEFAULT_SAMPLE_RATE: f64 = 48_000.0;
/// Output scale: the mix spans 0.0 to 1.0 and the filters centre it on zero.
const OUTPUT_GAIN: f32 = 30_000.0;

#[derive(Clone)]
pub struct Apu {
    /// CPU cycles since power-on (the bus's cycle count).
    cycle: u64,
    /// The cycle up to which the timers, the frame counter's count and the resampler have run.
    synced: u64,
    /// The next cycle that must run in full.
    next_event: u64,
    pulse1: Pulse,
    pulse2: Pulse,
    triangle: Triangle,
    noise: Noise,
    dmc: Dmc,
    frame_counter: FrameCounter,
    /// The last value written to $4017; reset writes it again.
    last_4017: u8,
    /// A length counter register was written in the previous cycle.
    length_writes: bool,
    /// Some channel's output may have changed since the mix was last taken.
    mix_stale: bool,
    resampler: Resampler,
    filters: OutputFilters,
    /// The cartridge's sound, in the mix's units (see [`Apu::set_expansion`]). Not stored: it
    /// follows from the board's registers (see the bus's state).
    expansion: f32,
    /// The CPU's clock in Hz (the region's; the console's state records the region).
    clock_hz: f64,
}

impl Field for Apu {
    fn visit(&mut self, io: &mut StateIo) {
        // A state holds every unit at the current cycle; a loaded one schedules afresh.
        self.catch_up(self.cycle);
        let Apu {
            cycle,
            synced: _,
            next_event: _,
            pulse1,
            pulse2,
            triangle,
            noise,
            dmc,
            frame_counter,
            last_4017,
            length_writes,
            mix_stale,
            resampler,
            filters,
            expansion: _,
            clock_hz: _,
        } = self;
        fields!(
            io,
            pulse1,
            pulse2,
            triangle,
            noise,
            dmc,
            frame_counter,
            last_4017
        );
        fields!(io, length_writes, mix_stale, resampler, filters);
        io.counter(cycle, "APU cycle counter");
        self.synced = self.cycle;
        self.next_event = self.cycle + 1;
    }
}

impl Default for Apu {
    fn default() -> Apu {
        let mut apu = Apu {
            cycle: 0,
            synced: 0,
            next_event: 1,
            pulse1: Pulse::pulse1(),
            pulse2: Pulse::pulse2(),
            triangle: Triangle::default(),
            noise: Noise::default(),
            dmc: Dmc::default(),
            frame_counter: FrameCounter::default(),
            last_4017: 0,
            length_writes: false,
            mix_stale: true,
            resampler: Resampler::new(CPU_CLOCK_HZ, DEFAULT_SAMPLE_RATE),
            filters: OutputFilters::new(DEFAULT_SAMPLE_RATE as f32),
            expansion: 0.0,
            clock_hz: CPU_CLOCK_HZ,
        };
        apu.restart_frame_counter(0);
        apu
    }
}

/// Whether CPU cycle `cycle` is the first half of an APU cycle (a DMA get cycle). The
/// console powers up in either alignment; this one puts the bus's first cycle on a put.
fn is_get_cycle(cycle: u64) -> bool {
    cycle.is_multiple_of(2)
}

/// The get cycles after `from` up to `to` included.
fn get_cycles_between(from: u64, to: u64) -> u64 {
    to / 2 - from / 2
}

impl Apu {
    /// The APU of `region`'s consoles, from power-on: its clock and, on PAL, the 2A07's noise
    /// and DMC periods and frame counter sequence.
    pub fn set_region(&mut self, region: crate::Region) {
        let pal = region.pal_apu();
        self.clock_hz = region.cpu_clock_hz();
        self.resampler = Resampler::new(self.clock_hz, self.resampler.sample_rate());
        self.noise.set_pal(pal);
        self.dmc.set_pal(pal);
        self.frame_counter.set_pal(pal);
        self.restart_frame_counter(0);
    }

    /// The reset button: $4015 cleared, $4017 written again with its last mode but the IRQ
    /// inhibit cleared (apu_reset's readme: "mode unchanged, IRQ inhibit sometimes cleared";
    /// 4017_timing needs the frame IRQ after reset), the triangle back at its first step, the
    /// DMC level's low bit kept.
    pub fn reset(&mut self) {
        self.sync();
        self.write_status(0);
        self.dmc.reset();
        self.triangle.reset_phase();
        self.restart_frame_counter(self.last_4017 & 0x80);
        self.mix_stale = true;
    }

    /// Advances one CPU cycle.
    #[inline]
    pub fn step(&mut self) {
        if self.quiet_next_cycle() {
            self.count_cycle();
        } else {
            self.cycle += 1;
            self.run_cycle();
        }
    }

    /// The next cycle only counts: it is not a full one.
    #[inline]
    fn quiet_next_cycle(&self) -> bool {
        self.cycle + 1 < self.next_event
    }

    /// The cycle [`Apu::quiet_next_cycle`] said only counts.
    #[inline]
    fn count_cycle(&mut self) {
        self.cycle += 1;
    }

    /// How many of the coming cycles only count and leave the bus to the CPU: none is a full
    /// one and no DMC DMA wants the bus (a DMA request or the IRQ comes on a full cycle, or
    /// when a pending DMA is due).
    pub fn quiet_cycles(&self) -> u64 {
        let until = self
            .dmc
            .dma_from()
            .map_or(self.next_event, |from| from.min(self.next_event));
        until.saturating_sub(self.cycle + 1)
    }

    /// How many cycles from now on [`Apu::run`] can stand in for without the CPU noticing: no
    /// DMC DMA wants the bus and, unless the CPU masks it, the IRQ line keeps its level.
    pub fn idle_cycles(&self, irq_masked: bool) -> u64 {
        if irq_masked && self.dmc.reader_idle() {
            u64::MAX
        } else {
            self.quiet_cycles()
        }
    }

    /// The DMC's memory reader has nothing to fetch and no enable on its way: no DMC DMA
    /// can begin until a register write.
    pub fn dmc_reader_idle(&self) -> bool {
        self.dmc.reader_idle()
    }

    /// `n` cycles of [`Apu::step`]: those in between the full ones only counted.
    pub fn run(&mut self, n: u64) {
        let end = self.cycle + n;
        while self.next_event <= end {
            self.cycle = self.next_event;
            self.run_cycle();
        }
        self.cycle = end;
    }

    /// The current cycle in full, after the cycles skipped since the last one.
    #[inline(never)]
    fn run_cycle(&mut self) {
        let cycle = self.cycle;
        self.catch_up(cycle - 1);
        self.synced = cycle;
        self.dmc.step(cycle);
        let clocks = self.frame_counter.step(is_get_cycle(cycle));
        if clocks.quarter || self.length_writes {
            self.frame_clocks(clocks);
        }
        let mut stale = self.mix_stale;
        stale |= self.triangle.step_timer();
        if is_get_cycle(cycle) {
            stale |= self.pulse1.step_timer();
            stale |= self.pulse2.step_timer();
            stale |= self.noise.step_timer();
            stale |= self.dmc.step_timer(cycle);
        }
        // Mixing only when an output may have moved keeps the quiet cycles cheap.
        if stale {
            self.mix();
        }
        self.resampler.advance(1);
        self.schedule();
    }

    /// Runs the cycles after `synced` up to `to`, on none of which anything happens but
    /// counting (see [`Apu::schedule`]).
    fn catch_up(&mut self, to: u64) {
        let cycles = to - self.synced;
        if cycles == 0 {
            return;
        }
        let apu_cycles = get_cycles_between(self.synced, to);
        self.synced = to;
        self.triangle.run(cycles);
        self.pulse1.run(apu_cycles);
        self.pulse2.run(apu_cycles);
        self.noise.run(apu_cycles);
        self.dmc.run(apu_cycles);
        self.frame_counter.run(cycles);
        self.resampler.advance(cycles);
    }

    /// Finds the next cycle that must run in full: the first on which a channel's output may
    /// change, the DMC's output unit is clocked or a pending $4015 write acts, or the frame
    /// counter does more than count.
    fn schedule(&mut self) {
        let now = self.cycle;
        let first_get = if is_get_cycle(now + 1) { 1 } else { 2 };
        // The cycle of a get-cycle timer's `clocks`th clock.
        let on_get = |clocks: u64| now + first_get + 2 * (clocks - 1);
        let due = [
            self.triangle.clocks_to_change().map(|clocks| now + clocks),
            self.pulse1.clocks_to_change().map(on_get),
            self.pulse2.clocks_to_change().map(on_get),
            self.noise.clocks_to_change().map(on_get),
            Some(on_get(self.dmc.clocks_to_expiry())),
            self.dmc.next_action(now),
            Some(now + self.frame_counter.cycles_to_action(first_get)),
        ];
        self.next_event = due.into_iter().flatten().min().unwrap_or(u64::MAX);
    }

    /// Brings every unit up to the current cycle and has the next cycle run in full (which
    /// schedules again): for an access from outside, after which the schedule may be stale.
    fn sync(&mut self) {
        self.catch_up(self.cycle);
        self.next_event = self.cycle + 1;
    }

    /// The frame counter's clocks (every half-frame clock is also a quarter-frame clock), and
    /// the length counter writes of the previous cycle, which land after them.
    #[inline(never)]
    fn frame_clocks(&mut self, clocks: Clocks) {
        if clocks.quarter {
            self.mix_stale = true;
            self.pulse1.quarter_frame();
            self.pulse2.quarter_frame();
            self.triangle.quarter_frame();
            self.noise.quarter_frame();
        }
        if clocks.half {
            self.pulse1.half_frame();
            self.pulse2.half_frame();
            self.triangle.half_frame();
            self.noise.half_frame();
        }
        if self.length_writes {
            self.length_writes = false;
            for length in [
                &mut self.pulse1.length,
                &mut self.pulse2.length,
                &mut self.triangle.length,
                &mut self.noise.length,
            ] {
                length.apply_writes(clocks.half);
            }
        }
    }

    #[inline(never)]
    fn mix(&mut self) {
        self.mix_stale = false;
        let level = mixer::mix(
            self.pulse1.output(),
            self.pulse2.output(),
            self.triangle.output(),
            self.noise.output(),
            self.dmc.output(),
        );
        self.resampler.set_level(level + self.expansion);
    }

    /// The cartridge's sound moved to `level` (in the units of [`mixer::mix`], whose full scale
    /// is about 1.0) during the coming cycle: it joins the mix from that cycle on, as the
    /// Famicom's cartridge port adds it to the 2A03's output.
    pub fn set_expansion(&mut self, level: f32) {
        self.sync();
        self.expansion = level;
        self.mix_stale = true;
    }

    /// The cartridge's sound as a loaded state has it, already in the resampler's level.
    pub(crate) fn restore_expansion(&mut self, level: f32) {
        self.expansion = level;
    }

    /// $4015 read: clears the frame interrupt flag (on the next get cycle).
    pub fn read_status(&mut self) -> u8 {
        self.sync();
        let status = self.peek_status();
        self.frame_counter.acknowledge_irq();
        status
    }

    /// $4015 without side effects. Bit 5 is open bus (the bus fills it in).
    pub fn peek_status(&self) -> u8 {
        u8::from(self.pulse1.length.active())
            | u8::from(self.pulse2.length.active()) << 1
            | u8::from(self.triangle.length.active()) << 2
            | u8::from(self.noise.length.active()) << 3
            | u8::from(self.dmc.bytes_remaining > 0) << 4
            | u8::from(self.frame_counter.irq_flag) << 6
            | u8::from(self.dmc.irq_flag) << 7
    }

    /// Write to $4000-$4013, $4015 or $4017 (other addresses are ignored).
    pub fn write_register(&mut self, addr: u16, val: u8) {
        let reg = addr & 3;
        self.sync();
        self.mix_stale = true;
        if addr <= 0x400F {
            self.length_writes = true;
        }
        match addr {
            0x4000..=0x4003 => self.pulse1.write(reg, val),
            0x4004..=0x4007 => self.pulse2.write(reg, val),
            0x4008..=0x400B => self.triangle.write(reg, val),
            0x400C..=0x400F => self.noise.write(reg, val),
            0x4010..=0x4013 => self.dmc.write(reg, val),
            0x4015 => self.write_status(val),
            0x4017 => {
                self.last_4017 = val;
                // The new mode starts on the first get cycle at least 3 cycles on.
                let delay = if is_get_cycle(self.cycle + 3) { 3 } else { 4 };
                self.frame_counter.write(val, delay);
            }
            _ => {}
        }
    }

    /// Power-on and reset act as if $4017 had been written 10 or 11 cycles before the CPU's
    /// first instruction, which follows the CPU's 7-cycle reset sequence.
    fn restart_frame_counter(&mut self, val: u8) {
        self.frame_counter.restart(val, is_get_cycle(self.cycle));
    }

    fn write_status(&mut self, val: u8) {
        self.pulse1.length.set_enabled(val & 0x01 != 0);
        self.pulse2.length.set_enabled(val & 0x02 != 0);
        self.triangle.length.set_enabled(val & 0x04 != 0);
        self.noise.length.set_enabled(val & 0x08 != 0);
        self.dmc.irq_flag = false;
        // The load DMA halts on the get cycle of the second following APU cycle (3 or 4 cycles
        // on); the DMC starts the cycle before.
        let start_at = if is_get_cycle(self.cycle + 3) {
            self.cycle + 2
        } else {
            self.cycle + 3
        };
        self.dmc.set_enabled(val & 0x10 != 0, start_at);
    }

    /// Frame-counter and DMC interrupt output (true = asserted).
    pub fn irq_line(&self) -> bool {
        self.frame_counter.irq() || self.dmc.irq_flag
    }

    /// Some(sample address) while the DMC wants a byte and may halt the CPU on the coming
    /// cycle. The bus steals the cycles (halt, dummy, alignment, get) and then calls
    /// [`Apu::dmc_dma_complete`]; the cycle-by-cycle sequence is in `Bus::dma` (bus.rs).
    pub fn dmc_dma_request(&self) -> Option<u16> {
        self.dmc.dma_request(self.cycle + 1)
    }

    /// The byte the DMC DMA read.
    pub fn dmc_dma_complete(&mut self, byte: u8) {
        self.sync();
        self.dmc.dma_complete(byte, self.cycle);
    }

    /// Whether the coming CPU cycle is a DMA get cycle (else a put cycle).
    pub fn next_cycle_is_get(&self) -> bool {
        is_get_cycle(self.cycle + 1)
    }

    pub fn sample_rate(&self) -> f64 {
        self.resampler.sample_rate()
    }

    /// The host's output rate in Hz; front ends may nudge it each frame to keep their audio
    /// queue level (dynamic rate control). Rates outside 8-384 kHz are clamped into it.
    pub fn set_sample_rate(&mut self, sample_rate: f64) {
        let sample_rate = if sample_rate.is_nan() {
            DEFAULT_SAMPLE_RATE
        } else {
            sample_rate.clamp(8_000.0, 384_000.0)
        };
        self.catch_up(self.cycle);
        self.resampler.set_sample_rate(sample_rate);
        self.filters.set_sample_rate(sample_rate as f32);
    }

    /// Appends every sample finished so far (mono, 16-bit) to `out`.
    pub fn take_samples(&mut self, out: &mut Vec<i16>) {
        self.catch_up(self.cycle);
        let filters = &mut self.filters;
        self.resampler.take_samples(|level| {
            let sample = filters.run(level) * OUTPUT_GAIN;
            out.push(sample.clamp(i16::MIN as f32, i16::MAX as f32) as i16);
        });
    }
}

/// What a channel is sounding now, read without side effects (for displays and scripts).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Voice {
    /// Level 0-15; 0 while silenced (length or linear counter, sweep mute, no sample). The
    /// triangle and the DMC give 15 while sounding.
    pub volume: u8,
    /// Pulse and triangle: the 11-bit timer period; noise and DMC: the rate index 0-15.
    pub period: u16,
    /// Pulse: the duty 0-3; noise: 1 in short mode.
    pub mode: u8,
    /// Hz, at the console's CPU clock: the tone of the pulses and the triangle, the rate the
    /// noise shift register and the DMC's output bits are clocked at.
    pub frequency: f64,
}

impl Apu {
    /// Pulse 1, pulse 2, triangle, noise, DMC.
    pub fn voices(&self) -> [Voice; 5] {
        [
            self.pulse1.voice(self.clock_hz),
            self.pulse2.voice(self.clock_hz),
            self.triangle.voice(self.clock_hz),
            self.noise.voice(self.clock_hz),
            self.dmc.voice(self.clock_hz),
        ]
    }

    pub fn dmc_sample(&self) -> DmcSample {
        self.dmc.sample()
    }
}

#[cfg(test)]
mod tests;
