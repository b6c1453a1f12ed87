//! The native Tetris AI at the controls of `nestor` and `nestor run`: its command-line options,
//! and the `session::Player` that makes it an input source of the session.

use crate::tetris_stats::GameStats;
use ai::driver::Driver;
use ai::rules::{buttons, FIRST_ID, ORIENTATIONS, TYPE_NAMES, TYPE_OF};
use nes::{Buttons, Console};
use session::{Outline, Player, Style, Styles};
use std::cell::RefCell;
use std::rc::Rc;

/// Where the game draws playfield square (0, 0), in NES pixels (tile column 12, row 5).
const PLAYFIELD_X: i16 = 96;
const PLAYFIELD_Y: i16 = 40;
const SQUARE: i16 = 8;

#[derive(clap::Args, Clone)]
pub struct AiArgs {
    /// Let the native Tetris AI play: classic (the article's weights) or strong (ours); `--ai`
    /// alone means strong (in the window: the config's `ai.profile`, strong by default).
    #[arg(long, value_name = "PROFILE", num_args = 0..=1, default_missing_value = "")]
    pub ai: Option<String>,
    /// How the AI moves pieces: controller (frame-exact button presses) or teleport (writes
    /// the lock position into RAM).
    #[arg(long, value_name = "MODE", default_value = "controller")]
    pub ai_mode: String,
    /// Level the AI picks on the level menu (0-19).
    #[arg(long, default_value_t = 18)]
    pub level: u8,
    /// The AI's maximum tap rate in Hz: 30, 20, 15, 12 or 10 [default: 30, or in the window
    /// the config's `ai.tap_hz`].
    #[arg(long)]
    pub tap_hz: Option<u32>,
    /// The competition format: zero (the game as it is) or standard (18 frames of reaction,
    /// and the AI's game over at level 49, 430 lines from 18; Quadfall, like NES Tetris, has
    /// no double kill screen).
    #[arg(long, value_name = "FORMAT", default_value = "zero")]
    pub format: String,
    /// Frames after each spawn before the AI looks at the preview piece (0-60; controller
    /// mode) [default: the format's: 0, or 18 (300 ms) in the standard format].
    #[arg(long, value_name = "FRAMES")]
    pub reaction: Option<u32>,
    /// The AI's game is over when the level reaches this; it then lets the game end [default:
    /// the format's: none, or 49 in the standard format; 0: none].
    #[arg(long, value_name = "LEVEL")]
    pub cap_level: Option<u8>,
}

impl AiArgs {
    /// The profile named by `--ai`, if one is.
    pub fn profile(&self) -> Option<&str> {
        self.ai.as_deref().filter(|p| !p.is_empty())
    }

    /// The driver these options describe (the strong profile and 30 Hz when they name none);
    /// the error is one line.
    pub fn driver(&self) -> anyhow::Result<Driver> {
        let profile = self.profile().unwrap_or("strong");
        let format =
            ai::sim::Format::from_options(&self.format, self.reaction, self.cap_level, self.level)
                .map_err(anyhow::Error::msg)?;
        let mut driver = Driver::from_options(
            profile,
            &self.ai_mode,
            self.level,
            self.tap_hz.unwrap_or(30),
        )
        .map_err(anyhow::Error::msg)?;
        driver.set_reaction(format.reaction);
        driver.set_cap_level(format.cap_level);
        Ok(driver)
    }
}

/// The driver as the session's automatic player, shared with the front end that reports its
/// statistics, and the game's statistics for the window's AI panel.
pub struct AiPlayer {
    driver: Rc<RefCell<Driver>>,
    stats: GameStats,
}

impl AiPlayer {
    pub fn new(driver: Rc<RefCell<Driver>>) -> AiPlayer {
        AiPlayer {
            driver,
            stats: GameStats::default(),
        }
    }
}

impl Player for AiPlayer {
    fn buttons(&mut self, console: &mut Console) -> Buttons {
        self.driver.borrow_mut().decide(console)
    }

    fn observe(&mut self, console: &Console) {
        let cap = self.driver.borrow().cap_level();
        self.stats.observe(console, cap);
    }

    /// The plan (where the piece goes and the moves to get it there), the preview, then the
    /// game's statistics.
    fn panel(&self, console: &Console, playing: bool) -> Vec<String> {
        let driver = self.driver.borrow();
        let plan = match driver.target().filter(|_| playing) {
            Some(target) => {
                let kind = usize::from(TYPE_OF[usize::from(target.id) % TYPE_OF.len()]);
                let turns = target.id - FIRST_ID[kind];
                format!(
                    "Plan: {} to column {}, turned {turns}",
                    TYPE_NAMES[kind],
                    target.x + 1
                )
            }
            None => "Plan: -".into(),
        };
        let moves = moves(driver.planned_inputs());
        let moves = if moves.is_empty() || !playing {
            "-".into()
        } else {
            moves.join(", ")
        };
        let next = ai::driver::piece_in_play(console)
            .and_then(|p| p.next)
            .map_or("-".into(), |id| {
                TYPE_NAMES[usize::from(TYPE_OF[usize::from(id) % TYPE_OF.len()])].to_string()
            });
        let mut lines = vec![
            plan,
            format!("Next moves: {moves}"),
            format!("Next piece: {next}"),
        ];
        lines.extend(self.stats.report());
        lines
    }

    /// The profiles and tap rates `--ai` and `--tap-hz` take (no tap rate in teleport mode).
    fn styles(&self) -> Option<Styles> {
        let driver = self.driver.borrow();
        let tap_hz = driver.tap_hz();
        Some(Styles {
            current: Style {
                profile: driver.profile().into(),
                tap_hz: tap_hz.unwrap_or(0),
            },
            profiles: ai::eval::Profile::NAMES.to_vec(),
            tap_rates: match tap_hz {
                Some(_) => ai::controller::TAP_RATES
                    .iter()
                    .map(|&(hz, _)| hz)
                    .collect(),
                None => Vec::new(),
            },
        })
    }

    fn set_style(&mut self, style: &Style) -> Result<(), String> {
        self.driver
            .borrow_mut()
            .restyle(&style.profile, style.tap_hz)
    }

    /// The squares of the planned lock position.
    fn overlay(&self) -> Vec<Outline> {
        let Some(target) = self.driver.borrow().target() else {
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

/// The first few presses of planned inputs (held buttons a frame each), as words: a button
/// newly pressed is a move, the same move in a row is counted ("left x3"), and holding Down
/// is the drop.
fn moves(inputs: impl Iterator<Item = u8>) -> Vec<String> {
    const SHOWN: usize = 6;
    let names = [
        (buttons::LEFT, "left"),
        (buttons::RIGHT, "right"),
        (buttons::A, "A"),
        (buttons::B, "B"),
        (buttons::DOWN, "drop"),
    ];
    let mut runs: Vec<(&str, u32)> = Vec::new();
    let mut held = 0u8;
    for input in inputs {
        let pressed = input & !held;
        held = input;
        for (bit, name) in names {
            if pressed & bit == 0 {
                continue;
            }
            match runs.last_mut() {
                Some((last, count)) if *last == name && name != "drop" => *count += 1,
                _ => runs.push((name, 1)),
            }
        }
    }
    runs.into_iter()
        .take(SHOWN)
        .map(|(name, count)| match count {
            1 => name.to_string(),
            n => format!("{name} x{n}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planned_inputs_read_as_moves() {
        use buttons::*;
        let plan = [LEFT, 0, LEFT, 0, LEFT | A, 0, B, DOWN, DOWN, DOWN];
        assert_eq!(moves(plan.into_iter()), ["left x3", "A", "B", "drop"]);
        assert!(moves(std::iter::empty()).is_empty());
    }
}
