//! Ricoh 2A03 CPU core (a 6502 without decimal mode).
//!
//! Every cycle is one call to [`CpuBus::read`] or [`CpuBus::write`]; the bus advances the rest
//! of the machine inside that call, so the CPU never counts time itself.

/// What the CPU sees of the machine. Each call is exactly one CPU cycle.
pub trait CpuBus {
    fn read(&mut self, addr: u16) -> u8;
    fn write(&mut self, addr: u16, val: u8);
    /// The NMI output of the PPU after the last cycle (true = asserted).
    fn nmi_line(&self) -> bool;
    /// The wired-OR /IRQ line after the last cycle (true = asserted).
    fn irq_line(&self) -> bool;
}

/// Processor status flags.
pub mod flags {
    pub const C: u8 = 0x01;
    pub const Z: u8 = 0x02;
    pub const I: u8 = 0x04;
    pub const D: u8 = 0x08;
    pub const B: u8 = 0x10;
    pub const U: u8 = 0x20;
    pub const V: u8 = 0x40;
    pub const N: u8 = 0x80;
}

#[derive(Clone, Debug)]
pub struct Cpu {
    pub a: u8,
    pub x: u8,
    pub y: u8,
    pub s: u8,
    pub p: u8,
    pub pc: u16,
    /// A JAM opcode stopped the CPU; only reset restarts it.
    pub jammed: bool,
}

impl Default for Cpu {
    fn default() -> Self {
        Cpu {
            a: 0,
            x: 0,
            y: 0,
            s: 0xFD,
            p: 0x34,
            pc: 0,
            jammed: false,
        }
    }
}

impl Cpu {
    /// Runs the reset sequence (7 cycles, S -= 3, I set, PC from $FFFC).
    pub fn reset<B: CpuBus>(&mut self, _bus: &mut B) {
        unimplemented!("CPU in progress")
    }

    /// Executes one instruction, or one interrupt sequence when one is pending.
    pub fn step<B: CpuBus>(&mut self, _bus: &mut B) {
        unimplemented!("CPU in progress")
    }
}
