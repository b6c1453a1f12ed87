//! Movies on the machine, in the host's frames (`Console::run_frame`, FCEUX's convention: a
//! frame begins when the PPU enters the post-render line, and its input is latched before its
//! first instruction). One input line is one such frame, but for FCEUX's dead frames (see the
//! crate's description).

use crate::{Frame, Movie, POWER, SOFT_RESET};
use nes::{Buttons, Console, PowerOnRam};

/// The ROM's MD5 as FCEUX computes it for `romChecksum`: PRG ROM then CHR ROM, without the
/// header and the trainer.
pub fn rom_checksum(cart: &nes::Cartridge) -> [u8; 16] {
    let chr = &cart.chr()[..cart.header.chr_rom_size];
    crate::md5::digest(&[&cart.prg_rom[..], chr].concat())
}

/// Applies `commands` at the start of a frame: power (with RAM all $00), or else reset.
pub fn apply_commands(commands: u8, console: &mut Console) {
    if commands & POWER != 0 {
        console.power_cycle();
    } else if commands & SOFT_RESET != 0 {
        console.reset();
    }
}

impl Frame {
    /// Applies the frame's commands ([`apply_commands`]) and presses its pads (3 and 4 reach a
    /// Four Score only): call at the start of the frame, before it runs.
    pub fn apply(&self, console: &mut Console) {
        apply_commands(self.commands, console);
        for (player, &bits) in self.pads.iter().enumerate() {
            console.set_buttons(player, Buttons(bits));
        }
    }
}

/// A movie played on the machine from power-on, frame by frame.
pub struct Playback {
    frames: Vec<Frame>,
    ram: PowerOnRam,
}

impl Playback {
    pub fn new(movie: &Movie) -> Playback {
        Playback {
            frames: movie.host_frames(),
            ram: movie.power_on_ram(),
        }
    }

    /// The host frames the movie drives.
    pub fn frames(&self) -> usize {
        self.frames.len()
    }

    /// At the start of host frame `frame`: powers on (the first frame, and at power commands)
    /// with the movie's power-on RAM, resets, presses the pads; returns the frame as applied
    /// (the power-on of the first frame among its commands), or None once the movie is over.
    pub fn start_frame(&self, frame: usize, console: &mut Console) -> Option<Frame> {
        let line = *self.frames.get(frame)?;
        let power = frame == 0 || line.commands & POWER != 0;
        if power {
            console.power_cycle_with(self.ram);
        }
        let commands = if power { POWER } else { line.commands };
        Frame {
            commands: commands & !POWER,
            ..line
        }
        .apply(console);
        Some(Frame { commands, ..line })
    }
}

/// Logs a run's controller input and resets, one entry per host frame from power-on.
#[derive(Default)]
pub struct Recorder {
    frames: Vec<Frame>,
}

impl Recorder {
    /// Logs the frame just run: the commands applied at its start and the pads it latched
    /// (call once after each frame).
    pub fn log(&mut self, console: &Console, commands: u8) {
        self.frames.push(Frame {
            commands,
            pads: [0, 1, 2, 3].map(|player| console.buttons(player).0),
        });
    }

    pub fn frames(&self) -> usize {
        self.frames.len()
    }

    /// The frames logged so far.
    pub fn logged(&self) -> &[Frame] {
        &self.frames
    }

    /// The movie of the frames logged so far, with FCEUX's dead frames, and `header`'s other
    /// fields.
    pub fn movie(&self, header: &Movie) -> Movie {
        let mut movie = header.clone();
        movie.set_host_frames(&self.frames);
        movie
    }
}
