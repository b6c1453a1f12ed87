//! The native Tetris AI at the controls of `nestor` and `nestor run`: its command-line options,
//! and the `session::Player` that makes it an input source of the session.

use ai::driver::Driver;
use ai::rules::ORIENTATIONS;
use nes::{Buttons, Console};
use session::{Outline, Player};
use std::cell::RefCell;
use std::rc::Rc;

/// Where the game draws playfield square (0, 0), in NES pixels (tile column 12, row 5).
const PLAYFIELD_X: i16 = 96;
const PLAYFIELD_Y: i16 = 40;
const SQUARE: i16 = 8;

#[derive(clap::Args, Clone)]
pub struct AiArgs {
    /// Let the native Tetris AI play: classic (the article's weights) or strong (ours); `--ai`
    /// alone means strong.
    #[arg(long, value_name = "PROFILE", num_args = 0..=1, default_missing_value = "strong")]
    pub ai: Option<String>,
    /// How the AI moves pieces: controller (frame-exact button presses) or teleport (writes
    /// the lock position into RAM).
    #[arg(long, value_name = "MODE", default_value = "controller")]
    pub ai_mode: String,
    /// Level the AI picks on the level menu (0-19).
    #[arg(long, default_value_t = 18)]
    pub level: u8,
    /// The AI's maximum tap rate in Hz: 30, 20, 15, 12 or 10.
    #[arg(long, default_value_t = 30)]
    pub tap_hz: u32,
    /// Frames after each spawn before the AI looks at the preview piece (0-60; 18 is the
    /// standard competition format's 300 ms; controller mode).
    #[arg(long, value_name = "FRAMES", default_value_t = 0)]
    pub reaction: u8,
}

impl AiArgs {
    /// The driver these options describe (the strong profile if `--ai` is absent); the error
    /// is one line.
    pub fn driver(&self) -> anyhow::Result<Driver> {
        let profile = self.ai.as_deref().unwrap_or("strong");
        if self.reaction > ai::sim::MAX_REACTION {
            anyhow::bail!(
                "reaction of {} frames is over {} (a second)",
                self.reaction,
                ai::sim::MAX_REACTION
            );
        }
        let mut driver = Driver::from_options(profile, &self.ai_mode, self.level, self.tap_hz)
            .map_err(anyhow::Error::msg)?;
        driver.reaction = self.reaction;
        Ok(driver)
    }
}

/// The driver as the session's automatic player, shared with the front end that reports its
/// statistics.
pub struct AiPlayer(pub Rc<RefCell<Driver>>);

impl Player for AiPlayer {
    fn buttons(&mut self, console: &mut Console) -> Buttons {
        self.0.borrow_mut().decide(console)
    }

    /// The squares of the planned lock position.
    fn overlay(&self) -> Vec<Outline> {
        let Some(target) = self.0.borrow().target() else {
            return Vec::new();
        };
        ORIENTATIONS[target.id as usize]
            .iter()
            .map(|&(dx, dy)| (i16::from(target.x + dx), i16::from(target.y + dy)))
            .filter(|&(_, y)| y >= 0)
            .map(|(x, y)| Outline {
                x: (PLAYFIELD_X + x * SQUARE) as u16,
                y: (PLAYFIELD_Y + y * SQUARE) as u16,
                width: SQUARE as u16,
                height: SQUARE as u16,
            })
            .collect()
    }
}
