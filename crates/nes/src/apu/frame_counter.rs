//! The frame counter ($4017): quarter- and half-frame clocks for envelopes, the triangle's
//! linear counter, length counters and sweeps, and the frame interrupt.
//!
//! Cycle numbers count CPU cycles from the moment a $4017 write takes effect (cycle 0).
//! The write takes effect 3 or 4 cycles after the write cycle, on the first half of an APU
//! cycle. blargg's 2005 frame counter notes measure from the write itself: his "clock at 14915"
//! is seen by a read one cycle later, 14916 cycles after the write (3 + 14913).

use crate::state::{fields, Field, StateIo};

/// Quarter- and half-frame clocks raised in one cycle.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Clocks {
    pub quarter: bool,
    pub half: bool,
}

const QUARTER: Clocks = Clocks {
    quarter: true,
    half: false,
};
const BOTH: Clocks = Clocks {
    quarter: true,
    half: true,
};
const NONE: Clocks = Clocks {
    quarter: false,
    half: false,
};

/// The cycles on which each mode does something (see `event`): the 4-step mode's quarter,
/// half and quarter frames, its three IRQ cycles (the second also a half frame); the 5-step
/// mode's first three, its last half frame and its end.
struct Sequence {
    four_step: [u16; 6],
    five_step: [u16; 5],
}

const NTSC: Sequence = Sequence {
    four_step: [7457, 14913, 22371, 29828, 29829, 29830],
    five_step: [7457, 14913, 22371, 37281, 37282],
};

/// The 2A07's, on its own (slower) clock (nesdev wiki, "APU Frame Counter", PAL column).
const PAL: Sequence = Sequence {
    four_step: [8313, 16627, 24939, 33252, 33253, 33254],
    five_step: [8313, 16627, 24939, 41565, 41566],
};

#[derive(Clone)]
pub struct FrameCounter {
    five_step: bool,
    irq_inhibit: bool,
    pub irq_flag: bool,
    /// A $4015 read acknowledged the interrupt; the flag drops on the next get cycle
    /// (AccuracyCoin's "Frame Counter IRQ" tests 6 and 7).
    irq_acknowledged: bool,
    cycle: u16,
    /// The next cycle on which the sequence does something.
    next_event: u16,
    /// A $4017 value waiting to take effect, and the cycles left until it does.
    pending: Option<(u8, u8)>,
    /// The region's sequence (see [`FrameCounter::set_pal`]).
    sequence: &'static Sequence,
}

impl Default for FrameCounter {
    fn default() -> Self {
        FrameCounter {
            five_step: false,
            irq_inhibit: false,
            irq_flag: false,
            irq_acknowledged: false,
            cycle: 0,
            next_event: 0,
            pending: None,
            sequence: &NTSC,
        }
    }
}

impl Field for FrameCounter {
    fn visit(&mut self, io: &mut StateIo) {
        let FrameCounter {
            five_step,
            irq_inhibit,
            irq_flag,
            irq_acknowledged,
            cycle,
            next_event,
            pending,
            sequence,
        } = self;
        fields!(
            io,
            five_step,
            irq_inhibit,
            irq_flag,
            irq_acknowledged,
            next_event,
            pending
        );
        let last = sequence.five_step[4];
        io.checked(cycle, "frame counter cycle", |&c| c <= last);
    }
}

impl FrameCounter {
    /// The 2A07's sequence instead of the 2A03's.
    pub fn set_pal(&mut self, pal: bool) {
        self.sequence = if pal { &PAL } else { &NTSC };
    }

    /// $4017 write, taking effect `delay` cycles later. The interrupt inhibit acts at once.
    pub fn write(&mut self, val: u8, delay: u8) {
        self.irq_inhibit = val & 0x40 != 0;
        if self.irq_inhibit {
            self.irq_flag = false;
        }
        self.pending = Some((val, delay));
    }

    /// Power-on and reset: `val` takes effect on the current cycle if `now`, else on the next,
    /// with the frame IRQ flag cleared.
    pub fn restart(&mut self, val: u8, now: bool) {
        self.irq_inhibit = val & 0x40 != 0;
        self.irq_flag = false;
        if now {
            self.pending = None;
            self.start(val);
        } else {
            self.pending = Some((val, 1));
        }
    }

    /// $4015 read.
    pub fn acknowledge_irq(&mut self) {
        self.irq_acknowledged = true;
    }

    /// One CPU cycle; `get_cycle`: the first half of an APU cycle.
    pub fn step(&mut self, get_cycle: bool) -> Clocks {
        if get_cycle && self.irq_acknowledged {
            self.irq_acknowledged = false;
            self.irq_flag = false;
        }
        if let Some((val, delay)) = self.pending {
            if delay == 1 {
                self.pending = None;
                self.start(val);
                // Entering the 5-step mode clocks everything at once.
                return if self.five_step { BOTH } else { NONE };
            }
            self.pending = Some((val, delay - 1));
        }
        self.cycle += 1;
        if self.cycle < self.next_event {
            return NONE;
        }
        let clocks = self.event();
        let events: &[u16] = if self.five_step {
            &self.sequence.five_step
        } else {
            &self.sequence.four_step
        };
        self.next_event = events
            .iter()
            .copied()
            .find(|&e| e > self.cycle)
            .unwrap_or(events[0]);
        clocks
    }

    /// Cycles until the first `step` that does more than count, that one included;
    /// `first_get`: the cycles until the first get cycle.
    pub fn cycles_to_action(&self, first_get: u64) -> u64 {
        let sequence = u64::from(self.next_event.saturating_sub(self.cycle)).max(1);
        let pending = self
            .pending
            .map_or(u64::MAX, |(_, delay)| u64::from(delay.max(1)));
        let acknowledge = if self.irq_acknowledged {
            first_get
        } else {
            u64::MAX
        };
        sequence.min(pending).min(acknowledge)
    }

    /// `cycles` steps that only count (fewer than [`FrameCounter::cycles_to_action`]).
    pub fn run(&mut self, cycles: u64) {
        self.cycle += cycles as u16;
        if let Some((_, delay)) = &mut self.pending {
            *delay -= cycles as u8;
        }
    }

    fn start(&mut self, val: u8) {
        self.five_step = val & 0x80 != 0;
        self.cycle = 0;
        self.next_event = self.sequence.four_step[0];
    }

    /// What the sequence does at `self.cycle`.
    fn event(&mut self) -> Clocks {
        let (four, five) = (&self.sequence.four_step, &self.sequence.five_step);
        let cycle = self.cycle;
        if cycle == four[0] || cycle == four[2] {
            QUARTER
        } else if cycle == four[1] {
            BOTH
        } else if !self.five_step && (cycle == four[3] || cycle == four[4]) {
            // The flag rises for two cycles even with interrupts inhibited (only the IRQ
            // line stays quiet); the third cycle sets it only if they are not (AccuracyCoin
            // "Frame Counter IRQ" I-M).
            self.irq_flag = true;
            if cycle == four[4] {
                BOTH
            } else {
                NONE
            }
        } else if !self.five_step && cycle == four[5] {
            self.irq_flag = !self.irq_inhibit;
            self.cycle = 0;
            NONE
        } else if self.five_step && cycle == five[3] {
            BOTH
        } else if self.five_step && cycle == five[4] {
            self.cycle = 0;
            NONE
        } else {
            NONE
        }
    }

    /// The interrupt output.
    pub fn irq(&self) -> bool {
        self.irq_flag && !self.irq_inhibit
    }
}
