//! Placement search: gravity ignored, infinite lock delay. A breadth-first search over
//! (x, y, orientation) from the spawn state finds every lock position, slides, tucks and spins
//! included, each with a shortest move sequence.

use crate::rules::{Board, Collision, FitTable, Piece, FIRST_ID, ROTATION, TYPE_OF};

/// One step of the gravity-free game.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Move {
    Left,
    Right,
    /// A: clockwise.
    Clockwise,
    /// B: counter-clockwise.
    CounterClockwise,
    Down,
}

const MOVES: [Move; 5] = [
    Move::CounterClockwise,
    Move::Clockwise,
    Move::Left,
    Move::Right,
    Move::Down,
];
const STATES: usize = 20 * 10 * 4;
const NONE: u16 = u16::MAX;

fn index(p: Piece) -> usize {
    let rot = (p.id - FIRST_ID[TYPE_OF[p.id as usize] as usize]) as usize;
    ((p.y as usize * 10) + p.x as usize) * 4 + rot
}

/// Applies a move without any check.
pub fn apply(p: Piece, m: Move) -> Piece {
    match m {
        Move::Left => Piece { x: p.x - 1, ..p },
        Move::Right => Piece { x: p.x + 1, ..p },
        Move::Down => Piece { y: p.y + 1, ..p },
        Move::Clockwise => Piece {
            id: ROTATION[p.id as usize][1],
            ..p
        },
        Move::CounterClockwise => Piece {
            id: ROTATION[p.id as usize][0],
            ..p
        },
    }
}

/// Reusable BFS buffers; `visited` uses a generation mark so nothing is cleared between searches.
pub struct PlacementSearch {
    visited: Vec<u32>,
    mark: u32,
    pred: Vec<u16>,
    how: Vec<Move>,
    pieces: Vec<Piece>,
    queue: Vec<u16>,
}

impl Default for PlacementSearch {
    fn default() -> Self {
        PlacementSearch {
            visited: vec![0; STATES],
            mark: 0,
            pred: vec![NONE; STATES],
            how: vec![Move::Down; STATES],
            pieces: vec![Piece { x: 0, y: 0, id: 0 }; STATES],
            queue: Vec::with_capacity(STATES),
        }
    }
}

impl PlacementSearch {
    /// Fills `locks` with every lock position of the piece spawning as `spawn_id`, in BFS order.
    /// Returns false when the piece cannot spawn (game over).
    pub fn search(&mut self, board: &Board, spawn_id: u8, locks: &mut Vec<Piece>) -> bool {
        locks.clear();
        self.mark = self.mark.wrapping_add(1);
        if self.mark == 0 {
            self.visited.fill(0);
            self.mark = 1;
        }
        self.queue.clear();
        let spawn = Piece::spawn(spawn_id);
        if !board.fits(spawn.id, spawn.x, spawn.y) {
            return false;
        }
        let fits = FitTable::new(board, TYPE_OF[spawn_id as usize]);
        let i = index(spawn);
        self.visited[i] = self.mark;
        self.pred[i] = NONE;
        self.pieces[i] = spawn;
        self.queue.push(i as u16);
        let mut head = 0;
        while head < self.queue.len() {
            let from = self.queue[head] as usize;
            head += 1;
            let p = self.pieces[from];
            for m in MOVES {
                let q = apply(p, m);
                if !fits.fits(q.id, q.x, q.y) {
                    if m == Move::Down {
                        locks.push(p);
                    }
                    continue;
                }
                let j = index(q);
                if self.visited[j] != self.mark {
                    self.visited[j] = self.mark;
                    self.pred[j] = from as u16;
                    self.how[j] = m;
                    self.pieces[j] = q;
                    self.queue.push(j as u16);
                }
            }
        }
        true
    }

    /// The shortest move sequence to `target`, found by the last search.
    pub fn path(&self, target: Piece) -> Vec<Move> {
        let mut moves = Vec::new();
        let mut i = index(target);
        assert_eq!(
            self.visited[i], self.mark,
            "target was not reached by the last search"
        );
        while self.pred[i] != NONE {
            moves.push(self.how[i]);
            i = self.pred[i] as usize;
        }
        moves.reverse();
        moves
    }
}
