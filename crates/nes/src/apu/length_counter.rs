//! The length counter that silences a channel after a set number of half frames.

use crate::state::{fields, Field, StateIo};

/// Counts loaded by the top five bits of $4003/$4007/$400B/$400F.
const LENGTH_TABLE: [u8; 32] = [
    10, 254, 20, 2, 40, 4, 80, 6, 160, 8, 60, 10, 14, 12, 26, 14, 12, 16, 24, 18, 48, 20, 96, 22,
    192, 24, 72, 26, 16, 28, 32, 30,
];

/// Register writes reach the counter one cycle late, after that cycle's half-frame clock
/// (blargg's 10.len_halt_timing and 11.len_reload_timing).
#[derive(Clone, Debug, Default)]
pub struct LengthCounter {
    /// The channel's bit in $4015.
    enabled: bool,
    halt: bool,
    pub count: u8,
    /// The latest half-frame clock decremented the count.
    decremented: bool,
    pending_halt: Option<bool>,
    pending_load: Option<u8>,
}

impl Field for LengthCounter {
    fn visit(&mut self, io: &mut StateIo) {
        let LengthCounter {
            enabled,
            halt,
            count,
            decremented,
            pending_halt,
            pending_load,
        } = self;
        fields!(
            io,
            enabled,
            halt,
            count,
            decremented,
            pending_halt,
            pending_load
        );
    }
}

impl LengthCounter {
    pub fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
        if !enabled {
            self.count = 0;
        }
    }

    pub fn set_halt(&mut self, halt: bool) {
        self.pending_halt = Some(halt);
    }

    /// Loads from the table (on the next cycle).
    pub fn load(&mut self, index: u8) {
        self.pending_load = Some(LENGTH_TABLE[usize::from(index & 0x1F)]);
    }

    /// Applies the writes of the previous cycle. `clocked`: this cycle had a half-frame clock;
    /// a load is then lost if that clock decremented the counter.
    pub fn apply_writes(&mut self, clocked: bool) {
        if let Some(count) = self.pending_load.take() {
            if self.enabled && !(clocked && self.decremented) {
                self.count = count;
            }
        }
        if let Some(halt) = self.pending_halt.take() {
            self.halt = halt;
        }
    }

    pub fn half_frame(&mut self) {
        self.decremented = self.count > 0 && !self.halt;
        if self.decremented {
            self.count -= 1;
        }
    }

    pub fn active(&self) -> bool {
        self.count > 0
    }
}
