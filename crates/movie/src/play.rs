//! Movies on the machine, in FCEUX's frame convention: a frame begins when the PPU enters the
//! post-render line (240) and its input is latched before its first instruction; the first
//! frame after power-on runs on to the second entry, so that it contains a VBlank as FCEUX's
//! does. One input line is one such frame.

use crate::{Frame, Movie, POWER, SOFT_RESET};
use nes::{Buttons, Console};

/// The scanline where FCEUX's frames begin.
pub const FRAME_START_LINE: u16 = 240;

/// The movie frame the console is in (0 from power-on).
pub fn frame_number(console: &Console) -> u64 {
    let ppu = &console.bus.ppu;
    (ppu.frame + u64::from(ppu.scanline >= FRAME_START_LINE)).saturating_sub(1)
}

/// Runs to the start of the next movie frame.
pub fn run_frame(console: &mut Console) {
    let frame = frame_number(console);
    while frame_number(console) == frame {
        console.step();
    }
}

/// The ROM's MD5 as FCEUX computes it for `romChecksum`: PRG ROM then CHR ROM, without the
/// header and the trainer.
pub fn rom_checksum(cart: &nes::Cartridge) -> [u8; 16] {
    let chr = if cart.header.chr_rom_size > 0 {
        &cart.chr[..]
    } else {
        &[]
    };
    crate::md5::digest(&[&cart.prg_rom[..], chr].concat())
}

impl Frame {
    /// Applies the frame's commands (power, then reset) and presses its pads 1 and 2: call at
    /// the start of the frame, before it runs.
    pub fn apply(&self, console: &mut Console) {
        if self.commands & POWER != 0 {
            console.power_cycle();
        } else if self.commands & SOFT_RESET != 0 {
            console.reset();
        }
        for port in 0..2 {
            console.set_buttons(port, Buttons(self.pads[port]));
        }
    }
}

/// Logs a run's controller input, one line per movie frame.
#[derive(Default)]
pub struct Recorder {
    frames: Vec<Frame>,
}

impl Recorder {
    /// Logs the pads as they stand for every frame begun so far and not yet logged. Call it
    /// when the pads for the frame the console is in are set: before running a frame that
    /// starts where the console stands, or after a step of an input source that pressed its
    /// buttons and ran on (the AI: its steps end mid-frame, after the game's frame logic).
    pub fn log_started(&mut self, console: &Console) {
        self.log_until(console, frame_number(console) + 1);
    }

    /// Logs the pads as they stand for every frame that has ended and is not yet logged: call
    /// after running whole frames whose input was set at their start (Lua's frames).
    pub fn log_ended(&mut self, console: &Console) {
        self.log_until(console, frame_number(console));
    }

    fn log_until(&mut self, console: &Console, end: u64) {
        let pads = [0, 1].map(|port| console.bus.pads[port].buttons.0);
        while (self.frames.len() as u64) < end {
            self.frames.push(Frame {
                commands: 0,
                pads: [pads[0], pads[1], 0, 0],
            });
        }
    }

    pub fn frames(&self) -> usize {
        self.frames.len()
    }

    /// The movie of the logged frames.
    pub fn finish(self, mut movie: Movie) -> Movie {
        movie.frames = self.frames;
        movie
    }
}
