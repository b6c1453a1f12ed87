//! Two pieces deep: every lock position of the current piece, then every lock position of the
//! preview piece on the resulting playfield, rated by the evaluation profile. The best pair decides
//! where the current piece goes; the preview piece is re-planned when it spawns.

use crate::controller::{ControllerSearch, Lock, Pad};
use crate::eval::{Placed, Profile};
use crate::placement::PlacementSearch;
use crate::rules::{buttons::DOWN, drop_speed, Board, Control, Piece};

/// Frames per row from which the preview piece is rated with the placement search.
const SLOW_GRAVITY: u8 = 6;

/// Which search finds the lock positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchKind {
    /// Gravity ignored (teleport / placement mode).
    Placement,
    /// Frame-exact controller inputs under gravity at a maximum tap rate.
    Controller { tap_hz: u32 },
}

/// The chosen lock position and, for the controller search, the per-frame held buttons to get
/// there (the last one locks the piece).
#[derive(Clone, Debug)]
pub struct Decision {
    pub target: Piece,
    pub inputs: Vec<u8>,
}

pub struct Planner {
    pub profile: Profile,
    pub kind: SearchKind,
    /// Keep only the best K first placements (rated one piece deep) for the second level.
    pub prune: Option<usize>,
    place: [PlacementSearch; 2],
    ctrl: Option<[ControllerSearch; 2]>,
    locks1: Vec<Piece>,
    locks2: Vec<Piece>,
    clocks1: Vec<Lock>,
    clocks2: Vec<Lock>,
    ranked: Vec<(f64, usize)>,
}

fn stack_height(board: &Board) -> u8 {
    board
        .rows
        .iter()
        .position(|&r| r != 0)
        .map_or(0, |y| 20 - y as u8)
}

impl Planner {
    /// None if the tap rate is not one of `controller::TAP_RATES`.
    pub fn new(profile: Profile, kind: SearchKind) -> Option<Planner> {
        let ctrl = match kind {
            SearchKind::Placement => None,
            SearchKind::Controller { tap_hz } => Some([
                ControllerSearch::new(tap_hz)?,
                ControllerSearch::taps_only(tap_hz)?,
            ]),
        };
        let prune = match kind {
            SearchKind::Placement => None,
            SearchKind::Controller { .. } => Some(6),
        };
        Some(Planner {
            profile,
            kind,
            prune,
            place: [PlacementSearch::default(), PlacementSearch::default()],
            ctrl,
            locks1: Vec::new(),
            locks2: Vec::new(),
            clocks1: Vec::new(),
            clocks2: Vec::new(),
            ranked: Vec::new(),
        })
    }

    /// Decides where the current piece goes. `current` is the piece's control state (a fresh
    /// spawn for the placement search), `pad` the controller's recent history, `next` the preview
    /// piece's spawn ID if it is to be searched. None when no lock position exists (game over).
    pub fn decide(
        &mut self,
        board: &Board,
        level: u8,
        current: Control,
        pad: Pad,
        next: Option<u8>,
    ) -> Option<Decision> {
        let mut prefix = Vec::new();
        match &mut self.ctrl {
            None => {
                if !self.place[0].search(board, current.piece.id, &mut self.locks1) {
                    return None;
                }
            }
            Some([c, _]) => {
                let p = current.piece;
                if !board.fits(p.id, p.x, p.y) {
                    return None;
                }
                let (mut start, mut pad) = (current, pad);
                if (start.autorepeat_y as i8) < 0 {
                    // The first piece hangs until Down is pressed: press it on the first frame.
                    prefix.push(DOWN);
                    pad = pad.after(DOWN, c.period);
                    if start.step(board, level, DOWN, DOWN) {
                        return Some(Decision {
                            target: start.piece,
                            inputs: prefix,
                        });
                    }
                }
                c.search(board, level, start, pad, &mut self.clocks1);
                self.locks1.clear();
                self.locks1.extend(self.clocks1.iter().map(|l| l.piece));
            }
        }
        if self.locks1.is_empty() {
            return None;
        }
        let height = stack_height(board);
        // One piece deep: rate every first placement (also the fallback and the pruning order).
        self.ranked.clear();
        for (i, &p1) in self.locks1.iter().enumerate() {
            let mut b1 = *board;
            let lines = b1.lock(p1.id, p1.x, p1.y);
            let placed = [Placed {
                piece: p1,
                lines,
                height_before: height,
            }];
            self.ranked.push((
                self.profile.at(level, height).evaluate(level, &b1, &placed),
                i,
            ));
        }
        let mut best = self
            .ranked
            .iter()
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|&(_, i)| i)?;
        if let Some(next_id) = next {
            if let Some(k) = self.prune {
                if self.ranked.len() > k {
                    self.ranked
                        .select_nth_unstable_by(k - 1, |a, b| a.0.total_cmp(&b.0));
                    self.ranked.truncate(k);
                }
                // Keep the search order so ties resolve like the unpruned search.
                self.ranked.sort_by_key(|&(_, i)| i);
            }
            let mut best_value = f64::INFINITY;
            for r in 0..self.ranked.len() {
                let i = self.ranked[r].1;
                let p1 = self.locks1[i];
                let mut b1 = *board;
                let lines1 = b1.lock(p1.id, p1.x, p1.y);
                let h1 = stack_height(&b1);
                let first = Placed {
                    piece: p1,
                    lines: lines1,
                    height_before: height,
                };
                match &mut self.ctrl {
                    // At slow gravity nearly every lock position is reachable by the controller:
                    // the cheaper gravity-free search stands in for the preview piece.
                    Some([_, c]) if drop_speed(level) < SLOW_GRAVITY => {
                        let spawn = Control::spawned(next_id, 0);
                        if !b1.fits(next_id, spawn.piece.x, spawn.piece.y) {
                            continue;
                        }
                        c.search(&b1, level, spawn, Pad::idle(), &mut self.clocks2);
                        self.locks2.clear();
                        self.locks2.extend(self.clocks2.iter().map(|l| l.piece));
                    }
                    _ => {
                        if !self.place[1].search(&b1, next_id, &mut self.locks2) {
                            continue;
                        }
                    }
                }
                for &p2 in &self.locks2 {
                    let mut b2 = b1;
                    let lines2 = b2.lock(p2.id, p2.x, p2.y);
                    let placed = [
                        first,
                        Placed {
                            piece: p2,
                            lines: lines2,
                            height_before: h1,
                        },
                    ];
                    let v = self.profile.at(level, height).evaluate(level, &b2, &placed);
                    if v < best_value {
                        best_value = v;
                        best = i;
                    }
                }
            }
        }
        let target = self.locks1[best];
        let inputs = match &self.ctrl {
            None => Vec::new(),
            Some([c, _]) => {
                prefix.extend(c.plan(&self.clocks1[best]));
                prefix
            }
        };
        Some(Decision { target, inputs })
    }

    /// The placement search's shortest move path to the last decision's target (placement kind).
    pub fn placement_path(&self, target: Piece) -> Vec<crate::placement::Move> {
        self.place[0].path(target)
    }
}
