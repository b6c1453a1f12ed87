//! The delta modulation channel, $4010-$4013: 1-bit delta samples fetched from CPU memory by DMA.

use super::{timer, Voice};
use crate::state::{fields, Field, StateIo};

/// Rates in CPU cycles per output bit; the timer runs on APU cycles, so it counts half.
const NTSC_RATES: [u16; 16] = [
    428, 380, 340, 320, 286, 254, 226, 214, 190, 160, 142, 128, 106, 84, 72, 54,
];
const PAL_RATES: [u16; 16] = [
    398, 354, 316, 298, 276, 236, 210, 198, 176, 148, 132, 118, 98, 78, 66, 50,
];

/// CPU cycles after a sample's last byte arrives during which the output unit emptying the
/// buffer still requests a (doomed) reload DMA (AccuracyCoin's Implicit DMA Abort).
const IMPLICIT_ABORT_WINDOW: u64 = 2;

/// The sample $4010-$4013 set up, and the output level now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DmcSample {
    pub address: u16,
    pub length: u16,
    pub looping: bool,
    pub level: u8,
}

#[derive(Clone)]
pub struct Dmc {
    irq_enabled: bool,
    looping: bool,
    /// Period in APU cycles.
    period: u16,
    timer: u16,
    /// The 7-bit level the channel outputs.
    pub output_level: u8,
    /// $4012 and $4013 as addresses and byte counts.
    sample_address: u16,
    sample_length: u16,
    /// The memory reader.
    address: u16,
    pub bytes_remaining: u16,
    buffer: Option<u8>,
    /// The output unit.
    shift: u8,
    bits_remaining: u8,
    silence: bool,
    pub irq_flag: bool,
    /// CPU cycle from which the pending DMA may halt the CPU.
    dma_from: Option<u64>,
    /// CPU cycle on which a $4015 enable takes effect.
    start_at: Option<u64>,
    /// CPU cycle on which a $4015 disable takes effect.
    stop_at: Option<u64>,
    /// The pending DMA is the phantom of an implicit abort: it halts the CPU on cycle
    /// `dma_from` (not later: a write cycle then cancels it) and ends after that cycle.
    dma_aborts: bool,
    /// CPU cycle on which a DMA took the last byte of a non-looping sample.
    last_byte_at: Option<u64>,
    /// The region's rates (see [`Dmc::set_pal`]).
    rates: &'static [u16; 16],
}

impl Field for Dmc {
    fn visit(&mut self, io: &mut StateIo) {
        let Dmc {
            irq_enabled,
            looping,
            period,
            timer,
            output_level,
            sample_address,
            sample_length,
            address,
            bytes_remaining,
            buffer,
            shift,
            bits_remaining,
            silence,
            irq_flag,
            dma_from,
            start_at,
            stop_at,
            dma_aborts,
            last_byte_at,
            rates: _,
        } = self;
        fields!(io, irq_enabled, looping, period, timer, sample_address);
        fields!(io, sample_length, address, bytes_remaining, buffer, shift);
        fields!(io, silence, irq_flag);
        io.checked(output_level, "DMC level", |&l| l < 128);
        io.checked(bits_remaining, "DMC bit count", |&n| (1..=8).contains(&n));
        io.counter(dma_from, "DMC DMA cycle");
        io.counter(start_at, "DMC start cycle");
        io.counter(stop_at, "DMC stop cycle");
        io.counter(last_byte_at, "DMC last byte cycle");
        fields!(io, dma_aborts);
    }
}

impl Default for Dmc {
    fn default() -> Dmc {
        Dmc {
            irq_enabled: false,
            looping: false,
            period: NTSC_RATES[0] / 2,
            timer: 0,
            output_level: 0,
            sample_address: 0xC000,
            sample_length: 1,
            address: 0xC000,
            bytes_remaining: 0,
            buffer: None,
            shift: 0,
            bits_remaining: 8,
            silence: true,
            irq_flag: false,
            dma_from: None,
            start_at: None,
            stop_at: None,
            dma_aborts: false,
            last_byte_at: None,
            rates: &NTSC_RATES,
        }
    }
}

impl Dmc {
    /// The 2A07's rates instead of the 2A03's.
    pub fn set_pal(&mut self, pal: bool) {
        self.rates = if pal { &PAL_RATES } else { &NTSC_RATES };
        self.period = self.rates[0] / 2;
    }

    pub fn write(&mut self, reg: u16, val: u8) {
        match reg {
            0 => {
                self.irq_enabled = val & 0x80 != 0;
                if !self.irq_enabled {
                    self.irq_flag = false;
                }
                self.looping = val & 0x40 != 0;
                self.period = self.rates[usize::from(val & 0x0F)] / 2;
            }
            1 => self.output_level = val & 0x7F,
            2 => self.sample_address = 0xC000 | (u16::from(val) << 6),
            _ => self.sample_length = (u16::from(val) << 4) | 1,
        }
    }

    /// $4015 bit 4, acting on cycle `at`, the put cycle before the load DMA's get cycle:
    /// enabling restarts a finished sample then (a reload DMA that comes due before waits for
    /// it: AccuracyCoin's DMC tests L and M); disabling ends the sample then, withdrawing a DMA
    /// not yet past its halt cycle (AccuracyCoin's Explicit DMA Abort).
    pub fn set_enabled(&mut self, enabled: bool, at: u64) {
        if !enabled {
            self.start_at = None;
            self.stop_at = Some(at);
        } else {
            self.stop_at = None;
            if self.bytes_remaining == 0 {
                self.start_at = Some(at);
            }
        }
    }

    /// Every CPU cycle: a pending enable may take effect.
    #[inline]
    pub fn step(&mut self, cycle: u64) {
        if self.dma_aborts && self.dma_from.is_some_and(|from| cycle >= from) {
            self.dma_aborts = false;
            self.dma_from = None;
        }
        if self.stop_at == Some(cycle) {
            self.stop_at = None;
            self.bytes_remaining = 0;
            self.dma_from = None;
        }
        if self.start_at == Some(cycle) {
            self.start_at = None;
            if self.bytes_remaining == 0 {
                self.restart();
                if self.buffer.is_none() {
                    self.dma_from = Some(cycle + 1);
                }
            }
        }
    }

    /// The first cycle after `now` on which [`Dmc::step`] acts.
    pub fn next_action(&self, now: u64) -> Option<u64> {
        let abort = self
            .dma_from
            .filter(|_| self.dma_aborts)
            .map(|from| from.max(now + 1));
        let due = |at: Option<u64>| at.filter(|&at| at > now);
        [abort, due(self.stop_at), due(self.start_at)]
            .into_iter()
            .flatten()
            .min()
    }

    /// `clocks` timer clocks at once, none of them the output unit's (the APU runs that
    /// clock on its own, see [`Dmc::clocks_to_expiry`]).
    pub fn run(&mut self, clocks: u64) {
        let expired = timer::run(&mut self.timer, self.period.wrapping_sub(1), clocks);
        debug_assert_eq!(expired, 0, "the DMC's output clock was skipped");
    }

    /// Timer clocks until the output unit is next clocked, that clock included.
    pub fn clocks_to_expiry(&self) -> u64 {
        timer::clocks_to_expiry(self.timer)
    }

    fn restart(&mut self) {
        self.address = self.sample_address;
        self.bytes_remaining = self.sample_length;
    }

    /// Clocked once per APU cycle; `cycle` is the current CPU cycle. True when the output
    /// level changed.
    pub fn step_timer(&mut self, cycle: u64) -> bool {
        if self.timer > 0 {
            self.timer -= 1;
            return false;
        }
        self.timer = self.period.wrapping_sub(1);
        let level = self.output_level;
        if !self.silence {
            if self.shift & 1 != 0 {
                if self.output_level <= 125 {
                    self.output_level += 2;
                }
            } else if self.output_level >= 2 {
                self.output_level -= 2;
            }
        }
        self.shift >>= 1;
        self.bits_remaining -= 1;
        if self.bits_remaining == 0 {
            self.bits_remaining = 8;
            match self.buffer.take() {
                Some(byte) => {
                    self.silence = false;
                    self.shift = byte;
                    if self.bytes_remaining > 0 {
                        // The reload DMA tries to halt the CPU on the next (put) cycle.
                        self.dma_from = Some(cycle + 1);
                    } else if self
                        .last_byte_at
                        .is_some_and(|at| cycle - at <= IMPLICIT_ABORT_WINDOW)
                    {
                        // Implicit abort: the byte count reached 0 too recently for the
                        // reload logic to see it; a DMA starts and gives up after halting.
                        self.dma_from = Some(cycle + 1);
                        self.dma_aborts = true;
                    }
                }
                None => self.silence = true,
            }
        }
        self.output_level != level
    }

    /// No bytes left to fetch, no DMA pending and no enable on its way.
    pub fn reader_idle(&self) -> bool {
        self.bytes_remaining == 0 && self.dma_from.is_none() && self.start_at.is_none()
    }

    /// The first cycle on which a pending DMA may halt the CPU.
    pub fn dma_from(&self) -> Option<u64> {
        self.dma_from
    }

    /// The sample address while a DMA may halt the CPU on cycle `next_cycle`.
    pub fn dma_request(&self, next_cycle: u64) -> Option<u16> {
        match self.dma_from {
            Some(from) if next_cycle >= from => Some(self.address),
            _ => None,
        }
    }

    pub fn dma_complete(&mut self, byte: u8, cycle: u64) {
        if self.dma_from.take().is_none() || self.bytes_remaining == 0 {
            return;
        }
        self.buffer = Some(byte);
        self.address = self.address.checked_add(1).unwrap_or(0x8000);
        self.bytes_remaining -= 1;
        if self.bytes_remaining == 0 {
            if self.looping {
                self.restart();
            } else {
                self.last_byte_at = Some(cycle);
                if self.irq_enabled {
                    self.irq_flag = true;
                }
            }
        }
    }

    /// Reset keeps only the level's low bit and drops the sample in progress.
    pub fn reset(&mut self) {
        self.output_level &= 1;
        self.bytes_remaining = 0;
        self.buffer = None;
        self.dma_from = None;
        self.dma_aborts = false;
        self.start_at = None;
        self.stop_at = None;
        self.silence = true;
        self.bits_remaining = 8;
        self.irq_flag = false;
    }

    pub fn output(&self) -> u8 {
        self.output_level
    }

    /// Sounding while a sample plays; the period as its $4010 rate index.
    pub fn voice(&self, clock_hz: f64) -> Voice {
        let index = self.rates.iter().position(|&p| p / 2 == self.period);
        Voice {
            volume: if self.bytes_remaining > 0 { 15 } else { 0 },
            period: index.unwrap_or(0) as u16,
            mode: 0,
            frequency: clock_hz / f64::from(self.period * 2),
        }
    }

    pub fn sample(&self) -> DmcSample {
        DmcSample {
            address: self.sample_address,
            length: self.sample_length,
            looping: self.looping,
            level: self.output_level,
        }
    }
}
