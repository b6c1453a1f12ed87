//! Evaluation of a playfield after the searched pieces are placed. Lower is better.
//!
//! `classic` is the article's function: six factors (lines cleared, lock height, well cells,
//! column holes, column transitions, row transitions) with the article's weights, computed exactly
//! as the original AI defines them. `strong` is this project's own profile: more features, with
//! weights tuned by `ai::train` (see `weights/README.md`).

use crate::controller::spawn_tap_locks;
use crate::rules::{
    drop_speed, max_dy, Board, Gravity, Piece, FIRST_ID, FULL_ROW, HEIGHT, ORIENTATIONS,
};
use serde::{Deserialize, Serialize};

/// What one placement did, for the factors that depend on the path rather than the final board.
#[derive(Clone, Copy, Debug)]
pub struct Placed {
    pub piece: Piece,
    pub lines: u8,
    /// Stack height before the placement (for the score objective: burning when high is fine).
    pub height_before: u8,
}

/// The article's weights, in the order of its table (digits as printed there).
#[allow(clippy::excessive_precision)]
pub const CLASSIC_WEIGHTS: [f64; 6] = [
    1.000000000000000,
    12.885008263218383,
    15.842707182438396,
    26.894496507795950,
    27.616914062397015,
    30.185110719279040,
];

/// The six classic factors of a final board plus the placements that led to it.
pub fn classic_factors(board: &Board, placed: &[Placed]) -> [f64; 6] {
    classic_factors_with(board, &board.heights(), placed)
}

/// `classic_factors` of a board whose column heights are `h`.
fn classic_factors_with(board: &Board, h: &[u8; 10], placed: &[Placed]) -> [f64; 6] {
    let lines: u32 = placed.iter().map(|p| p.lines as u32).sum();
    // Lock height: rows between the piece's lowest square and the floor.
    let lock_height: i32 = placed
        .iter()
        .map(|p| 19 - (p.piece.y + max_dy(p.piece.id)) as i32)
        .sum();
    let depth = h.map(|h| if h == 0 { HEIGHT - 1 } else { HEIGHT - h as i8 });
    let top = (HEIGHT as u8 - h.iter().copied().max().unwrap_or(0)) as usize;
    let [holes, column_transitions, row_transitions] = classic_rows(board, top);
    [
        lines as f64,
        lock_height as f64,
        classic_wells(board, &depth) as f64,
        holes as f64,
        column_transitions as f64,
        row_transitions as f64,
    ]
}

pub fn classic(board: &Board, placed: &[Placed]) -> f64 {
    classic_with(board, &board.heights(), placed)
}

fn classic_with(board: &Board, h: &[u8; 10], placed: &[Placed]) -> f64 {
    let f = classic_factors_with(board, h, placed);
    f.iter().zip(CLASSIC_WEIGHTS).map(|(f, w)| f * w).sum()
}

/// Well cells: from a column's top down to the higher neighbour's top, cells whose left and
/// right neighbours (or walls) are solid.
/// `depth`: the row of the topmost solid cell of each column, an empty column counting as row
/// 19, as in the original AI.
fn classic_wells(board: &Board, depth: &[i8; 10]) -> u32 {
    let mut wells = 0;
    for x in 0..10usize {
        let min_y = match x {
            0 => depth[1],
            9 => depth[8],
            _ => depth[x - 1].max(depth[x + 1]),
        };
        for y in min_y..=depth[x] {
            let row = board.rows[y as usize];
            let left = x == 0 || row >> (x - 1) & 1 != 0;
            let right = x == 9 || row >> (x + 1) & 1 != 0;
            if left && right {
                wells += 1;
            }
        }
    }
    wells
}

/// Empty cells directly below a solid cell.
pub fn holes(board: &Board) -> u32 {
    classic_rows(board, 0)[0]
}

/// The classic function's row counts in one pass down from row `top` (the rows above it are
/// empty and count nothing): holes (empty cells directly below a solid cell), column
/// transitions (solid/empty changes going down each column below its top cell, the floor not
/// counted) and row transitions (solid/empty changes across each non-empty row, the walls
/// counting as solid).
fn classic_rows(board: &Board, top: usize) -> [u32; 3] {
    let (mut holes, mut column_t, mut row_t) = (0, 0, 0);
    let (mut above, mut seen) = (0u16, 0u16);
    for &row in &board.rows[top..] {
        seen |= above;
        holes += bits(above & !row & FULL_ROW);
        column_t += bits((row ^ above) & seen);
        if row != 0 {
            let e = (row << 1) | 1 | (1 << 11);
            row_t += bits(e ^ (e >> 1));
        }
        above = row;
    }
    [holes, column_t, row_t]
}

/// Number of features of the strong profile.
pub const STRONG_FEATURES: usize = 18;
pub const STRONG_NAMES: [&str; STRONG_FEATURES] = [
    "holes",
    "hole_depth",
    "rows_with_holes",
    "column_transitions",
    "row_transitions",
    "bumpiness",
    "bumpiness_sq",
    "aggregate_height",
    "max_height_danger",
    "well_cells",
    "deep_wells",
    "right_column",
    "tetris_ready",
    "burn",
    "tetris",
    "lock_height",
    "unfit_pieces",
    "well_blocked",
];

/// The classic function's six factors, in the order of `classic_factors`.
const CLASSIC_NAMES: [&str; 6] = [
    "lines",
    "lock_height",
    "well_cells",
    "holes",
    "column_transitions",
    "row_transitions",
];

/// `CLASSIC_NAMES` followed by `more` (N is M + 6).
const fn classic_and<const N: usize, const M: usize>(more: [&'static str; M]) -> [&'static str; N] {
    assert!(N == M + 6);
    let mut names = [""; N];
    let mut i = 0;
    while i < N {
        names[i] = if i < 6 { CLASSIC_NAMES[i] } else { more[i - 6] };
        i += 1;
    }
    names
}

/// The features of `Profile::KeepingWell`: the classic function's six factors and the height
/// of column 9 (the Tetris well).
pub const KEEPING_WELL_NAMES: [&str; 7] = classic_and(["well_column_height"]);

/// Number of features of the double kill screen's survival rating (`Profile::Survival`).
pub const SURVIVAL_FEATURES: usize = 12;
/// The classic function's six factors, the wells no piece can fill any more at two rows a
/// frame (`unfillable_wells`), three of the strong profile's features, and two for Tetrises
/// in a well of any column (`any_well_ready`).
pub const SURVIVAL_NAMES: [&str; SURVIVAL_FEATURES] = classic_and([
    "unfillable_wells",
    "bumpiness",
    "max_height_danger",
    "unfit_pieces",
    "tetris",
    "well_ready",
]);
/// Bottom profiles of the pieces other than I as height steps between neighbouring columns
/// (right minus left): the surface steps where the piece lands without leaving a hole. Per
/// type O, T, S, Z, J, L; one entry per orientation (a one-column step pads with 9).
const CLEAN_FITS: [&[[i8; 2]]; 6] = [
    &[[0, 9]],
    &[[0, 0], [-1, 1], [-1, 9], [1, 9]],
    &[[0, 1], [-1, 9]],
    &[[-1, 0], [1, 9]],
    &[[0, 0], [0, -1], [2, 9], [0, 9]],
    &[[0, 0], [1, 0], [-2, 9], [0, 9]],
];

/// Piece types (of O, T, S, Z, J, L) with no place on columns 0-8 where they land without a
/// hole: a surface that takes every piece cleanly keeps the stack clean whatever comes.
fn unfit_pieces(h: &[u8; 10]) -> u32 {
    // Bit x of at[s + 2]: the step from column x to x + 1 is s (-2..=2).
    let mut at = [0u16; 5];
    for x in 0..8 {
        let s = h[x + 1] as i8 - h[x] as i8;
        if (-2..=2).contains(&s) {
            at[(s + 2) as usize] |= 1 << x;
        }
    }
    let fits = |&[a, b]: &[i8; 2]| {
        let first = at[(a + 2) as usize];
        first != 0 && (b == 9 || first & at[(b + 2) as usize] >> 1 != 0)
    };
    CLEAN_FITS
        .iter()
        .filter(|profiles| !profiles.iter().any(fits))
        .count() as u32
}

/// Rows by which columns 6-8 stand in the way of an I piece going to the well (column 9) at
/// `level`'s gravity: with taps at 30 Hz the vertical I (bottom at row 1 at spawn) passes
/// column 6, 7, 8 on frames 1, 3, 5, having dropped a row every `drop_speed` frames before.
fn well_blocked(h: &[u8; 10], level: u8) -> u32 {
    let speed = drop_speed(level) as i32;
    (6..9)
        .map(|x| {
            let frame = 2 * (x as i32 - 5) - 1;
            let limit = 18 - (frame - 1) / speed;
            (h[x] as i32 - limit).max(0) as u32
        })
        .sum()
}

/// Columns out of reach of fresh pieces: for each of the seven pieces, the columns left of
/// the leftmost and right of the rightmost cell of every lock position that taps at `period`
/// frames reach from the spawn (all ten where it cannot spawn), summed. On the double kill
/// screen a tower in the middle or a high edge cuts the playfield off long before it tops out.
pub fn unreached_columns(board: &Board, gravity: Gravity, period: u8) -> u32 {
    let mut locks = Vec::with_capacity(64);
    FIRST_ID
        .iter()
        .map(|&id| {
            spawn_tap_locks(board, gravity, id, period, &mut locks);
            let columns = locks
                .iter()
                .flat_map(|p| ORIENTATIONS[p.id as usize].map(|(dx, _)| p.x + dx));
            match (columns.clone().min(), columns.max()) {
                (Some(left), Some(right)) => (left + 9 - right) as u32,
                _ => 10,
            }
        })
        .sum()
}

/// Tetris readiness of a well in column `x`: rows complete but for column `x` just above its
/// stack (`h`: the board's column heights); an I in the well clears up to 4 of them.
pub fn ready_rows(board: &Board, h: &[u8; 10], x: usize) -> usize {
    let row = FULL_ROW & !(1 << x);
    board.rows[..(HEIGHT as usize - h[x] as usize)]
        .iter()
        .rev()
        .take_while(|&&r| r == row)
        .count()
}

/// The most rows, up to 4, ready for a Tetris in a well of any column (`ready_rows`). On the
/// double kill screen the far columns fill only on a low stack (`unfillable_wells`), so the
/// well goes where a piece still reaches.
pub fn any_well_ready(board: &Board, h: &[u8; 10]) -> usize {
    (0..10)
        .map(|x| ready_rows(board, h, x).min(4))
        .max()
        .unwrap_or(0)
}

/// Weights of the strong profile (one per feature).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Weights {
    pub w: Vec<f64>,
}

impl Weights {
    /// The weights kept in the repository (trained; see weights/README.md).
    pub fn strong() -> Weights {
        serde_json::from_str(include_str!("../weights/strong.json")).expect("weights/strong.json")
    }

    /// The weights the standard format plays with below level 29 (`weights/standard.toml`:
    /// trained in that format to the transition; weights/README.md).
    pub fn standard_before_29() -> Weights {
        Weights::parse(
            include_str!("../weights/standard.toml"),
            true,
            &STRONG_NAMES,
        )
        .expect("weights/standard.toml")
    }

    /// The weights the strong profile survives the standard format's double kill screen with
    /// (`weights/double_kill_screen.toml`, features `SURVIVAL_NAMES`: trained from level 39,
    /// but for the last two, set from a sweep there; weights/README.md).
    pub fn double_kill_screen() -> Weights {
        Weights::parse(
            include_str!("../weights/double_kill_screen.toml"),
            true,
            &SURVIVAL_NAMES,
        )
        .expect("weights/double_kill_screen.toml")
    }

    /// Where the training of survival weights for levels 29-37 starts (`nestor ai-train
    /// --weights-of kill-screen-survival`; tried, not used): the double kill screen's with a
    /// ready row worth -100 instead of -60 (at a row a frame more wells stay in reach).
    pub fn kill_screen_survival_start() -> Weights {
        let mut w = Weights::double_kill_screen();
        let well_ready = SURVIVAL_NAMES.iter().position(|&n| n == "well_ready");
        w.w[well_ready.expect("a survival feature")] = -100.0;
        w
    }

    /// The weights of `Profile::KeepingWell` by default: the classic function's, and
    /// `WELL_KEEPING_WEIGHT` for each row of column 9.
    pub fn keeping_well() -> Weights {
        let mut w = CLASSIC_WEIGHTS.to_vec();
        w.push(WELL_KEEPING_WEIGHT);
        Weights { w }
    }

    /// The survival features' weights that rate as the classic function does (its six, and
    /// the unfillable wells' `UNFILLABLE_WELL_WEIGHT`): where the double kill screen's
    /// training starts.
    pub fn classic_survival() -> Weights {
        let mut w = CLASSIC_WEIGHTS.to_vec();
        w.push(UNFILLABLE_WELL_WEIGHT);
        w.resize(SURVIVAL_FEATURES, 0.0);
        Weights { w }
    }

    /// Reads a weights file of the features `names` (`STRONG_NAMES` or `SURVIVAL_NAMES`):
    /// JSON as `weights/strong.json` (`{"w": [...]}`, in the order of `names`), or, for a name
    /// ending in `.toml`, one `feature = weight` line per feature. Every feature must be
    /// given, once, as a finite number.
    pub fn load(path: &std::path::Path, names: &[&str]) -> Result<Weights, String> {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        Weights::parse(&text, path.extension().is_some_and(|e| e == "toml"), names)
    }

    /// The weights of a file's text (`load`).
    fn parse(text: &str, toml: bool, names: &[&str]) -> Result<Weights, String> {
        let w = if toml {
            let table: std::collections::BTreeMap<String, f64> =
                toml::from_str(text).map_err(|e| e.message().to_string())?;
            if let Some(name) = table.keys().find(|k| !names.contains(&k.as_str())) {
                return Err(format!("unknown feature '{name}'"));
            }
            let weight = |name: &&str| {
                table
                    .get(*name)
                    .copied()
                    .ok_or_else(|| format!("no weight for '{name}'"))
            };
            names.iter().map(weight).collect::<Result<_, _>>()?
        } else {
            serde_json::from_str::<Weights>(text)
                .map_err(|e| e.to_string())?
                .w
        };
        if w.len() != names.len() {
            return Err(format!("{} weights, not {}", w.len(), names.len()));
        }
        if let Some(i) = w.iter().position(|v| !v.is_finite()) {
            return Err(format!("the weight of '{}' is not a number", names[i]));
        }
        Ok(Weights { w })
    }

    /// The text of a weights file of the features `names` for `path` (TOML for a name ending
    /// in `.toml`, else JSON), which `load` reads back.
    pub fn file_text(&self, path: &std::path::Path, names: &[&str]) -> String {
        if path.extension().is_some_and(|e| e == "toml") {
            names
                .iter()
                .zip(&self.w)
                .map(|(name, w)| format!("{name} = {w:?}\n"))
                .collect()
        } else {
            serde_json::to_string(self).expect("finite numbers") + "\n"
        }
    }

    /// The weights of the features `names` in `path`, or `builtin` with a one-line warning
    /// naming the file.
    pub fn load_or(path: &std::path::Path, names: &[&str], builtin: fn() -> Weights) -> Weights {
        Weights::load(path, names).unwrap_or_else(|e| {
            eprintln!(
                "weights {}: {e}; using the built-in weights",
                path.display()
            );
            builtin()
        })
    }
}

/// Set bits of each 11-bit mask (a row with a wall): without the CPU's population count (the
/// default x86-64 target) `count_ones` is a dozen instructions, a look-up one.
const BITS: [u8; 2048] = {
    let mut bits = [0; 2048];
    let mut m = 0;
    while m < bits.len() {
        bits[m] = (m as u32).count_ones() as u8;
        m += 1;
    }
    bits
};

/// Set bits of a row mask (columns, and a wall bit above them).
fn bits(mask: u16) -> u32 {
    BITS[(mask & 0x7FF) as usize] as u32
}

/// Computes the strong profile's features at `level`.
pub fn strong_features(board: &Board, placed: &[Placed], level: u8) -> [f64; STRONG_FEATURES] {
    strong_features_with(board, &board.heights(), placed, level)
}

/// `strong_features` of a board whose column heights are `h`.
fn strong_features_with(
    board: &Board,
    h: &[u8; 10],
    placed: &[Placed],
    level: u8,
) -> [f64; STRONG_FEATURES] {
    let rows = &board.rows;
    let max_h = *h.iter().max().unwrap();
    // One pass over the rows from the top of the stack: those above it are empty.
    let top = (HEIGHT as u8 - max_h) as usize;
    // Holes and their depth (solid cells above each hole, up to 6). The cells above are
    // counted per column in three bit planes (bit x of `above[k]`: bit k of column x's count),
    // all columns at once, stopping at 6.
    let mut holes = 0u32;
    let mut hole_depth = 0u32;
    let mut rows_with_holes = 0u32;
    let mut above = [0u16; 3];
    let mut seen = 0u16;
    let mut right_column = 0u32;
    // Column transitions, the floor counting as solid (row 0 has no row above it to differ
    // from), and row transitions over columns 0-8 (the well column would add two per row).
    let mut col_t = bits(!rows[19] & FULL_ROW);
    let mut row_t = 0u32;
    let mut previous = if top == 0 { rows[0] } else { 0 };
    for &row in &rows[top..] {
        col_t += bits(row ^ previous);
        previous = row;
        let left = row & 0x1FF;
        if left != 0 {
            let e = (left << 1) | 1 | (1 << 10);
            row_t += bits((e ^ (e >> 1)) & 0x3FF);
        }
        right_column += (row >> 9 & 1) as u32;
        let hole_bits = !row & seen & FULL_ROW;
        if hole_bits != 0 {
            rows_with_holes += 1;
            holes += bits(hole_bits);
            hole_depth += (0..3).map(|k| bits(hole_bits & above[k]) << k).sum::<u32>();
        }
        let mut carry = row & !(above[2] & above[1]);
        for plane in &mut above {
            let next = *plane & carry;
            *plane ^= carry;
            carry = next;
        }
        seen |= row;
    }
    // Surface over columns 0-8; column 9 is the Tetris well.
    let mut bump = 0u32;
    let mut bump_sq = 0u32;
    for x in 0..8 {
        let d = (h[x] as i32 - h[x + 1] as i32).unsigned_abs();
        bump += d;
        bump_sq += d * d;
    }
    let aggregate: u32 = h.iter().map(|&v| v as u32).sum();
    let danger = max_h.saturating_sub(danger_height(level)) as f64;
    // Wells in columns 0-8 (depth below the lower neighbour).
    let mut well_cells = 0u32;
    let mut deep_wells = 0u32;
    for x in 0..9 {
        let left = if x == 0 { 20 } else { h[x - 1] };
        let right = h[x + 1];
        let d = left.min(right).saturating_sub(h[x]) as u32;
        well_cells += d;
        if d >= 3 {
            deep_wells += 1;
        }
    }
    let ready = ready_rows(board, h, 9).min(4) as f64;
    let mut burn = 0.0;
    let mut tetris = 0.0;
    let mut lock_height = 0.0;
    for p in placed {
        match p.lines {
            0 => {}
            4 => tetris += 1.0,
            n => burn += n as f64 * (1.0 - (p.height_before as f64 / BURN_FREE_HEIGHT).min(1.0)),
        }
        lock_height += (19 - (p.piece.y + max_dy(p.piece.id))) as f64;
    }
    [
        holes as f64,
        hole_depth as f64,
        rows_with_holes as f64,
        col_t as f64,
        row_t as f64,
        bump as f64,
        bump_sq as f64,
        aggregate as f64,
        danger * danger,
        well_cells as f64,
        deep_wells as f64,
        right_column as f64,
        ready,
        burn,
        tetris,
        lock_height,
        unfit_pieces(h) as f64,
        well_blocked(h, level) as f64,
    ]
}

/// Surface patterns of the learned value: three neighbouring steps of columns 0-8, each clamped
/// to -2..2, at each of the six windows (an n-tuple network's tuples: one weight per pattern
/// and place).
const SURFACE_PATTERNS: usize = 6 * 125;
/// Rows ready in the well (0-8) by the height of columns 0-8 (0-15) by the gravity's band (level
/// 18, 19-27, 28): how much a ready row is worth depends on how close the stack is to the top.
const READY_BY_HEIGHT: usize = 9 * 16 * 3;
/// Holes (0-3) by the height of columns 0-8 in bands of four rows.
const HOLES_BY_HEIGHT: usize = 4 * 4;
/// The learned value's features: a bias, the surface patterns, the ready rows and the holes by
/// height, and the cells missing from the four rows above the well's floor.
pub const VALUE_FEATURES: usize = 1 + SURFACE_PATTERNS + READY_BY_HEIGHT + HOLES_BY_HEIGHT + 1;

/// Calls `f` with the index and value of each non-zero feature of the learned value of a
/// playfield at `level`.
fn for_value_features(board: &Board, level: u8, mut f: impl FnMut(usize, f64)) {
    let h = &board.heights();
    f(0, 1.0);
    let step = |x: usize| (h[x + 1] as i32 - h[x] as i32).clamp(-2, 2) as usize + 2;
    for x in 0..6 {
        f(
            1 + x * 125 + step(x) * 25 + step(x + 1) * 5 + step(x + 2),
            1.0,
        );
    }
    let mut at = 1 + SURFACE_PATTERNS;
    let height = h[..9].iter().max().copied().unwrap_or(0).min(15) as usize;
    let ready = ready_rows(board, h, 9).min(8);
    let band = match level {
        ..19 => 0,
        19..28 => 1,
        _ => 2,
    };
    f(at + (band * 16 + height) * 9 + ready, 1.0);
    at += READY_BY_HEIGHT;
    let holes = holes(board).min(3) as usize;
    f(at + holes * 4 + height / 4, 1.0);
    at += HOLES_BY_HEIGHT;
    // Cells of columns 0-8 an I in the well still needs filled to clear four rows.
    let floor = HEIGHT as usize - h[9] as usize;
    let missing: u32 = (1..=4)
        .filter(|&r| r <= floor)
        .map(|r| 9 - (board.rows[floor - r] & 0x1FF).count_ones())
        .sum();
    f(at, missing as f64);
}

/// The default scale of a learned value's correction (`Profile::standard_valued`), in rating
/// units a point: larger ones steered to higher stacks and more top-outs (weights/README.md).
pub const VALUE_SCALE: f64 = 0.02;

/// A value learned from the simulator's games (`ai::train::fit_value`, `nestor ai-train
/// --fit-value`): the points (at level 0's rates: 40, 100, 300, 1,200 a clear) that follow a
/// playfield before level 29, each piece's discounted by 1 - 1 / `horizon`, less what a
/// top-out leaves unplayed, as a linear function of `value_features`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Value {
    pub horizon: u32,
    pub w: Vec<f64>,
}

impl Value {
    /// The value the standard profile plays with (`weights/value.json`, weights/README.md).
    pub fn builtin() -> Value {
        serde_json::from_str(include_str!("../weights/value.json")).expect("weights/value.json")
    }

    /// Reads a value file (JSON, as `ai-train --fit-value` writes it).
    pub fn load(path: &std::path::Path) -> Result<Value, String> {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        let value: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        if value.w.len() != VALUE_FEATURES {
            return Err(format!("{} weights, not {VALUE_FEATURES}", value.w.len()));
        }
        if !value.w.iter().all(|w| w.is_finite()) {
            return Err("a weight is not a number".into());
        }
        Ok(value)
    }

    /// The correction to the strong rating of a playfield at `level`: its value in points,
    /// negated (a lower rating is better).
    fn correction(&self, board: &Board, level: u8) -> f64 {
        let mut v = 0.0;
        for_value_features(board, level, |i, x| v += self.w[i] * x);
        -v
    }
}

/// The learned value's non-zero features of a playfield at `level`, by index (for fitting).
pub fn value_features(board: &Board, level: u8) -> Vec<(u16, f64)> {
    let mut out = Vec::new();
    for_value_features(board, level, |i, x| out.push((i as u16, x)));
    out
}

/// Stack height (before the piece) at which a burned line stops costing in the strong
/// rating: the cost falls with the height, where clearing turns from a loss into survival.
const BURN_FREE_HEIGHT: f64 = 16.0;

/// Stack height above which the strong rating's `max_height_danger` counts: 9 rows below the
/// kill screen, where a stack of 9 rows costs nothing yet, so fewer rows ready for the next
/// Tetris are burned to keep it down; 8 from level 29, where a piece reaches less.
pub fn danger_height(level: u8) -> u8 {
    if level < 29 {
        9
    } else {
        8
    }
}

/// Stack height from which the strong profile stops building and burns (keeping the well:
/// `Profile::KeepingWell`) at levels 19-28.
pub const BURN_HEIGHT: u8 = 12;
/// The same at level 18 and below (3 frames a row or more), where a piece still reaches every
/// column of a stack a row higher.
pub const SLOW_BURN_HEIGHT: u8 = 13;
/// The same at level 28, the last before the kill-screen speed, in an uncapped game: there the
/// classic function survives from level 29, and a stack still 12 rows high when the gravity
/// doubles often tops out. A capped game builds on at levels 29-37 and hands over at level 28
/// as before it.
pub const LAST_LEVEL_BURN_HEIGHT: u8 = 8;

/// The same at levels 29-37 (a row a frame) in a capped game, where a piece can still reach
/// every column of a stack this low at 30 Hz, and an I the well; above it the classic function
/// plays, keeping the well (`Profile::KeepingWell`).
pub const KILL_SCREEN_BURN_HEIGHT: u8 = 10;

/// Weight of each row of column 9's height (the Tetris well) in `Profile::KeepingWell`: about
/// a row transition, so the classic function leaves no piece in the well but those whose cells
/// there clear; on the first 50 standard games levels 29-38 then add 440k points instead of
/// 359k, and on the first 100 the pre-29 mean is 1,105,901 instead of 1,075,474 when the
/// hand-over below level 29 keeps the well too (README).
pub const WELL_KEEPING_WEIGHT: f64 = 30.0;

/// `Profile::KeepingWell` with its default weights, which the strong profile hands over to.
static KEEPING_WELL: std::sync::LazyLock<Profile> =
    std::sync::LazyLock::new(|| Profile::KeepingWell(Weights::keeping_well()));

/// For a well one or two columns wide (`[width - 1]`) and `d` rows deep (1, 2, 3 or more:
/// `[d - 1]`) from each column (`[x]`, its left column), the highest stack around it (the lower
/// of its sides, rows) at which pieces freshly spawned still fill each of its bottom cells with
/// taps at 30 Hz, searched up to 15 rows (15: that high or more; -1: at no height). A two-wide
/// well cannot start in column 9: 15 there. Found by the controller search (test
/// `fill_limits_are_the_searchs`).
pub struct FillLimits {
    pub wells: [[[i8; 10]; 3]; 2],
    /// The lowest limit: no well counts on a stack no higher.
    lowest: i8,
}

impl FillLimits {
    const fn new(wells: [[[i8; 10]; 3]; 2]) -> FillLimits {
        let mut lowest = i8::MAX;
        let mut i = 0;
        while i < 60 {
            let limit = wells[i / 30][i / 10 % 3][i % 10];
            if limit < lowest {
                lowest = limit;
            }
            i += 1;
        }
        FillLimits { wells, lowest }
    }
}

/// At a row a frame (levels 29 and up): the edges fill only below 10-14 rows.
const FILL_LIMITS_ROW_A_FRAME: FillLimits = FillLimits::new([
    [
        [12, 14, 15, 15, 15, 15, 15, 15, 15, 14],
        [10, 13, 15, 15, 15, 15, 15, 15, 15, 12],
        [10, 12, 15, 15, 15, 15, 15, 15, 15, 12],
    ],
    [
        [13, 15, 15, 15, 15, 15, 15, 15, 15, 15],
        [13, 15, 15, 15, 15, 15, 15, 15, 15, 15],
        [13, 15, 15, 15, 15, 15, 15, 15, 15, 15],
    ],
]);

/// On the double kill screen (two rows a frame): a piece spawned in column 5 passes the left
/// columns later than the right ones, a well in column 0 deeper than one row never fills, and
/// one in columns 0-1 only below 7 rows.
const FILL_LIMITS_TWO_ROWS_A_FRAME: FillLimits = FillLimits::new([
    [
        [6, 10, 14, 15, 15, 15, 15, 15, 14, 10],
        [2, 7, 11, 15, 15, 15, 15, 15, 11, 6],
        [-1, 6, 11, 15, 15, 15, 15, 15, 11, 6],
    ],
    [
        [7, 11, 15, 15, 15, 15, 15, 15, 11, 15],
        [7, 11, 14, 15, 15, 15, 15, 15, 11, 15],
        [7, 11, 14, 15, 15, 15, 15, 15, 11, 15],
    ],
]);

/// The fill limits at `gravity` with taps at 30 Hz, from the kill-screen speed on (below it,
/// pieces reach every well of a stack that does not top out).
pub fn fill_limits(gravity: Gravity) -> Option<&'static FillLimits> {
    match (gravity.frames_per_row, gravity.rows_per_drop) {
        (1, 1) => Some(&FILL_LIMITS_ROW_A_FRAME),
        (1, 2) => Some(&FILL_LIMITS_TWO_ROWS_A_FRAME),
        _ => None,
    }
}

/// Cells of the wells one and two columns wide (depth below the lower side, a wall counting
/// as high; a two-wide well from its higher bottom column) that pieces can no longer fill at
/// the stack's height (`limits`): on the kill screen a well at the edge that grows too deep
/// stays open, and so every row above its bottom.
/// `h`: the board's column heights.
pub fn unfillable_wells(h: &[u8; 10], limits: &FillLimits) -> u32 {
    // The sides of a well are no higher than the stack.
    if *h.iter().max().unwrap() as i8 <= limits.lowest {
        return 0;
    }
    let limits = &limits.wells;
    // Heights with the walls as high as the playfield on either side.
    let mut s = [HEIGHT as u8; 12];
    s[1..11].copy_from_slice(h);
    let mut cells = 0;
    for x in 0..10 {
        let (bottom, around) = (s[x + 1], s[x].min(s[x + 2]));
        if around > bottom && around as i8 > limits[0][(around - bottom).min(3) as usize - 1][x] {
            cells += (around - bottom) as u32;
        }
    }
    for x in 0..9 {
        let (bottom, around) = (s[x + 1].max(s[x + 2]), s[x].min(s[x + 3]));
        if around > bottom && around as i8 > limits[1][(around - bottom).min(3) as usize - 1][x] {
            cells += 2 * (around - bottom) as u32;
        }
    }
    cells
}

/// Weight of an unfillable well cell, added to either profile's rating on the kill screen in a
/// capped game (about four holes of the classic function): on the double kill screen from an
/// empty playfield the classic function then survives 55.7 lines on average instead of 49.0
/// (README).
pub const UNFILLABLE_WELL_WEIGHT: f64 = 100.0;

fn strong_rating(w: &Weights, level: u8, board: &Board, h: &[u8; 10], placed: &[Placed]) -> f64 {
    let f = strong_features_with(board, h, placed, level);
    f.iter().zip(&w.w).map(|(f, w)| f * w).sum()
}

/// The survival rating of `Profile::Survival` but for its unfillable wells, which the planner
/// adds (`Profile::unfillable_weight`) where the controller's fill limits hold. Three features
/// are the strong profile's, from the column heights alone; then the Tetrises made and the
/// rows ready for one.
fn survival_rating(w: &Weights, board: &Board, h: &[u8; 10], placed: &[Placed]) -> f64 {
    let bumpiness: u32 = (0..8).map(|x| h[x].abs_diff(h[x + 1]) as u32).sum();
    let danger = (*h.iter().max().unwrap() as f64 - 8.0).max(0.0);
    let tetrises = placed.iter().filter(|p| p.lines == 4).count();
    let extras = [
        bumpiness as f64,
        danger * danger,
        unfit_pieces(h) as f64,
        tetrises as f64,
        any_well_ready(board, h) as f64,
    ];
    let classic = classic_factors_with(board, h, placed);
    (classic.iter().zip(&w.w[..6]))
        .chain(extras.iter().zip(&w.w[7..]))
        .map(|(f, w)| f * w)
        .sum()
}

/// The evaluation profiles.
#[derive(Clone, Debug)]
pub enum Profile {
    Classic,
    Strong(Weights),
    /// The classic function with the Tetris well kept open (`KEEPING_WELL_NAMES`): each row of
    /// column 9's height costs (by default `WELL_KEEPING_WEIGHT`), so it burns with the pieces
    /// whose cells in the well clear and leaves the well for an I. The strong profile hands
    /// over to it on a high stack below level 29, and on the kill screen of a capped game
    /// (`Profile::at`).
    KeepingWell(Weights),
    /// The strong profile's rating less a learned value (`Value::correction`) times a scale
    /// (rating units a point).
    Valued(Box<(Weights, Value, f64)>),
    /// Survival on the double kill screen: the classic function's factors and a few more,
    /// with weights trained there (`SURVIVAL_NAMES`, `Weights::double_kill_screen`).
    Survival(Weights),
    /// The standard format's strong profile: one profile below level 29 and one it hands over
    /// to there on a high stack, one from 29, and one in a capped game from 38 (the double
    /// kill screen from 39, and the level before it, which leaves the stack it starts on):
    /// weights trained on its play to the transition, the keeping-well ones, the built-in
    /// strong ones, and the survival weights.
    Banded(Box<[Profile; 4]>),
}

impl Profile {
    /// The names [`Profile::by_name`] takes.
    pub const NAMES: [&'static str; 2] = ["classic", "strong"];

    pub fn by_name(name: &str) -> Option<Profile> {
        match name {
            "classic" => Some(Profile::Classic),
            "strong" => Some(Profile::Strong(Weights::strong())),
            _ => None,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Profile::Classic | Profile::KeepingWell(_) => "classic",
            Profile::Strong(_) | Profile::Valued(_) | Profile::Banded(_) | Profile::Survival(_) => {
                "strong"
            }
        }
    }

    /// The strong profile of the standard format: `Weights::standard_before_29` corrected by
    /// the learned value (`Value::builtin`) below level 29, the built-in strong weights from 29
    /// on, and survival with `Weights::double_kill_screen` from 38 in a capped game.
    pub fn standard() -> Profile {
        Profile::standard_with(
            Weights::keeping_well(),
            Profile::Strong(Weights::strong()),
            Weights::double_kill_screen(),
        )
    }

    /// The standard profile keeping the well with `keeping_well` weights (of
    /// `KEEPING_WELL_NAMES`) on a high stack below level 29, playing `kill_screen` at levels
    /// 29-37 of a capped game (building with `Profile::Strong`, or surviving with
    /// `Profile::Survival`) and surviving from 38 with `survival` weights (of
    /// `SURVIVAL_NAMES`): what `nestor ai-train --weights-of
    /// keeping-well|kill-screen|kill-screen-survival|double-kill-screen` trains.
    pub fn standard_with(
        keeping_well: Weights,
        kill_screen: Profile,
        survival: Weights,
    ) -> Profile {
        Profile::Banded(Box::new([
            Profile::valued(Some(Value::builtin()), VALUE_SCALE),
            Profile::KeepingWell(keeping_well),
            kill_screen,
            Profile::Survival(survival),
        ]))
    }

    /// The weight of a cell of a well no piece can fill any more (`unfillable_wells`), which
    /// the planner adds on the kill screen of a capped game at 30 Hz.
    pub fn unfillable_weight(&self) -> f64 {
        match self {
            Profile::Survival(w) => w.w[6],
            _ => UNFILLABLE_WELL_WEIGHT,
        }
    }

    /// The standard profile with its rating below level 29 less `value` times `scale` (rating
    /// units a point; `nestor ai-bench --value`, `--value-scale`); with no value, the trained
    /// weights alone (what `ai-train --fit-value` fits its first value on).
    pub fn standard_valued(value: Option<Value>, scale: f64) -> Profile {
        let mut standard = Profile::standard();
        if let Profile::Banded(bands) = &mut standard {
            bands[0] = Profile::valued(value, scale);
        }
        standard
    }

    /// `Weights::standard_before_29`, less `value` times `scale` if there is one (a scale of 0
    /// rates as the weights alone, without computing the value).
    fn valued(value: Option<Value>, scale: f64) -> Profile {
        let weights = Weights::standard_before_29();
        match value {
            Some(value) if scale != 0.0 => Profile::Valued(Box::new((weights, value, scale))),
            _ => Profile::Strong(weights),
        }
    }

    /// The profile that rates placements at `level` with a stack `height` rows high.
    /// `strong` plays for score (Tetrises) while the stack is low; when it is high it hands
    /// over to the classic function keeping the well (which clears lines as they come, but
    /// with pieces whose cells in the well clear), and from level 29 (the kill screen, a row a
    /// frame) on to the plain classic function (survival). In a `capped` game (a competition
    /// format: the standard one ends at level 49) it still builds at levels 29-37 while the
    /// stack is low and keeps the well on a high one, and survives from 38, before the
    /// standard format's double kill screen at 39. Without a cap the kill screen lasts
    /// thousands of lines, which the classic function survives and Tetris building does not.
    /// The standard format's banded profile hands over where its first band does, plays the
    /// classic function from 29 in an uncapped game, and
    /// survives with its own weights from 38 in a capped game (from 39, one band higher, the
    /// game's points fell by 13k on the same 100 games; from 37 by 28k: README).
    pub fn at(&self, level: u8, height: u8, capped: bool) -> &Profile {
        if let Profile::Banded(bands) = self {
            let band = match level {
                ..29 if matches!(bands[0].at(level, height, capped), Profile::KeepingWell(_)) => 1,
                ..29 => 0,
                _ if !capped => return &Profile::Classic,
                29..38 => 2,
                _ => 3,
            };
            return bands[band].at(level, height, capped);
        }
        let burn_height = match level {
            ..19 => SLOW_BURN_HEIGHT,
            28 if !capped => LAST_LEVEL_BURN_HEIGHT,
            19..29 => BURN_HEIGHT,
            29..38 if capped => KILL_SCREEN_BURN_HEIGHT,
            _ => 0,
        };
        let keeps_well = level < 29 || (level < 38 && capped);
        match self {
            Profile::Strong(_) | Profile::Valued(_) if height >= burn_height && keeps_well => {
                &KEEPING_WELL
            }
            Profile::Strong(_) | Profile::Valued(_) if height >= burn_height => &Profile::Classic,
            p => p,
        }
    }

    pub fn evaluate(&self, level: u8, board: &Board, placed: &[Placed]) -> f64 {
        self.evaluate_with(level, board, &board.heights(), placed)
    }

    /// `evaluate` for a board whose column heights are `h` (`Board::heights`), which the
    /// planner counts once for the rating and the wells around it.
    pub fn evaluate_with(&self, level: u8, board: &Board, h: &[u8; 10], placed: &[Placed]) -> f64 {
        match self {
            Profile::Classic => classic_with(board, h, placed),
            Profile::KeepingWell(w) => {
                let classic = classic_factors_with(board, h, placed);
                (classic.iter().zip(&w.w)).map(|(f, w)| f * w).sum::<f64>() + w.w[6] * h[9] as f64
            }
            // The planner picks the band with the cap it knows (`at`); alone, a banded
            // profile rates as its band for the playfield's stack in an uncapped game.
            Profile::Banded(_) => {
                let height = h.iter().copied().max().unwrap_or(0);
                self.at(level, height, false)
                    .evaluate_with(level, board, h, placed)
            }
            Profile::Strong(w) => strong_rating(w, level, board, h, placed),
            Profile::Survival(w) => survival_rating(w, board, h, placed),
            Profile::Valued(p) => {
                let (w, value, scale) = &**p;
                strong_rating(w, level, board, h, placed) + scale * value.correction(board, level)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// A board with the given column heights, filled solid below them.
    fn stack(heights: [u8; 10]) -> Board {
        let mut b = Board::default();
        for (x, &h) in heights.iter().enumerate() {
            for y in (HEIGHT - h as i8)..HEIGHT {
                b.set(x as i8, y);
            }
        }
        b
    }

    /// The strong profile's cell features and the classic function's counted cell by cell, as
    /// defined, on random playfields with holes, overhangs and empty rows under the stack.
    #[test]
    fn the_cell_features_match_a_count_cell_by_cell() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..2000 {
            let mut b = Board::default();
            let density = 1 + next(9);
            for x in 0..10 {
                let top = HEIGHT as u64 - next(21);
                for y in top..HEIGHT as u64 {
                    if next(10) < density {
                        b.set(x, y as i8);
                    }
                }
            }
            let cell = |x: i8, y: i8| b.cell(x, y);
            let (mut holes, mut depth, mut rows_with_holes) = (0, 0, 0);
            for y in 0..HEIGHT {
                let mut row_has_hole = false;
                for x in 0..10 {
                    let above = (0..y).filter(|&u| cell(x, u)).count();
                    if !cell(x, y) && above > 0 {
                        holes += 1;
                        depth += above.min(6);
                        row_has_hole = true;
                    }
                }
                rows_with_holes += row_has_hole as usize;
            }
            // The floor is solid, the top of the playfield is not a transition.
            let solid = |x: i8, y: i8| y == HEIGHT || cell(x, y);
            let col_t = (0..10)
                .flat_map(|x| (1..=HEIGHT).map(move |y| (x, y)))
                .filter(|&(x, y)| solid(x, y) != solid(x, y - 1))
                .count();
            // Changes across columns 0..n between solid walls, in rows with a block there.
            let row_transitions = |n: i8| -> usize {
                (0..HEIGHT)
                    .filter(|&y| (0..n).any(|x| cell(x, y)))
                    .map(|y| {
                        let c = |x: i8| !(0..n).contains(&x) || cell(x, y);
                        (-1..n).filter(|&x| c(x) != c(x + 1)).count()
                    })
                    .sum()
            };
            // Columns 0-8 between a solid wall and a solid column 9.
            let row_t = row_transitions(9);
            let right_column = (0..HEIGHT).filter(|&y| cell(9, y)).count();
            let f = strong_features(&b, &[], 18);
            let expected = [holes, depth, rows_with_holes, col_t, row_t];
            assert_eq!(f[..5], expected.map(|v| v as f64), "{:?}", b.heights());
            assert_eq!(f[11], right_column as f64);
            // The classic function's: holes right under a solid cell, changes below each
            // column's top cell (the floor not counted), rows with both walls solid.
            let cells = || (0..10).flat_map(|x| (1..HEIGHT).map(move |y| (x, y)));
            let classic_holes = cells()
                .filter(|&(x, y)| cell(x, y - 1) && !cell(x, y))
                .count();
            let classic_col_t = cells()
                .filter(|&(x, y)| (0..y).any(|u| cell(x, u)) && cell(x, y) != cell(x, y - 1))
                .count();
            let expected = [classic_holes, classic_col_t, row_transitions(10)];
            assert_eq!(classic_factors(&b, &[])[3..], expected.map(|v| v as f64));
        }
    }

    #[test]
    fn unfit_pieces_counts_types_without_a_clean_landing() {
        // Flat: S and Z leave a hole anywhere.
        assert_eq!(unfit_pieces(&[4; 10]), 2);
        // One step up and then flat takes S (0, +1) and Z vertical (+1).
        assert_eq!(unfit_pieces(&[4, 4, 5, 5, 5, 5, 5, 5, 5, 0]), 0);
        // Alternating two-high spikes: only J and L standing up (+2 / -2) land clean.
        assert_eq!(unfit_pieces(&[0, 2, 0, 2, 0, 2, 0, 2, 0, 0]), 4);
    }

    #[test]
    fn the_danger_starts_a_row_higher_below_the_kill_screen() {
        let danger = |heights, level| {
            let i = STRONG_NAMES.iter().position(|&n| n == "max_height_danger");
            strong_features(&stack(heights), &[], level)[i.unwrap()]
        };
        let nine = [9, 9, 9, 9, 9, 9, 9, 9, 9, 0];
        assert_eq!(danger(nine, 18), 0.0);
        assert_eq!(danger(nine, 28), 0.0);
        assert_eq!(danger(nine, 29), 1.0);
        assert_eq!(danger([11, 11, 11, 11, 11, 11, 11, 11, 11, 0], 18), 4.0);
    }

    #[test]
    fn well_blocked_follows_gravity() {
        let mut h = [0; 10];
        h[8] = 16;
        // Level 19 (2 frames per row): the I is two rows down when passing column 8.
        assert_eq!(well_blocked(&h, 19), 0);
        h[8] = 17;
        assert_eq!(well_blocked(&h, 19), 1);
        // Level 29 (1 frame per row): four rows down there.
        h[8] = 15;
        assert_eq!(well_blocked(&h, 29), 1);
    }

    #[test]
    fn strong_burns_lower_before_the_kill_screen_speed() {
        let strong = Profile::by_name("strong").unwrap();
        let standard = Profile::standard();
        for capped in [false, true] {
            let builds = |p: &Profile, level, height| {
                matches!(
                    p.at(level, height, capped),
                    Profile::Strong(_) | Profile::Valued(_)
                )
            };
            let keeps_well = |p: &Profile, level, height| {
                matches!(p.at(level, height, capped), Profile::KeepingWell(_))
            };
            for p in [&strong, &standard] {
                assert!(builds(p, 27, BURN_HEIGHT - 1));
                assert!(keeps_well(p, 27, BURN_HEIGHT));
                // At three frames a row a piece still reaches every column a row higher.
                assert!(builds(p, 18, SLOW_BURN_HEIGHT - 1));
                assert!(keeps_well(p, 18, SLOW_BURN_HEIGHT));
                // Level 28 hands over lower without a cap, where survival follows at 29.
                let last = if capped {
                    BURN_HEIGHT
                } else {
                    LAST_LEVEL_BURN_HEIGHT
                };
                assert!(keeps_well(p, 28, last));
                assert!(builds(p, 28, last - 1));
            }
            assert!(matches!(strong.at(38, 0, capped), Profile::Classic));
            assert!(matches!(strong.at(200, 0, capped), Profile::Classic));
        }
    }

    #[test]
    fn fill_limits_are_the_searchs() {
        use crate::controller::{spawn_tap_locks, tap_period};
        use crate::rules::SPAWN_ID;
        let period = tap_period(30).unwrap();
        for gravity in [Gravity::at(29, true), Gravity::at(39, true)] {
            // A stack `around` rows high everywhere but a well `depth` deep in columns
            // `x..x + width`: does some piece fill each of its bottom cells?
            let fills = |x: i8, width: i8, depth: i8, around: i8| {
                let mut b = Board::default();
                for y in (HEIGHT - around)..HEIGHT {
                    let open = |c| (x..x + width).contains(&c) && y < HEIGHT - around + depth;
                    for c in (0..10).filter(|&c| !open(c)) {
                        b.set(c, y);
                    }
                }
                let bottom = (HEIGHT - around + depth - 1) as usize;
                let mut locks = Vec::new();
                let mut filled = 0;
                for &id in &SPAWN_ID {
                    spawn_tap_locks(&b, gravity, id, period, &mut locks);
                    for p in &locks {
                        let mut piece = Board::default();
                        piece.lock(p.id, p.x, p.y);
                        filled |= piece.rows[bottom] >> x & ((1 << width) - 1);
                    }
                }
                filled == (1 << width) - 1
            };
            let searched: [[[i8; 10]; 3]; 2] = std::array::from_fn(|w| {
                let width = w as i8 + 1;
                std::array::from_fn(|d| {
                    let depth = d as i8 + 1;
                    std::array::from_fn(|x| match x as i8 {
                        x if x + width > 10 => 15,
                        x => (depth..=15)
                            .filter(|&around| fills(x, width, depth, around))
                            .max()
                            .unwrap_or(-1),
                    })
                })
            });
            assert_eq!(
                Some(&searched),
                fill_limits(gravity).map(|l| &l.wells),
                "{gravity:?}"
            );
        }
        assert!(fill_limits(Gravity::at(28, true)).is_none());
    }

    /// Unfillable well cells of `b` at `level` in a capped game, at 30 Hz.
    fn unfillable_at(b: &Board, level: u8) -> u32 {
        unfillable_wells(&b.heights(), fill_limits(Gravity::at(level, true)).unwrap())
    }

    #[test]
    fn an_edge_well_too_deep_to_fill_counts_on_the_double_kill_screen() {
        // Five rows with column 0 two rows lower: at a row a frame a J or an I still fills it,
        // at two rows a frame nothing does; column 9 one row lower fills at both speeds.
        let b = stack([3, 5, 5, 5, 5, 5, 5, 5, 5, 4]);
        assert_eq!(unfillable_at(&b, 29), 0);
        assert_eq!(unfillable_at(&b, 39), 2);
    }

    #[test]
    fn a_two_column_gap_at_the_left_edge_counts_on_the_double_kill_screen() {
        // Columns 0-1 five rows under an eight-row stack: neither is a one-column well, and at
        // two rows a frame no piece reaches column 0's bottom cell any more.
        let b = stack([3, 3, 8, 8, 8, 8, 8, 8, 8, 8]);
        assert_eq!(unfillable_at(&b, 29), 0);
        assert_eq!(unfillable_at(&b, 39), 10);
        // Lower, at 7 rows, it still fills.
        assert_eq!(unfillable_at(&stack([2, 2, 7, 7, 7, 7, 7, 7, 7, 7]), 39), 0);
    }

    #[test]
    fn strong_builds_on_the_kill_screen_only_in_a_capped_game() {
        let strong = Profile::by_name("strong").unwrap();
        let is_strong =
            |level, height, capped| matches!(strong.at(level, height, capped), Profile::Strong(_));
        let keeps_well =
            |level, height| matches!(strong.at(level, height, true), Profile::KeepingWell(_));
        assert!(is_strong(29, KILL_SCREEN_BURN_HEIGHT - 1, true));
        assert!(keeps_well(29, KILL_SCREEN_BURN_HEIGHT));
        assert!(keeps_well(37, KILL_SCREEN_BURN_HEIGHT));
        assert!(is_strong(37, 0, true));
        assert!(!keeps_well(38, KILL_SCREEN_BURN_HEIGHT));
        assert!(!is_strong(29, 0, false));
        assert!(matches!(strong.at(37, 12, false), Profile::Classic));
    }

    #[test]
    fn keeping_the_well_costs_each_row_of_column_9() {
        // The same classic rating, and 3 rows of column 9 (one of them a cell over a hole).
        let open = stack([5, 5, 5, 5, 5, 5, 5, 5, 5, 0]);
        let mut covered = open;
        covered.set(9, 17);
        let keeping = |b: &Board| KEEPING_WELL.evaluate(29, b, &[]) - classic(b, &[]);
        assert_eq!(keeping(&open), 0.0);
        assert_eq!(keeping(&covered), 3.0 * WELL_KEEPING_WEIGHT);
    }

    #[test]
    fn hole_depth_counts_cells_above_each_hole_up_to_6() {
        let mut b = stack([9, 3, 0, 0, 0, 0, 0, 0, 0, 0]);
        // Column 0 (rows 11-19): holes in rows 13 (2 solid cells above) and 19 (7, counted
        // as 6); column 1 (rows 17-19): a hole in row 18 (1 above).
        b.rows[19] &= !1;
        b.rows[13] &= !1;
        b.rows[18] &= !2;
        let f = strong_features(&b, &[], 18);
        assert_eq!((f[0], f[1], f[2]), (3.0, 2.0 + 6.0 + 1.0, 3.0));
    }

    #[test]
    fn the_standard_profile_changes_weights_at_level_29() {
        let p = Profile::standard();
        let weights = |level, height| match p.at(level, height, true) {
            Profile::Strong(w) => Some(w.clone()),
            Profile::Valued(p) => Some(p.0.clone()),
            _ => None,
        };
        assert_eq!(weights(28, 0), Some(Weights::standard_before_29()));
        assert_eq!(weights(29, 0), Some(Weights::strong()));
        assert_ne!(Weights::standard_before_29(), Weights::strong());
        // Uncapped, the kill screen lasts thousands of lines: the classic function survives.
        assert!(matches!(p.at(29, 0, false), Profile::Classic));
        // Each band keeps its hand-over to the classic function, at level 18 a row higher.
        assert_eq!(weights(18, SLOW_BURN_HEIGHT), None);
        assert!(weights(18, SLOW_BURN_HEIGHT - 1).is_some());
        assert_eq!(weights(19, BURN_HEIGHT), None);
        assert!(weights(19, BURN_HEIGHT - 1).is_some());
        assert!(weights(28, BURN_HEIGHT).is_none());
        assert_eq!(weights(29, KILL_SCREEN_BURN_HEIGHT), None);
    }

    #[test]
    fn the_standard_profile_survives_the_double_kill_screen_with_its_own_weights() {
        let p = Profile::standard();
        let survives = |level, capped| match p.at(level, 0, capped) {
            Profile::Survival(w) => w == &Weights::double_kill_screen(),
            _ => false,
        };
        assert!(survives(38, true) && survives(39, true) && survives(48, true));
        assert!(!survives(37, true), "level 37 still builds");
        assert!(
            !survives(39, false),
            "uncapped: the classic function's survival"
        );
        assert_eq!(
            p.at(39, 0, true).unfillable_weight(),
            Weights::double_kill_screen().w[6]
        );
        assert_eq!(
            p.at(37, 0, true).unfillable_weight(),
            UNFILLABLE_WELL_WEIGHT
        );
    }

    #[test]
    fn survival_rates_as_the_classic_function_with_its_weights() {
        let board = stack([3, 5, 4, 4, 6, 2, 2, 3, 1, 0]);
        let classic_weights = Profile::Survival(Weights::classic_survival());
        assert_eq!(
            classic_weights.evaluate(39, &board, &[]),
            classic(&board, &[])
        );
        // The strong profile's bumpiness (columns 0-8), height danger and unfit pieces.
        let only = |i: usize| {
            let mut w = vec![0.0; SURVIVAL_FEATURES];
            w[i] = 1.0;
            Profile::Survival(Weights { w }).evaluate(39, &board, &[])
        };
        let strong = strong_features(&board, &[], 39);
        assert_eq!(only(7), strong[5]);
        assert_eq!(only(8), strong[8]);
        assert_eq!(only(9), strong[16]);
        assert_eq!(only(6), 0.0, "the planner adds the unfillable wells");
        // Row 19 is full but for column 9: one row ready (row 18 has two gaps).
        assert_eq!(only(11), 1.0);
        let piece = |lines| Placed {
            piece: Piece {
                id: 17,
                x: 9,
                y: 17,
            },
            lines,
            height_before: 3,
        };
        let mut w = vec![0.0; SURVIVAL_FEATURES];
        w[10] = 1.0;
        let tetrises = Profile::Survival(Weights { w });
        assert_eq!(tetrises.evaluate(39, &board, &[piece(4), piece(2)]), 1.0);
    }

    #[test]
    fn a_well_in_any_column_counts_its_ready_rows_up_to_four() {
        assert_eq!(any_well_ready(&Board::default(), &[0; 10]), 0);
        // Column 4 open over five full rows, column 9 over one.
        let board = stack([6, 6, 6, 6, 1, 6, 6, 6, 6, 5]);
        let h = board.heights();
        assert_eq!(any_well_ready(&board, &h), 4);
        // A hole-free row with two gaps is no Tetris row.
        let board = stack([3, 3, 0, 3, 3, 3, 3, 3, 3, 0]);
        assert_eq!(any_well_ready(&board, &board.heights()), 0);
        let board = stack([3, 3, 3, 3, 3, 3, 3, 3, 3, 0]);
        assert_eq!(any_well_ready(&board, &board.heights()), 3);
    }

    #[test]
    fn weights_files_round_trip_and_bad_ones_are_refused() {
        let dir = std::env::temp_dir().join(format!("ai-weights-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let w = Weights::strong();
        for name in ["w.json", "w.toml"] {
            let path = dir.join(name);
            std::fs::write(&path, w.file_text(&path, &STRONG_NAMES)).unwrap();
            assert_eq!(Weights::load(&path, &STRONG_NAMES), Ok(w.clone()), "{name}");
        }
        let bad = |name: &str, text: &str| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            Weights::load(&path, &STRONG_NAMES).unwrap_err()
        };
        assert!(bad("short.json", r#"{"w": [1.0, 2.0]}"#).contains("2 weights"));
        assert!(bad("junk.json", "not json").contains("expected"));
        let toml = w.file_text(Path::new("w.toml"), &STRONG_NAMES);
        assert!(bad("missing.toml", &toml.replacen("holes = ", "# ", 1)).contains("'holes'"));
        assert!(bad("extra.toml", &format!("{toml}speed = 1.0\n")).contains("'speed'"));
        assert!(Weights::load(&dir.join("absent.json"), &STRONG_NAMES).is_err());
        let survival = dir.join("survival.toml");
        std::fs::write(
            &survival,
            include_str!("../weights/double_kill_screen.toml"),
        )
        .unwrap();
        assert!(Weights::load(&survival, &STRONG_NAMES)
            .unwrap_err()
            .contains("unknown feature"));
        assert_eq!(
            Weights::load(&survival, &SURVIVAL_NAMES),
            Ok(Weights::double_kill_screen())
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn tetris_readiness_counts_full_rows_above_the_well_floor() {
        let mut b = stack([6, 6, 6, 6, 6, 6, 6, 6, 6, 1]);
        let ready = |b: &Board| strong_features(b, &[], 18)[12];
        assert_eq!(ready(&b), 4.0);
        // A hole in the second row above the well's floor cuts the run to one.
        b.rows[17] &= !1;
        assert_eq!(ready(&b), 1.0);
    }

    #[test]
    fn a_tower_in_the_middle_cuts_the_edges_off_on_the_double_kill_screen() {
        let double = Gravity::at(39, true);
        // Over a low stack every piece reaches both edges.
        assert_eq!(unreached_columns(&stack([2; 10]), double, 2), 0);
        // A tower 16 rows high in columns 4-5: a piece must pass it on the first frames.
        // 25 columns out of reach in all for the seven pieces on the double kill screen, 4 at
        // a row a frame, and more at 10 Hz.
        let tower = stack([2, 2, 2, 2, 16, 16, 2, 2, 2, 2]);
        assert_eq!(unreached_columns(&tower, double, 2), 25);
        assert_eq!(unreached_columns(&tower, Gravity::at(29, false), 2), 4);
        assert_eq!(unreached_columns(&tower, double, 6), 31);
        // A high left edge is out of reach on the double kill screen only.
        let left = stack([9, 9, 2, 2, 2, 2, 2, 2, 2, 2]);
        assert_eq!(unreached_columns(&left, double, 2), 6);
        assert_eq!(unreached_columns(&left, Gravity::at(29, false), 2), 0);
        // A piece that cannot spawn reaches nothing.
        assert_eq!(unreached_columns(&stack([20; 10]), double, 2), 70);
    }

    #[test]
    fn value_features_count_patterns_ready_rows_holes_and_cells_missing_for_a_tetris() {
        // Columns 0-8 four rows high, the well empty, and a hole in the third row from the
        // floor: two rows ready.
        let mut b = stack([4, 4, 4, 4, 4, 4, 4, 4, 4, 0]);
        b.rows[17] &= !(1 << 3);
        // All six windows of columns 0-8 are flat: steps (0, 0, 0).
        let flat = 2 * 25 + 2 * 5 + 2;
        let surface = (0..6).map(|k| (1 + k * 125 + flat, 1.0));
        let ready = 1 + SURFACE_PATTERNS as u16;
        // Band 0 (level 18), height 4, two rows ready.
        let ready_18 = (ready + 4 * 9 + 2, 1.0);
        // One hole, height band 1.
        let holes = (ready + READY_BY_HEIGHT as u16 + 4 + 1, 1.0);
        let missing = (VALUE_FEATURES as u16 - 1, 1.0);
        let expected: Vec<(u16, f64)> = [(0, 1.0)]
            .into_iter()
            .chain(surface)
            .chain([ready_18, holes, missing])
            .collect();
        assert_eq!(value_features(&b, 18), expected);
        // Level 19 is the next band.
        assert_eq!(value_features(&b, 19)[7].0, ready_18.0 + 16 * 9);
    }

    #[test]
    fn value_files_are_checked() {
        let dir = std::env::temp_dir().join(format!("ai-value-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let load = |w: Vec<f64>| {
            let path = dir.join("value.json");
            let text = serde_json::to_string(&Value { horizon: 20, w }).unwrap();
            std::fs::write(&path, text).unwrap();
            Value::load(&path)
        };
        let mut w = vec![1.0; VALUE_FEATURES];
        assert!(load(w.clone()).is_ok());
        assert!(load(w[1..].to_vec()).unwrap_err().contains("weights, not"));
        w[3] = f64::NAN;
        assert!(load(w).is_err());
        assert!(Value::load(&dir.join("absent.json")).is_err());
        // The built-in value is one such file.
        let builtin = Path::new(env!("CARGO_MANIFEST_DIR")).join("weights/value.json");
        assert_eq!(Value::load(&builtin), Ok(Value::builtin()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
