//! The frame counter ($4017): quarter- and half-frame clocks for envelopes, the triangle's
//! linear counter, length counters and sweeps, and the frame interrupt.
//!
//! Cycle numbers count CPU cycles from the moment a $4017 write takes effect (cycle 0).
//! The write takes effect 3 or 4 cycles after the write cycle, on the first half of an APU
//! cycle. blargg's 2005 frame counter notes measure from the write itself: his "clock at 14915"
//! is seen by a read one cycle later, 14916 cycles after the write (3 + 14913).

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

#[derive(Clone, Default)]
pub struct FrameCounter {
    five_step: bool,
    irq_inhibit: bool,
    pub irq_flag: bool,
    cycle: u16,
    /// A $4017 value waiting to take effect, and the cycles left until it does.
    pending: Option<(u8, u8)>,
}

impl FrameCounter {
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
            self.five_step = val & 0x80 != 0;
            self.cycle = 0;
        } else {
            self.pending = Some((val, 1));
        }
    }

    pub fn step(&mut self) -> Clocks {
        if let Some((val, delay)) = self.pending {
            if delay == 1 {
                self.pending = None;
                self.five_step = val & 0x80 != 0;
                self.cycle = 0;
                // Entering the 5-step mode clocks everything at once.
                return if self.five_step { BOTH } else { NONE };
            }
            self.pending = Some((val, delay - 1));
        }
        self.cycle += 1;
        match (self.five_step, self.cycle) {
            (_, 7457) | (_, 22371) => QUARTER,
            (_, 14913) => BOTH,
            (false, 29828) => {
                self.raise_irq();
                NONE
            }
            (false, 29829) => {
                self.raise_irq();
                BOTH
            }
            (false, 29830) => {
                self.raise_irq();
                self.cycle = 0;
                NONE
            }
            (true, 37281) => BOTH,
            (true, 37282) => {
                self.cycle = 0;
                NONE
            }
            _ => NONE,
        }
    }

    fn raise_irq(&mut self) {
        if !self.irq_inhibit {
            self.irq_flag = true;
        }
    }
}
