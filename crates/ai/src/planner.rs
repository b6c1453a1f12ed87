//! Two pieces deep: every lock position of the current piece, then every lock position of the
//! preview piece on the resulting playfield, rated by the evaluation profile. The best pair decides
//! where the current piece goes; the preview piece is re-planned when it spawns.
//!
//! The strong profile looks a third piece deep by expectation below level 29, and from 29 in a
//! capped game: the best pairs are re-rated by the mean, over the piece after the preview
//! (weighted by the picker's odds), of that piece's best placement. Seeing that an I may come
//! keeps the well open and the stack clean for it; two deep, a pair that buries the well looks
//! as good as one that waits.

use crate::controller::{search_start, spawn_tap_locks, tap_period, ControllerSearch, Lock, Pad};
use crate::eval::{fill_limits, unfillable_wells, unreached_columns, Placed, Profile};
use crate::placement::PlacementSearch;
use crate::rules::{buttons::DOWN, Board, Control, Gravity, Picker, Piece, SPAWN_ID, TYPE_OF};

/// What the planner knows of the piece after the current one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Preview {
    /// Left out: one piece deep.
    Ignored,
    Seen(u8),
    /// Not seen yet (a reaction delay).
    Unseen,
}

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
    /// The current piece's search, and the current piece's before the preview is seen (taps
    /// only: a soft drop then would take time from the adjustment).
    ctrl: Option<[ControllerSearch; 2]>,
    locks1: Vec<Piece>,
    locks2: Vec<Piece>,
    clocks1: Vec<Lock>,
    ranked: Vec<(f64, usize)>,
    pairs: Vec<Pair>,
    /// Rate the best this many (current, preview) pairs with a third piece by expectation
    /// (levels below 29, and from 29 in a capped game).
    pub expect_pairs: Option<usize>,
    /// Then rate the best this many of them with a fourth piece too (below level 29, the
    /// preview seen).
    pub fourth_pairs: Option<usize>,
    /// Before the preview on the kill screens of a capped game (from level 29), rate the best
    /// pairs a fourth piece deep (`KILL_SCREEN_FOURTH`).
    pub kill_screen_fourth: bool,
    /// The standard format's double kill screen: two rows a frame from level 39.
    pub double_kill_screen: bool,
    /// The game ends at a level cap (a competition format): worth building for Tetrises on
    /// the kill screen (`Profile::at`).
    pub capped: bool,
}

/// A (current, preview) pair of placements and its two-deep value.
#[derive(Clone, Copy)]
struct Pair {
    value: f64,
    /// Index of the current piece's placement in `locks1`.
    first: usize,
    placed: [Placed; 2],
}

impl Pair {
    /// By value, ties by the first placement's index and then the preview's lock position: a
    /// total order, so which pairs are kept does not depend on the selection algorithm.
    fn order(a: &Pair, b: &Pair) -> std::cmp::Ordering {
        let lock = |p: &Pair| {
            let q = p.placed[1].piece;
            (q.y, q.x, q.id)
        };
        a.value
            .total_cmp(&b.value)
            .then(a.first.cmp(&b.first))
            .then_with(|| lock(a).cmp(&lock(b)))
    }
}

/// First placements, and pairs of each, rated with a third piece before the preview is seen
/// (`Planner::third_piece_unseen`).
const UNSEEN_FIRSTS: usize = 3;
const UNSEEN_PAIRS: usize = 2;

/// Value of a third piece with no place at all (the game is over).
const TOP_OUT: f64 = 1e6;
/// Rating units for each column out of reach after the third piece on the double kill screen
/// (`Planner::unreached_cost`): from an empty playfield at level 39, 200 games of at most 250
/// pieces, 10 cleared 7.5 more lines a game and scored 15k more points; 20 and 40 cleared more
/// lines for fewer points (README).
const UNREACHED_COLUMN_WEIGHT: f64 = 10.0;
/// Pairs the strong profile rates with a third piece (mean score at the transition on 32 games:
/// 2 pairs 1,014,390; 4 1,108,419; 8 1,140,792; 16 1,147,282 at 30% more time than 8).
pub const EXPECT_PAIRS: usize = 8;
/// Pairs rated four pieces deep, and the third piece's placements (of each type) followed by
/// a fourth: on 1,000 games the pre-19 mean rose 1.9% (the best 2 pairs: 1.3%; 2 pairs and 3
/// placements: 1.1%); the median decision takes 2.5 ms instead of 0.6 (README).
pub const FOURTH_PAIRS: usize = 3;
const FOURTH_THIRDS: usize = 2;
/// Before the preview on the kill screens of a capped game (from level 29), where nearly
/// every piece locks by the plan made before the preview: the best pair of each preview, and
/// each third piece's best placement, rated a fourth piece deep. From an empty playfield at
/// level 29 to 39, 200 games, paired: +91,826 ± 48,098 points a game at a median decision of
/// 11.6 ms (2.9 without). The best 2 placements of each third piece, paired against this on
/// 400 games: +70,370 ± 28,794, but a p99 decision of 20.5 ms, over a frame. From level 39,
/// on 400 whole games: +16,199 ± 7,608 points a game, at a p99 decision of 9.3 ms (README).
const KILL_SCREEN_FOURTH: Fourth = Fourth {
    pairs: 1,
    thirds: 1,
};

/// A placement of a third piece kept for a fourth (`Planner::expectation`): the spawn ID of
/// its type, its rating and the playfield after it.
struct Third {
    id: u8,
    value: f64,
    placed: Placed,
    board: Board,
}

/// How many of the best pairs a third piece deep (`Planner::third_piece`) are rated a fourth
/// piece deep, following each type of third piece's best `thirds` placements.
#[derive(Clone, Copy)]
struct Fourth {
    pairs: usize,
    thirds: usize,
}

const NO_FOURTH: Fourth = Fourth {
    pairs: 0,
    thirds: 0,
};

/// The stack's height from its column heights.
fn stack_height(h: &[u8; 10]) -> u8 {
    h.iter().copied().max().unwrap_or(0)
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
        let expect_pairs =
            matches!(profile, Profile::Strong(_) | Profile::Banded(_)).then_some(EXPECT_PAIRS);
        Some(Planner {
            profile,
            kind,
            prune,
            place: [PlacementSearch::default(), PlacementSearch::default()],
            ctrl,
            locks1: Vec::new(),
            locks2: Vec::new(),
            clocks1: Vec::new(),
            ranked: Vec::new(),
            pairs: Vec::new(),
            expect_pairs,
            fourth_pairs: expect_pairs.map(|_| FOURTH_PAIRS),
            kill_screen_fourth: expect_pairs.is_some(),
            double_kill_screen: false,
            capped: false,
        })
    }

    /// The gravity the plans are made for at `level`.
    pub fn gravity(&self, level: u8) -> Gravity {
        Gravity::at(level, self.double_kill_screen)
    }

    /// Frames between two presses of a button, for the controller search.
    pub fn tap_period(&self) -> Option<u8> {
        self.ctrl.as_ref().map(|[c, ..]| c.period)
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
        let preview = next.map_or(Preview::Ignored, Preview::Seen);
        self.decide_knowing(board, level, current, pad, preview)
    }

    /// Decides before the preview is seen (controller search): the current piece is moved with
    /// taps only, and each of its best placements is rated by the mean, over the pieces the
    /// preview can be (weighted by the picker's odds), of the best pair with it, the preview
    /// placed where taps reach it (`preview_locks`); from level 16 the best of them are rated a
    /// third piece deep (`third_piece_unseen`).
    pub fn decide_unseen(
        &mut self,
        board: &Board,
        level: u8,
        current: Control,
        pad: Pad,
    ) -> Option<Decision> {
        self.decide_knowing(board, level, current, pad, Preview::Unseen)
    }

    fn decide_knowing(
        &mut self,
        board: &Board,
        level: u8,
        current: Control,
        pad: Pad,
        preview: Preview,
    ) -> Option<Decision> {
        let mut prefix = Vec::new();
        let gravity = self.gravity(level);
        let search = if preview == Preview::Unseen { 1 } else { 0 };
        match &mut self.ctrl {
            None => {
                if !self.place[0].search(board, current.piece.id, &mut self.locks1) {
                    return None;
                }
            }
            Some(searches) => {
                let c = &mut searches[search];
                let p = current.piece;
                if !board.fits(p.id, p.x, p.y) {
                    return None;
                }
                let (start, pad, first) = match search_start(board, gravity, current, pad, c.period)
                {
                    Ok(start) => start,
                    Err(target) => {
                        return Some(Decision {
                            target,
                            inputs: vec![DOWN],
                        })
                    }
                };
                prefix.extend(first);
                c.search(board, gravity, start, pad, &mut self.clocks1);
                self.locks1.clear();
                self.locks1.extend(self.clocks1.iter().map(|l| l.piece));
            }
        }
        if self.locks1.is_empty() {
            return None;
        }
        let heights = board.heights();
        let height = stack_height(&heights);
        // One piece deep: rate every first placement (also the fallback and the pruning order).
        self.ranked.clear();
        for (i, &p1) in self.locks1.iter().enumerate() {
            let (mut b1, mut h1) = (*board, heights);
            let lines = b1.lock_keeping_heights(p1, &mut h1);
            let placed = [Placed {
                piece: p1,
                lines,
                height_before: height,
            }];
            self.ranked
                .push((self.rate(level, height, &b1, &h1, &placed), i));
        }
        let mut best = self
            .ranked
            .iter()
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|&(_, i)| i)?;
        if preview == Preview::Ignored {
            return Some(self.decision(best, prefix, search));
        }
        if let Some(k) = self.prune {
            if self.ranked.len() > k {
                // Ties go to the first found: with a total order the kept set is the same
                // whatever the selection algorithm.
                self.ranked
                    .select_nth_unstable_by(k - 1, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                self.ranked.truncate(k);
            }
            // Keep the search order so ties resolve like the unpruned search.
            self.ranked.sort_by_key(|&(_, i)| i);
        }
        if let Preview::Seen(next_id) = preview {
            self.rate_pairs(board, level, gravity, height, next_id);
            let best_pair = self.pairs.iter().min_by(|a, b| a.value.total_cmp(&b.value));
            if let Some(pair) = best_pair {
                best = pair.first;
            }
            // Uncapped, the kill screen is the classic function's survival, kept two deep.
            if let Some(k) = self.expect_pairs.filter(|_| level < 29 || self.capped) {
                let fourth = Fourth {
                    pairs: self.fourth_pairs.filter(|_| level < 29).unwrap_or(0),
                    thirds: FOURTH_THIRDS,
                };
                if let Some((_, first)) = self.third_piece(board, level, height, next_id, k, fourth)
                {
                    best = first;
                }
            }
        } else {
            let previous = SPAWN_ID[TYPE_OF[current.piece.id as usize] as usize];
            let mut expected = vec![0.0; self.locks1.len()];
            let mut pair_value = vec![0.0; self.locks1.len()];
            for (&id, &odds) in SPAWN_ID.iter().zip(&Picker::odds_after(previous)) {
                if odds == 0 {
                    continue;
                }
                self.rate_pairs(board, level, gravity, height, id);
                pair_value.fill(TOP_OUT);
                for pair in &self.pairs {
                    pair_value[pair.first] = pair_value[pair.first].min(pair.value);
                }
                for &(_, i) in &self.ranked {
                    expected[i] += pair_value[i] * odds as f64 / 64.0;
                }
            }
            best = self
                .ranked
                .iter()
                .map(|&(_, i)| (expected[i], i))
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .map_or(best, |(_, i)| i);
            // From three frames a row (level 16) a piece on a high stack locks before the
            // preview is seen or soon after: its plan looks a third piece deep here or never.
            // Uncapped, the kill screen is the classic function's survival, kept two deep.
            let locks_unseen = gravity.frames_per_row <= 3 && (level < 29 || self.capped);
            if locks_unseen && self.expect_pairs.is_some() {
                let third =
                    self.third_piece_unseen(board, level, gravity, height, previous, &expected);
                best = third.unwrap_or(best);
            }
        }
        Some(self.decision(best, prefix, search))
    }

    /// The rating of `board` after the `placed` pieces at `level`, from a stack `height` rows
    /// high before them: the profile's there (`Profile::at`), and in a capped game on the kill
    /// screen at 30 Hz the wells no piece can fill any more (`eval::unfillable_wells`).
    fn rate(&self, level: u8, height: u8, board: &Board, h: &[u8; 10], placed: &[Placed]) -> f64 {
        let profile = self.profile.at(level, height, self.capped);
        let value = profile.evaluate_with(level, board, h, placed);
        let limits = fill_limits(self.gravity(level)).filter(|_| self.capped);
        match limits {
            Some(limits) if self.tap_period() == tap_period(30) => {
                value + profile.unfillable_weight() * unfillable_wells(h, limits) as f64
            }
            _ => value,
        }
    }

    /// On the double kill screen, `UNREACHED_COLUMN_WEIGHT` for each column fresh pieces no
    /// longer reach on `board` (`eval::unreached_columns`); elsewhere 0. A playfield with few
    /// holes can still cut the edges off, a tower in the middle most of all, and the pieces
    /// then pile up in the middle until they top out. Counted after the third piece only: a
    /// search for each of the seven pieces costs about 11 µs.
    fn unreached_cost(&self, level: u8, board: &Board) -> f64 {
        let gravity = self.gravity(level);
        match self.tap_period() {
            Some(period) if gravity.rows_per_drop == 2 => {
                UNREACHED_COLUMN_WEIGHT * unreached_columns(board, gravity, period) as f64
            }
            _ => 0.0,
        }
    }

    /// The decision for the first placement `best` of the last search.
    fn decision(&self, best: usize, mut prefix: Vec<u8>, search: usize) -> Decision {
        let target = self.locks1[best];
        let inputs = match &self.ctrl {
            None => Vec::new(),
            Some(searches) => {
                prefix.extend(searches[search].plan(&self.clocks1[best]));
                prefix
            }
        };
        Decision { target, inputs }
    }

    /// Rates every pair of a first placement in `ranked` and a lock position of the preview
    /// piece `next_id` two deep, into `pairs` (the preview where the controller reaches it:
    /// `preview_locks`).
    fn rate_pairs(&mut self, board: &Board, level: u8, gravity: Gravity, height: u8, next_id: u8) {
        self.pairs.clear();
        let heights = board.heights();
        for r in 0..self.ranked.len() {
            let i = self.ranked[r].1;
            let p1 = self.locks1[i];
            let (mut b1, mut h1) = (*board, heights);
            let lines1 = b1.lock_keeping_heights(p1, &mut h1);
            let first = Placed {
                piece: p1,
                lines: lines1,
                height_before: height,
            };
            if !self.preview_locks(&b1, gravity, next_id, true) {
                continue;
            }
            let height1 = stack_height(&h1);
            for &p2 in &self.locks2 {
                let (mut b2, mut h2) = (b1, h1);
                let lines2 = b2.lock_keeping_heights(p2, &mut h2);
                let placed = [
                    first,
                    Placed {
                        piece: p2,
                        lines: lines2,
                        height_before: height1,
                    },
                ];
                let v = self.rate(level, height, &b2, &h2, &placed);
                self.pairs.push(Pair {
                    value: v,
                    first: i,
                    placed,
                });
            }
        }
    }

    /// Lock positions of the preview piece `id`, freshly spawned on `board`, into `locks2`;
    /// false when it cannot spawn. In controller mode those that taps reach (no Down, no
    /// holds: `spawn_tap_locks`, the taps-only search's locks); not `exact`: always
    /// gravity-free (the cheaper rating of the third piece below the kill-screen speed).
    fn preview_locks(&mut self, board: &Board, gravity: Gravity, id: u8, exact: bool) -> bool {
        match &self.ctrl {
            // At slow gravity nearly every lock position is reachable by the controller: the
            // cheaper gravity-free search stands in for it.
            Some([c, _]) if exact && gravity.frames_per_row < SLOW_GRAVITY => {
                spawn_tap_locks(board, gravity, id, c.period, &mut self.locks2);
                !self.locks2.is_empty()
            }
            _ => self.place[1].search(board, id, &mut self.locks2),
        }
    }

    /// A third piece before the preview is seen, from level 16 (and on the kill screen of a
    /// capped game), where on a high stack the piece locks before the preview shows: the best
    /// `UNSEEN_FIRSTS` first placements by their two-deep expectation (`expected`, by index in
    /// `locks1`) are re-rated by the mean over the preview (the picker's odds after
    /// `previous`) of their best pair re-rated with a third piece by expectation
    /// (`third_piece`, of their best `UNSEEN_PAIRS` pairs; on the kill screen the best of
    /// those a fourth piece deep too, `KILL_SCREEN_FOURTH`). Returns the best of them.
    fn third_piece_unseen(
        &mut self,
        board: &Board,
        level: u8,
        gravity: Gravity,
        height: u8,
        previous: u8,
        expected: &[f64],
    ) -> Option<usize> {
        let mut firsts: Vec<(f64, usize)> =
            self.ranked.iter().map(|&(_, i)| (expected[i], i)).collect();
        firsts.sort_by(|a, b| a.0.total_cmp(&b.0));
        firsts.truncate(UNSEEN_FIRSTS);
        // `rate_pairs` pairs every first placement in `ranked`: here one first at a time.
        let ranked = std::mem::take(&mut self.ranked);
        let mut best: Option<(f64, usize)> = None;
        for (_, i) in firsts {
            self.ranked.push((0.0, i));
            let mut value = 0.0;
            for (&id, &odds) in SPAWN_ID.iter().zip(&Picker::odds_after(previous)) {
                if odds == 0 {
                    continue;
                }
                self.rate_pairs(board, level, gravity, height, id);
                let fourth = match level {
                    29.. if self.kill_screen_fourth => KILL_SCREEN_FOURTH,
                    _ => NO_FOURTH,
                };
                let third = self.third_piece(board, level, height, id, UNSEEN_PAIRS, fourth);
                value += third.map_or(TOP_OUT, |(v, _)| v) * odds as f64 / 64.0;
            }
            self.ranked.clear();
            if best.is_none_or(|(b, _)| value < b) {
                best = Some((value, i));
            }
        }
        self.ranked = ranked;
        best.map(|(_, i)| i)
    }

    /// The third piece by expectation: the best `k` pairs of `self.pairs` are re-rated by the
    /// mean over the piece after the preview (weighted by the picker's odds after it) of that
    /// piece's best placement (`expectation`), and the best `fourth.pairs` of those a fourth
    /// piece deep. Returns the best pair's expectation and first placement.
    fn third_piece(
        &mut self,
        board: &Board,
        level: u8,
        height: u8,
        next_id: u8,
        k: usize,
        fourth: Fourth,
    ) -> Option<(f64, usize)> {
        if self.pairs.len() > k {
            self.pairs.select_nth_unstable_by(k - 1, Pair::order);
            self.pairs.truncate(k);
        }
        // Equal expectations go to the better two-deep value (`min_by` keeps the first).
        self.pairs.sort_by(Pair::order);
        let pairs = std::mem::take(&mut self.pairs);
        let mut rated: Vec<(f64, &Pair, Vec<Third>)> = Vec::with_capacity(pairs.len());
        let mut placed = Vec::with_capacity(4);
        for pair in &pairs {
            let mut b2 = *board;
            for p in &pair.placed {
                b2.lock(p.piece.id, p.piece.x, p.piece.y);
            }
            placed.clear();
            placed.extend(pair.placed);
            let mut thirds = Vec::new();
            let kept = (fourth.pairs > 0).then_some((fourth.thirds, &mut thirds));
            let value = self.expectation(&b2, level, height, next_id, &mut placed, kept);
            rated.push((value, pair, thirds));
        }
        if fourth.pairs > 0 {
            rated.sort_by(|a, b| a.0.total_cmp(&b.0));
            rated.truncate(fourth.pairs);
            for (value, pair, thirds) in &mut rated {
                placed.clear();
                placed.extend(pair.placed);
                *value = self.fourth_piece(level, height, next_id, &mut placed, thirds);
            }
        }
        let best = rated
            .iter()
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|&(value, pair, _)| (value, pair.first));
        self.pairs = pairs;
        best
    }

    /// The mean, over the piece after `prev_id` (the picker's odds), of the best rating of its
    /// placements on `after`, the playfield after the `placed` pieces (rated as the decision
    /// from a stack `height` rows high). When `placed` is a pair (the piece rated is the
    /// third), each type's best placement adds the columns it leaves out of reach
    /// (`unreached_cost`); after a third piece it does not, as for a fourth piece they would
    /// take seven times the searches (`fourth_piece` adds the third's). With `kept` (`keep`,
    /// `thirds`), each type's best `keep` placements go to `thirds`, for a fourth piece.
    fn expectation(
        &mut self,
        after: &Board,
        level: u8,
        height: u8,
        prev_id: u8,
        placed: &mut Vec<Placed>,
        mut kept: Option<(usize, &mut Vec<Third>)>,
    ) -> f64 {
        let heights = after.heights();
        let h = stack_height(&heights);
        let mut expected = 0.0;
        for (&id, &odds) in SPAWN_ID.iter().zip(&Picker::odds_after(prev_id)) {
            if odds == 0 {
                continue;
            }
            let mut value = TOP_OUT;
            // Below level 29 gravity-free: under the stacks the strong profile builds nearly
            // every lock position is reachable at those speeds (on 32 games with 4 pairs the
            // taps-only controller search gave the same mean, in three times the time). From
            // 29 the taps reach much less (3% more points there than gravity-free on 100
            // games).
            if self.preview_locks(after, self.gravity(level), id, level >= 29) {
                let start = kept.as_ref().map_or(0, |(_, thirds)| thirds.len());
                let mut best_board = None;
                for &p in &self.locks2 {
                    let (mut b, mut hb) = (*after, heights);
                    let lines = b.lock_keeping_heights(p, &mut hb);
                    placed.push(Placed {
                        piece: p,
                        lines,
                        height_before: h,
                    });
                    let v = self.rate(level, height, &b, &hb, placed);
                    let p = placed.pop().expect("pushed above");
                    if v < value {
                        best_board = Some(b);
                    }
                    value = value.min(v);
                    if let Some((_, thirds)) = &mut kept {
                        thirds.push(Third {
                            id,
                            value: v,
                            placed: p,
                            board: b,
                        });
                    }
                }
                if let Some(b) = best_board.filter(|_| placed.len() == 2) {
                    value += self.unreached_cost(level, &b);
                }
                if let Some((keep, thirds)) = &mut kept {
                    // Stable: equal ratings keep the order found.
                    thirds[start..].sort_by(|a, b| a.value.total_cmp(&b.value));
                    thirds.truncate(start + *keep);
                }
            }
            expected += value * odds as f64 / 64.0;
        }
        expected
    }

    /// The mean, over the piece after `prev_id` (the picker's odds), of the best of its kept
    /// placements (`thirds`, by type: `expectation`) each rated by the expectation over the
    /// piece after it: a fourth piece deep.
    fn fourth_piece(
        &mut self,
        level: u8,
        height: u8,
        prev_id: u8,
        placed: &mut Vec<Placed>,
        thirds: &[Third],
    ) -> f64 {
        let mut expected = 0.0;
        for (&id, &odds) in SPAWN_ID.iter().zip(&Picker::odds_after(prev_id)) {
            if odds == 0 {
                continue;
            }
            let mut value = TOP_OUT;
            for third in thirds.iter().filter(|t| t.id == id) {
                placed.push(third.placed);
                // The columns out of reach count after the third piece, as three deep.
                let v = self.expectation(&third.board, level, height, id, placed, None)
                    + self.unreached_cost(level, &third.board);
                placed.pop();
                value = value.min(v);
            }
            expected += value * odds as f64 / 64.0;
        }
        expected
    }

    /// The placement search's shortest move path to the last decision's target (placement kind).
    pub fn placement_path(&self, target: Piece) -> Vec<crate::placement::Move> {
        self.place[0].path(target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::UNFILLABLE_WELL_WEIGHT;

    /// The strong profile's planner at 30 Hz, rating `expect_pairs` pairs three deep and
    /// `fourth_pairs` of them four deep.
    fn strong(expect_pairs: Option<usize>, fourth_pairs: Option<usize>) -> Planner {
        let mut planner = Planner::new(
            Profile::by_name("strong").unwrap(),
            SearchKind::Controller { tap_hz: 30 },
        )
        .unwrap();
        planner.expect_pairs = expect_pairs;
        planner.fourth_pairs = fourth_pairs;
        planner
    }

    /// Lines cleared and lines cleared by Tetrises in `pieces` placements at level 18 from an
    /// empty playfield (the game's picker, frames between picks varied by `seed`).
    fn tetris_lines(
        expect_pairs: Option<usize>,
        fourth_pairs: Option<usize>,
        seed: u64,
        pieces: usize,
    ) -> (u32, u32) {
        let mut planner = strong(expect_pairs, fourth_pairs);
        let mut picker = Picker::default();
        let mut frames = crate::sim::SplitMix(seed);
        let mut pick = || {
            for _ in 0..30 + frames.next_u64() % 40 {
                picker.frame();
            }
            picker.pick()
        };
        let (mut board, mut current, mut next) = (Board::default(), pick(), pick());
        let (mut lines, mut tetris) = (0, 0);
        for _ in 0..pieces {
            let spawn = Control::spawned(current, 0);
            let Some(d) = planner.decide(&board, 18, spawn, Pad::idle(), Some(next)) else {
                break;
            };
            let cleared = board.lock(d.target.id, d.target.x, d.target.y) as u32;
            lines += cleared;
            if cleared == 4 {
                tetris += 4;
            }
            (current, next) = (next, pick());
        }
        (lines, tetris)
    }

    #[test]
    fn capped_kill_screen_ratings_count_the_wells_no_piece_can_fill() {
        // Column 0 two rows under a five-row stack: on the double kill screen no piece fills it
        // (two cells); at a row a frame a J or an I still does.
        let mut board = Board::default();
        for (x, height) in [3, 5, 5, 5, 5, 5, 5, 5, 5, 4].into_iter().enumerate() {
            for y in (20 - height)..20 {
                board.set(x as i8, y);
            }
        }
        let extra = |tap_hz, capped, double_kill_screen, level| {
            let mut planner =
                Planner::new(Profile::Classic, SearchKind::Controller { tap_hz }).unwrap();
            planner.capped = capped;
            planner.double_kill_screen = double_kill_screen;
            planner.rate(level, 5, &board, &board.heights(), &[])
                - Profile::Classic.evaluate(level, &board, &[])
        };
        assert_eq!(extra(30, true, true, 39), 2.0 * UNFILLABLE_WELL_WEIGHT);
        assert_eq!(extra(30, true, true, 38), 0.0);
        assert_eq!(
            extra(30, true, false, 39),
            0.0,
            "a row a frame at 39 without the format"
        );
        assert_eq!(
            extra(30, false, true, 39),
            0.0,
            "uncapped: the game's own survival"
        );
        assert_eq!(extra(20, true, true, 39), 0.0, "the limits are 30 Hz taps'");
    }

    #[test]
    fn equally_rated_pairs_are_kept_in_the_order_found() {
        // Twelve pairs, all rated alike but two: whatever order the selection meets them in,
        // it keeps the better two and then the first found (lowest first placement, then the
        // preview's lock row and column).
        let pair = |first: usize, x: i8, value: f64| {
            let at = |x| Placed {
                piece: Piece { x, y: 19, id: 10 },
                lines: 0,
                height_before: 0,
            };
            Pair {
                value,
                first,
                placed: [at(0), at(x)],
            }
        };
        let mut pairs: Vec<Pair> = (0..12)
            .map(|n| {
                pair(
                    n / 3,
                    (n % 3) as i8 + 2,
                    if n == 7 || n == 10 { 1.0 } else { 2.0 },
                )
            })
            .collect();
        let mut rng = crate::sim::SplitMix(3);
        for _ in 0..20 {
            for i in (1..pairs.len()).rev() {
                pairs.swap(i, rng.next_u64() as usize % (i + 1));
            }
            let mut kept = pairs.clone();
            kept.select_nth_unstable_by(4, Pair::order);
            kept.truncate(5);
            kept.sort_by(Pair::order);
            let kept: Vec<(usize, i8)> = kept
                .iter()
                .map(|p| (p.first, p.placed[1].piece.x))
                .collect();
            assert_eq!(kept, [(2, 3), (3, 3), (0, 2), (0, 3), (0, 4)]);
        }
    }

    #[test]
    fn a_third_piece_by_expectation_makes_more_tetrises() {
        // Four games of 250 pieces: 57% of the lines by Tetrises two deep, 73% three deep.
        let share = |expect_pairs, fourth_pairs| {
            let (lines, tetris) = (1..=4)
                .map(|seed| tetris_lines(expect_pairs, fourth_pairs, seed, 250))
                .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
            assert!(lines > 300, "the games go on: {lines} lines");
            tetris as f64 / lines as f64
        };
        let (two, three) = (share(None, None), share(Some(EXPECT_PAIRS), None));
        assert!(
            three > two + 0.1,
            "two deep {two:.2}, three deep {three:.2}"
        );
    }

    #[test]
    fn a_fourth_piece_re_rates_only_the_best_pairs() {
        // Re-rating the best pair alone changes nothing; the best few, the choice among them.
        let play = |fourth| tetris_lines(Some(EXPECT_PAIRS), fourth, 1, 150);
        let three = play(None);
        assert_eq!(play(Some(1)), three);
        assert_ne!(play(Some(FOURTH_PAIRS)), three);
    }

    #[test]
    fn before_the_preview_a_third_piece_counts_from_three_frames_a_row() {
        // The playfields of a game three deep; on each, the plan before the preview with and
        // without a third piece: alike at level 15 (four frames a row), not at 18 (three).
        let (mut three, mut two) = (strong(Some(EXPECT_PAIRS), None), strong(None, None));
        let mut picker = Picker::default();
        let (mut board, mut current, mut next) = (Board::default(), picker.pick(), picker.pick());
        let mut differs = [0; 2];
        for _ in 0..60 {
            let spawn = Control::spawned(current, 0);
            for (n, level) in [15, 18].into_iter().enumerate() {
                let plan = |p: &mut Planner| {
                    p.decide_unseen(&board, level, spawn, Pad::idle())
                        .map(|d| d.target)
                };
                if plan(&mut three) != plan(&mut two) {
                    differs[n] += 1;
                }
            }
            let d = three
                .decide(&board, 18, spawn, Pad::idle(), Some(next))
                .expect("the game goes on");
            board.lock(d.target.id, d.target.x, d.target.y);
            for _ in 0..47 {
                picker.frame();
            }
            (current, next) = (next, picker.pick());
        }
        assert_eq!(differs[0], 0, "level 15");
        assert!(differs[1] > 0, "level 18: {differs:?}");
    }

    #[test]
    fn on_the_kill_screen_the_plan_before_the_preview_looks_a_fourth_piece_deep() {
        // The playfields of a capped game from level 29; on each, the plan before the preview
        // with and without the fourth piece: alike at level 28, not at 29, nor at 39 on the
        // double kill screen.
        let mut planner = strong(Some(EXPECT_PAIRS), Some(FOURTH_PAIRS));
        planner.capped = true;
        planner.double_kill_screen = true;
        let mut picker = Picker::default();
        let (mut board, mut current) = (Board::default(), picker.pick());
        let mut differs = [0; 3];
        for _ in 0..40 {
            let spawn = Control::spawned(current, 0);
            for (n, level) in [28, 29, 39].into_iter().enumerate() {
                let mut plan = |fourth| {
                    planner.kill_screen_fourth = fourth;
                    planner
                        .decide_unseen(&board, level, spawn, Pad::idle())
                        .map(|d| d.target)
                };
                if plan(true) != plan(false) {
                    differs[n] += 1;
                }
            }
            let d = planner
                .decide_unseen(&board, 29, spawn, Pad::idle())
                .expect("the game goes on");
            board.lock(d.target.id, d.target.x, d.target.y);
            for _ in 0..37 {
                picker.frame();
            }
            current = picker.pick();
        }
        assert_eq!(differs[0], 0, "level 28");
        assert!(
            differs[1] > 0 && differs[2] > 0,
            "levels 29 and 39: {differs:?}"
        );
    }
}
