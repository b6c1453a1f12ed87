//! The whole console: CPU plus bus. This is the API front ends, the AI and Lua use.

use crate::bus::Bus;
use crate::cartridge::{BatteryError, Cartridge, RomError};
use crate::controller::Buttons;
use crate::cpu::Cpu;
use crate::state::{self, fields, Field, Fnv1a, StateError, StateIo};

#[derive(Clone)]
pub struct Console {
    pub cpu: Cpu,
    pub bus: Bus,
}

impl Field for Console {
    fn visit(&mut self, io: &mut StateIo) {
        let Console { cpu, bus } = self;
        fields!(io, cpu, bus);
    }
}

impl Console {
    /// Plugs in the cartridge and powers on.
    pub fn new(cart: Cartridge) -> Console {
        let mut console = Console {
            cpu: Cpu::default(),
            bus: Bus::new(cart),
        };
        console.cpu.reset(&mut console.bus);
        console
    }

    pub fn from_ines(bytes: &[u8]) -> Result<Console, RomError> {
        Cartridge::from_ines(bytes).map(Console::new)
    }

    /// nestest's "automation mode": after power-on, start at $C000 instead of the reset vector,
    /// so the ROM runs all its tests without a display (CPU cycle 7, PPU at line 0, dot 21).
    pub fn start_nestest_automation(&mut self) {
        self.cpu.pc = 0xC000;
    }

    /// Turns the console off and on: RAM, CPU, PPU, APU and mapper registers start afresh;
    /// the cartridge's memory (battery RAM, CHR RAM) is kept.
    pub fn power_cycle(&mut self) {
        let mut cart = self.bus.cart.clone();
        cart.power_on_mapper();
        *self = Console::new(cart);
    }

    /// Presses the reset button: RAM is kept, the CPU runs its reset sequence.
    pub fn reset(&mut self) {
        self.bus.ppu.catch_up(&mut self.bus.cart);
        self.bus.ppu.reset();
        self.bus.apu.reset();
        self.cpu.reset(&mut self.bus);
    }

    /// Executes one instruction, or the IRQ/NMI sequence that replaces one (7 cycles).
    pub fn step(&mut self) {
        self.cpu.step(&mut self.bus);
    }

    /// Runs until the PPU starts a new frame.
    pub fn run_frame(&mut self) {
        let frame = self.bus.ppu.frame;
        while self.bus.ppu.frame == frame {
            self.step();
        }
        // The new frame's first pixels, as far as the CPU has got.
        self.bus.ppu.catch_up(&mut self.bus.cart);
    }

    /// Runs at least `n` CPU cycles, stopping at an instruction boundary.
    pub fn run_cycles(&mut self, n: u64) {
        let end = self.bus.cycles + n;
        while self.bus.cycles < end {
            self.step();
        }
    }

    /// Reads CPU memory without side effects.
    pub fn peek(&self, addr: u16) -> u8 {
        self.bus.peek(addr)
    }

    /// Writes CPU memory as the CPU would (registers react), without spending a cycle.
    pub fn write(&mut self, addr: u16, val: u8) {
        self.bus.write_untimed(addr, val);
    }

    /// The cartridge's battery-backed RAM (what a save file holds); `None` without a battery.
    pub fn battery_ram(&self) -> Option<&[u8]> {
        self.bus.cart.battery_ram()
    }

    /// Puts a save file's bytes back into the battery-backed RAM.
    pub fn load_battery_ram(&mut self, bytes: &[u8]) -> Result<(), BatteryError> {
        self.bus.cart.load_battery_ram(bytes)
    }

    /// The machine as a save state (see [`crate::state`] for the format). Taken between
    /// instructions, like every other look at the console.
    pub fn save_state(&self) -> Vec<u8> {
        let mut copy = self.clone();
        copy.bus.ppu.catch_up(&mut copy.bus.cart);
        let payload = StateIo::save(|io| copy.visit(io));
        state::encode(self.bus.cart.rom_hash(), &payload)
    }

    /// Restores a state from [`Console::save_state`]. On any error the console is untouched.
    pub fn load_state(&mut self, bytes: &[u8]) -> Result<(), StateError> {
        let payload = state::decode(bytes, self.bus.cart.rom_hash())?;
        let mut copy = self.clone();
        StateIo::load(payload, |io| copy.visit(io))?;
        *self = copy;
        Ok(())
    }

    /// A 64-bit FNV-1a hash of the frame buffer and the 2 KiB of RAM, to compare runs.
    pub fn hash(&self) -> u64 {
        if self.bus.ppu.lags() {
            // The pixels the render part still owes are part of the picture.
            let mut copy = self.clone();
            copy.bus.ppu.catch_up(&mut copy.bus.cart);
            return copy.hash();
        }
        let mut hash = Fnv1a::default();
        for pixel in &self.bus.ppu.frame_buffer {
            hash.write(&pixel.to_le_bytes());
        }
        hash.write(&self.bus.ram);
        hash.finish()
    }

    pub fn set_buttons(&mut self, port: usize, buttons: Buttons) {
        self.bus.pads[port].buttons = buttons;
    }
}
