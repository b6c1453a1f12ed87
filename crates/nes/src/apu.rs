//! The 2A03's audio processing unit: two pulses, triangle, noise, DMC, frame counter.

#[derive(Clone, Default)]
pub struct Apu {}

impl Apu {
    pub fn reset(&mut self) {}

    /// Advances one CPU cycle.
    pub fn step(&mut self) {}

    /// $4015 read.
    pub fn read_status(&mut self) -> u8 {
        0
    }

    pub fn peek_status(&self) -> u8 {
        0
    }

    /// Write to $4000-$4013, $4015 or $4017.
    pub fn write_register(&mut self, _addr: u16, _val: u8) {}

    /// Frame-counter and DMC interrupt output (true = asserted).
    pub fn irq_line(&self) -> bool {
        false
    }
}
