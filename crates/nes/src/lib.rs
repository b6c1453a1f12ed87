//! The NES as a library: a Ricoh 2A03 CPU, a 2C02 PPU and the APU sharing one bus with a
//! cartridge. Nothing here touches files, windows or sound devices; front ends feed it bytes
//! and buttons and read back pixels, samples and memory.

pub mod apu;
pub mod bus;
pub mod cartridge;
pub mod console;
pub mod controller;
pub mod cpu;
pub mod game_genie;
pub mod header;
pub mod mapper;
pub mod ppu;
pub mod region;
pub mod state;
pub mod trace;
#[cfg(test)]
mod xorshift;

pub use cartridge::{BatteryError, Cartridge, RomError};
pub use console::{Console, PowerOnRam};
pub use controller::Buttons;
pub use game_genie::GameGenie;
pub use region::Region;
pub use state::StateError;
