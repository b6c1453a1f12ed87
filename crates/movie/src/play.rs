//! Movies on the machine, in the host's frames (`Console::run_frame`, FCEUX's convention: a
//! frame begins when the PPU enters the post-render line, and its input is latched before its
//! first instruction). One input line is one such frame.

use crate::{Frame, Movie, POWER, SOFT_RESET};
use nes::{Buttons, Console};

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

/// Logs a run's controller input, one line per frame.
#[derive(Default)]
pub struct Recorder {
    frames: Vec<Frame>,
}

impl Recorder {
    /// Logs the pads the frame just run latched (call once after each frame).
    pub fn log(&mut self, console: &Console) {
        self.frames.push(Frame {
            commands: 0,
            pads: [console.buttons(0).0, console.buttons(1).0, 0, 0],
        });
    }

    pub fn frames(&self) -> usize {
        self.frames.len()
    }

    /// The movie of the frames logged so far, with `header`'s other fields.
    pub fn movie(&self, header: &Movie) -> Movie {
        Movie {
            frames: self.frames.clone(),
            ..header.clone()
        }
    }
}
