//! Controller search: a frame-exact breadth-first search over the game's real per-frame state
//! (position, orientation, fall timer, held buttons and tap cool-downs) that returns
//! per-frame controller bytes. Each frame is simulated with `rules::Control::step`, the same
//! code the simulator runs, so a plan lands exactly where it was promised.
//!
//! Shift and rotate buttons are tapped (held for one frame) no faster than the maximum tap rate.
//! Left/Right share one cool-down and A/B another, which keeps every button within the rate.

use crate::rules::{buttons::*, Board, Control, Piece, FIRST_ID, TYPE_OF};

/// The tap rates the search accepts and their periods in frames.
pub const TAP_RATES: [(u32, u8); 5] = [(30, 2), (20, 3), (15, 4), (12, 5), (10, 6)];

/// The largest frames-per-row value (level 0): the fall timer never passes it during a search.
const MAX_FALL_TIMER: u8 = 48;

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

/// Reusable controller search.
pub struct ControllerSearch {
    nodes: Vec<Node>,
    /// Search generation of each state slot and of each lock position (y, x, id).
    visited: Vec<u32>,
    lock_seen: Vec<u32>,
    mark: u32,
    /// Frames between presses of the same button (2 = 30 Hz).
    pub period: u8,
}

impl ControllerSearch {
    pub fn new(tap_hz: u32) -> Option<ControllerSearch> {
        let period = tap_period(tap_hz)?;
        Some(ControllerSearch {
            nodes: Vec::new(),
            visited: vec![
                0;
                20 * 10
                    * 4
                    * (MAX_FALL_TIMER as usize + 1)
                    * period as usize
                    * period as usize
            ],
            lock_seen: vec![0; 20 * 10 * 19],
            mark: 0,
            period,
        })
    }

    /// The search state's slot in `visited`, without the tap ages: position, orientation and
    /// fall timer (exact: waiting a frame must stay a new state, it is how a piece comes down).
    fn slot(&self, c: &Control) -> usize {
        let p = c.piece;
        let rot = p.id - FIRST_ID[TYPE_OF[p.id as usize] as usize];
        let position = (p.y as usize * 10 + p.x as usize) * 4 + rot as usize;
        let ft = c.fall_timer.min(MAX_FALL_TIMER) as usize;
        let period = self.period as usize;
        (position * (MAX_FALL_TIMER as usize + 1) + ft) * period * period
    }

    /// Marks a state visited; false if it, or the same state with older (freer) tap ages, was
    /// reached no later: that one can do everything this one can.
    fn visit(&mut self, slot: usize, pad: &Pad) -> bool {
        let period = self.period as usize;
        let age = |a: u8| (a as usize).clamp(1, period) - 1;
        let (shift, rotate) = (age(pad.shift_age), age(pad.rotate_age));
        for s in shift..period {
            for r in rotate..period {
                if self.visited[slot + s * period + r] == self.mark {
                    return false;
                }
            }
        }
        self.visited[slot + shift * period + rotate] = self.mark;
        true
    }

    /// Finds every lock position reachable from `start`, each by its earliest frame sequence.
    /// `start` must not be in the first piece's entry delay (press Down first: see `Planner`).
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
        self.mark = self.mark.wrapping_add(1);
        if self.mark == 0 {
            self.visited.fill(0);
            self.lock_seen.fill(0);
            self.mark = 1;
        }
        let period = self.period;
        let slot = self.slot(&start);
        self.visit(slot, &pad);
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
                let age = |pressed: bool, age: u8| if pressed { 1 } else { (age + 1).min(period) };
                let next = Pad {
                    held,
                    shift_age: age(held & (LEFT | RIGHT) != 0, pad.shift_age),
                    rotate_age: age(held & (A | B) != 0, pad.rotate_age),
                };
                let slot = self.slot(&ctl);
                if self.visit(slot, &next) {
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
