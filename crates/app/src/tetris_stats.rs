//! The game statistics the classic Tetris community watches (as NestrisChamps and the CTWC
//! broadcasts show them), kept from RAM frame by frame whoever plays: Tetris rate, burns, the
//! drought since the last I piece, pieces of each type, pieces a second, lines to the next
//! level. For the window's AI panel.

use ai::rules::{TYPE_NAMES, TYPE_OF};
use nes::Console;

/// $C0: the game's screen (NES Tetris's address, which Quadfall keeps); 4 is a game in play.
const GAME_MODE: u16 = 0xC0;
const MODE_PLAY: u8 = 4;
/// The I piece's index in `TYPE_NAMES`.
const I_PIECE: usize = 6;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameStats {
    /// A game is in play (else the numbers are the last game's).
    playing: bool,
    start_level: u8,
    pub level: u8,
    pub lines: u32,
    pub score: u32,
    /// Frames since the game began.
    pub frames: u64,
    /// Pieces dealt, by type (T J Z O S L I).
    pub pieces: [u32; 7],
    /// Pieces since the last I piece.
    pub drought: u32,
    pub longest_drought: u32,
    /// Line clears of 1, 2, 3 and 4 lines.
    pub clears: [u32; 4],
    /// A piece was in play at the last frame.
    piece_seen: bool,
}

impl GameStats {
    /// Takes the frame just run into account.
    pub fn observe(&mut self, console: &Console) {
        let playing = console.peek(GAME_MODE) == MODE_PLAY;
        if !playing {
            self.playing = false;
            self.piece_seen = false;
            return;
        }
        let lines = ai::driver::lines(console);
        if !self.playing || lines < self.lines {
            // A new game (or a state of another one loaded).
            *self = GameStats {
                playing: true,
                lines,
                ..GameStats::default()
            };
        }
        self.frames += 1;
        self.score = ai::driver::score(console);
        self.level = ai::driver::level(console);
        let cleared = lines - self.lines;
        if (1..=4).contains(&cleared) {
            self.clears[cleared as usize - 1] += 1;
        }
        self.lines = lines;
        let piece = ai::driver::piece_in_play(console);
        if let (Some(piece), false) = (&piece, self.piece_seen) {
            if self.pieces == [0; 7] {
                // The level chosen is in place once the first piece is.
                self.start_level = piece.level;
            }
            let kind = usize::from(TYPE_OF[usize::from(piece.control.piece.id) % TYPE_OF.len()]);
            self.pieces[kind] += 1;
            if kind == I_PIECE {
                self.drought = 0;
            } else {
                self.drought += 1;
                self.longest_drought = self.longest_drought.max(self.drought);
            }
        }
        self.piece_seen = piece.is_some();
    }

    /// Share of the lines cleared by Tetrises (four at once), 0 to 1.
    pub fn tetris_rate(&self) -> Option<f64> {
        let lines: u32 = (1..=4).map(|n| n * self.clears[n as usize - 1]).sum();
        (lines > 0).then(|| f64::from(4 * self.clears[3]) / f64::from(lines))
    }

    /// Lines cleared one to three at a time.
    pub fn burns(&self) -> u32 {
        (1..=3).map(|n| n * self.clears[n as usize - 1]).sum()
    }

    /// Lines still to clear for the next level: the first transition comes after
    /// min(10 L + 10, max(100, 10 L - 50)) lines from level L, then every 10.
    pub fn lines_to_next_level(&self) -> u32 {
        let start = u32::from(self.start_level);
        let first = (10 * start + 10).min(100.max((10 * start).saturating_sub(50)));
        if self.lines < first {
            first - self.lines
        } else {
            10 - (self.lines - first) % 10
        }
    }

    /// The panel's lines.
    pub fn report(&self) -> Vec<String> {
        let pieces: u32 = self.pieces.iter().sum();
        let seconds = self.frames as f64 / desktop::FRAME_RATE;
        let per_second = if seconds > 0.0 {
            f64::from(pieces) / seconds
        } else {
            0.0
        };
        let rate = self
            .tetris_rate()
            .map_or("-".into(), |r| format!("{:.0}%", r * 100.0));
        let [singles, doubles, triples, tetrises] = self.clears;
        let by_type: Vec<String> = TYPE_NAMES
            .iter()
            .zip(self.pieces)
            .map(|(name, count)| format!("{name} {count}"))
            .collect();
        vec![
            format!(
                "Score {}  Lines {}  Level {}",
                self.score, self.lines, self.level
            ),
            format!("Next level in {} lines", self.lines_to_next_level()),
            format!("Tetris rate {rate}  ({tetrises} Tetrises)"),
            format!(
                "Burns {}  ({singles} singles, {doubles} doubles, {triples} triples)",
                self.burns()
            ),
            format!(
                "Drought {}  (longest {})",
                self.drought, self.longest_drought
            ),
            format!("Pieces {pieces}  {per_second:.2} a second"),
            by_type.join("  "),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ai::driver::Driver;

    #[test]
    fn lines_to_the_next_level_follow_the_transition_rule() {
        let stats = |start_level, lines| GameStats {
            start_level,
            lines,
            ..GameStats::default()
        };
        assert_eq!(stats(0, 0).lines_to_next_level(), 10);
        assert_eq!(stats(0, 13).lines_to_next_level(), 7);
        // Level 18: first after 130 lines; level 19: 140; level 29: 240 (10 L - 50).
        assert_eq!(stats(18, 0).lines_to_next_level(), 130);
        assert_eq!(stats(19, 139).lines_to_next_level(), 1);
        assert_eq!(stats(19, 140).lines_to_next_level(), 10);
        assert_eq!(stats(29, 0).lines_to_next_level(), 240);
        assert_eq!(stats(15, 0).lines_to_next_level(), 100);
    }

    /// The AI plays Quadfall; the statistics kept from RAM agree with its own count.
    #[test]
    fn statistics_follow_a_game_the_ai_plays() {
        let rom = include_bytes!("../../../roms/quadfall.nes");
        let mut console = Console::from_ines(rom).unwrap();
        let mut driver = Driver::from_options("strong", "controller", 18, 30).unwrap();
        let mut stats = GameStats::default();
        for _ in 0..4000 {
            driver.step(&mut console);
            stats.observe(&console);
        }
        let pieces: u32 = stats.pieces.iter().sum();
        assert!(pieces > 50, "{stats:?}");
        // The driver counts a piece when it plans it, one frame after it shows.
        assert!(
            u64::from(pieces).abs_diff(driver.stats.pieces) <= 1,
            "{stats:?}"
        );
        assert_eq!(stats.lines, ai::driver::lines(&console));
        assert!(stats.lines > 10, "{stats:?}");
        assert_eq!(stats.burns() + 4 * stats.clears[3], stats.lines);
        assert_eq!(stats.level, 18 + u8::from(stats.lines >= 130));
        assert_eq!(stats.start_level, 18);
        assert!(stats.drought <= stats.longest_drought);
        let report = stats.report();
        assert!(
            report[0].starts_with(&format!("Score {}", stats.score)),
            "{report:?}"
        );
        assert!(
            report.iter().any(|l| l.starts_with("Tetris rate")),
            "{report:?}"
        );
    }
}
