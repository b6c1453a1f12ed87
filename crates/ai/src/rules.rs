//! The rules of NES Tetris, as documented in the article ("Applying Artificial Intelligence to
//! Nintendo Tetris", meatfighter.com/nintendotetrisai) and Quadfall's code (roms/quadfall.s),
//! which follows it: tables, collision, the per-frame controls, lock, line
//! clears, lines/level/score in their BCD forms, the RNG and the piece picker.
//!
//! This module is the single source of NES rules for the simulator, the searches and the tests.

/// Controller bits as the game sees them in $B5/$B6 (bit 7..0 = A B Select Start Up Down Left Right).
pub mod buttons {
    pub const A: u8 = 0x80;
    pub const B: u8 = 0x40;
    pub const SELECT: u8 = 0x20;
    pub const START: u8 = 0x10;
    pub const UP: u8 = 0x08;
    pub const DOWN: u8 = 0x04;
    pub const LEFT: u8 = 0x02;
    pub const RIGHT: u8 = 0x01;
}
use buttons::*;

/// Playfield size.
pub const WIDTH: i8 = 10;
pub const HEIGHT: i8 = 20;
/// Orientation ID meaning "no piece".
pub const NO_PIECE: u8 = 0x13;
/// Spawn point of every piece.
pub const SPAWN_X: i8 = 5;
pub const SPAWN_Y: i8 = 0;
/// Power-on RNG seed ($17-$18).
pub const RNG_SEED: u16 = 0x8988;
/// autorepeatY at game start: the first piece hangs 96 frames unless Down is pressed.
pub const FIRST_PIECE_DELAY: u8 = 0xA0;

/// Orientation table ($8A9C) as (x, y) offsets of the four squares, indexed by orientation ID.
pub const ORIENTATIONS: [[(i8, i8); 4]; 19] = [
    [(-1, 0), (0, 0), (1, 0), (0, -1)],  // 00 T up
    [(0, -1), (0, 0), (1, 0), (0, 1)],   // 01 T right
    [(-1, 0), (0, 0), (1, 0), (0, 1)],   // 02 T down (spawn)
    [(0, -1), (-1, 0), (0, 0), (0, 1)],  // 03 T left
    [(0, -1), (0, 0), (-1, 1), (0, 1)],  // 04 J left
    [(-1, -1), (-1, 0), (0, 0), (1, 0)], // 05 J up
    [(0, -1), (1, -1), (0, 0), (0, 1)],  // 06 J right
    [(-1, 0), (0, 0), (1, 0), (1, 1)],   // 07 J down (spawn)
    [(-1, 0), (0, 0), (0, 1), (1, 1)],   // 08 Z horizontal (spawn)
    [(1, -1), (0, 0), (1, 0), (0, 1)],   // 09 Z vertical
    [(-1, 0), (0, 0), (-1, 1), (0, 1)],  // 0A O (spawn)
    [(0, 0), (1, 0), (-1, 1), (0, 1)],   // 0B S horizontal (spawn)
    [(0, -1), (0, 0), (1, 0), (1, 1)],   // 0C S vertical
    [(0, -1), (0, 0), (0, 1), (1, 1)],   // 0D L right
    [(-1, 0), (0, 0), (1, 0), (-1, 1)],  // 0E L down (spawn)
    [(-1, -1), (0, -1), (0, 0), (0, 1)], // 0F L left
    [(1, -1), (-1, 0), (0, 0), (1, 0)],  // 10 L up
    [(0, -2), (0, -1), (0, 0), (0, 1)],  // 11 I vertical
    [(-2, 0), (-1, 0), (0, 0), (1, 0)],  // 12 I horizontal (spawn)
];

/// Rotation table ($88EE): [counter-clockwise (B), clockwise (A)] for each orientation ID.
pub const ROTATION: [[u8; 2]; 19] = [
    [0x03, 0x01],
    [0x00, 0x02],
    [0x01, 0x03],
    [0x02, 0x00],
    [0x07, 0x05],
    [0x04, 0x06],
    [0x05, 0x07],
    [0x06, 0x04],
    [0x09, 0x09],
    [0x08, 0x08],
    [0x0A, 0x0A],
    [0x0C, 0x0C],
    [0x0B, 0x0B],
    [0x10, 0x0E],
    [0x0D, 0x0F],
    [0x0E, 0x10],
    [0x0F, 0x0D],
    [0x12, 0x12],
    [0x11, 0x11],
];

/// Tetrimino type of each orientation ID ($993B): T=0 J=1 Z=2 O=3 S=4 L=5 I=6.
pub const TYPE_OF: [u8; 19] = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 4, 4, 5, 5, 5, 5, 6, 6];
/// Spawn orientation ID of each type ($994E).
pub const SPAWN_ID: [u8; 7] = [0x02, 0x07, 0x08, 0x0A, 0x0B, 0x0E, 0x12];
/// First orientation ID and number of orientations of each type.
pub const FIRST_ID: [u8; 7] = [0x00, 0x04, 0x08, 0x0A, 0x0B, 0x0D, 0x11];
pub const ORIENTATION_COUNT: [u8; 7] = [4, 4, 2, 1, 2, 4, 2];
/// Type letters, for display.
pub const TYPE_NAMES: [char; 7] = ['T', 'J', 'Z', 'O', 'S', 'L', 'I'];

/// Frames per drop ($898E), levels 0-29; level 29 and up use 1.
pub const FRAMES_PER_DROP: [u8; 30] = [
    48, 43, 38, 33, 28, 23, 18, 13, 8, 6, 5, 5, 5, 4, 4, 4, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    1,
];
/// Points for 0-4 lines ($9CA5), packed BCD.
pub const POINTS_BCD: [u16; 5] = [0x0000, 0x0040, 0x0100, 0x0300, 0x1200];
/// The same points in binary, for the uncapped score.
pub const POINTS: [u64; 5] = [0, 40, 100, 300, 1200];

/// Frames per row at `level` (the lookupDropSpeed rule).
pub fn drop_speed(level: u8) -> u8 {
    if level >= 29 {
        1
    } else {
        FRAMES_PER_DROP[level as usize]
    }
}

/// The level from which the standard competition format's double kill screen drops the piece
/// two rows every frame (330 lines from level 18).
pub const DOUBLE_KILL_SCREEN_LEVEL: u8 = 39;

/// How the piece falls: a row every `frames_per_row` frames, `rows_per_drop` rows at a time.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Gravity {
    pub frames_per_row: u8,
    pub rows_per_drop: u8,
}

impl Gravity {
    /// The game's gravity at `level` or, with `double_kill_screen` (the standard competition
    /// format, not the game), two rows every frame from level 39.
    pub fn at(level: u8, double_kill_screen: bool) -> Gravity {
        let double = double_kill_screen && level >= DOUBLE_KILL_SCREEN_LEVEL;
        Gravity {
            frames_per_row: drop_speed(level),
            rows_per_drop: if double { 2 } else { 1 },
        }
    }
}

/// Per orientation: one 5-bit mask per row offset -2..=1 (bit dx+2), and the legal x range.
#[derive(Clone, Copy)]
struct Shape {
    row_mask: [u16; 4],
    min_x: i8,
    max_x: i8,
    min_dy: i8,
    max_dy: i8,
}

const fn build_shapes() -> [Shape; 19] {
    let mut shapes = [Shape {
        row_mask: [0; 4],
        min_x: 0,
        max_x: 0,
        min_dy: 0,
        max_dy: 0,
    }; 19];
    let mut id = 0;
    while id < 19 {
        let mut s = Shape {
            row_mask: [0; 4],
            min_x: 0,
            max_x: 9,
            min_dy: 2,
            max_dy: -2,
        };
        let mut i = 0;
        while i < 4 {
            let (dx, dy) = ORIENTATIONS[id][i];
            s.row_mask[(dy + 2) as usize] |= 1 << (dx + 2);
            if -dx > s.min_x {
                s.min_x = -dx;
            }
            if 9 - dx < s.max_x {
                s.max_x = 9 - dx;
            }
            if dy < s.min_dy {
                s.min_dy = dy;
            }
            if dy > s.max_dy {
                s.max_dy = dy;
            }
            i += 1;
        }
        shapes[id] = s;
        id += 1;
    }
    shapes
}
static SHAPES: [Shape; 19] = build_shapes();

/// Lowest square offset of an orientation (largest dy).
pub fn max_dy(id: u8) -> i8 {
    SHAPES[id as usize].max_dy
}

/// The 20x10 playfield as bit rows: bit x of `rows[y]` is the cell (x, y), set when solid.
/// Rows -2 and -1 (`hidden`) are the padding bytes the collision check reads for them
/// ($04EC-$04FF): empty, except where a piece locked partly above the playfield (the lock writes
/// its squares at (10*y + x) mod 256). Line clears never move them.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Board {
    pub rows: [u16; 20],
    pub hidden: [u16; 2],
}

pub const FULL_ROW: u16 = 0x3FF;

impl Board {
    pub fn is_empty(&self) -> bool {
        self.rows.iter().all(|&r| r == 0)
    }

    pub fn cell(&self, x: i8, y: i8) -> bool {
        (0..HEIGHT).contains(&y) && (0..WIDTH).contains(&x) && self.rows[y as usize] >> x & 1 != 0
    }

    pub fn set(&mut self, x: i8, y: i8) {
        self.rows[y as usize] |= 1 << x;
    }

    /// The game's validity check ($948B): all four squares in rows -2..19, columns 0..9, empty.
    #[inline]
    pub fn fits(&self, id: u8, x: i8, y: i8) -> bool {
        let s = &SHAPES[id as usize];
        if x < s.min_x || x > s.max_x || y + s.max_dy >= HEIGHT || y + s.min_dy < -2 {
            return false;
        }
        for (k, &m) in s.row_mask.iter().enumerate() {
            if m == 0 {
                continue;
            }
            let r = y + k as i8 - 2;
            let row = if r >= 0 {
                self.rows[r as usize]
            } else {
                self.hidden[(r + 2) as usize]
            };
            if row & ((m << x) >> 2) != 0 {
                return false;
            }
        }
        true
    }

    /// Locks a piece (squares in rows -2/-1 go to the padding) and clears the rows it
    /// completes (the game leaves no full row between pieces). Returns how many.
    pub fn lock(&mut self, id: u8, x: i8, y: i8) -> u8 {
        let s = &SHAPES[id as usize];
        // Only the piece's rows can have filled up (the padding rows never clear).
        let mut filled = false;
        for (k, &m) in s.row_mask.iter().enumerate() {
            let r = y + k as i8 - 2;
            if m != 0 {
                let row = if r >= 0 {
                    &mut self.rows[r as usize]
                } else {
                    &mut self.hidden[(r + 2) as usize]
                };
                *row |= (m << x) >> 2;
                filled |= r >= 0 && *row == FULL_ROW;
            }
        }
        if filled {
            self.clear_rows()
        } else {
            0
        }
    }

    /// `lock`, keeping `h`, the column heights before it (`heights`), the board's: raised by
    /// the piece's squares, or counted again when rows clear.
    pub fn lock_keeping_heights(&mut self, piece: Piece, h: &mut [u8; 10]) -> u8 {
        let lines = self.lock(piece.id, piece.x, piece.y);
        if lines > 0 {
            *h = self.heights();
        } else {
            for (dx, dy) in ORIENTATIONS[piece.id as usize] {
                // Squares in the padding rows above the playfield count in no column.
                let y = piece.y + dy;
                if y >= 0 {
                    let column = &mut h[(piece.x + dx) as usize];
                    *column = (*column).max((HEIGHT - y) as u8);
                }
            }
        }
        lines
    }

    /// Removes full rows, shifting the rows above down. Returns how many.
    pub fn clear_rows(&mut self) -> u8 {
        let mut cleared = 0;
        let mut dst = HEIGHT as usize;
        for src in (0..HEIGHT as usize).rev() {
            if self.rows[src] == FULL_ROW {
                cleared += 1;
            } else {
                dst -= 1;
                self.rows[dst] = self.rows[src];
            }
        }
        for r in &mut self.rows[..dst] {
            *r = 0;
        }
        cleared
    }

    /// Reads the playfield from the game's RAM page at $0400 (256 bytes; a byte below $EF is
    /// solid, as the collision check sees it).
    pub fn from_ram(page: &[u8; 256]) -> Board {
        let row = |start: usize| {
            (0..10).fold(0u16, |bits, x| {
                bits | ((page[start + x] < 0xEF) as u16) << x
            })
        };
        let mut b = Board {
            rows: [0; 20],
            hidden: [row(236), row(246)],
        };
        for (y, r) in b.rows.iter_mut().enumerate() {
            *r = row(y * 10);
        }
        b
    }

    /// Column heights (0 = empty column, 20 = full to the top).
    pub fn heights(&self) -> [u8; 10] {
        let mut h = [0u8; 10];
        let mut seen = 0u16;
        for (y, &row) in self.rows.iter().enumerate() {
            let mut tops = row & !seen;
            seen |= row;
            while tops != 0 {
                h[tops.trailing_zeros() as usize] = (HEIGHT as usize - y) as u8;
                tops &= tops - 1;
            }
            if seen == FULL_ROW {
                break;
            }
        }
        h
    }
}

impl std::fmt::Display for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for row in self.rows {
            for x in 0..10 {
                f.write_str(if row >> x & 1 != 0 { "#" } else { "." })?;
            }
            f.write_str("\n")?;
        }
        Ok(())
    }
}

/// Where pieces fit: the playfield itself, or a `FitTable` precomputed from it.
pub trait Collision {
    fn fits(&self, id: u8, x: i8, y: i8) -> bool;
}

impl Collision for Board {
    fn fits(&self, id: u8, x: i8, y: i8) -> bool {
        Board::fits(self, id, x, y)
    }
}

/// `Board::fits` for the orientations of one piece type and rows -2..21, as one bit per column:
/// the searches step through thousands of states of one piece on the same playfield. Other
/// types fit nowhere.
pub struct FitTable {
    columns: [[u16; 24]; 19],
}

impl FitTable {
    pub fn new(board: &Board, piece_type: u8) -> FitTable {
        // Rows -2..19, at y + 2.
        let mut rows = [0u16; 22];
        rows[..2].copy_from_slice(&board.hidden);
        rows[2..].copy_from_slice(&board.rows);
        let mut columns = [[0u16; 24]; 19];
        let first = FIRST_ID[piece_type as usize] as usize;
        let count = ORIENTATION_COUNT[piece_type as usize] as usize;
        for (id, col) in columns.iter_mut().enumerate().skip(first).take(count) {
            let s = &SHAPES[id];
            let in_range = (FULL_ROW >> s.min_x << s.min_x) & (FULL_ROW >> (9 - s.max_x));
            for (i, c) in col.iter_mut().enumerate() {
                let y = i as i8 - 2;
                if y + s.max_dy >= HEIGHT || y + s.min_dy < -2 {
                    continue;
                }
                // Bit x of `blocked`: a square (dx, dy) of the piece at x lands on a solid cell.
                let blocked = ORIENTATIONS[id].iter().fold(0u16, |b, &(dx, dy)| {
                    let r = rows[(y + dy + 2) as usize];
                    b | if dx >= 0 { r >> dx } else { r << -dx }
                });
                *c = in_range & !blocked;
            }
        }
        FitTable { columns }
    }
}

impl FitTable {
    /// Bit x: orientation `id` fits at (x, y), for y in -2..22.
    #[inline]
    pub fn row(&self, id: u8, y: i8) -> u16 {
        self.columns[id as usize][(y + 2) as usize]
    }
}

impl Collision for FitTable {
    #[inline]
    fn fits(&self, id: u8, x: i8, y: i8) -> bool {
        (-2..22).contains(&y)
            && (0..10).contains(&x)
            && self.columns[id as usize][(y + 2) as usize] >> x & 1 != 0
    }
}

/// The active piece: $40 x, $41 y, $42 orientation ID.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    pub x: i8,
    pub y: i8,
    pub id: u8,
}

impl Piece {
    pub fn spawn(id: u8) -> Piece {
        Piece {
            x: SPAWN_X,
            y: SPAWN_Y,
            id,
        }
    }
}

/// The per-piece player variables the controls use: $40-$42, fallTimer $45, autorepeatX $46,
/// autorepeatY $4E, holdDownPoints $4F.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Control {
    pub piece: Piece,
    pub fall_timer: u8,
    pub autorepeat_x: u8,
    pub autorepeat_y: u8,
    pub hold_down_points: u8,
}

impl Control {
    /// State right after the spawn frame (playState 8): fallTimer and autorepeatY are cleared,
    /// autorepeatX carries over from the previous piece.
    pub fn spawned(id: u8, autorepeat_x: u8) -> Control {
        Control {
            piece: Piece::spawn(id),
            fall_timer: 0,
            autorepeat_x,
            autorepeat_y: 0,
            hold_down_points: 0,
        }
    }

    /// One frame of play state 1: fallTimer++, then shift, rotate, drop. `pressed` are the
    /// buttons newly pressed this frame ($B5), `held` the buttons held ($B6).
    /// Returns true when the piece locked (the drop failed).
    pub fn step(
        &mut self,
        board: &impl Collision,
        gravity: Gravity,
        pressed: u8,
        held: u8,
    ) -> bool {
        self.fall_timer = self.fall_timer.wrapping_add(1);
        self.shift(board, pressed, held);
        self.rotate(board, pressed);
        self.drop(board, gravity, pressed, held)
    }

    fn shift(&mut self, board: &impl Collision, pressed: u8, held: u8) {
        if held & DOWN != 0 {
            return;
        }
        if pressed & (LEFT | RIGHT) != 0 {
            self.autorepeat_x = 0;
        } else {
            if held & (LEFT | RIGHT) == 0 {
                return;
            }
            self.autorepeat_x = self.autorepeat_x.wrapping_add(1);
            if (self.autorepeat_x.wrapping_sub(16) as i8) < 0 {
                return;
            }
            self.autorepeat_x = 10;
        }
        let p = &mut self.piece;
        let dx = if held & RIGHT != 0 {
            1
        } else if held & LEFT != 0 {
            -1
        } else {
            return;
        };
        if board.fits(p.id, p.x + dx, p.y) {
            p.x += dx;
        } else {
            self.autorepeat_x = 16;
        }
    }

    fn rotate(&mut self, board: &impl Collision, pressed: u8) {
        let p = &mut self.piece;
        let to = if pressed & A != 0 {
            ROTATION[p.id as usize][1]
        } else if pressed & B != 0 {
            ROTATION[p.id as usize][0]
        } else {
            return;
        };
        if board.fits(to, p.x, p.y) {
            p.id = to;
        }
    }

    fn drop(&mut self, board: &impl Collision, gravity: Gravity, pressed: u8, held: u8) -> bool {
        if (self.autorepeat_y as i8) < 0 {
            // Entry delay of the first piece: only a fresh Down press ends it.
            if pressed & DOWN == 0 {
                self.autorepeat_y = self.autorepeat_y.wrapping_add(1);
                return false;
            }
            self.autorepeat_y = 0;
        }
        if gravity.rows_per_drop == 2 {
            // The double kill screen: each row checked in turn, a failed one locks; a soft
            // drop is slower, so Down does nothing.
            return self.move_down(board) || self.move_down(board);
        }
        if self.autorepeat_y == 0 {
            if held & (LEFT | RIGHT) == 0 && pressed & 0x0F == DOWN {
                self.autorepeat_y = 1;
            }
        } else if held & 0x0F == DOWN {
            self.autorepeat_y += 1;
            if self.autorepeat_y >= 3 {
                self.autorepeat_y = 1;
                self.hold_down_points = self.hold_down_points.wrapping_add(1);
                return self.move_down(board);
            }
        } else {
            self.autorepeat_y = 0;
            self.hold_down_points = 0;
        }
        if (self.fall_timer.wrapping_sub(gravity.frames_per_row) as i8) >= 0 {
            return self.move_down(board);
        }
        false
    }

    fn move_down(&mut self, board: &impl Collision) -> bool {
        self.fall_timer = 0;
        let p = &mut self.piece;
        if board.fits(p.id, p.x, p.y + 1) {
            p.y += 1;
            false
        } else {
            true
        }
    }
}

/// Lines ($50-$51), level ($44) and score ($53-$55) in the game's own forms.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Progress {
    /// Packed BCD, little-endian; the high byte counts on past 9.
    pub lines: [u8; 2],
    pub level: u8,
    /// Packed BCD, little-endian, capped at 999999.
    pub score: [u8; 3],
}

impl Progress {
    pub fn new(start_level: u8) -> Progress {
        Progress {
            lines: [0, 0],
            level: start_level,
            score: [0; 3],
        }
    }

    /// Lines as a number (the high byte counted as hundreds).
    pub fn lines_value(&self) -> u32 {
        let lo = self.lines[0];
        self.lines[1] as u32 * 100 + (lo >> 4) as u32 * 10 + (lo & 0x0F) as u32
    }

    /// Score as a number (BCD decoded).
    pub fn score_value(&self) -> u32 {
        self.score.iter().rev().fold(0, |acc, &b| {
            acc * 100 + (b >> 4) as u32 * 10 + (b & 0x0F) as u32
        })
    }

    /// Play state 5: count the cleared lines one by one (with the level-up check after each),
    /// add the soft-drop points, then add points[lines] (level + 1) times.
    pub fn lock(&mut self, cleared: u8, hold_down_points: u8) {
        for _ in 0..cleared {
            self.add_line();
        }
        if (hold_down_points.wrapping_sub(2) as i8) >= 0 {
            self.add_hold_down_points(hold_down_points);
        }
        self.add_line_clear_points(cleared);
    }

    fn add_line(&mut self) {
        let lo = &mut self.lines[0];
        *lo = lo.wrapping_add(1);
        if *lo & 0x0F >= 0x0A {
            *lo = lo.wrapping_add(6);
            if *lo & 0xF0 >= 0xA0 {
                *lo &= 0x0F;
                self.lines[1] = self.lines[1].wrapping_add(1);
            }
        }
        if self.lines[0] & 0x0F == 0 {
            // lines / 10 as packed BCD, compared with the binary level (the documented bug).
            let tens = ((u16::from(self.lines[1]) << 8 | u16::from(self.lines[0])) >> 4) as u8;
            if (self.level.wrapping_sub(tens) as i8) < 0 {
                self.level = self.level.wrapping_add(1);
            }
        }
    }

    fn add_hold_down_points(&mut self, points: u8) {
        let s = &mut self.score;
        let mut a = points.wrapping_add(s[0].wrapping_sub(1));
        s[0] = a;
        if a & 0x0F >= 0x0A {
            a = a.wrapping_add(6);
            s[0] = a;
        }
        if s[0] & 0xF0 >= 0xA0 {
            // The game adds $60 to the masked high digit: the low digit is lost here.
            s[0] = (s[0] & 0xF0).wrapping_add(0x60);
            s[1] = s[1].wrapping_add(1);
        }
    }

    fn add_line_clear_points(&mut self, cleared: u8) {
        let [p0, p1] = POINTS_BCD[cleared as usize].to_le_bytes();
        let mut times = self.level.wrapping_add(1);
        loop {
            let s = &mut self.score;
            s[0] = s[0].wrapping_add(p0);
            if s[0] >= 0xA0 {
                s[0] = s[0].wrapping_add(0x60);
                s[1] = s[1].wrapping_add(1);
            }
            s[1] = s[1].wrapping_add(p1);
            if s[1] & 0x0F >= 0x0A {
                s[1] = s[1].wrapping_add(6);
            }
            if s[1] & 0xF0 >= 0xA0 {
                s[1] = s[1].wrapping_add(0x60);
                s[2] = s[2].wrapping_add(1);
            }
            if s[2] & 0x0F >= 0x0A {
                s[2] = s[2].wrapping_add(6);
            }
            if s[2] & 0xF0 >= 0xA0 {
                *s = [0x99; 3];
            }
            times = times.wrapping_sub(1);
            if times == 0 {
                break;
            }
        }
    }
}

/// One step of the 16-bit Fibonacci LFSR ($AB47): bit 15 becomes bit 1 xor bit 9.
pub fn rng_step(v: u16) -> u16 {
    ((((v >> 9) ^ (v >> 1)) & 1) << 15) | (v >> 1)
}

/// The piece picker ($9907) and its inputs: RNG $17-$18, spawnID $19, spawnCount $1A.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Picker {
    pub rng: u16,
    pub spawn_id: u8,
    pub spawn_count: u8,
}

impl Default for Picker {
    fn default() -> Self {
        Picker {
            rng: RNG_SEED,
            spawn_id: 0,
            spawn_count: 0,
        }
    }
}

impl Picker {
    /// The NMI steps the RNG once every frame.
    pub fn frame(&mut self) {
        self.rng = rng_step(self.rng);
    }

    /// The odds, in 64ths and in `SPAWN_ID` order, of each piece following `previous`, with
    /// the RNG's bits taken as uniform: each roll of 0-6 other than the previous piece is kept
    /// (8 of 64 each); a 7 or a repeat (16 of 64) re-rolls to (0..=7 + previous ID) mod 7, where
    /// the previous ID mod 7 comes up twice.
    pub fn odds_after(previous: u8) -> [u32; 7] {
        let mut odds = [0; 7];
        for roll in 0..8 {
            if roll < 7 && SPAWN_ID[roll] != previous {
                odds[roll] += 8;
            } else {
                for reroll in 0..8 {
                    odds[(reroll + previous as usize) % 7] += 1;
                }
            }
        }
        odds
    }

    /// Picks the next spawn orientation ID.
    pub fn pick(&mut self) -> u8 {
        self.spawn_count = self.spawn_count.wrapping_add(1);
        let index = ((self.rng >> 8) as u8).wrapping_add(self.spawn_count) & 7;
        if index != 7 {
            let id = SPAWN_ID[index as usize];
            if id != self.spawn_id {
                self.spawn_id = id;
                return id;
            }
        }
        self.rng = rng_step(self.rng);
        let index = (((self.rng >> 8) as u8 & 7) + self.spawn_id) % 7;
        self.spawn_id = SPAWN_ID[index as usize];
        self.spawn_id
    }
}
