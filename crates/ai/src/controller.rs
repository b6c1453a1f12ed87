//! Controller search: a frame-exact breadth-first search over the game's real per-frame state
//! (position, orientation, fall timer, held buttons, the DAS and soft-drop counters, tap
//! cool-downs) that returns per-frame controller bytes. Each frame is simulated with
//! `rules::Control::step`, the same code the simulator runs, so a plan lands exactly where it
//! was promised.
//!
//! Presses are rate-limited, holds are not: a button is newly pressed no faster than the maximum
//! tap rate, and a held Left/Right or Down does what the game does with it (DAS: a shift every 6
//! frames after 16; soft drop: a row every 2 frames after the press frame and one more). Left,
//! Right and Down (one thumb on the d-pad) share one cool-down, A and B another, which keeps
//! every button within the rate.
//!
//! Left/Right are held only while held since the start (a DAS charged on the previous piece):
//! after a press within the piece, taps at the rate do whatever the DAS could (it shifts 16
//! frames after the press, then every 6; the rate allows a press every 6 frames or faster), so
//! holding there would only grow the search.

use crate::rules::{
    buttons::*, drop_speed, Board, Control, FitTable, Gravity, Piece, FIRST_ID, ORIENTATION_COUNT,
    ROTATION, TYPE_OF,
};

/// The tap rates the search accepts and their periods in frames.
pub const TAP_RATES: [(u32, u8); 5] = [(30, 2), (20, 3), (15, 4), (12, 5), (10, 6)];

/// Frames between two presses of a button for a tap rate in Hz.
pub fn tap_period(hz: u32) -> Option<u8> {
    TAP_RATES.iter().find(|(h, _)| *h == hz).map(|&(_, p)| p)
}

const DPAD: u8 = LEFT | RIGHT | DOWN;

/// The controller-side state that, with `Control`, decides what the next frames can do.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Pad {
    /// Buttons held on the previous frame.
    pub held: u8,
    /// Frames since the last press of Left/Right/Down and of A/B, capped at the tap period.
    pub shift_age: u8,
    pub rotate_age: u8,
}

impl Pad {
    /// A pad that has been idle long enough to press anything.
    pub fn idle() -> Pad {
        Pad {
            held: 0,
            shift_age: 8,
            rotate_age: 8,
        }
    }

    /// The pad after a frame with `held` buttons (ages capped at `cap`).
    pub fn after(&self, held: u8, cap: u8) -> Pad {
        let pressed = held & !self.held;
        let age = |press: bool, age: u8| {
            if press {
                1
            } else {
                age.saturating_add(1).min(cap)
            }
        };
        Pad {
            held,
            shift_age: age(pressed & DPAD != 0, self.shift_age),
            rotate_age: age(pressed & (A | B) != 0, self.rotate_age),
        }
    }
}

#[derive(Clone, Copy)]
struct Node {
    ctl: Control,
    pad: Pad,
    parent: u32,
    input: u8,
    /// Left/Right/Down was pressed since the start: from then on Left/Right are only tapped.
    dpad_pressed: bool,
}

/// A reachable lock position with its node, for `plan`.
#[derive(Clone, Copy, Debug)]
pub struct Lock {
    pub piece: Piece,
    /// The node it locked from, and the buttons of the locking frame.
    parent: u32,
    input: u8,
}

/// Button combinations held on a frame. Moves come first so that, of the plans arriving on the
/// same frame, the one that moved earliest is found first and can finish with a soft drop.
/// Down is never combined with Left/Right: the game then neither shifts nor soft-drops.
const INPUTS: [u8; 12] = [
    LEFT | A,
    LEFT | B,
    RIGHT | A,
    RIGHT | B,
    LEFT,
    RIGHT,
    A,
    B,
    DOWN | A,
    DOWN | B,
    DOWN,
    0,
];

/// The one-frame taps of Left/Right/A/B (no Down).
const TAPS: [u8; 9] = [
    LEFT | A,
    LEFT | B,
    RIGHT | A,
    RIGHT | B,
    LEFT,
    RIGHT,
    A,
    B,
    0,
];

/// The inputs of `all` that do something different: A and B do the same to two-orientation
/// pieces, and nothing to the O; Down does nothing on the double kill screen.
fn search_inputs(all: &[u8], orientations: u8, gravity: Gravity) -> Vec<u8> {
    all.iter()
        .copied()
        .filter(|&h| match orientations {
            1 => h & (A | B) == 0,
            2 => h & B == 0,
            _ => true,
        })
        .filter(|&h| h & DOWN == 0 || gravity.rows_per_drop == 1)
        .collect()
}

/// Held-button part of a search state: nothing; Left or Right with autorepeatX 0..16; Down with
/// autorepeatY 0..2.
const PAD_KEYS: usize = 1 + 2 * 17 + 3;
/// Bits of a `visited` entry holding the visited tap-age pairs (period 6: 36 pairs).
const AGE_BITS: u32 = 36;
/// Room for the states of one search, with and without holds: the most are visited at level
/// 0's gravity (48 frames per row) on an empty playfield, 171,124 and 84,478 at 10 Hz (135k and
/// 64k at 30 Hz); the test `level_0_searches_fit_their_reserved_nodes` checks the margin.
const MAX_NODES: usize = 180_000;
const MAX_NODES_TAPS: usize = 90_000;

/// Reusable controller search.
pub struct ControllerSearch {
    nodes: Vec<Node>,
    /// Per state slot (position, orientation, fall timer, held buttons and their counters): the
    /// search generation above `AGE_BITS`, and below it one bit per tap-age pair reached.
    visited: Vec<u64>,
    /// For each tap-age pair, the pairs at least as free (a state with those dominates).
    dominating: Vec<u64>,
    /// Search generation of each lock position (y, x, id).
    lock_seen: Vec<u32>,
    /// The last search's problem, for `plan`.
    board: Board,
    gravity: Gravity,
    start: (Control, Pad),
    mark: u32,
    /// Frames between presses of the same button (2 = 30 Hz).
    pub period: u8,
    /// Left/Right may be held (DAS) and Down used; false: one-frame taps of Left/Right/A/B only
    /// (the current piece's plan before the preview is seen; `spawn_tap_locks` finds the same
    /// locks from a spawn).
    pub holds: bool,
}

impl ControllerSearch {
    pub fn new(tap_hz: u32) -> Option<ControllerSearch> {
        let period = tap_period(tap_hz)?;
        let p = period as usize;
        let mut dominating = vec![0u64; p * p];
        for s in 0..p {
            for r in 0..p {
                for s2 in s..p {
                    for r2 in r..p {
                        dominating[s * p + r] |= 1 << (s2 * p + r2);
                    }
                }
            }
        }
        Some(ControllerSearch {
            nodes: Vec::new(),
            visited: Vec::new(),
            dominating,
            lock_seen: vec![0; 20 * 10 * 19],
            board: Board::default(),
            gravity: Gravity::at(0, false),
            start: (Control::spawned(0, 0), Pad::idle()),
            mark: 0,
            period,
            holds: true,
        })
    }

    /// The same search restricted to one-frame taps of Left/Right/A/B.
    pub fn taps_only(tap_hz: u32) -> Option<ControllerSearch> {
        Some(ControllerSearch {
            holds: false,
            ..ControllerSearch::new(tap_hz)?
        })
    }

    /// The state's slot in `visited`: position, orientation, fall timer (only its distance to
    /// the next drop matters) and the held buttons with the counters they drive: Down with
    /// autorepeatY, a Left/Right held since the start with autorepeatX. A Left/Right pressed
    /// within the piece is released the next frame and can't be pressed again before its
    /// cool-down, so only the tap ages matter then.
    fn slot(&self, c: &Control, held: u8, dpad_pressed: bool, speed: u8) -> usize {
        let p = c.piece;
        let rot = p.id - FIRST_ID[TYPE_OF[p.id as usize] as usize];
        let position = (p.y as usize * 10 + p.x as usize) * 4 + rot as usize;
        let ft = c.fall_timer.min(speed - 1) as usize;
        let state = position * speed as usize + ft;
        if !self.holds {
            return state;
        }
        let arx = c.autorepeat_x.min(16) as usize;
        let pad = if held & DOWN != 0 {
            35 + c.autorepeat_y.min(2) as usize
        } else if dpad_pressed {
            0
        } else if held & RIGHT != 0 {
            18 + arx
        } else if held & LEFT != 0 {
            1 + arx
        } else {
            0
        };
        state * PAD_KEYS + pad
    }

    fn age_bit(&self, pad: &Pad) -> usize {
        let p = self.period as usize;
        let age = |a: u8| (a as usize).clamp(1, p) - 1;
        age(pad.shift_age) * p + age(pad.rotate_age)
    }

    fn ages_at(&self, slot: usize) -> u64 {
        let e = self.visited[slot];
        if (e >> AGE_BITS) as u32 == self.mark {
            e & ((1 << AGE_BITS) - 1)
        } else {
            0
        }
    }

    /// Marks a state visited; false if it, or the same state with freer tap ages, was reached no
    /// later: that one can do everything this one can.
    fn visit(&mut self, slot: usize, pad: &Pad) -> bool {
        let bit = self.age_bit(pad);
        let dominating = self.dominating[bit];
        let ages = self.ages_at(slot);
        if ages & dominating != 0 {
            return false;
        }
        self.visited[slot] = (self.mark as u64) << AGE_BITS | ages | 1 << bit;
        true
    }

    /// Whether `held` may follow `pad`: new presses respect the tap rate; holding is free (only
    /// when `holds`).
    fn allowed(&self, pad: &Pad, held: u8) -> bool {
        let dpad = held & DPAD;
        if dpad != 0 {
            if dpad & pad.held == dpad {
                if !self.holds {
                    return false;
                }
            } else if pad.shift_age < self.period {
                return false;
            }
        }
        held & (A | B) == 0 || pad.rotate_age >= self.period
    }

    /// Finds every lock position reachable from `start`, each by its earliest frame sequence.
    /// `start` must not be in the first piece's entry delay (press Down first: see `Planner`).
    /// `locks` gets one entry per distinct lock position, in order of arrival.
    pub fn search(
        &mut self,
        board: &Board,
        gravity: Gravity,
        start: Control,
        pad: Pad,
        locks: &mut Vec<Lock>,
    ) {
        locks.clear();
        self.nodes.clear();
        self.mark = (self.mark + 1) & ((1 << (64 - AGE_BITS)) - 1);
        if self.mark == 0 {
            self.visited.fill(0);
            self.lock_seen.fill(0);
            self.mark = 1;
        }
        (self.board, self.gravity, self.start) = (*board, gravity, (start, pad));
        let speed = gravity.frames_per_row;
        // Sized for the slowest gravity (level 0, where the level counter also wraps back to
        // after 255) the first time, so a long game's memory stays flat.
        let slowest = drop_speed(0) as usize;
        let slots = 20 * 10 * 4 * slowest * if self.holds { PAD_KEYS } else { 1 };
        if self.visited.len() < slots {
            self.visited.resize(slots, 0);
        }
        let root = Node {
            ctl: start,
            pad,
            parent: u32::MAX,
            input: 0,
            dpad_pressed: false,
        };
        // Likewise the nodes: reserved and written once, so that memory is resident from the
        // first search on instead of growing with the largest search seen.
        let max_nodes = if self.holds {
            MAX_NODES
        } else {
            MAX_NODES_TAPS
        };
        if self.nodes.capacity() < max_nodes {
            self.nodes.resize(max_nodes, root);
            self.nodes.clear();
        }
        let piece_type = TYPE_OF[start.piece.id as usize];
        let all = if self.holds { &INPUTS[..] } else { &TAPS[..] };
        let inputs = search_inputs(all, ORIENTATION_COUNT[piece_type as usize], gravity);
        let fits = FitTable::new(board, piece_type);
        self.visit(self.slot(&start, pad.held, false, speed), &pad);
        self.nodes.push(root);
        let mut head = 0;
        while head < self.nodes.len() {
            let node = self.nodes[head];
            let from = head as u32;
            head += 1;
            for &held in &inputs {
                if !self.allowed(&node.pad, held)
                    || node.dpad_pressed && held & node.pad.held & (LEFT | RIGHT) != 0
                {
                    continue;
                }
                let mut ctl = node.ctl;
                if ctl.step(&fits, gravity, held & !node.pad.held, held) {
                    let p = ctl.piece;
                    let slot = (p.y as usize * 10 + p.x as usize) * 19 + p.id as usize;
                    if self.lock_seen[slot] != self.mark {
                        self.lock_seen[slot] = self.mark;
                        locks.push(Lock {
                            piece: p,
                            parent: from,
                            input: held,
                        });
                    }
                    continue;
                }
                let pad = node.pad.after(held, self.period);
                let dpad_pressed = node.dpad_pressed || held & !node.pad.held & DPAD != 0;
                if self.visit(self.slot(&ctl, held, dpad_pressed, speed), &pad) {
                    self.nodes.push(Node {
                        ctl,
                        pad,
                        parent: from,
                        input: held,
                        dpad_pressed,
                    });
                }
            }
        }
    }

    /// The per-frame held buttons that lead to `lock`, the last frame being the one that locks.
    /// The earliest sequence is finished with a held Down from the frame where that still
    /// lands on `lock` and earns the most soft-drop points.
    pub fn plan(&self, lock: &Lock) -> Vec<u8> {
        let mut inputs = vec![lock.input];
        let mut i = lock.parent;
        while self.nodes[i as usize].parent != u32::MAX {
            inputs.push(self.nodes[i as usize].input);
            i = self.nodes[i as usize].parent;
        }
        inputs.reverse();
        if self.holds && self.gravity.rows_per_drop == 1 {
            self.finish_with_soft_drop(&mut inputs, lock.piece);
        }
        inputs
    }

    fn finish_with_soft_drop(&self, inputs: &mut Vec<u8>, target: Piece) {
        let (board, gravity) = (&self.board, self.gravity);
        let (mut ctl, mut pad) = self.start;
        let mut best: Option<(u8, usize, Vec<u8>)> = None;
        for (i, &held) in inputs.iter().enumerate() {
            if self.allowed(&pad, DOWN) {
                let (mut c, mut p) = (ctl, pad);
                let mut tail = Vec::new();
                loop {
                    tail.push(DOWN);
                    if c.step(board, gravity, DOWN & !p.held, DOWN) {
                        break;
                    }
                    p = p.after(DOWN, self.period);
                }
                let better = best.as_ref().is_none_or(|b| c.hold_down_points > b.0);
                if c.piece == target && better {
                    best = Some((c.hold_down_points, i, tail));
                }
            }
            if ctl.step(board, gravity, held & !pad.held, held) {
                break;
            }
            pad = pad.after(held, self.period);
        }
        if let Some((_, i, tail)) = best {
            inputs.truncate(i);
            inputs.extend(tail);
        }
    }
}

/// Where a controller search for `current` starts. The first piece of a game hangs until Down
/// is pressed (autorepeatY negative), so Down is pressed on its first frame: the state after it
/// and that input, or Err with the piece if that frame locked it.
pub fn search_start(
    board: &Board,
    gravity: Gravity,
    current: Control,
    pad: Pad,
    period: u8,
) -> Result<(Control, Pad, Option<u8>), Piece> {
    if (current.autorepeat_y as i8) >= 0 {
        return Ok((current, pad, None));
    }
    let mut start = current;
    if start.step(board, gravity, DOWN, DOWN) {
        return Err(start.piece);
    }
    Ok((start, pad.after(DOWN, period), Some(DOWN)))
}

/// Runs per-frame inputs through the rules from `start` and returns where the piece locked,
/// with the Control state at lock (holdDownPoints for the score), or None if it did not lock.
pub fn execute(
    board: &Board,
    gravity: Gravity,
    start: Control,
    prev_held: u8,
    inputs: &[u8],
) -> Option<Control> {
    let mut ctl = start;
    let mut pad = Pad {
        held: prev_held,
        ..Pad::idle()
    };
    run(board, gravity, &mut ctl, &mut pad, 8, inputs).then_some(ctl)
}

/// Steps `ctl` and `pad` (tap ages capped at `period`) through per-frame inputs; true when the
/// piece locked, on the last input run.
pub fn run(
    board: &Board,
    gravity: Gravity,
    ctl: &mut Control,
    pad: &mut Pad,
    period: u8,
    inputs: &[u8],
) -> bool {
    for &held in inputs {
        if ctl.step(board, gravity, held & !pad.held, held) {
            return true;
        }
        *pad = pad.after(held, period);
    }
    false
}

/// Every lock position of piece `id` freshly spawned on `board` that one-frame taps of
/// Left/Right/A/B reach at `period` frames between presses: the locks of the taps-only
/// `ControllerSearch` from the spawn with an idle pad, ordered by row, orientation and column.
/// Rating the preview piece needs only where it can lock, not how. Without Down the piece falls
/// on a fixed schedule, so all the states of a frame are on one row and differ only in column,
/// orientation and tap cool-downs: each (orientation, cool-downs) class is a set of columns, one
/// bit each, and an input moves a whole set with a shift and a mask of the fit table's row. A
/// column whose class has less free cool-downs than another of its orientation is dropped (it
/// can do nothing more).
pub fn spawn_tap_locks(
    board: &Board,
    gravity: Gravity,
    id: u8,
    period: u8,
    locks: &mut Vec<Piece>,
) {
    // The cool-downs' range as a constant: each period's search has its own loops, unrolled.
    match period {
        2 => tap_locks::<2>(board, gravity, id, locks),
        3 => tap_locks::<3>(board, gravity, id, locks),
        4 => tap_locks::<4>(board, gravity, id, locks),
        5 => tap_locks::<5>(board, gravity, id, locks),
        6 => tap_locks::<6>(board, gravity, id, locks),
        _ => unreachable!("tap periods are TAP_RATES'"),
    }
}

/// `spawn_tap_locks` at `P` frames between presses.
fn tap_locks<const P: usize>(board: &Board, gravity: Gravity, id: u8, locks: &mut Vec<Piece>) {
    locks.clear();
    let spawn = Piece::spawn(id);
    if !board.fits(id, spawn.x, spawn.y) {
        return;
    }
    let piece_type = TYPE_OF[id as usize];
    let first = FIRST_ID[piece_type as usize];
    let orientations = ORIENTATION_COUNT[piece_type as usize] as usize;
    let fits = FitTable::new(board, piece_type);
    // Orientations as 0..4 from the type's first; the rotations' targets as B, A.
    let turns: [[usize; 2]; 4] = std::array::from_fn(|r| {
        let id = first as usize + r.min(orientations - 1);
        ROTATION[id].map(|to| (to - first) as usize)
    });
    // The rotations that do something different: A and B do the same to two-orientation
    // pieces, and nothing to the O.
    let rotations: &[usize] = match orientations {
        1 => &[],
        2 => &[1],
        _ => &[0, 1],
    };
    let pressed = P as u8 - 1;
    // Columns per orientation and frames until Left/Right and until A/B may be pressed.
    let mut states = [[[0u16; P]; P]; 4];
    states[(id - first) as usize][0][0] = 1 << spawn.x;
    let mut y = spawn.y;
    let mut fall_timer = 0u8;
    loop {
        fall_timer = fall_timer.wrapping_add(1);
        let drops = if gravity.rows_per_drop == 2 {
            2
        } else if (fall_timer.wrapping_sub(gravity.frames_per_row) as i8) >= 0 {
            1
        } else {
            0
        };
        if drops > 0 {
            fall_timer = 0;
        }
        // Where each orientation fits on this row and the next two, as column bits.
        let rows: [[u16; 4]; 3] = std::array::from_fn(|d| {
            std::array::from_fn(|r| {
                let row = y + d as i8;
                if r < orientations && row < 22 {
                    fits.row(first + r as u8, row)
                } else {
                    0
                }
            })
        });
        // The columns of each class after this frame's inputs; after the drop, those still
        // falling.
        let mut next = [[[0u16; P]; P]; 4];
        let mut fall = |cols: u16, r: usize, sw: u8, rw: u8| {
            next[r][sw as usize][rw as usize] |= cols;
        };
        let cool = |wait: usize| (wait as u8).saturating_sub(1);
        for (r, by_shift) in states.iter().enumerate().take(orientations) {
            let fit = rows[0][r];
            for (sw, by_rotate) in by_shift.iter().enumerate() {
                for (rw, &cols) in by_rotate.iter().enumerate() {
                    if cols == 0 {
                        continue;
                    }
                    // No shift, Left, Right: the columns after, and the cool-down.
                    let left = (cols >> 1 & fit) | (cols & !(fit << 1));
                    let right = (cols << 1 & fit) | (cols & !(fit >> 1));
                    let shifts = [(cols, cool(sw)), (left, pressed), (right, pressed)];
                    let shifts = if sw == 0 { &shifts[..] } else { &shifts[..1] };
                    for &(cols, sw) in shifts {
                        fall(cols, r, sw, cool(rw));
                        if rw != 0 {
                            continue;
                        }
                        for &to in rotations.iter().map(|&b_or_a| &turns[r][b_or_a]) {
                            let turned = cols & rows[0][to];
                            fall(turned, to, sw, pressed);
                            fall(cols & !turned, r, sw, pressed);
                        }
                    }
                }
            }
        }
        // The drop: the columns that cannot fall lock, the others carry on.
        let mut locked = [[0u16; 4]; 2];
        for (r, by_shift) in next.iter_mut().enumerate().take(orientations) {
            for falling in by_shift.iter_mut().flatten() {
                for (d, locked) in locked.iter_mut().enumerate().take(drops) {
                    locked[r] |= *falling & !rows[d + 1][r];
                    *falling &= rows[d + 1][r];
                }
            }
        }
        for (d, locked) in locked.iter().enumerate().take(drops) {
            for (r, &cols) in locked.iter().enumerate() {
                let mut cols = cols;
                while cols != 0 {
                    locks.push(Piece {
                        x: cols.trailing_zeros() as i8,
                        y: y + d as i8,
                        id: first + r as u8,
                    });
                    cols &= cols - 1;
                }
            }
        }
        // Drop the columns a class with freer cool-downs holds too.
        let mut alive = false;
        for by_shift in next.iter_mut().take(orientations) {
            let mut freer = [[0u16; P]; P];
            for sw in 0..P {
                for rw in 0..P {
                    let above = if sw > 0 { freer[sw - 1][rw] } else { 0 }
                        | if rw > 0 { freer[sw][rw - 1] } else { 0 };
                    freer[sw][rw] = above | by_shift[sw][rw];
                    by_shift[sw][rw] &= !above;
                    alive |= by_shift[sw][rw] != 0;
                }
            }
        }
        if !alive {
            break;
        }
        y += drops as i8;
        states = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::SPAWN_ID;
    use crate::sim::SplitMix;

    #[test]
    fn spawn_tap_locks_are_the_taps_only_search_locks() {
        // Ragged stacks low and high, every piece, every tap rate, at the speeds of levels 0,
        // 18, 19, 29 and the double kill screen.
        let mut r = SplitMix(9);
        let mut boards = vec![Board::default()];
        for _ in 0..12 {
            boards.push(r.ragged_board(2..16, 4));
        }
        let (mut searched, mut found) = (Vec::new(), Vec::new());
        let mut compared = 0;
        for &(hz, period) in &TAP_RATES {
            let mut s = ControllerSearch::taps_only(hz).unwrap();
            for gravity in [
                (0, false),
                (18, false),
                (19, false),
                (29, false),
                (39, true),
            ]
            .map(|(level, double)| Gravity::at(level, double))
            {
                for b in &boards {
                    for &id in &SPAWN_ID {
                        spawn_tap_locks(b, gravity, id, period, &mut found);
                        let mut slow = Vec::new();
                        let spawn = Control::spawned(id, 0);
                        if b.fits(id, spawn.piece.x, spawn.piece.y) {
                            s.search(b, gravity, spawn, Pad::idle(), &mut searched);
                            slow = searched.iter().map(|l| l.piece).collect();
                        }
                        // The same locks, in the order of their rows, orientations and columns.
                        slow.sort_by_key(|p| (p.y, p.id, p.x));
                        assert_eq!(found, slow, "{hz} Hz, {gravity:?}, piece {id}");
                        compared += slow.len();
                    }
                }
            }
        }
        assert!(compared > 10_000, "{compared} locks compared");
    }

    #[test]
    fn level_0_searches_fit_their_reserved_nodes() {
        // The empty playfield and ragged stacks at the slowest gravity, at every tap rate.
        let mut r = SplitMix(3);
        let mut boards = vec![Board::default()];
        for _ in 0..3 {
            boards.push(r.ragged_board(0..8, 5));
        }
        let mut locks = Vec::new();
        for &(hz, _) in &TAP_RATES {
            for mut s in
                [ControllerSearch::new(hz), ControllerSearch::taps_only(hz)].map(Option::unwrap)
            {
                for b in &boards {
                    for &id in &SPAWN_ID {
                        let gravity = Gravity::at(0, false);
                        s.search(b, gravity, Control::spawned(id, 0), Pad::idle(), &mut locks);
                        let room = if s.holds { MAX_NODES } else { MAX_NODES_TAPS };
                        assert!(s.nodes.len() <= room, "{hz} Hz, {} nodes", s.nodes.len());
                        assert_eq!(s.nodes.capacity(), room);
                    }
                }
            }
        }
    }
}
