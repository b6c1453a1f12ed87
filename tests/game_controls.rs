//! Moving pieces, driven by controller input from power-on: delayed auto shift, tapping,
//! rotation, gravity, soft drop and the entry delays (as `crates/ai/src/rules.rs` models them).

mod quadfall;
use quadfall::*;

/// Frames (from the first held frame) on which the piece moved, holding `buttons` for `n`
/// frames or, with `tapping`, pressing on even frames and releasing on odd ones.
fn moves(game: &mut Game, buttons: u8, n: usize, tapping: bool) -> Vec<usize> {
    let mut moved = Vec::new();
    for i in 0..n {
        let x = game.peek(X);
        let press = !tapping || i % 2 == 0;
        game.frame(if press { buttons } else { 0 });
        if game.peek(X) != x {
            moved.push(i);
        }
    }
    moved
}

/// Leftmost X the active piece can reach on an empty row.
fn leftmost(game: &Game) -> usize {
    let min_dx = squares(game.peek(PIECE)).iter().map(|s| s.0).min().unwrap();
    (-min_dx) as usize
}

#[test]
fn held_left_shifts_at_frames_0_16_22_28() {
    let mut game = Game::start(0);
    let steps = 5 - leftmost(&game);
    let moved = moves(&mut game, LEFT, 40, false);
    assert_eq!(moved, [0, 16, 22, 28][..steps]);
    assert_eq!(usize::from(game.peek(X)), leftmost(&game));
}

#[test]
fn held_right_autorepeats_every_6_frames_after_16() {
    let mut game = Game::start(0);
    game.frames_with(2, 0);
    let max_dx = squares(game.peek(PIECE)).iter().map(|s| s.0).max().unwrap();
    let steps = (9 - max_dx - 5) as usize;
    let moved = moves(&mut game, RIGHT, 40, false);
    assert_eq!(moved, [0, 16, 22, 28][..steps]);
}

#[test]
fn tapping_at_30_hz_shifts_every_2_frames() {
    let mut game = Game::start(0);
    let steps = 5 - leftmost(&game);
    let moved = moves(&mut game, LEFT, 12, true);
    assert_eq!(moved, [0, 2, 4, 6][..steps]);
}

#[test]
fn no_shifting_while_down_is_held() {
    let mut game = Game::start(0);
    let moved = moves(&mut game, DOWN | LEFT, 30, false);
    assert!(moved.is_empty(), "moved at {moved:?}");
}

#[test]
fn a_and_b_rotate_through_the_rotation_table_for_every_piece() {
    let mut game = Game::start(0);
    let mut seen = [false; 7];
    for column in 0..60 {
        let kind = usize::from(piece_type(game.peek(PIECE)));
        if !seen[kind] {
            seen[kind] = true;
            for (button, clockwise) in [(A, true), (B, false)] {
                for _ in 0..4 {
                    let before = game.peek(PIECE);
                    game.tap(button);
                    let index = 2 * usize::from(before) + usize::from(clockwise);
                    assert_eq!(
                        game.peek(PIECE),
                        rotation(index),
                        "from {before:02X} with {button:02X}"
                    );
                }
            }
        }
        if seen.iter().all(|&s| s) {
            return;
        }
        // Park the piece in the next of three columns so the stack stays low.
        let target = [1, 5, 8][column % 3];
        for _ in 0..10 {
            let x = game.peek(X);
            let button = if x > target {
                LEFT
            } else if x < target {
                RIGHT
            } else {
                break;
            };
            game.tap(button);
        }
        game.soft_drop_to_lock();
        game.next_spawn();
        if game.peek(Y) != 0 {
            game.clear_playfield();
        }
    }
    panic!("not every piece type appeared: {seen:?}");
}

/// Frames between the rows of a falling piece once it is moving.
fn drop_intervals(game: &mut Game, rows: usize) -> Vec<u32> {
    game.until(200, "the first drop", |g| g.peek(Y) >= 1);
    let mut intervals = Vec::new();
    let mut since = 0;
    while intervals.len() < rows {
        let y = game.peek(Y);
        game.frame(0);
        since += 1;
        if game.peek(Y) != y {
            intervals.push(since);
            since = 0;
        }
        assert!(since < 100, "no drop for 100 frames");
    }
    intervals
}

#[test]
fn gravity_follows_the_table_for_levels_0_to_19() {
    for level in 0..20 {
        let mut game = Game::start(level);
        let rows = if gravity(level) > 10 { 3 } else { 8 };
        assert_eq!(
            drop_intervals(&mut game, rows),
            vec![gravity(level); rows],
            "level {level}"
        );
    }
}

#[test]
fn gravity_follows_the_table_for_levels_20_to_29_and_beyond() {
    // Levels past 19 are reached by clearing lines; here the level byte is set directly.
    for level in (20..=30).chain([100, 255]) {
        let mut game = Game::start(19);
        game.poke_player(4, level);
        assert_eq!(
            drop_intervals(&mut game, 8),
            vec![gravity(level); 8],
            "level {level}"
        );
    }
}

#[test]
fn first_piece_hangs_96_frames_unless_down_is_pressed() {
    let mut game = Game::start(19);
    assert_eq!(
        game.peek(AUTOREPEAT_Y),
        0xA0 + 1,
        "the first frame already counts"
    );
    let mut hang = 1;
    loop {
        game.frame(0);
        if game.peek(Y) != 0 {
            break;
        }
        hang += 1;
    }
    assert_eq!(
        hang, 96,
        "frames the first piece stayed at the top before falling"
    );

    let mut game = Game::start(0);
    game.frames_with(5, 0);
    game.frame(DOWN);
    assert_eq!(
        game.peek(AUTOREPEAT_Y),
        1,
        "Down ends the wait and starts a soft drop"
    );
}

#[test]
fn soft_drop_takes_3_frames_then_a_row_every_2() {
    let mut game = Game::start(0);
    let mut rows_at = Vec::new();
    for i in 0..12 {
        let y = game.peek(Y);
        game.frame(DOWN);
        if game.peek(Y) != y {
            rows_at.push(i);
        }
    }
    assert_eq!(rows_at, [2, 4, 6, 8, 10]);
    assert_eq!(game.peek(HOLD_DOWN_POINTS), 5);
    game.frame(0);
    assert_eq!(
        game.peek(HOLD_DOWN_POINTS),
        0,
        "released Down forfeits the soft-drop points"
    );
}

#[test]
fn down_held_through_a_spawn_does_not_drop_the_next_piece() {
    let mut game = Game::start(0);
    while game.peek(PLAY_STATE) == 1 {
        game.frame(DOWN);
    }
    while game.peek(PLAY_STATE) != 1 {
        game.frame(DOWN);
    }
    for _ in 0..40 {
        game.frame(DOWN);
        assert_eq!(
            game.peek(Y),
            0,
            "the new piece moved while Down stayed held"
        );
    }
    game.frame(0);
    game.frame(DOWN);
    game.frames_with(2, DOWN);
    assert_eq!(game.peek(Y), 1, "a fresh press soft-drops");
}

#[test]
fn a_piece_locks_when_a_drop_fails() {
    let mut game = Game::start(0);
    let piece = game.peek(PIECE);
    while game.peek(PLAY_STATE) == 1 {
        game.frame(DOWN);
    }
    assert_eq!(game.peek(PLAY_STATE), 2, "lock state after the failed drop");
    let (x, y) = (game.peek(X) as i8, game.peek(Y) as i8);
    let max_dy = squares(piece).iter().map(|s| s.1).max().unwrap();
    assert_eq!(y + max_dy, 19, "rests on the floor");
    game.until(20, "the lock", |g| g.peek(PLAY_STATE) >= 3);
    let tile = ROM[16 + 0x0A9C + 12 * usize::from(piece) + 1];
    for (dx, dy) in squares(piece) {
        assert_eq!(game.cell((x + dx) as u8, (y + dy) as u8), tile);
    }
}
