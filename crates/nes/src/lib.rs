//! The NES as a library: a Ricoh 2A03 CPU, a 2C02 PPU and the APU sharing one bus with a
//! cartridge. Nothing here touches files, windows or sound devices; front ends feed it bytes
//! and buttons and read back pixels, samples and memory.

pub mod apu;
pub mod bus;
pub mod cartridge;
pub mod console;
pub mod controller;
pub mod cpu;
pub mod four_score;
pub mod game_genie;
pub mod header;
pub mod mapper;
pub mod port;
pub mod ppu;
pub mod region;
pub mod state;
pub mod trace;
pub mod vaus;
#[cfg(test)]
mod xorshift;
pub mod zapper;

pub use cartridge::{BatteryError, Cartridge, RomError};
pub use console::{Console, PowerOnRam};
pub use controller::Buttons;
pub use game_genie::GameGenie;
pub use port::{Device, Plug};
pub use region::Region;
pub use state::StateError;
