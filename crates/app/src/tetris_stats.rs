//! The game statistics the classic Tetris community watches (as NestrisChamps and the CTWC
//! broadcasts show them), kept from RAM frame by frame whoever plays: Tetris rate, burns, the
//! drought since the last I piece, pieces of each type, pieces a second, lines to the next
//! level. For the window's AI panel.

use ai::rules::{POINTS, TYPE_NAMES, TYPE_OF};
use nes::Console;

/// $C0: the game's screen (NES Tetris's address, which Quadfall keeps); 4 is a game in play.
const GAME_MODE: u16 = 0xC0;
const MODE_PLAY: u8 = 4;
/// $48: the play state; 0 while a game is set up or taken down, with the last game's numbers
/// still in RAM.
const PLAY_STATE: u16 = 0x48;
/// The I piece's index in `TYPE_NAMES`.
const I_PIECE: usize = 6;
/// Where the game's score counter stops.
const MAX_SCORE: u32 = 999_999;

/// How a game ended, for the AI's player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameEnd {
    /// The uncapped score (see [`GameStats::uncapped_score`]).
    pub score: u64,
    pub lines: u32,
    pub level: u8,
    /// It reached the competition format's level cap (else it topped out).
    pub capped: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameStats {
    /// A game is in play (else the numbers are the last game's).
    playing: bool,
    start_level: u8,
    pub level: u8,
    pub lines: u32,
    /// The game's score counter, which stops at 999,999.
    pub score: u32,
    /// The score without that stop: the counter's rises while under it, then the points
    /// table's (line points times the level plus one; soft-drop points are no longer
    /// counted once the counter has stopped).
    pub uncapped_score: u64,
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
    /// The game's end has been reported (at the cap, the frames that follow are not counted).
    over: bool,
}

impl GameStats {
    /// Takes the frame just run into account; returns how the game ended when it just did: it
    /// topped out, or its level reached `cap_level`, after which it is no longer followed.
    pub fn observe(&mut self, console: &Console, cap_level: Option<u8>) -> Option<GameEnd> {
        let playing = console.peek(GAME_MODE) == MODE_PLAY && console.peek(PLAY_STATE) != 0;
        if !playing {
            let ended = (self.playing && !self.over).then(|| self.end(false));
            self.playing = false;
            self.piece_seen = false;
            return ended;
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
        if self.over {
            return None;
        }
        self.frames += 1;
        let score = ai::driver::score(console);
        self.level = ai::driver::level(console);
        let cleared = lines - self.lines;
        let risen = u64::from(score.saturating_sub(self.score));
        self.uncapped_score += match cleared {
            _ if score < MAX_SCORE => risen,
            // The clear's points, with the level it gave (the game adds them after counting
            // the lines).
            1..=4 => risen.max(POINTS[cleared as usize] * (u64::from(self.level) + 1)),
            _ => risen,
        };
        self.score = score;
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
        cap_level
            .is_some_and(|cap| self.level >= cap)
            .then(|| self.end(true))
    }

    fn end(&mut self, capped: bool) -> GameEnd {
        self.over = true;
        GameEnd {
            score: self.uncapped_score,
            lines: self.lines,
            level: self.level,
            capped,
        }
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
        let next = if self.over && self.playing {
            "The cap: the AI's game is over".into()
        } else {
            format!("Next level in {} lines", self.lines_to_next_level())
        };
        vec![
            format!(
                "Score {}  Lines {}  Level {}",
                self.uncapped_score, self.lines, self.level
            ),
            next,
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

    /// Past the counter's 999,999 the points come from the table, with the level the clear
    /// gave; at the cap the game is reported once, and not followed after.
    #[test]
    fn the_score_goes_on_past_the_counter_and_stops_at_the_cap() {
        let rom = include_bytes!("../../../roms/quadfall.nes");
        let mut console = Console::from_ines(rom).unwrap();
        // A game in play at level 48 with 424 lines and 999,900 points (BCD, low byte first).
        let set = |console: &mut Console, level: u8, lines: [u8; 2], score: [u8; 3]| {
            console.write(GAME_MODE, MODE_PLAY);
            console.write(PLAY_STATE, 1);
            console.write(0x44, level);
            console.write(0x50, lines[0]);
            console.write(0x51, lines[1]);
            for (i, b) in score.into_iter().enumerate() {
                console.write(0x53 + i as u16, b);
            }
        };
        let mut stats = GameStats::default();
        set(&mut console, 48, [0x24, 4], [0x00, 0x99, 0x99]);
        assert_eq!(stats.observe(&console, Some(49)), None);
        assert_eq!(stats.uncapped_score, 999_900);
        // A Tetris: the counter stops at 999,999; the table gives 1200 x 49.
        set(&mut console, 48, [0x28, 4], [0x99, 0x99, 0x99]);
        assert_eq!(stats.observe(&console, Some(49)), None);
        assert_eq!(stats.uncapped_score, 999_900 + 58_800);
        // A double to level 49 (100 x 50): the cap.
        set(&mut console, 49, [0x30, 4], [0x99, 0x99, 0x99]);
        let end = stats
            .observe(&console, Some(49))
            .expect("the cap ends the game");
        assert_eq!(
            end,
            GameEnd {
                score: 999_900 + 58_800 + 5_000,
                lines: 430,
                level: 49,
                capped: true
            }
        );
        // The rest of that game is not the AI's, nor is its end.
        set(&mut console, 49, [0x34, 4], [0x99, 0x99, 0x99]);
        assert_eq!(stats.observe(&console, Some(49)), None);
        assert_eq!((stats.lines, stats.uncapped_score), (430, end.score));
        console.write(GAME_MODE, 1);
        assert_eq!(stats.observe(&console, Some(49)), None);
        // The next game is set up with the last one's numbers in RAM: not a game yet.
        console.write(GAME_MODE, MODE_PLAY);
        console.write(PLAY_STATE, 0);
        assert_eq!(stats.observe(&console, Some(49)), None);
        assert!(!stats.playing);
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
            assert_eq!(stats.observe(&console, None), None);
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
        assert_eq!(stats.uncapped_score, u64::from(stats.score));
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
