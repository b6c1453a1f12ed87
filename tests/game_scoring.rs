//! Line clears, points and levels, driven by controller input from power-on. The rows to
//! complete are written into the playfield RAM first (as a script setting up a position would);
//! the piece that completes them is moved by the pad.

mod quadfall;
use quadfall::*;

const I_TYPE: u8 = 6;
const POINTS: [u32; 5] = [0, 40, 100, 300, 1200];

/// Drops pieces (wiping their rows) until one that can complete `n` rows is in play: rows 3
/// and 4 need the I piece upright.
fn piece_for(game: &mut Game, n: usize) {
    while n > 2 && piece_type(game.peek(PIECE)) != I_TYPE {
        game.soft_drop_to_lock();
        game.next_spawn();
        game.clear_playfield();
    }
}

/// Fills the bottom `n` rows around the landing spot of the active piece (dropped straight
/// down from x = 5), drops it there without soft-drop points, and runs until the next piece.
fn clear_lines(game: &mut Game, n: usize) {
    piece_for(game, n);
    complete_rows(game, n);
}

fn complete_rows(game: &mut Game, n: usize) {
    // An I piece lies flat for one row and stands up (I vertical, $11) for more.
    let orientation = if n >= 2 && piece_type(game.peek(PIECE)) == I_TYPE {
        0x11
    } else {
        game.peek(PIECE)
    };
    let cells = squares(orientation);
    let land = 19 - cells.iter().map(|c| c.1).max().unwrap();
    for y in 20 - n as i8..20 {
        for x in 0..10i8 {
            if !cells.iter().any(|&(dx, dy)| (5 + dx, land + dy) == (x, y)) {
                game.poke(PLAYFIELD + (y as u16) * 10 + x as u16, 0x7B);
            }
        }
    }
    if orientation != game.peek(PIECE) {
        game.tap(A);
        assert_eq!(game.peek(PIECE), orientation);
    }
    assert_eq!(game.peek(X), 5);
    while (game.peek(Y) as i8) < land - 1 && game.peek(PLAY_STATE) == 1 {
        game.frame(DOWN);
    }
    game.until(200, "the lock", |g| g.peek(PLAY_STATE) != 1);
    assert_eq!(
        game.peek(Y) as i8,
        land,
        "landed where the rows were prepared"
    );
    game.next_spawn();
}

#[test]
fn one_to_four_lines_score_points_times_level_plus_one() {
    for start in [0, 5, 9, 18] {
        let mut game = Game::start(start);
        for (n, points) in POINTS.iter().enumerate().skip(1) {
            piece_for(&mut game, n);
            let (score, lines) = (game.score(), game.lines());
            // A marker above the cleared rows must come down by n rows.
            game.poke(PLAYFIELD + 10 * 10, 0x7C);
            complete_rows(&mut game, n);
            let level = u32::from(game.peek(LEVEL));
            assert_eq!(
                game.lines(),
                lines + n as u32,
                "start level {start}, {n} lines"
            );
            assert_eq!(
                game.score(),
                score + points * (level + 1),
                "start level {start}, {n} lines at level {level}"
            );
            assert_eq!(game.cell(0, 10 + n as u8), 0x7C, "rows above moved down");
            game.clear_playfield();
        }
        let expected_level = if start == 0 { 1 } else { start };
        assert_eq!(
            game.peek(LEVEL),
            expected_level,
            "after 10 lines from level {start}"
        );
    }
}

#[test]
fn a_tetris_records_its_rows_and_animates() {
    let mut game = Game::start(0);
    piece_for(&mut game, 4);
    for y in 16..20u16 {
        for x in (0..10u16).filter(|&x| x != 5) {
            game.poke(PLAYFIELD + y * 10 + x, 0x7D);
        }
    }
    let score = game.score();
    game.tap(A);
    let mut states = Vec::new();
    for _ in 0..300 {
        // Down to row 17, then gravity: no soft-drop points.
        let soft = game.peek(PLAY_STATE) == 1 && game.peek(Y) < 17;
        game.frame(if soft { DOWN } else { 0 });
        let state = game.peek(PLAY_STATE);
        if states.last() != Some(&state) {
            states.push(state);
        }
        if state == 4 {
            assert_eq!(
                [16, 17, 18, 19],
                [0, 1, 2, 3].map(|i| game.peek(COMPLETED_ROWS + i))
            );
            assert_eq!(game.peek(0x56), 4);
        }
        if state == 1 && states.len() > 1 {
            break;
        }
    }
    // The NMI ends the animation (4 -> 5) and the same frame's logic handles state 5.
    assert_eq!(states, [1, 2, 3, 4, 6, 7, 8, 1]);
    assert_eq!(game.score(), score + 1200);
    assert_eq!(game.lines(), 4);
    assert!(
        (0..200).all(|i| game.peek(PLAYFIELD + i) == EMPTY),
        "four rows cleared"
    );
}

#[test]
fn soft_drop_points_are_rows_minus_one() {
    let mut game = Game::start(0);
    game.until(800, "the piece to fall to row 12", |g| g.peek(Y) >= 12);
    let mut rows = 0;
    while game.peek(PLAY_STATE) == 1 {
        let y = game.peek(Y);
        game.frame(DOWN);
        if game.peek(Y) != y {
            rows += 1;
        }
    }
    assert_eq!(
        u32::from(game.peek(HOLD_DOWN_POINTS)),
        rows + 1,
        "the failed drop counts too"
    );
    game.next_spawn();
    assert_eq!(game.score(), rows, "holdDownPoints - 1 points");
    assert_eq!(game.peek(HOLD_DOWN_POINTS), 0);
}

/// The article's "Actual Lines" row: lines at which each starting level 0-19 first goes up.
const ACTUAL_LINES: [u32; 20] = [
    10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 100, 100, 100, 100, 100, 100, 110, 120, 130, 140,
];

fn set_lines(game: &mut Game, lines: u32) {
    game.poke_player(0x10, bcd(lines % 100));
    game.poke_player(0x11, (lines / 100) as u8);
}

#[test]
fn level_goes_up_at_the_actual_lines_for_every_start_level() {
    for start in 0..20u8 {
        let actual = ACTUAL_LINES[usize::from(start)];
        let mut game = Game::start(start);
        if actual > 10 {
            set_lines(&mut game, actual - 11);
            clear_lines(&mut game, 1);
            assert_eq!(game.lines(), actual - 10);
            assert_eq!(
                game.peek(LEVEL),
                start,
                "start {start}: no level-up at {} lines",
                actual - 10
            );
            game.clear_playfield();
        }
        set_lines(&mut game, actual - 1);
        clear_lines(&mut game, 1);
        assert_eq!(game.lines(), actual);
        assert_eq!(
            game.peek(LEVEL),
            start + 1,
            "start {start}: level-up at {actual} lines"
        );
        // From then on every 10 lines.
        game.clear_playfield();
        set_lines(&mut game, actual + 9);
        clear_lines(&mut game, 1);
        assert_eq!(
            game.peek(LEVEL),
            start + 2,
            "start {start}: next level 10 lines later"
        );
    }
}

#[test]
fn score_is_capped_at_999999() {
    let mut game = Game::start(19);
    game.poke_player(0x13, 0x60);
    game.poke_player(0x14, 0x99);
    game.poke_player(0x15, 0x99);
    clear_lines(&mut game, 1);
    assert_eq!(game.score(), 999_999);
}
