//! The rules model against the documented behaviour of NES Tetris.

use ai::rules::{buttons::*, *};

fn frames_until_moves(
    level: u8,
    id: u8,
    inputs: impl Fn(usize) -> u8,
    frames: usize,
) -> Vec<(usize, Piece)> {
    let board = Board::default();
    let mut c = Control::spawned(id, 0);
    let mut prev = 0;
    let mut moves = Vec::new();
    for f in 0..frames {
        let held = inputs(f);
        let before = c.piece;
        assert!(
            !c.step(&board, Gravity::at(level, false), held & !prev, held),
            "locked at frame {f}"
        );
        if c.piece != before {
            moves.push((f, c.piece));
        }
        prev = held;
    }
    moves
}

#[test]
fn rotation_table_cycles_within_each_type() {
    for id in 0..19u8 {
        let [ccw, cw] = ROTATION[id as usize];
        assert_eq!(TYPE_OF[ccw as usize], TYPE_OF[id as usize]);
        assert_eq!(ROTATION[cw as usize][0], id, "ccw undoes cw for {id:#x}");
        assert_eq!(ROTATION[ccw as usize][1], id, "cw undoes ccw for {id:#x}");
        let t = TYPE_OF[id as usize] as usize;
        // Four clockwise turns come back (2 for I/S/Z, 1 for O).
        let mut r = id;
        for _ in 0..ORIENTATION_COUNT[t] {
            r = ROTATION[r as usize][1];
        }
        assert_eq!(r, id);
    }
    assert_eq!(ROTATION[0x00], [0x03, 0x01]);
    assert_eq!(ROTATION[0x0D], [0x10, 0x0E]);
    for (t, &s) in SPAWN_ID.iter().enumerate() {
        assert_eq!(TYPE_OF[s as usize] as usize, t);
    }
}

#[test]
fn collision_covers_rows_minus_two_to_nineteen_and_columns() {
    let b = Board::default();
    // I vertical at the spawn point reaches row -2: legal.
    assert!(b.fits(0x11, 5, 0));
    // Row 20 is outside.
    assert!(b.fits(0x11, 5, 18));
    assert!(!b.fits(0x11, 5, 19));
    // I horizontal spans x-2..x+1.
    assert!(b.fits(0x12, 2, 5) && b.fits(0x12, 8, 5));
    assert!(!b.fits(0x12, 1, 5) && !b.fits(0x12, 9, 5));
    let mut b = Board::default();
    b.set(4, 1);
    // T down at (5,0) covers (4,0),(5,0),(6,0),(5,1): free; at (4,0) it covers (4,1).
    assert!(b.fits(0x02, 5, 0));
    assert!(!b.fits(0x02, 4, 0));
}

#[test]
fn lock_records_rows_zero_and_below_and_clears_full_rows() {
    let mut b = Board::default();
    for y in [18, 19] {
        b.rows[y] = FULL_ROW & !(1 << 9);
    }
    b.set(3, 17);
    // I vertical in column 9 with origin at row 18 fills rows 16-19.
    assert_eq!(b.lock(0x11, 9, 18), 2);
    assert_eq!(b.rows[19], (1 << 3) | (1 << 9));
    assert_eq!(b.rows[18], 1 << 9);
    assert_eq!(b.rows[17], 0);
    // A piece partly above the playfield: its squares in rows -2/-1 land in the padding,
    // where later collision checks of those rows see them.
    let mut b = Board::default();
    b.lock(0x11, 0, 0);
    assert_eq!(b.rows[0], 1);
    assert_eq!(b.rows[1], 1);
    assert_eq!(b.rows.iter().filter(|&&r| r != 0).count(), 2);
    assert_eq!(b.hidden, [1, 1]);
    assert!(!b.fits(0x11, 0, 1), "row -1 is taken");
    b.rows[0] = FULL_ROW;
    assert_eq!(b.clear_rows(), 1);
    assert_eq!(b.hidden, [1, 1], "line clears leave the padding alone");
}

#[test]
fn locks_keep_the_column_heights() {
    // Every lock position of every piece on ragged stacks low and high, clearing rows or not,
    // some partly above the playfield.
    let mut r = ai::sim::SplitMix(3);
    let mut locks = Vec::new();
    let mut cleared = 0;
    for _ in 0..200 {
        let board = r.ragged_board(0..19, 5);
        for id in SPAWN_ID {
            ai::placement::PlacementSearch::default().search(&board, id, &mut locks);
            for &p in &locks {
                let (mut b, mut h) = (board, board.heights());
                let lines = b.lock_keeping_heights(p, &mut h);
                let mut locked = board;
                assert_eq!(lines, locked.lock(p.id, p.x, p.y));
                assert_eq!(b, locked);
                assert_eq!(h, b.heights(), "{p:?} on\n{board}");
                cleared += (lines > 0) as u32;
            }
        }
    }
    assert!(cleared > 50, "{cleared} locks cleared rows");
}

#[test]
fn board_reads_the_ram_page_with_its_padding() {
    let mut page = [0xEFu8; 256];
    page[0] = 0x7B;
    page[199] = 0x7C;
    page[246 + 3] = 0x7D;
    page[5] = 0xFF; // $FF reads as empty, like $EF
    let b = Board::from_ram(&page);
    assert_eq!(b.rows[0], 1);
    assert_eq!(b.rows[19], 1 << 9);
    assert_eq!(b.hidden, [0, 1 << 3]);
}

#[test]
fn das_shifts_at_0_16_22_28() {
    // Held Right from the first frame, I horizontal (spawn) has room to x = 8.
    let moves = frames_until_moves(0, 0x0E, |_| RIGHT, 40);
    let shifts: Vec<usize> = moves
        .iter()
        .filter(|(_, p)| p.y == 0)
        .map(|&(f, _)| f)
        .collect();
    assert_eq!(shifts, vec![0, 16, 22]);
    // Farther from the wall: L down at x = 1 moving right has room for more steps.
    let board = Board::default();
    let mut c = Control {
        piece: Piece {
            x: 1,
            y: 0,
            id: 0x0E,
        },
        ..Control::spawned(0x0E, 0)
    };
    let mut at = Vec::new();
    for f in 0..40 {
        let x = c.piece.x;
        c.step(
            &board,
            Gravity::at(0, false),
            if f == 0 { RIGHT } else { 0 },
            RIGHT,
        );
        if c.piece.x != x {
            at.push(f);
        }
    }
    assert_eq!(at, vec![0, 16, 22, 28, 34]);
}

#[test]
fn tapping_every_other_frame_shifts_every_two_frames() {
    let board = Board::default();
    let mut c = Control {
        piece: Piece {
            x: 1,
            y: 0,
            id: 0x0E,
        },
        ..Control::spawned(0x0E, 0)
    };
    let mut prev = 0;
    let mut at = Vec::new();
    for f in 0..12 {
        let held = if f % 2 == 0 { RIGHT } else { 0 };
        let x = c.piece.x;
        c.step(&board, Gravity::at(0, false), held & !prev, held);
        prev = held;
        if c.piece.x != x {
            at.push(f);
        }
    }
    assert_eq!(at, vec![0, 2, 4, 6, 8, 10]);
}

#[test]
fn gravity_follows_the_table_for_every_level() {
    for level in 0..=30u8 {
        let speed = drop_speed(level) as usize;
        let moves = frames_until_moves(level, 0x12, |_| 0, speed * 3);
        let drops: Vec<usize> = moves.iter().map(|&(f, _)| f).collect();
        // The fall timer reaches the speed on frame `speed - 1` (it is incremented first).
        assert_eq!(
            drops,
            vec![speed - 1, 2 * speed - 1, 3 * speed - 1],
            "level {level}"
        );
    }
    assert_eq!(drop_speed(18), 3);
    assert_eq!(drop_speed(19), 2);
    assert_eq!(drop_speed(28), 2);
    assert_eq!(drop_speed(29), 1);
    assert_eq!(drop_speed(255), 1);
}

#[test]
fn soft_drop_takes_three_frames_then_every_two_and_blocks_shifting() {
    let moves = frames_until_moves(0, 0x12, |_| DOWN, 9);
    let drops: Vec<usize> = moves.iter().map(|&(f, _)| f).collect();
    assert_eq!(drops, vec![2, 4, 6, 8]);
    // Down held with Right: no shift, no soft drop.
    let moves = frames_until_moves(0, 0x12, |_| DOWN | RIGHT, 10);
    assert!(moves.is_empty());
    // Down held through the spawn (never newly pressed) does not drop.
    let board = Board::default();
    let mut c = Control::spawned(0x12, 0);
    for _ in 0..10 {
        c.step(&board, Gravity::at(0, false), 0, DOWN);
    }
    assert_eq!(c.piece.y, 0);
}

#[test]
fn first_piece_hangs_96_frames_unless_down_is_pressed() {
    let board = Board::default();
    let mut c = Control::spawned(0x12, 0);
    c.autorepeat_y = FIRST_PIECE_DELAY;
    let mut first_drop = None;
    for f in 0..200 {
        c.step(&board, Gravity::at(0, false), 0, 0);
        if c.piece.y > 0 {
            first_drop = Some(f);
            break;
        }
    }
    // 96 frames of delay; the fall timer has passed the speed by then, so it drops at once.
    assert_eq!(first_drop, Some(96));
    let mut c = Control::spawned(0x12, 0);
    c.autorepeat_y = FIRST_PIECE_DELAY;
    c.step(&board, Gravity::at(0, false), DOWN, DOWN);
    assert_eq!(c.autorepeat_y, 1);
}

#[test]
fn rotation_is_refused_when_blocked() {
    let mut b = Board::default();
    // Jd at (5,3); clockwise gives Jl, which needs (4,4); counter-clockwise gives Jr, which does not.
    b.set(4, 4);
    let mut c = Control {
        piece: Piece {
            x: 5,
            y: 3,
            id: 0x07,
        },
        ..Control::spawned(0x07, 0)
    };
    c.step(&b, Gravity::at(0, false), A, A);
    assert_eq!(c.piece.id, 0x07, "Jl would cover (4,4)");
    c.step(&b, Gravity::at(0, false), B, B);
    assert_eq!(c.piece.id, 0x06, "Jr is free");
}

#[test]
fn points_follow_the_table_times_level_plus_one() {
    for (lines, level, points) in [
        (1, 0, 40),
        (2, 0, 100),
        (3, 5, 1800),
        (4, 0, 1200),
        (4, 9, 12000),
        (1, 18, 760),
        (4, 18, 22800),
        (4, 29, 36000),
    ] {
        let mut p = Progress::new(level);
        // Keep the level from rising: start with a line count far below the next level.
        p.lock(lines, 0);
        assert_eq!(p.score_value(), points, "{lines} lines at level {level}");
    }
    let mut p = Progress::new(18);
    p.score = [0x00, 0x90, 0x99];
    p.lock(4, 0);
    assert_eq!(p.score, [0x99; 3], "capped at 999999");
}

#[test]
fn soft_drop_points_follow_the_game_code() {
    let mut p = Progress::new(0);
    p.lock(0, 5);
    assert_eq!(p.score_value(), 4, "holdDownPoints - 1");
    let mut p = Progress::new(0);
    p.lock(0, 1);
    assert_eq!(p.score_value(), 0, "fewer than 2 rows give nothing");
}

#[test]
fn level_up_lines_match_the_articles_actual_lines_row() {
    let actual = [
        10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 100, 100, 100, 100, 100, 100, 110, 120, 130, 140,
    ];
    for (start, &expected) in actual.iter().enumerate() {
        let mut p = Progress::new(start as u8);
        let mut lines = 0;
        while p.level == start as u8 {
            p.lock(1, 0);
            lines += 1;
            assert!(lines < 1000);
        }
        assert_eq!(lines, expected, "start level {start}");
        // From then on, every 10 lines.
        for _ in 0..10 {
            p.lock(1, 0);
        }
        assert_eq!(p.level, start as u8 + 2);
    }
}

#[test]
fn lines_counter_is_bcd_with_an_open_high_byte() {
    let mut p = Progress::new(0);
    for _ in 0..1234 {
        p.lock(1, 0);
    }
    assert_eq!(p.lines, [0x34, 12]);
    assert_eq!(p.lines_value(), 1234);
}

#[test]
fn rng_is_the_documented_lfsr() {
    assert_eq!(rng_step(0x8988), 0x44C4);
    let mut v = RNG_SEED;
    let mut n = 0;
    loop {
        v = rng_step(v);
        n += 1;
        if v == RNG_SEED {
            break;
        }
    }
    assert_eq!(n, 32767);
}

#[test]
fn picker_reproduces_the_biased_distribution() {
    let mut p = Picker::default();
    let mut count = [0u32; 7];
    let mut frames = 0x1234_5678u32;
    let n = 700_000;
    for _ in 0..n {
        // Vary the frames between spawns as play does (at least 16: a piece takes longer).
        frames = frames.wrapping_mul(1_103_515_245).wrapping_add(12345);
        for _ in 0..16 + (frames >> 16) % 40 {
            p.frame();
        }
        count[TYPE_OF[p.pick() as usize] as usize] += 1;
    }
    let expected = [14.73, 14.29, 14.29, 14.29, 14.73, 13.84, 13.84];
    for t in 0..7 {
        let pct = count[t] as f64 * 100.0 / n as f64;
        assert!(
            (pct - expected[t]).abs() < 0.25,
            "{}: {pct:.2}% vs {}%",
            TYPE_NAMES[t],
            expected[t]
        );
    }
}

#[test]
fn picker_rerolls_repeats_and_index_seven() {
    // High byte + spawnCount = 7 -> re-roll; the re-roll adds the last spawn ID.
    let mut p = Picker {
        rng: 0x0600,
        spawn_id: 0x02,
        spawn_count: 0,
    };
    let id = p.pick();
    let stepped = rng_step(0x0600);
    let expected = SPAWN_ID[((((stepped >> 8) as u8) & 7) as usize + 2) % 7];
    assert_eq!((p.spawn_count, p.rng, id), (1, stepped, expected));
    // Same piece as last: re-roll.
    let mut p = Picker {
        rng: 0x0000,
        spawn_id: 0x07,
        spawn_count: 0,
    };
    let id = p.pick();
    assert_eq!(p.rng, rng_step(0));
    // (high byte 0 & 7 + last spawn ID 7) mod 7 = 0: T.
    assert_eq!(id, SPAWN_ID[0]);
}

#[test]
fn picker_odds_match_the_picks_after_each_piece() {
    let mut p = Picker::default();
    let mut count = [[0u32; 7]; 7];
    let mut frames = 0x2468_ace0u32;
    for _ in 0..700_000 {
        frames = frames.wrapping_mul(1_103_515_245).wrapping_add(12345);
        for _ in 0..16 + (frames >> 16) % 40 {
            p.frame();
        }
        let previous = p.spawn_id;
        let id = p.pick();
        if let Some(i) = SPAWN_ID.iter().position(|&s| s == previous) {
            count[i][SPAWN_ID.iter().position(|&s| s == id).unwrap()] += 1;
        }
    }
    for (i, row) in count.iter().enumerate() {
        let odds = Picker::odds_after(SPAWN_ID[i]);
        assert_eq!(odds.iter().sum::<u32>(), 64);
        let n: u32 = row.iter().sum();
        for j in 0..7 {
            let seen = row[j] as f64 / n as f64;
            let expected = odds[j] as f64 / 64.0;
            assert!(
                (seen - expected).abs() < 0.01,
                "{} after {}: {seen:.3} vs {expected:.3}",
                TYPE_NAMES[j],
                TYPE_NAMES[i]
            );
        }
    }
    // A repeat is rare: only through the re-roll.
    assert_eq!(Picker::odds_after(SPAWN_ID[6])[6], 2);
}

#[test]
fn the_double_kill_screen_drops_two_rows_every_frame_from_level_39() {
    assert_eq!(Gravity::at(38, true), Gravity::at(38, false));
    assert_eq!(Gravity::at(39, false).rows_per_drop, 1);
    assert_eq!(Gravity::at(39, true).rows_per_drop, 2);
    assert_eq!(Gravity::at(49, true).rows_per_drop, 2);
    // An I from the spawn: rows 2, 4, ... on frames 0, 1, ...; Down held changes nothing.
    for held in [0, DOWN] {
        let board = Board::default();
        let mut c = Control::spawned(0x12, 0);
        let mut rows = Vec::new();
        while !c.step(&board, Gravity::at(39, true), held, held) {
            rows.push(c.piece.y);
        }
        assert_eq!(
            rows,
            (1..10).map(|f| 2 * f).collect::<Vec<_>>(),
            "held {held:#x}"
        );
        assert_eq!(c.piece.y, 19, "it locks on the floor");
    }
    // Each row is checked: with the second row below blocked, the piece locks one row down.
    let mut board = Board::default();
    board.set(5, 2);
    let mut c = Control::spawned(0x12, 0);
    assert!(c.step(&board, Gravity::at(39, true), 0, 0));
    assert_eq!(c.piece.y, 1);
}
