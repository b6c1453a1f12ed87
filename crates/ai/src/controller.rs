//! Controller search: a frame-exact breadth-first search over the game's real per-frame state
//! (position, orientation, fall timer, the first piece's entry delay, held buttons and tap
//! cool-downs) that returns
//! per-frame controller bytes. Each frame is simulated with `rules::Control::step`, the same
//! code the simulator runs, so a plan lands exactly where it was promised.
//!
//! Shift and rotate buttons are tapped (held for one frame) no faster than the maximum tap rate.
//! Left/Right share one cool-down and A/B another, which keeps every button within the rate.

use crate::rules::{buttons::*, drop_speed, Board, Control, Piece};

/// The tap rates the search accepts and their periods in frames.
pub const TAP_RATES: [(u32, u8); 5] = [(30, 2), (20, 3), (15, 4), (12, 5), (10, 6)];

/// Frames between two presses of a button for a tap rate in Hz.
pub fn tap_period(hz: u32) -> Option<u8> {
    TAP_RATES.iter().find(|(h, _)| *h == hz).map(|&(_, p)| p)
}

/// The controller-side state that, with `Control`, decides what the next frames can do.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Pad {
    /// Buttons held on the previous frame.
    pub held: u8,
    /// Frames since the last Left/Right and A/B press, capped at the tap period.
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
}

#[derive(Clone, Copy)]
struct Node {
    ctl: Control,
    pad: Pad,
    parent: u32,
    input: u8,
}

/// A reachable lock position with its node, for `plan`.
#[derive(Clone, Copy, Debug)]
pub struct Lock {
    pub piece: Piece,
    /// The node it locked from, and the buttons of the locking frame.
    parent: u32,
    input: u8,
}

/// Button combinations tried each frame: shift (none/L/R) x rotate (none/A/B). Down is not
/// used: at the speeds that matter gravity is as fast as a soft drop, and leaving it out keeps
/// the search small (Down held also blocks shifting).
const INPUTS: [u8; 9] = [
    0,
    LEFT,
    RIGHT,
    A,
    B,
    LEFT | A,
    LEFT | B,
    RIGHT | A,
    RIGHT | B,
];

/// Open-addressing set of packed state keys with generation marks (no clearing between searches).
struct Visited {
    keys: Vec<u32>,
    marks: Vec<u32>,
    mark: u32,
    len: usize,
}

impl Visited {
    fn new(bits: u32) -> Visited {
        Visited {
            keys: vec![0; 1 << bits],
            marks: vec![0; 1 << bits],
            mark: 0,
            len: 0,
        }
    }

    fn reset(&mut self) {
        self.mark = self.mark.wrapping_add(1);
        if self.mark == 0 {
            self.marks.fill(0);
            self.mark = 1;
        }
        self.len = 0;
    }

    /// Inserts `key`; false if it was already there.
    fn insert(&mut self, key: u32) -> bool {
        if self.len * 4 >= self.keys.len() * 3 {
            self.grow();
        }
        let mask = self.keys.len() - 1;
        let mut i = (key.wrapping_mul(0x9E37_79B1) >> 7) as usize & mask;
        loop {
            if self.marks[i] != self.mark {
                self.marks[i] = self.mark;
                self.keys[i] = key;
                self.len += 1;
                return true;
            }
            if self.keys[i] == key {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let old: Vec<u32> = (0..self.keys.len())
            .filter(|&i| self.marks[i] == self.mark)
            .map(|i| self.keys[i])
            .collect();
        let bits = self.keys.len().trailing_zeros() + 1;
        // The mark is kept: callers use it as the search's generation.
        *self = Visited {
            keys: vec![0; 1 << bits],
            marks: vec![0; 1 << bits],
            mark: self.mark,
            len: 0,
        };
        for k in old {
            self.insert(k);
        }
    }
}

/// Reusable controller search.
pub struct ControllerSearch {
    nodes: Vec<Node>,
    visited: Visited,
    /// Lock positions already reported, by (y, x, id), with the visited generation.
    lock_seen: Vec<u32>,
    /// Frames between presses of the same button (2 = 30 Hz).
    pub period: u8,
}

impl ControllerSearch {
    pub fn new(tap_hz: u32) -> Option<ControllerSearch> {
        Some(ControllerSearch {
            nodes: Vec::new(),
            visited: Visited::new(14),
            lock_seen: vec![0; 20 * 10 * 19],
            period: tap_period(tap_hz)?,
        })
    }

    /// The search state's identity. Exact at 4 frames per row and faster; at slower speeds the
    /// fall timer is kept in quarters of a row, which can only drop rarely useful alternatives,
    /// never make a plan wrong (plans are replayed states, not keys).
    fn key(&self, c: &Control, pad: &Pad, speed: u8) -> u32 {
        let p = c.piece;
        let ft = c.fall_timer.min(speed);
        let ft = if speed <= 4 { ft } else { ft * 4 / speed };
        let hanging = (c.autorepeat_y as i8) < 0;
        (p.x as u32)
            | (p.y as u32 & 31) << 4
            | (p.id as u32) << 9
            | (ft as u32) << 14
            | (hanging as u32) << 17
            | (pad.shift_age.min(self.period) as u32) << 18
            | (pad.rotate_age.min(self.period) as u32) << 21
    }

    /// Finds every lock position reachable from `start`, each by its earliest frame sequence.
    /// `locks` gets one entry per distinct lock position, in order of arrival.
    pub fn search(
        &mut self,
        board: &Board,
        level: u8,
        start: Control,
        pad: Pad,
        locks: &mut Vec<Lock>,
    ) {
        locks.clear();
        self.nodes.clear();
        self.visited.reset();
        let speed = drop_speed(level);
        let period = self.period;
        let key = self.key(&start, &pad, speed);
        self.visited.insert(key);
        self.nodes.push(Node {
            ctl: start,
            pad,
            parent: u32::MAX,
            input: 0,
        });
        let mut head = 0;
        while head < self.nodes.len() {
            let node = self.nodes[head];
            let from = head as u32;
            head += 1;
            for &held in &INPUTS {
                let pad = node.pad;
                if held & (LEFT | RIGHT) != 0 && pad.shift_age < period {
                    continue;
                }
                if held & (A | B) != 0 && pad.rotate_age < period {
                    continue;
                }
                let pressed = held & !pad.held;
                let mut ctl = node.ctl;
                let locked = ctl.step(board, level, pressed, held);
                if locked {
                    let p = ctl.piece;
                    let slot = (p.y as usize * 10 + p.x as usize) * 19 + p.id as usize;
                    if self.lock_seen[slot] != self.visited.mark {
                        self.lock_seen[slot] = self.visited.mark;
                        locks.push(Lock {
                            piece: p,
                            parent: from,
                            input: held,
                        });
                    }
                    continue;
                }
                let age = |pressed: bool, age: u8| if pressed { 1 } else { (age + 1).min(period) };
                let next = Pad {
                    held,
                    shift_age: age(held & (LEFT | RIGHT) != 0, pad.shift_age),
                    rotate_age: age(held & (A | B) != 0, pad.rotate_age),
                };
                if self.visited.insert(self.key(&ctl, &next, speed)) {
                    self.nodes.push(Node {
                        ctl,
                        pad: next,
                        parent: from,
                        input: held,
                    });
                }
            }
        }
    }

    /// The per-frame held buttons that lead to `lock`, the last frame being the one that locks.
    pub fn plan(&self, lock: &Lock) -> Vec<u8> {
        let mut inputs = vec![lock.input];
        let mut i = lock.parent;
        while self.nodes[i as usize].parent != u32::MAX {
            inputs.push(self.nodes[i as usize].input);
            i = self.nodes[i as usize].parent;
        }
        inputs.reverse();
        inputs
    }
}

/// Runs per-frame inputs through the rules from `start` and returns where the piece locked,
/// with the Control state at lock (holdDownPoints for the score), or None if it did not lock.
pub fn execute(
    board: &Board,
    level: u8,
    start: Control,
    prev_held: u8,
    inputs: &[u8],
) -> Option<Control> {
    let mut ctl = start;
    let mut prev = prev_held;
    for &held in inputs {
        if ctl.step(board, level, held & !prev, held) {
            return Some(ctl);
        }
        prev = held;
    }
    None
}
