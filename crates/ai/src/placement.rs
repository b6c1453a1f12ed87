//! Placement search: gravity ignored, infinite lock delay. Every lock position reachable from
//! the spawn state by shifts, drops and rotations (slides, tucks and spins included) is found by
//! flooding (x, y, orientation) as bitboards; a breadth-first search gives the shortest move
//! sequence to the one chosen.

use crate::rules::{
    Board, Collision, FitTable, Piece, FIRST_ID, ORIENTATION_COUNT, ROTATION, TYPE_OF,
};

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

/// The placement search. `search` floods the reachable states as bitboards (one bit per
/// column, a row per orientation and y); `path` finds the shortest move sequence to one lock
/// position with a breadth-first search on the last search's problem.
pub struct PlacementSearch {
    board: Board,
    spawn: Piece,
}

impl Default for PlacementSearch {
    fn default() -> Self {
        PlacementSearch {
            board: Board::default(),
            spawn: Piece::spawn(FIRST_ID[0]),
        }
    }
}

impl PlacementSearch {
    /// Fills `locks` with every lock position of the piece spawning as `spawn_id`, by
    /// orientation, then row, then column. Returns false when the piece cannot spawn (game
    /// over).
    pub fn search(&mut self, board: &Board, spawn_id: u8, locks: &mut Vec<Piece>) -> bool {
        locks.clear();
        let spawn = Piece::spawn(spawn_id);
        (self.board, self.spawn) = (*board, spawn);
        if !board.fits(spawn.id, spawn.x, spawn.y) {
            return false;
        }
        let piece_type = TYPE_OF[spawn_id as usize] as usize;
        let first = FIRST_ID[piece_type];
        let count = ORIENTATION_COUNT[piece_type] as usize;
        let fits = FitTable::new(board, piece_type as u8);
        // reach[k][y], bit x: orientation first + k at (x, y) is reachable. The pieces never
        // move up, so rows 0..19 hold every state.
        let mut reach = [[0u16; 20]; 4];
        reach[(spawn.id - first) as usize][0] = 1 << spawn.x;
        let mut changed = true;
        while changed {
            changed = false;
            for k in 0..count {
                let id = first + k as u8;
                for y in 0..20 {
                    let fit = fits.row(id, y as i8);
                    let mut r = reach[k][y];
                    if y > 0 {
                        r |= reach[k][y - 1] & fit;
                    }
                    for (j, rows) in reach.iter().enumerate().take(count) {
                        if ROTATION[first as usize + j].contains(&id) {
                            r |= rows[y] & fit;
                        }
                    }
                    loop {
                        let wider = (r | r << 1 | r >> 1) & fit;
                        if wider == r {
                            break;
                        }
                        r = wider;
                    }
                    if r != reach[k][y] {
                        reach[k][y] = r;
                        changed = true;
                    }
                }
            }
        }
        for (k, rows) in reach.iter().enumerate().take(count) {
            let id = first + k as u8;
            for (y, &r) in rows.iter().enumerate() {
                let mut stuck = r & !fits.row(id, y as i8 + 1);
                while stuck != 0 {
                    let x = stuck.trailing_zeros() as i8;
                    locks.push(Piece { x, y: y as i8, id });
                    stuck &= stuck - 1;
                }
            }
        }
        true
    }

    /// The shortest move sequence to `target`, a lock position of the last search.
    pub fn path(&self, target: Piece) -> Vec<Move> {
        let (pred, how) = self.bfs();
        let mut moves = Vec::new();
        let mut i = index(target);
        assert!(
            i == index(self.spawn) || pred[i] != NONE,
            "target was not reached by the last search"
        );
        while pred[i] != NONE {
            moves.push(how[i]);
            i = pred[i] as usize;
        }
        moves.reverse();
        moves
    }

    /// Breadth-first search from the spawn: each state's predecessor and the move from it.
    fn bfs(&self) -> ([u16; STATES], [Move; STATES]) {
        let fits = FitTable::new(&self.board, TYPE_OF[self.spawn.id as usize]);
        let mut pred = [NONE; STATES];
        let mut how = [Move::Down; STATES];
        let mut pieces = [self.spawn; STATES];
        let mut seen = [false; STATES];
        let mut queue = Vec::with_capacity(STATES);
        seen[index(self.spawn)] = true;
        queue.push(index(self.spawn));
        let mut head = 0;
        while head < queue.len() {
            let from = queue[head];
            head += 1;
            for m in MOVES {
                let q = apply(pieces[from], m);
                let j = index(q);
                if fits.fits(q.id, q.x, q.y) && !seen[j] {
                    seen[j] = true;
                    pred[j] = from as u16;
                    how[j] = m;
                    pieces[j] = q;
                    queue.push(j);
                }
            }
        }
        (pred, how)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::SPAWN_ID;
    use crate::sim::SplitMix;

    #[test]
    fn the_flood_finds_exactly_the_breadth_first_lock_positions() {
        let mut r = SplitMix(11);
        let mut s = PlacementSearch::default();
        let mut locks = Vec::new();
        for _ in 0..30 {
            let b = r.ragged_board(0..12, 4);
            for &id in &SPAWN_ID {
                if !s.search(&b, id, &mut locks) {
                    continue;
                }
                let (pred, _) = s.bfs();
                let spawn = index(Piece::spawn(id));
                let mut expected: Vec<usize> = (0..STATES)
                    .filter(|&i| i == spawn || pred[i] != NONE)
                    .filter(|&i| {
                        let (y, x, rot) = (i / 40, i / 4 % 10, i % 4);
                        let id = FIRST_ID[TYPE_OF[id as usize] as usize] + rot as u8;
                        !b.fits(id, x as i8, y as i8 + 1)
                    })
                    .collect();
                let mut found: Vec<usize> = locks.iter().map(|&p| index(p)).collect();
                expected.sort_unstable();
                found.sort_unstable();
                assert_eq!(found, expected, "piece {id:#04x} on\n{b:?}");
            }
        }
    }
}
