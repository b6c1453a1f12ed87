//! Quadfall against the rules model of `crates/ai`: the same random controller input goes to the
//! ROM in the emulator and to the model, and the game's RAM is compared after every frame.
//!
//! The model's per-frame player control (`Control::step`), line/level/score arithmetic
//! (`Progress::lock`), piece picker (`Picker`) and playfield (`Board`) come from the AI crate;
//! the play-state timing around them (states 2-8, vramRow, the NMI's line-clear animation) is
//! written out below from the game's code (`roms/quadfall.s`, "Play and demo" and "NMI").

mod quadfall;
use ai::rules::{Board, Control, Gravity, Picker, Progress, FULL_ROW, SPAWN_ID, TYPE_OF};
use quadfall::player::Player;
use quadfall::*;

const FRAMES: usize = 10_000;

/// The game as the model sees it, in the RAM's terms.
struct Model {
    board: Board,
    control: Control,
    progress: Progress,
    picker: Picker,
    next: u8,
    state: u8,
    vram_row: u8,
    line_index: u8,
    completed: u8,
    rows: [u8; 4],
    clear_column: u8,
    frame_counter: u16,
    held: u8,
}

/// What a frame of the model ended with, when the run cannot go on comparing.
#[derive(Debug, PartialEq)]
enum Outcome {
    Playing,
    GameOver,
    /// A square locked in rows -1/-2 or a full row 0: beyond what the model represents.
    Unmodelled,
}

impl Model {
    fn from_ram(game: &Game) -> Model {
        Model {
            board: game.board(),
            control: Control {
                piece: game.piece(),
                fall_timer: game.peek(FALL_TIMER),
                autorepeat_x: game.peek(AUTOREPEAT_X),
                autorepeat_y: game.peek(AUTOREPEAT_Y),
                hold_down_points: game.peek(HOLD_DOWN_POINTS),
            },
            progress: Progress {
                lines: [game.peek(LINES), game.peek(LINES + 1)],
                level: game.peek(LEVEL),
                score: [game.peek(SCORE), game.peek(SCORE + 1), game.peek(SCORE + 2)],
            },
            picker: Picker {
                rng: u16::from_be_bytes([game.peek(RNG), game.peek(RNG + 1)]),
                spawn_id: game.peek(SPAWN_ID_ADDR),
                spawn_count: game.peek(SPAWN_COUNT),
            },
            next: game.peek(NEXT_PIECE),
            state: game.peek(PLAY_STATE),
            vram_row: game.peek(0x49),
            line_index: game.peek(0x57),
            completed: game.peek(0x56),
            rows: [0, 1, 2, 3].map(|i| game.peek(COMPLETED_ROWS + i)),
            clear_column: game.peek(0x52),
            frame_counter: game.peek16(0xB1),
            held: game.peek(0xB6),
        }
    }

    /// Marks the rows from two above the piece for copying to VRAM.
    fn refresh_rows(&mut self) {
        let row = (self.control.piece.y - 2).max(0) as u8;
        if (row.wrapping_sub(self.vram_row) as i8) < 0 {
            self.vram_row = row;
        }
    }

    fn copied(&self) -> bool {
        (self.vram_row.wrapping_sub(0x20) as i8) >= 0
    }

    fn frame(&mut self, buttons: u8) -> Outcome {
        let pressed = buttons & !self.held;
        self.held = buttons;
        // NMI: picture (animation or row copy), frame counter, RNG.
        if self.state == 4 {
            if self.frame_counter & 3 == 0 {
                self.clear_column += 1;
                if self.clear_column >= 5 {
                    self.state = 5;
                }
            }
        } else {
            for _ in 0..4 {
                if (self.vram_row.wrapping_sub(20) as i8) < 0 {
                    self.vram_row += 1;
                    if self.vram_row == 20 {
                        self.vram_row = 0x20;
                    }
                }
            }
        }
        self.frame_counter = self.frame_counter.wrapping_add(1);
        self.picker.frame();

        // Main loop: fallTimer, then the play state.
        if self.state != 1 {
            self.control.fall_timer = self.control.fall_timer.wrapping_add(1);
        }
        let piece = self.control.piece;
        match self.state {
            1 => {
                let level = self.progress.level;
                let locked =
                    self.control
                        .step(&self.board, Gravity::at(level, false), pressed, buttons);
                if locked {
                    self.state = 2;
                    self.refresh_rows();
                }
            }
            2 => {
                if !self.board.fits(piece.id, piece.x, piece.y) {
                    return Outcome::GameOver;
                }
                if self.copied() {
                    for (dx, dy) in squares(piece.id) {
                        if piece.y + dy < 0 {
                            return Outcome::Unmodelled;
                        }
                        self.board.set(piece.x + dx, piece.y + dy);
                    }
                    self.line_index = 0;
                    self.refresh_rows();
                    self.state = 3;
                }
            }
            3 if self.copied() => {
                let row = (piece.y - 2).max(0) as u8 + self.line_index;
                let full = row < 20 && self.board.rows[usize::from(row)] == FULL_ROW;
                if full && row == 0 {
                    return Outcome::Unmodelled;
                }
                self.rows[usize::from(self.line_index)] = if full { row } else { 0 };
                if full {
                    self.completed += 1;
                    self.board.rows.copy_within(0..usize::from(row), 1);
                    self.board.rows[0] = 0;
                    self.control.piece.id = NO_PIECE;
                }
                self.line_index += 1;
                if self.line_index == 4 {
                    self.vram_row = 0;
                    self.clear_column = 0;
                    self.state = if self.completed > 0 { 4 } else { 5 };
                }
            }
            5 => {
                self.progress
                    .lock(self.completed, self.control.hold_down_points);
                self.control.hold_down_points = 0;
                self.completed = 0;
                self.state = 6;
            }
            6 | 7 => self.state += 1,
            8 if self.copied() => {
                let kind = TYPE_OF[usize::from(self.next)];
                self.control =
                    Control::spawned(SPAWN_ID[usize::from(kind)], self.control.autorepeat_x);
                self.next = self.picker.pick();
                self.state = 1;
            }
            _ => {}
        }
        Outcome::Playing
    }

    /// Differences between the model and the game's RAM, by name.
    fn compare(&self, game: &Game) -> Vec<String> {
        let c = &self.control;
        let p = &self.progress;
        let expected: [(&str, u16, u8); 28] = [
            ("x", X, c.piece.x as u8),
            ("y", Y, c.piece.y as u8),
            ("orientation", PIECE, c.piece.id),
            ("level", LEVEL, p.level),
            ("fallTimer", FALL_TIMER, c.fall_timer),
            ("autorepeatX", AUTOREPEAT_X, c.autorepeat_x),
            ("playState", PLAY_STATE, self.state),
            ("vramRow", 0x49, self.vram_row),
            ("row0", COMPLETED_ROWS, self.rows[0]),
            ("row1", COMPLETED_ROWS + 1, self.rows[1]),
            ("row2", COMPLETED_ROWS + 2, self.rows[2]),
            ("row3", COMPLETED_ROWS + 3, self.rows[3]),
            ("autorepeatY", AUTOREPEAT_Y, c.autorepeat_y),
            ("holdDownPoints", HOLD_DOWN_POINTS, c.hold_down_points),
            ("lines lo", LINES, p.lines[0]),
            ("lines hi", LINES + 1, p.lines[1]),
            ("clearColumn", 0x52, self.clear_column),
            ("score0", SCORE, p.score[0]),
            ("score1", SCORE + 1, p.score[1]),
            ("score2", SCORE + 2, p.score[2]),
            ("completedLines", 0x56, self.completed),
            ("lineIndex", 0x57, self.line_index),
            ("rng hi", RNG, (self.picker.rng >> 8) as u8),
            ("rng lo", RNG + 1, self.picker.rng as u8),
            ("spawnID", SPAWN_ID_ADDR, self.picker.spawn_id),
            ("spawnCount", SPAWN_COUNT, self.picker.spawn_count),
            ("nextPiece", NEXT_PIECE, self.next),
            ("frameCounter", 0xB1, self.frame_counter as u8),
        ];
        let mut diffs: Vec<String> = expected
            .iter()
            .filter(|&&(_, addr, value)| game.peek(addr) != value)
            .map(|&(name, addr, value)| {
                format!(
                    "{name} ${addr:02X}: game {:02X}, model {value:02X}",
                    game.peek(addr)
                )
            })
            .collect();
        for y in 0..20i8 {
            let game_row = (0..10).fold(0u16, |row, x| {
                row | u16::from(game.cell(x, y as u8) != EMPTY) << x
            });
            if game_row != self.board.rows[y as usize] {
                diffs.push(format!(
                    "playfield row {y}: game {game_row:03X}, model {:03X}",
                    self.board.rows[y as usize]
                ));
            }
        }
        for offset in 0..0x20 {
            if game.peek(0x40 + offset) != game.peek(0x60 + offset) {
                diffs.push(format!("player copy ${:02X} differs", 0x60 + offset));
            }
        }
        diffs
    }
}

const SPAWN_ID_ADDR: u16 = 0x19;

/// Compares `FRAMES` frames of play at `level` (over as many games as it takes).
fn compare_for(level: u8, seed: u64) {
    let mut game = Game::start(level);
    let mut model = Model::from_ram(&game);
    let mut inputs = Player::new(seed, true);
    let (mut compared, mut games, mut lines) = (0, 1, 0);
    while compared < FRAMES {
        let state = model.state;
        let held = inputs.next(&model.control.piece);
        game.frame(held);
        match model.frame(held) {
            Outcome::Playing => {
                let diffs = model.compare(&game);
                assert!(
                    diffs.is_empty(),
                    "level {level}, game {games}, frame {compared}: {}",
                    diffs.join("; ")
                );
                compared += 1;
                if state != 1 && model.state == 1 {
                    inputs.new_piece(&model.board, &model.control.piece);
                }
            }
            outcome => {
                lines += model.progress.lines_value();
                if outcome == Outcome::GameOver {
                    assert_eq!(game.peek(PLAY_STATE), 0x0A, "the game is over too");
                }
                game = game.restart_after_game_over(level);
                model = Model::from_ram(&game);
                games += 1;
            }
        }
    }
    let lines = lines + model.progress.lines_value();
    assert!(
        lines > 0,
        "level {level}: the run should clear lines ({games} games)"
    );
}

#[test]
fn model_matches_the_rom_at_level_0() {
    compare_for(0, 1);
}

#[test]
fn model_matches_the_rom_at_level_9() {
    compare_for(9, 2);
}

#[test]
fn model_matches_the_rom_at_level_18() {
    compare_for(18, 3);
}
