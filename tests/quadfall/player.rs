//! A simple reproducible player for Quadfall: a greedy placement per piece, executed with taps
//! and soft drops, optionally with random detours.

use super::{A, B, DOWN, LEFT, RIGHT};
use ai::eval::holes;
use ai::rules::{Board, Piece};

/// A simple player: each piece gets a column and a number of turns (mostly a greedy choice), reached
/// by tapping, then is soft-dropped or left to fall; with `noisy`, one frame in
/// 40 is random buttons instead.
/// Reproducible (a small LCG), never Start or Select.
pub struct Player {
    /// Random detours: one frame in 40 random buttons, one placement in 16 random.
    noisy: bool,
    state: u64,
    target: i8,
    turns: u8,
    drop: bool,
    previous: u8,
}

impl Player {
    pub fn new(seed: u64, noisy: bool) -> Player {
        Player {
            noisy,
            state: seed,
            target: 5,
            turns: 0,
            drop: false,
            previous: 0,
        }
    }

    fn random(&mut self) -> u32 {
        self.state = self
            .state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.state >> 33) as u32
    }

    /// Picks a placement for a new piece: usually the greedy best (few holes, low landing, a flat
    /// surface, lines cleared) for a straight drop after 0-3 clockwise turns, sometimes a random one.
    pub fn new_piece(&mut self, board: &Board, piece: &Piece) {
        let mut best = (i64::MAX, 5, 0);
        let mut id = piece.id;
        for turns in 0..4u8 {
            for x in 0..10i8 {
                if !board.fits(id, x, 0) {
                    continue;
                }
                let mut y = 0;
                while board.fits(id, x, y + 1) {
                    y += 1;
                }
                let mut after = *board;
                let cleared = after.lock(id, x, y);
                let h = after.heights();
                let bumpiness: i64 = h.windows(2).map(|w| i64::from(w[0].abs_diff(w[1]))).sum();
                let cost = i64::from(holes(&after)) * 10 + i64::from(20 - y) * 3 + bumpiness
                    - i64::from(cleared) * 20
                    + i64::from(self.random() % 3);
                if cost < best.0 {
                    best = (cost, x, turns);
                }
            }
            id = ai::rules::ROTATION[usize::from(id)][1];
        }
        (self.target, self.turns) = (best.1, best.2);
        if self.noisy && self.random().is_multiple_of(16) {
            self.target = (self.random() % 10) as i8;
            self.turns = (self.random() % 4) as u8;
        }
        self.drop = !self.noisy || !self.random().is_multiple_of(8);
    }

    pub fn next(&mut self, piece: &Piece) -> u8 {
        const NOISE: [u8; 8] = [0, LEFT, RIGHT, DOWN, A, B, LEFT | A, RIGHT | B];
        let buttons = if self.noisy && self.random().is_multiple_of(40) {
            NOISE[(self.random() % 8) as usize]
        } else if self.previous != 0 && self.previous != DOWN {
            0 // release between taps
        } else if self.turns > 0 {
            self.turns -= 1;
            A
        } else if piece.x > self.target {
            LEFT
        } else if piece.x < self.target {
            RIGHT
        } else if self.drop {
            DOWN
        } else {
            0
        };
        self.previous = buttons;
        buttons
    }
}
