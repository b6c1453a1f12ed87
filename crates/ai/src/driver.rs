//! The driver: plays NES Tetris (or the project's own Quadfall) in the emulator through the
//! controller, from power-on. Each frame it reads RAM, goes through the legal, title, type and
//! level screens, detects spawns, plans with the `Planner`, feeds the plan's buttons frame by
//! frame, checks the game against the rules model's prediction and re-plans if they disagree.
//! In teleport mode it writes the lock position into $40-$42 and $60-$62 instead.

use crate::controller::Pad;
use crate::eval::Profile;
use crate::planner::{Planner, SearchKind};
use crate::rules::{buttons::*, Board, Control, Gravity, Piece};
use nes::controller::Buttons;
use nes::Console;
use std::collections::VecDeque;

// RAM: NES Tetris's addresses, which Quadfall keeps (the RAM section of roms/quadfall.s).
const VBLANK_FLAG: u16 = 0x33;
const PIECE_X: u16 = 0x40;
const PIECE_Y: u16 = 0x41;
const PIECE_ID: u16 = 0x42;
const LEVEL: u16 = 0x44;
const FALL_TIMER: u16 = 0x45;
const AUTOREPEAT_X: u16 = 0x46;
const PLAY_STATE: u16 = 0x48;
const AUTOREPEAT_Y: u16 = 0x4E;
const HOLD_DOWN_POINTS: u16 = 0x4F;
const LINES: u16 = 0x50;
const SCORE: u16 = 0x53;
const CURTAIN_ROW: u16 = 0x58;
const PLAYER1_COPY: u16 = 0x60;
const NEXT_PIECE: u16 = 0xBF;
const GAME_MODE: u16 = 0xC0;
const PLAYFIELD: u16 = 0x0400;

const MODE_LEVEL_MENU: u8 = 3;
const MODE_PLAY: u8 = 4;
const STATE_PLAYING: u8 = 1;
const STATE_CURTAIN: u8 = 0x0A;

/// How the driver moves pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Frame-exact controller inputs at a maximum tap rate.
    Controller { tap_hz: u32 },
    /// Writes the lock position into RAM at each spawn (the article's PLAY_FAST).
    Teleport,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DriverStats {
    /// Games started (A-type, from the level menu).
    pub games: u32,
    /// Pieces planned.
    pub pieces: u64,
    /// Re-plans because the game did not do what the model predicted.
    pub replans: u64,
    /// Lines cleared in the current game (from RAM).
    pub lines: u32,
}

pub struct Driver {
    planner: Planner,
    mode: Mode,
    level: u8,
    menu: VecDeque<u8>,
    menu_mode: u8,
    prev_play_state: u8,
    plan: VecDeque<u8>,
    /// The rules model's state after the inputs fed so far (controller mode).
    expected: Option<Control>,
    board: Board,
    planned_level: u8,
    /// Where the piece must lock.
    target: Option<Piece>,
    /// The buttons of the previous frame and the tap cool-downs.
    pad: Pad,
    /// What [`Driver::decide`] pressed last, in the console's bit order.
    pressed: Buttons,
    /// Frame starts in a row at which the game was still busy.
    lag_frames: u8,
    frame: u64,
    /// Frames from a spawn until the preview is read (controller mode): before, the piece is
    /// planned without it (`Planner::decide_unseen`); at that frame, again with it.
    reaction: u8,
    /// Inputs fed to the current piece.
    piece_frames: u32,
    /// A competition format's level cap: the game is over for the driver there.
    cap_level: Option<u8>,
    pub stats: DriverStats,
}

impl Driver {
    /// None if the tap rate is not supported. `level` is the level chosen on the menu (0-19).
    pub fn new(profile: Profile, mode: Mode, level: u8) -> Option<Driver> {
        let kind = match mode {
            Mode::Controller { tap_hz } => SearchKind::Controller { tap_hz },
            Mode::Teleport => SearchKind::Placement,
        };
        Some(Driver {
            planner: Planner::new(profile, kind)?,
            mode,
            level,
            menu: VecDeque::new(),
            menu_mode: 0xFF,
            prev_play_state: 0,
            plan: VecDeque::new(),
            expected: None,
            board: Board::default(),
            planned_level: 0,
            target: None,
            pad: Pad::idle(),
            pressed: Buttons::default(),
            lag_frames: 0,
            frame: 0,
            reaction: 0,
            piece_frames: 0,
            cap_level: None,
            stats: DriverStats::default(),
        })
    }

    /// The driver for `nestor run --ai PROFILE --ai-mode MODE --level L --tap-hz H`, with a
    /// one-line error for bad names.
    pub fn from_options(
        profile: &str,
        mode: &str,
        level: u8,
        tap_hz: u32,
    ) -> Result<Driver, String> {
        let profile = Profile::by_name(profile)
            .ok_or_else(|| format!("unknown AI profile '{profile}' (classic or strong)"))?;
        let mode = match mode {
            "controller" => Mode::Controller { tap_hz },
            "teleport" => Mode::Teleport,
            m => return Err(format!("unknown AI mode '{m}' (controller or teleport)")),
        };
        if level > 19 {
            return Err(format!("level {level} is not on the level menu (0-19)"));
        }
        Driver::new(profile, mode, level)
            .ok_or_else(|| format!("unsupported tap rate {tap_hz} Hz (30, 20, 15, 12 or 10)"))
    }

    /// Reads the preview `frames` after each spawn. With a delay, the strong profile plays
    /// below level 29 with the weights trained for the standard format's delay
    /// ([`Profile::standard`]), as `ai-bench --format standard` does.
    pub fn set_reaction(&mut self, frames: u8) {
        self.reaction = frames;
        if frames > 0 && matches!(self.planner.profile, Profile::Strong(_)) {
            self.planner.profile = Profile::standard();
        }
    }

    /// Plays each game only until the level reaches `cap` (a competition format's cap, the
    /// standard format's 49): from there it presses nothing and the game runs on to its end.
    /// The planner knows the game is capped, which changes its play on the kill screen
    /// (`Profile::at`).
    pub fn set_cap_level(&mut self, cap: Option<u8>) {
        self.cap_level = cap;
        self.planner.capped = cap.is_some();
    }

    /// The level cap, if the format has one.
    pub fn cap_level(&self) -> Option<u8> {
        self.cap_level
    }

    /// Whether the game in play has reached the level cap.
    fn at_cap(&self, console: &Console) -> bool {
        self.cap_level.is_some_and(|cap| console.peek(LEVEL) >= cap)
    }

    /// The evaluation profile's name.
    pub fn profile(&self) -> &'static str {
        self.planner.profile.name()
    }

    /// The maximum tap rate in controller mode (None in teleport mode).
    pub fn tap_hz(&self) -> Option<u32> {
        match self.mode {
            Mode::Controller { tap_hz } => Some(tap_hz),
            Mode::Teleport => None,
        }
    }

    /// Plays with another profile and tap rate (the tap rate is for controller mode) from the
    /// next piece on: the driver starts afresh with its mode, level and reaction, and finds its
    /// place in the game from RAM. The error is [`Driver::from_options`]'s.
    pub fn restyle(&mut self, profile: &str, tap_hz: u32) -> Result<(), String> {
        let mode = match self.mode {
            Mode::Controller { .. } => "controller",
            Mode::Teleport => "teleport",
        };
        let mut driver = Driver::from_options(profile, mode, self.level, tap_hz)?;
        driver.set_reaction(self.reaction);
        driver.set_cap_level(self.cap_level);
        *self = driver;
        Ok(())
    }

    /// Controller 1's buttons for the host frame about to start, chosen from RAM at its input
    /// latch. While the game is still busy with the last frame's logic (a lag frame: $33 is
    /// still set), the buttons stay as they are, because the game has not acted on them yet;
    /// screens drawn with NMIs off never clear $33, so after two such frames it decides anyway.
    pub fn decide(&mut self, console: &mut Console) -> Buttons {
        if console.peek(VBLANK_FLAG) != 0 && self.lag_frames < 2 {
            self.lag_frames += 1;
            return self.pressed;
        }
        self.lag_frames = 0;
        let held = self.buttons(console);
        self.pad = self.pad.after(held, 8);
        self.frame += 1;
        self.pressed = Buttons(held.reverse_bits());
        self.pressed
    }

    /// Presses this frame's buttons and runs the frame (for runs without a host session).
    pub fn step(&mut self, console: &mut Console) {
        let buttons = self.decide(console);
        console.set_buttons(0, buttons);
        console.run_frame();
    }

    /// Where the current piece is planned to lock (for the window's overlay).
    pub fn target(&self) -> Option<Piece> {
        self.target
    }

    /// The buttons still planned for the current piece, a frame each (the rules' bit order),
    /// for the window's AI panel.
    pub fn planned_inputs(&self) -> impl Iterator<Item = u8> + '_ {
        self.plan.iter().copied()
    }

    /// The buttons for the next frame.
    fn buttons(&mut self, console: &mut Console) -> u8 {
        let mode = console.peek(GAME_MODE);
        if mode != self.menu_mode {
            self.menu.clear();
            self.menu_mode = mode;
            // Out of play (a reset, the menus) no piece is planned.
            self.target = None;
            if mode == MODE_LEVEL_MENU {
                self.menu = self.level_menu_inputs();
            }
            if mode == MODE_PLAY {
                self.stats.games += 1;
                self.prev_play_state = 0;
            }
        }
        match mode {
            MODE_PLAY => self.play(console),
            MODE_LEVEL_MENU => {
                if self.menu.is_empty() {
                    // Missed (the screen was still being drawn): go again.
                    self.menu = self.level_menu_inputs();
                }
                self.menu.pop_front().unwrap_or(0)
            }
            // Legal, title, game-type menu (A-type is the default) and demo: tap Start.
            _ => self.tap(START),
        }
    }

    fn tap(&self, button: u8) -> u8 {
        if self.frame.is_multiple_of(4) {
            button
        } else {
            0
        }
    }

    /// From any cursor position: Left x4 and Up reach 0; then down to the digit; Start (with A
    /// held for 10-19).
    fn level_menu_inputs(&self) -> VecDeque<u8> {
        let digit = self.level % 10;
        let mut taps = vec![LEFT, LEFT, LEFT, LEFT, UP];
        if digit >= 5 {
            taps.push(DOWN);
        }
        taps.extend(std::iter::repeat_n(RIGHT, (digit % 5) as usize));
        let mut inputs: VecDeque<u8> = std::iter::repeat_n(0, 4).collect();
        for t in taps {
            inputs.extend([t, 0]);
        }
        if self.level >= 10 {
            inputs.extend([A, A | START, 0]);
        } else {
            inputs.extend([START, 0]);
        }
        inputs
    }

    fn play(&mut self, console: &mut Console) -> u8 {
        let state = console.peek(PLAY_STATE);
        let prev = std::mem::replace(&mut self.prev_play_state, state);
        self.stats.lines = lines(console);
        if state == STATE_CURTAIN {
            self.plan.clear();
            self.expected = None;
            return if console.peek(CURTAIN_ROW) == 20 {
                self.tap(START)
            } else {
                0
            };
        }
        if self.at_cap(console) {
            // The format's game is over; what follows is not the AI's.
            self.plan.clear();
            self.expected = None;
            self.target = None;
            return 0;
        }
        if state != STATE_PLAYING {
            if prev == STATE_PLAYING {
                self.check_lock(console);
            }
            return 0;
        }
        if prev != STATE_PLAYING {
            self.spawn(console);
        } else if self.expected.is_some_and(|e| {
            read_control(console).piece != e.piece || console.peek(FALL_TIMER) != e.fall_timer
        }) {
            self.stats.replans += 1;
            self.replan(console);
        } else if self.reaction > 0 && self.piece_frames == self.reaction as u32 {
            // The preview is seen now: plan again from where the piece is.
            self.replan(console);
        }
        self.next_input()
    }

    fn spawn(&mut self, console: &mut Console) {
        self.stats.pieces += 1;
        self.board = read_board(console);
        self.piece_frames = 0;
        self.replan(console);
    }

    fn replan(&mut self, console: &mut Console) {
        let current = read_control(console);
        self.planned_level = console.peek(LEVEL);
        self.plan.clear();
        self.expected = None;
        self.target = None;
        let (board, level, pad) = (&self.board, self.planned_level, self.pad);
        let unseen = self.mode != Mode::Teleport && self.piece_frames < self.reaction as u32;
        let decision = if unseen {
            self.planner.decide_unseen(board, level, current, pad)
        } else {
            let next = Some(console.peek(NEXT_PIECE)).filter(|&n| n < 19);
            self.planner.decide(board, level, current, pad, next)
        };
        let Some(decision) = decision else {
            return;
        };
        self.target = Some(decision.target);
        match self.mode {
            Mode::Controller { .. } => {
                self.plan = decision.inputs.into();
                self.expected = Some(current);
            }
            Mode::Teleport => {
                let t = decision.target;
                for base in [PIECE_X, PLAYER1_COPY] {
                    console.write(base, t.x as u8);
                    console.write(base + 1, t.y as u8);
                    console.write(base + 2, t.id);
                }
                if (current.autorepeat_y as i8) < 0 {
                    // The first piece hangs until Down is pressed.
                    self.plan.push_back(DOWN);
                }
            }
        }
    }

    /// The next planned input, stepping the model's prediction with it.
    fn next_input(&mut self) -> u8 {
        let held = self.plan.pop_front().unwrap_or(0);
        self.piece_frames += 1;
        if let Some(expected) = &mut self.expected {
            // Quadfall has no double kill screen.
            let gravity = Gravity::at(self.planned_level, false);
            expected.step(&self.board, gravity, held & !self.pad.held, held);
        }
        held
    }

    /// After the piece locked: it must be where the plan put it.
    fn check_lock(&mut self, console: &Console) {
        let piece = read_control(console).piece;
        let promised = self.expected.map(|c| c.piece).or(self.target);
        if promised.is_some_and(|p| p != piece) {
            self.stats.replans += 1;
        }
        self.plan.clear();
        self.expected = None;
        self.target = None;
    }
}

/// What the planner needs of the piece in play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InPlay {
    pub board: Board,
    pub control: Control,
    pub level: u8,
    /// The preview piece's orientation ID.
    pub next: Option<u8>,
}

/// The piece in play read from RAM, or None between pieces and out of play. At a frame start
/// where a piece has just come into play, this is the spawn the driver plans from.
pub fn piece_in_play(console: &Console) -> Option<InPlay> {
    let playing = console.peek(GAME_MODE) == MODE_PLAY && console.peek(PLAY_STATE) == STATE_PLAYING;
    playing.then(|| InPlay {
        board: read_board(console),
        control: read_control(console),
        level: console.peek(LEVEL),
        next: Some(console.peek(NEXT_PIECE)).filter(|&n| n < 19),
    })
}

impl InPlay {
    /// Whether the piece fits where it is (a spawn where it does not tops out).
    pub fn fits(&self) -> bool {
        let p = self.control.piece;
        self.board.fits(p.id, p.x, p.y)
    }
}

/// Plays the piece in play with per-frame held buttons (the rules' bit order, as
/// `ControllerSearch::plan` gives them, nothing held after them) until it locks, then holds
/// nothing until the next piece is in play where it fits, or the game is over. Returns where
/// the piece locked.
pub fn play_piece(console: &mut Console, inputs: &[u8]) -> Piece {
    let locked = lock_piece(console, inputs);
    while piece_in_play(console).is_some_and(|p| !p.fits()) {
        lock_piece(console, &[]);
    }
    locked
}

/// `play_piece` for one piece: until it locks and the next is in play or the game is over.
fn lock_piece(console: &mut Console, inputs: &[u8]) -> Piece {
    let mut inputs = inputs.iter();
    while console.peek(PLAY_STATE) == STATE_PLAYING {
        let held = inputs.next().copied().unwrap_or(0);
        console.set_buttons(0, Buttons(held.reverse_bits()));
        console.run_frame();
    }
    let locked = read_control(console).piece;
    console.set_buttons(0, Buttons::default());
    while console.peek(GAME_MODE) == MODE_PLAY
        && !matches!(console.peek(PLAY_STATE), STATE_PLAYING | STATE_CURTAIN)
    {
        console.run_frame();
    }
    locked
}

fn read_control(console: &Console) -> Control {
    Control {
        piece: Piece {
            x: console.peek(PIECE_X) as i8,
            y: console.peek(PIECE_Y) as i8,
            id: console.peek(PIECE_ID),
        },
        fall_timer: console.peek(FALL_TIMER),
        autorepeat_x: console.peek(AUTOREPEAT_X),
        autorepeat_y: console.peek(AUTOREPEAT_Y),
        hold_down_points: console.peek(HOLD_DOWN_POINTS),
    }
}

fn read_board(console: &Console) -> Board {
    let mut page = [0u8; 256];
    for (i, b) in page.iter_mut().enumerate() {
        *b = console.peek(PLAYFIELD + i as u16);
    }
    Board::from_ram(&page)
}

/// The level ($44).
pub fn level(console: &Console) -> u8 {
    console.peek(LEVEL)
}

/// Lines as a number ($50 packed BCD, $51 counting hundreds).
pub fn lines(console: &Console) -> u32 {
    let lo = console.peek(LINES);
    console.peek(LINES + 1) as u32 * 100 + (lo >> 4) as u32 * 10 + (lo & 0x0F) as u32
}

/// Score as a number ($53-$55 packed BCD, low byte first).
pub fn score(console: &Console) -> u32 {
    (SCORE..SCORE + 3).rev().fold(0, |acc, addr| {
        let b = console.peek(addr) as u32;
        acc * 100 + (b >> 4) * 10 + (b & 0x0F)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reaction_delay_gives_the_strong_profile_its_standard_weights() {
        let banded = |d: &Driver| matches!(d.planner.profile, Profile::Banded(_));
        let mut driver = Driver::from_options("strong", "controller", 18, 30).unwrap();
        assert!(!banded(&driver));
        driver.set_reaction(18);
        assert!(banded(&driver));
        driver.restyle("strong", 15).unwrap();
        assert!(banded(&driver), "kept across a change of tap rate");
        let mut classic = Driver::from_options("classic", "controller", 18, 30).unwrap();
        classic.set_reaction(18);
        assert!(matches!(classic.planner.profile, Profile::Classic));
    }

    #[test]
    fn a_driver_changes_profile_and_tap_rate_and_keeps_the_rest() {
        let mut driver = Driver::from_options("strong", "controller", 18, 30).unwrap();
        driver.set_reaction(18);
        driver.restyle("classic", 15).unwrap();
        assert_eq!((driver.profile(), driver.tap_hz()), ("classic", Some(15)));
        assert_eq!((driver.level, driver.reaction), (18, 18));
        let err = driver.restyle("fast", 30).unwrap_err();
        assert_eq!(err, "unknown AI profile 'fast' (classic or strong)");
        assert!(driver.restyle("strong", 25).is_err());
        assert_eq!((driver.profile(), driver.tap_hz()), ("classic", Some(15)));
        let mut teleport = Driver::from_options("strong", "teleport", 9, 30).unwrap();
        teleport.restyle("classic", 30).unwrap();
        assert_eq!((teleport.profile(), teleport.tap_hz()), ("classic", None));
        let mut capped = Driver::from_options("strong", "controller", 18, 30).unwrap();
        capped.set_cap_level(Some(49));
        capped.restyle("classic", 20).unwrap();
        assert_eq!(capped.cap_level, Some(49));
        assert!(capped.planner.capped);
    }
}
