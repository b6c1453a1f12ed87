//! The length counter that silences a channel after a set number of half frames.

/// Counts loaded by the top five bits of $4003/$4007/$400B/$400F.
const LENGTH_TABLE: [u8; 32] = [
    10, 254, 20, 2, 40, 4, 80, 6, 160, 8, 60, 10, 14, 12, 26, 14, 12, 16, 24, 18, 48, 20, 96, 22,
    192, 24, 72, 26, 16, 28, 32, 30,
];

#[derive(Clone, Default)]
pub struct LengthCounter {
    /// The channel's bit in $4015.
    enabled: bool,
    pub halt: bool,
    pub count: u8,
    /// The latest half-frame clock decremented the count.
    decremented: bool,
}

impl LengthCounter {
    pub fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
        if !enabled {
            self.count = 0;
        }
    }

    /// Loads from the table. `during_clock`: the write lands on the cycle of a half-frame
    /// clock; a reload then is lost if that clock decremented the counter (blargg's
    /// 11.len_reload_timing).
    pub fn load(&mut self, index: u8, during_clock: bool) {
        if self.enabled && !(during_clock && self.decremented) {
            self.count = LENGTH_TABLE[usize::from(index & 0x1F)];
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
