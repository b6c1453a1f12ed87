//! Drives the project's own game ROM (roms/quadfall.nes) from power-on with controller input
//! only, one game frame at a time, and reads its RAM (the NES Tetris RAM map).
#![allow(dead_code)] // each test target uses its own subset

pub mod player;

use nes::controller::Buttons;
use nes::Console;
use std::sync::OnceLock;

pub const ROM: &[u8] = include_bytes!("../../roms/quadfall.nes");

// Buttons in the game's bit order ($B5/$B6).
pub use ai::rules::buttons::*;

// RAM map.
pub const RNG: u16 = 0x17;
pub const SPAWN_ID: u16 = 0x19;
pub const SPAWN_COUNT: u16 = 0x1A;
pub const VBLANK_FLAG: u16 = 0x33;
pub const X: u16 = 0x40;
pub const Y: u16 = 0x41;
pub const PIECE: u16 = 0x42;
pub const LEVEL: u16 = 0x44;
pub const FALL_TIMER: u16 = 0x45;
pub const AUTOREPEAT_X: u16 = 0x46;
pub const PLAY_STATE: u16 = 0x48;
pub const COMPLETED_ROWS: u16 = 0x4A;
pub const AUTOREPEAT_Y: u16 = 0x4E;
pub const HOLD_DOWN_POINTS: u16 = 0x4F;
pub const LINES: u16 = 0x50;
pub const SCORE: u16 = 0x53;
pub const NEXT_PIECE: u16 = 0xBF;
pub const GAME_MODE: u16 = 0xC0;
pub const PLAYFIELD: u16 = 0x0400;
pub const EMPTY: u8 = 0xEF;
pub const NO_PIECE: u8 = 0x13;

pub const MODE_TITLE: u8 = 1;
pub const MODE_LEVEL_MENU: u8 = 3;
pub const MODE_PLAY: u8 = 4;

/// Spawn orientation of each piece type T J Z O S L I.
pub const SPAWN: [u8; 7] = [0x02, 0x07, 0x08, 0x0A, 0x0B, 0x0E, 0x12];

#[derive(Clone)]
pub struct Game {
    pub console: Console,
    /// Game frames run so far (one NMI and one pass of the main loop each).
    pub frames: u64,
}

impl Game {
    pub fn power_on() -> Game {
        let console = Console::from_ines(ROM).expect("roms/quadfall.nes loads");
        Game { console, frames: 0 }
    }

    pub fn peek(&self, addr: u16) -> u8 {
        self.console.peek(addr)
    }

    pub fn peek16(&self, addr: u16) -> u16 {
        u16::from_le_bytes([self.peek(addr), self.peek(addr + 1)])
    }

    /// Holds `buttons` through the next NMI (where the game reads the pad) and runs the main
    /// loop until it waits for the following NMI: the frame's logic is then complete.
    pub fn frame(&mut self, buttons: u8) {
        self.console.set_buttons(0, Buttons(buttons.reverse_bits()));
        let limit = self.console.cycles() + 4 * 29_781;
        while self.peek(VBLANK_FLAG) == 0 {
            self.step(limit);
        }
        while self.peek(VBLANK_FLAG) != 0 {
            self.step(limit);
        }
        self.frames += 1;
    }

    fn step(&mut self, limit: u64) {
        assert!(
            self.console.cycles() < limit,
            "the game stopped reaching its frame loop (PC {:04X})",
            self.console.cpu.pc
        );
        self.console.step();
    }

    pub fn frames_with(&mut self, n: usize, buttons: u8) {
        for _ in 0..n {
            self.frame(buttons);
        }
    }

    /// Runs idle frames until `done` holds, at most `max` frames; panics otherwise.
    pub fn until(&mut self, max: usize, what: &str, done: impl Fn(&Game) -> bool) {
        for _ in 0..max {
            if done(self) {
                return;
            }
            self.frame(0);
        }
        assert!(done(self), "timed out waiting for {what}");
    }

    /// A press: one frame held, one released.
    pub fn tap(&mut self, buttons: u8) {
        self.frame(buttons);
        self.frame(0);
    }

    /// From power-on through the legal screen and the menus to the first frame of an A-type
    /// game at `level` (0-19; 10-19 by holding A while pressing Start).
    pub fn start(level: u8) -> Game {
        let mut game = Game::at_level_menu();
        let digit = level % 10;
        if digit >= 5 {
            game.tap(DOWN);
        }
        for _ in 0..digit % 5 {
            game.tap(RIGHT);
        }
        if level >= 10 {
            game.frame(A);
            game.frame(A | START);
        } else {
            game.frame(START);
        }
        game.until(10, "the game to start", |g| {
            g.peek(GAME_MODE) == MODE_PLAY && g.peek(PLAY_STATE) == 1 && g.peek(0x60 + 8) == 1
        });
        game.frame(0);
        game
    }

    /// Power-on to the level menu, played once per test binary and then cloned.
    pub fn at_level_menu() -> Game {
        static LEVEL_MENU: OnceLock<Game> = OnceLock::new();
        LEVEL_MENU
            .get_or_init(|| {
                let mut game = Game::power_on();
                while game.peek(GAME_MODE) != MODE_TITLE {
                    assert!(game.frames < 1000, "legal screen never ended");
                    game.tap(START);
                }
                while game.peek(GAME_MODE) != MODE_LEVEL_MENU {
                    assert!(game.frames < 1100, "menus never reached the level menu");
                    game.tap(START);
                }
                game.frames_with(2, 0);
                game
            })
            .clone()
    }

    /// Tops out (if not already over), waits for the curtain, presses Start and starts a new
    /// game at `level` from the level menu.
    pub fn restart_after_game_over(mut self, level: u8) -> Game {
        self.until(3000, "the game over", |g| g.peek(PLAY_STATE) == 0x0A);
        self.until(200, "the curtain", |g| g.peek(0x58) == 20);
        self.tap(START);
        self.until(10, "the level menu", |g| {
            g.peek(GAME_MODE) == MODE_LEVEL_MENU
        });
        self.frames_with(3, 0);
        if level >= 10 {
            self.frame(A);
            self.frame(A | START);
        } else {
            self.frame(START);
        }
        self.until(10, "the game to start", |g| {
            g.peek(GAME_MODE) == MODE_PLAY && g.peek(PLAY_STATE) == 1 && g.peek(0x60 + 8) == 1
        });
        self.frame(0);
        assert_eq!(self.peek(LEVEL), level);
        self
    }

    /// The playfield ($0400, rows 0-19) as the rules model's board.
    pub fn board(&self) -> ai::rules::Board {
        let mut board = ai::rules::Board::default();
        for y in 0..20 {
            for x in 0..10 {
                if self.cell(x, y) != EMPTY {
                    board.set(x as i8, y as i8);
                }
            }
        }
        board
    }

    /// The active piece ($40-$42).
    pub fn piece(&self) -> ai::rules::Piece {
        ai::rules::Piece {
            x: self.peek(X) as i8,
            y: self.peek(Y) as i8,
            id: self.peek(PIECE),
        }
    }

    pub fn cell(&self, x: u8, y: u8) -> u8 {
        self.peek(PLAYFIELD + u16::from(y) * 10 + u16::from(x))
    }

    /// Writes player 1's saved copy and the active copy, as a script moving state must.
    pub fn poke_player(&mut self, offset: u16, value: u8) {
        self.console.write(0x40 + offset, value);
        self.console.write(0x60 + offset, value);
    }

    pub fn poke(&mut self, addr: u16, value: u8) {
        self.console.write(addr, value);
    }

    pub fn score(&self) -> u32 {
        let bcd = |b: u8| u32::from(b >> 4) * 10 + u32::from(b & 15);
        bcd(self.peek(SCORE + 2)) * 10_000 + bcd(self.peek(SCORE + 1)) * 100 + bcd(self.peek(SCORE))
    }

    pub fn lines(&self) -> u32 {
        let lo = self.peek(LINES);
        u32::from(self.peek(LINES + 1)) * 100 + u32::from(lo >> 4) * 10 + u32::from(lo & 15)
    }
}

/// The orientation table ($8A9C) as (dx, dy) squares, read from the ROM image.
pub fn squares(orientation: u8) -> [(i8, i8); 4] {
    let base = 16 + 0x0A9C + 12 * usize::from(orientation);
    let row = &ROM[base..base + 12];
    std::array::from_fn(|i| (row[3 * i + 2] as i8, row[3 * i] as i8))
}

/// Entry of the rotation table ($88EE): index 2*id (B) or 2*id+1 (A).
pub fn rotation(index: usize) -> u8 {
    ROM[16 + 0x08EE + index]
}

/// Piece type (0-6, T J Z O S L I) of an orientation ID ($993B).
pub fn piece_type(orientation: u8) -> u8 {
    ROM[16 + 0x193B + usize::from(orientation)]
}

pub fn gravity(level: u8) -> u32 {
    if level >= 29 {
        1
    } else {
        u32::from(ROM[16 + 0x098E + usize::from(level)])
    }
}

pub fn bcd(value: u32) -> u8 {
    (((value / 10 % 10) << 4) | (value % 10)) as u8
}

impl Game {
    /// Waits for the next piece to enter (playState 8 -> 1).
    pub fn next_spawn(&mut self) {
        self.until(400, "a piece to leave play", |g| g.peek(PLAY_STATE) != 1);
        self.until(400, "the next piece", |g| g.peek(PLAY_STATE) == 1);
    }

    /// Holds Down until the piece locks, then lets go.
    pub fn soft_drop_to_lock(&mut self) {
        for _ in 0..200 {
            if self.peek(PLAY_STATE) != 1 {
                self.frame(0);
                return;
            }
            self.frame(DOWN);
        }
        panic!("the piece never locked");
    }

    /// Empties rows 0-19 of the playfield, as a script setting up a position would.
    pub fn clear_playfield(&mut self) {
        for addr in PLAYFIELD..PLAYFIELD + 200 {
            self.poke(addr, EMPTY);
        }
    }

    /// True when the active piece fits at its place ($948B's rule).
    pub fn piece_fits(&self) -> bool {
        let (x, y) = (self.peek(X) as i8, self.peek(Y) as i8);
        squares(self.peek(PIECE)).iter().all(|&(dx, dy)| {
            let (cx, cy) = (x + dx, y + dy);
            (0..10).contains(&cx)
                && (-2..20).contains(&cy)
                && self.peek(PLAYFIELD + ((cy as i16 * 10 + cx as i16) as u16 & 0xFF)) >= EMPTY
        })
    }
}
