//! The fast simulator: whole games played by the planner on the rules model, without the
//! emulator, in a competition format (reaction delay, double kill screen, cap). Used by
//! `ai-bench`, training and the tests.

use crate::controller::{execute, run, Pad};
use crate::eval::{ready_rows, Profile};
use crate::planner::{Decision, Planner, SearchKind};
use crate::rules::{Board, Control, Picker, Progress, FIRST_PIECE_DELAY, POINTS, SPAWN_ID};
use std::time::Instant;

/// Where the pieces come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pieces {
    /// The game's picker, with the RNG stepped every frame as the NMI does.
    Nes,
    /// Independent uniform choices (the article's Java simulator).
    Uniform,
}

/// The rules a competition format adds to the game's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Format {
    /// Frames from a spawn until the new preview piece is seen; the inputs of those frames are
    /// committed before it is known.
    pub reaction: u8,
    /// Two rows a frame from level 39.
    pub double_kill_screen: bool,
    /// The game ends when the level reaches this (it must be above the starting level).
    pub cap_level: Option<u8>,
}

/// The most frames of reaction a format may have (a second).
pub const MAX_REACTION: u8 = 60;

impl Format {
    /// The game as it is: the preview seen at the spawn, no double kill screen, no cap.
    pub const ZERO: Format = Format {
        reaction: 0,
        double_kill_screen: false,
        cap_level: None,
    };
    /// The standard competition format for NES Tetris bots (with level 18, 30 Hz taps, the
    /// game's piece picker and the uncapped score): 300 ms (18 frames) of reaction, the double
    /// kill screen from level 39, the game capped at level 49 (430 lines from level 18).
    pub const STANDARD: Format = Format {
        reaction: 18,
        double_kill_screen: true,
        cap_level: Some(49),
    };

    pub fn by_name(name: &str) -> Option<Format> {
        match name {
            "zero" => Some(Format::ZERO),
            "standard" => Some(Format::STANDARD),
            _ => None,
        }
    }

    /// The format named, with its reaction and cap replaced where given (a cap of 0: none),
    /// for games from `level`; the error is one line.
    pub fn from_options(
        name: &str,
        reaction: Option<u32>,
        cap_level: Option<u8>,
        level: u8,
    ) -> Result<Format, String> {
        let mut format = Format::by_name(name)
            .ok_or_else(|| format!("unknown format '{name}' (standard or zero)"))?;
        if let Some(frames) = reaction {
            if frames > MAX_REACTION as u32 {
                return Err(format!(
                    "reaction of {frames} frames is over {MAX_REACTION} (a second)"
                ));
            }
            format.reaction = frames as u8;
        }
        if let Some(cap) = cap_level {
            format.cap_level = (cap > 0).then_some(cap);
        }
        if let Some(cap) = format.cap_level.filter(|&cap| cap <= level) {
            return Err(format!(
                "cap level {cap} is not above the starting level {level}"
            ));
        }
        Ok(format)
    }
}

#[derive(Clone, Debug)]
pub struct GameConfig {
    pub level: u8,
    pub kind: SearchKind,
    pub pieces: Pieces,
    pub max_pieces: Option<u64>,
    pub seed: u64,
    /// Search the preview piece too.
    pub two_deep: bool,
    pub format: Format,
}

#[derive(Clone, Debug, Default)]
pub struct GameResult {
    pub lines: u64,
    /// Uncapped score (the game's own counter stops at 999,999).
    pub score: u64,
    /// The game's BCD score, capped.
    pub game_score: u32,
    pub start_level: u8,
    /// The level at the end.
    pub level: u8,
    pub pieces: u64,
    pub tetris_lines: u64,
    /// Uncapped score when the level first reached 19, 29 and 39, or the final score for a game
    /// that never did or started there.
    pub score_at_19: u64,
    pub score_at_29: u64,
    pub score_at_39: u64,
    pub full_clears: u64,
    /// Pieces placed below level 29, and how many of them spawned with the well Tetris-ready
    /// (four rows complete but for column 9 above its floor).
    pub pieces_before_29: u64,
    pub ready_before_29: u64,
    /// Line clears by their lines (singles, doubles, triples, Tetrises) in each band of levels
    /// (`LevelBand`): where the score comes from.
    pub clears: [[u64; 4]; 3],
    /// Locks by the row of the piece's origin.
    pub lock_rows: [u64; 20],
    /// Milliseconds spent on each decision (two a piece with a reaction delay: at the spawn
    /// and when the preview is seen).
    pub decision_ms: Vec<f32>,
    /// Controller plans whose execution did not land where the search promised (must be 0).
    pub mispredictions: u64,
}

/// The bands of levels the clears are counted in: before the kill screen, the kill screen
/// (a row a frame) and from the standard format's double kill screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelBand {
    Before29,
    From29To38,
    From39,
}

impl LevelBand {
    pub fn of(level: u8) -> LevelBand {
        match level {
            ..29 => LevelBand::Before29,
            29..39 => LevelBand::From29To38,
            _ => LevelBand::From39,
        }
    }
}

/// splitmix64: small, seedable, good enough for piece choice and RNG phases.
#[derive(Clone)]
pub struct SplitMix(pub u64);
impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A bumpy stack for tests and benchmarks: each column gets a height drawn from `heights`,
    /// and each of its cells is left empty one time in `hole_one_in`; full rows are cleared.
    pub fn ragged_board(&mut self, heights: std::ops::Range<u64>, hole_one_in: u64) -> Board {
        let mut b = Board::default();
        for x in 0..10 {
            let h = (heights.start + self.next_u64() % (heights.end - heights.start)) as i8;
            for y in (20 - h)..20 {
                if !self.next_u64().is_multiple_of(hole_one_in) {
                    b.set(x, y);
                }
            }
        }
        b.clear_rows();
        b
    }
}

#[derive(Clone)]
struct Source {
    kind: Pieces,
    picker: Picker,
    rand: SplitMix,
}

impl Source {
    fn new(kind: Pieces, seed: u64) -> Source {
        let mut rand = SplitMix(seed);
        let mut picker = Picker::default();
        // Start at a seed-dependent point of the RNG cycle, as menus of varying length would.
        for _ in 0..rand.next_u64() % 32767 {
            picker.frame();
        }
        Source { kind, picker, rand }
    }

    /// The next spawn ID, `frames` frames after the previous pick.
    fn next(&mut self, frames: u64) -> u8 {
        match self.kind {
            Pieces::Uniform => SPAWN_ID[(self.rand.next_u64() % 7) as usize],
            Pieces::Nes => {
                for _ in 0..frames {
                    self.picker.frame();
                }
                self.picker.pick()
            }
        }
    }
}

/// Plans the current piece as the format allows. Without a reaction delay it is planned at the
/// spawn with the preview. Otherwise it is planned at the spawn before the preview is seen
/// (`Planner::decide_unseen`), the first `reaction` frames of that plan are committed, and, if
/// the piece is still falling, it is planned again from there with the preview. The decision's
/// inputs run from the spawn; the time of each planning goes to `decision_ms`.
pub fn decide_piece(
    planner: &mut Planner,
    board: &Board,
    level: u8,
    start: Control,
    preview: Option<u8>,
    reaction: u8,
    decision_ms: &mut Vec<f32>,
) -> Option<Decision> {
    let mut timed = |decide: &mut dyn FnMut() -> Option<Decision>| {
        let t0 = Instant::now();
        let decision = decide();
        decision_ms.push(t0.elapsed().as_secs_f32() * 1000.0);
        decision
    };
    let reaction = reaction as usize;
    let period = match planner.tap_period() {
        Some(period) if reaction > 0 => period,
        _ => return timed(&mut || planner.decide(board, level, start, Pad::idle(), preview)),
    };
    let first = timed(&mut || planner.decide_unseen(board, level, start, Pad::idle()))?;
    if first.inputs.len() <= reaction {
        return Some(first);
    }
    let committed = &first.inputs[..reaction];
    let (mut ctl, mut pad) = (start, Pad::idle());
    if run(
        board,
        planner.gravity(level),
        &mut ctl,
        &mut pad,
        period,
        committed,
    ) {
        // Locked before the plan's end: the caller counts the misprediction.
        return Some(first);
    }
    let adjusted = timed(&mut || planner.decide(board, level, ctl, pad, preview))?;
    Some(Decision {
        target: adjusted.target,
        inputs: [committed, &adjusted.inputs].concat(),
    })
}

/// Plays one game to game over or `max_pieces`.
pub fn play(profile: &Profile, cfg: &GameConfig) -> GameResult {
    play_counting(profile, cfg, &|| {})
}

/// [`play`], calling `placed` after each piece (a progress bar's tick).
pub fn play_counting(profile: &Profile, cfg: &GameConfig, placed: &dyn Fn()) -> GameResult {
    play_observed(profile, cfg, &mut |_, _, _| placed())
}

/// [`play`], calling `locked` after each piece with the playfield after it (lines cleared),
/// the level it was placed at and the lines it cleared.
pub fn play_observed(
    profile: &Profile,
    cfg: &GameConfig,
    locked: &mut dyn FnMut(&Board, u8, u8),
) -> GameResult {
    let mut planner = planner_for(profile, cfg);
    let mut game = Game::new(cfg);
    while game.place(&mut planner, cfg, locked) {}
    game.finish()
}

/// The planner that plays `profile` in `cfg`'s format.
pub fn planner_for(profile: &Profile, cfg: &GameConfig) -> Planner {
    let mut planner =
        Planner::new(profile.clone(), cfg.kind).expect("tap rate checked by the caller");
    planner.double_kill_screen = cfg.format.double_kill_screen;
    planner.capped = cfg.format.cap_level.is_some();
    planner
}

/// A game in progress: the playfield, the counters, the pieces to come and what is measured
/// so far. A clone goes on with the same pieces, so one game can be continued by several
/// profiles from the same point (training from the level-29 transition).
#[derive(Clone)]
pub struct Game {
    board: Board,
    progress: Progress,
    source: Source,
    current: u8,
    next: u8,
    first: bool,
    autorepeat_x: u8,
    score_at: [Option<u64>; 3],
    over: bool,
    r: GameResult,
}

impl Game {
    pub fn new(cfg: &GameConfig) -> Game {
        let mut source = Source::new(cfg.pieces, cfg.seed);
        let current = source.next(0);
        let next = source.next(0);
        Game {
            board: Board::default(),
            progress: Progress::new(cfg.level),
            source,
            current,
            next,
            first: true,
            autorepeat_x: 0,
            score_at: [None; 3],
            over: false,
            r: GameResult {
                start_level: cfg.level,
                level: cfg.level,
                ..Default::default()
            },
        }
    }

    pub fn level(&self) -> u8 {
        self.progress.level
    }

    /// The uncapped score so far.
    pub fn score(&self) -> u64 {
        self.r.score
    }

    /// Plans and locks the current piece; false when the game is over (a top-out, the
    /// format's cap or `cfg.max_pieces`), and then it places nothing more.
    pub fn place(
        &mut self,
        planner: &mut Planner,
        cfg: &GameConfig,
        locked: &mut dyn FnMut(&Board, u8, u8),
    ) -> bool {
        if self.over || cfg.max_pieces.is_some_and(|m| self.r.pieces >= m) {
            return false;
        }
        self.over = !self.lock_next(planner, cfg, locked);
        !self.over
    }

    fn lock_next(
        &mut self,
        planner: &mut Planner,
        cfg: &GameConfig,
        locked: &mut dyn FnMut(&Board, u8, u8),
    ) -> bool {
        let (board, r) = (&mut self.board, &mut self.r);
        let mut start = Control::spawned(self.current, self.autorepeat_x);
        if self.first {
            start.autorepeat_y = FIRST_PIECE_DELAY;
            self.first = false;
        }
        if !board.fits(self.current, start.piece.x, start.piece.y) {
            return false;
        }
        let preview = cfg.two_deep.then_some(self.next);
        let Some(decision) = decide_piece(
            planner,
            board,
            self.progress.level,
            start,
            preview,
            cfg.format.reaction,
            &mut r.decision_ms,
        ) else {
            return false;
        };
        let mut hold_down_points = 0;
        let mut frames = 10 + decision.inputs.len() as u64;
        if let SearchKind::Controller { .. } = cfg.kind {
            let gravity = planner.gravity(self.progress.level);
            match execute(board, gravity, start, 0, &decision.inputs) {
                Some(end) if end.piece == decision.target => {
                    hold_down_points = end.hold_down_points;
                    self.autorepeat_x = end.autorepeat_x;
                }
                _ => {
                    r.mispredictions += 1;
                    return false;
                }
            }
        } else {
            // Placement mode has no frame count: take a plausible time to move the piece.
            frames += 8 + self.source.rand.next_u64() % 40;
        }
        if self.progress.level < 29 {
            r.pieces_before_29 += 1;
            if ready_rows(board, &board.heights(), 9) >= 4 {
                r.ready_before_29 += 1;
            }
        }
        let t = decision.target;
        r.lock_rows[t.y.clamp(0, 19) as usize] += 1;
        let cleared = board.lock(t.id, t.x, t.y);
        let level_before = self.progress.level;
        self.progress.lock(cleared, hold_down_points);
        r.pieces += 1;
        locked(board, level_before, cleared);
        r.lines += cleared as u64;
        r.score += POINTS[cleared as usize] * (self.progress.level as u64 + 1);
        if hold_down_points >= 2 {
            r.score += hold_down_points as u64 - 1;
        }
        if cleared == 4 {
            r.tetris_lines += 4;
        }
        if cleared > 0 {
            frames += 20;
            r.clears[LevelBand::of(level_before) as usize][cleared as usize - 1] += 1;
            if board.is_empty() {
                r.full_clears += 1;
            }
        }
        for (level, score_at) in [19, 29, 39].into_iter().zip(&mut self.score_at) {
            if score_at.is_none() && self.progress.level >= level && r.start_level < level {
                *score_at = Some(r.score);
            }
        }
        if cfg
            .format
            .cap_level
            .is_some_and(|cap| self.progress.level >= cap)
        {
            return false;
        }
        self.current = self.next;
        self.next = self.source.next(frames);
        true
    }

    /// What the game measured, the scores at levels it never reached being its final one.
    pub fn finish(mut self) -> GameResult {
        let [at_19, at_29, at_39] = self.score_at;
        let r = &mut self.r;
        r.score_at_19 = at_19.unwrap_or(r.score);
        r.score_at_29 = at_29.unwrap_or(r.score);
        r.score_at_39 = at_39.unwrap_or(r.score);
        r.level = self.progress.level;
        r.game_score = self.progress.score_value();
        self.r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Gravity;

    fn strong() -> Profile {
        Profile::by_name("strong").unwrap()
    }

    fn config(level: u8, format: Format, max_pieces: u64, seed: u64) -> GameConfig {
        GameConfig {
            level,
            kind: SearchKind::Controller { tap_hz: 30 },
            pieces: Pieces::Nes,
            max_pieces: Some(max_pieces),
            seed,
            two_deep: true,
            format,
        }
    }

    #[test]
    fn a_plan_under_reaction_commits_its_first_frames_before_the_preview_is_seen() {
        let mut planner = Planner::new(strong(), SearchKind::Controller { tap_hz: 30 }).unwrap();
        let mut r = SplitMix(5);
        let mut times = Vec::new();
        for level in [18, 19, 29] {
            let board = r.ragged_board(2..8, 6);
            for &current in &SPAWN_ID {
                let start = Control::spawned(current, 0);
                let plans: Vec<Decision> = SPAWN_ID
                    .iter()
                    .map(|&preview| {
                        let d = decide_piece(
                            &mut planner,
                            &board,
                            level,
                            start,
                            Some(preview),
                            18,
                            &mut times,
                        );
                        d.unwrap()
                    })
                    .collect();
                for d in &plans {
                    let first = |d: &Decision| d.inputs[..18.min(d.inputs.len())].to_vec();
                    assert_eq!(first(d), first(&plans[0]), "level {level}");
                    let end = execute(&board, Gravity::at(level, false), start, 0, &d.inputs);
                    assert_eq!(end.map(|c| c.piece), Some(d.target), "level {level}");
                }
            }
        }
    }

    #[test]
    fn the_cap_ends_the_game_when_the_level_reaches_it() {
        // From level 18 the level reaches 20 at 140 lines.
        let format = Format {
            cap_level: Some(20),
            ..Format::STANDARD
        };
        let r = play(&strong(), &config(18, format, 1500, 1));
        assert_eq!(r.level, 20);
        assert!((140..144).contains(&r.lines), "{} lines", r.lines);
        assert!(r.score_at_19 < r.score);
        assert_eq!(r.score_at_29, r.score, "never reached: the final score");
        // Every clear of the game came below level 29, counted by its lines.
        let [singles, doubles, triples, tetrises] = r.clears[LevelBand::Before29 as usize];
        assert_eq!(singles + 2 * doubles + 3 * triples + 4 * tetrises, r.lines);
        assert_eq!(4 * tetrises, r.tetris_lines);
    }

    #[test]
    fn clears_are_counted_in_the_band_of_their_level() {
        assert_eq!(LevelBand::of(28), LevelBand::Before29);
        assert_eq!(LevelBand::of(29), LevelBand::From29To38);
        assert_eq!(LevelBand::of(38), LevelBand::From29To38);
        assert_eq!(LevelBand::of(39), LevelBand::From39);
        // From level 29 and 39 the level stays in its band for these pieces.
        for (level, band) in [(29, LevelBand::From29To38), (39, LevelBand::From39)] {
            let r = play(&strong(), &config(level, Format::STANDARD, 100, 3));
            let lines = |clears: &[u64; 4]| (1..=4).zip(clears).map(|(n, c)| n * c).sum::<u64>();
            assert!(r.lines > 10, "level {level}: {} lines", r.lines);
            assert_eq!(lines(&r.clears[band as usize]), r.lines, "level {level}");
        }
    }

    #[test]
    fn standard_format_plans_land_where_promised() {
        // From 18 (re-plans at 3 and 2 frames a row), 29 (the piece has fallen 18 rows when
        // the preview is seen) and 39 (double kill screen: locked before it is seen).
        for (level, pieces) in [(18, 300), (29, 150), (39, 100)] {
            let r = play(&strong(), &config(level, Format::STANDARD, pieces, 2));
            assert_eq!(r.mispredictions, 0, "level {level}");
            assert!(r.pieces >= 30, "level {level}: {} pieces", r.pieces);
        }
    }

    #[test]
    fn the_kill_screen_builds_tetrises_while_the_stack_is_low() {
        // Levels 29-37 at a row a frame, from an empty playfield: the strong profile keeps a
        // well and takes Tetrises (the classic function it used to hand over to there made
        // none). Four games of 300 pieces: 84 of 332 lines by Tetrises.
        let (mut lines, mut tetris_lines) = (0, 0);
        for seed in 1..=4 {
            let r = play(&strong(), &config(29, Format::STANDARD, 300, seed));
            assert_eq!(r.mispredictions, 0);
            assert!(r.level < 38, "level {}", r.level);
            lines += r.lines;
            tetris_lines += r.tetris_lines;
        }
        let share = tetris_lines as f64 / lines as f64;
        assert!(
            lines > 250 && share > 0.2,
            "{tetris_lines} of {lines} lines by Tetrises"
        );
    }
}
