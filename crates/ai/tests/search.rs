//! Search correctness: every placement-search result is legal and reachable by its path; every
//! controller plan, run through the rules model, lands exactly where the search promised.

use ai::controller::{execute, ControllerSearch, Pad};
use ai::placement::{apply, Move, PlacementSearch};
use ai::rules::{buttons::*, *};
use ai::sim::SplitMix;

/// Random ragged boards: a bumpy stack with some holes.
fn boards(n: usize) -> Vec<Board> {
    let mut r = SplitMix(7);
    (0..n).map(|_| r.ragged_board(2..11, 6)).collect()
}

#[test]
fn placement_locks_are_legal_supported_and_reached_by_their_paths() {
    let mut s = PlacementSearch::default();
    let mut locks = Vec::new();
    for b in boards(40) {
        for &id in &SPAWN_ID {
            if !s.search(&b, id, &mut locks) {
                continue;
            }
            assert!(!locks.is_empty());
            for &l in &locks {
                assert!(b.fits(l.id, l.x, l.y));
                assert!(
                    !b.fits(l.id, l.x, l.y + 1),
                    "a lock position cannot move down"
                );
                let mut p = Piece::spawn(id);
                for m in s.path(l) {
                    p = apply(p, m);
                    assert!(b.fits(p.id, p.x, p.y), "every step of the path is legal");
                }
                assert_eq!(p, l);
            }
        }
    }
}

#[test]
fn placement_search_finds_tucks_and_spins() {
    // A T-slot under an overhang: only reachable by sliding under it and rotating.
    let mut b = Board::default();
    // Rows 18-19 leave a T-shaped slot (columns 3-5 and 4); row 17 covers column 3, so the T
    // has to come down through columns 4-5 and turn at the bottom.
    b.rows[19] = FULL_ROW & !(1 << 4);
    b.rows[18] = FULL_ROW & !((1 << 3) | (1 << 4) | (1 << 5));
    b.rows[17] = FULL_ROW & !((1 << 4) | (1 << 5));
    let mut s = PlacementSearch::default();
    let mut locks = Vec::new();
    assert!(s.search(&b, 0x02, &mut locks));
    let mut best = locks.iter().copied().max_by_key(|l| {
        let mut t = b;
        t.lock(l.id, l.x, l.y)
    });
    let l = best.take().unwrap();
    let mut t = b;
    assert_eq!(
        t.lock(l.id, l.x, l.y),
        2,
        "the T-spin double is found: {l:?}"
    );
    assert!(s.path(l).contains(&Move::Clockwise) || s.path(l).contains(&Move::CounterClockwise));
}

fn check_plans(gravity: Gravity, hz: u32, boards: &[Board]) -> usize {
    let mut c = ControllerSearch::new(hz).unwrap();
    let period = c.period as usize;
    let mut p = PlacementSearch::default();
    let (mut locks, mut placements) = (Vec::new(), Vec::new());
    let mut checked = 0;
    for b in boards {
        for &id in &SPAWN_ID {
            let start = Control::spawned(id, 0);
            if !b.fits(id, SPAWN_X, SPAWN_Y) {
                continue;
            }
            c.search(b, gravity, start, Pad::idle(), &mut locks);
            p.search(b, id, &mut placements);
            for l in &locks {
                assert!(
                    placements.contains(&l.piece),
                    "controller locks are placement locks"
                );
                let inputs = c.plan(l);
                let end = execute(b, gravity, start, 0, &inputs).expect("the plan locks");
                assert_eq!(end.piece, l.piece, "{gravity:?}: plan lands where promised");
                // Tap rate: presses (not holds) of the d-pad and of A/B at least `period`
                // frames apart.
                for group in [LEFT | RIGHT | DOWN, A | B] {
                    let mut prev = 0;
                    let presses: Vec<usize> = inputs
                        .iter()
                        .enumerate()
                        .filter(|(_, &h)| {
                            let pressed = h & !prev & group != 0;
                            prev = h;
                            pressed
                        })
                        .map(|(i, _)| i)
                        .collect();
                    assert!(
                        presses.windows(2).all(|w| w[1] - w[0] >= period),
                        "{presses:?}"
                    );
                }
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn controller_plans_land_where_promised_at_every_speed() {
    let bs = boards(6);
    for (level, hz) in [
        (0, 30),
        (8, 20),
        (18, 30),
        (19, 30),
        (29, 30),
        (19, 10),
        (29, 15),
    ] {
        assert!(check_plans(Gravity::at(level, false), hz, &bs) > 0);
    }
    // The standard format's double kill screen: two rows a frame.
    for (level, hz) in [(39, 30), (45, 10)] {
        let gravity = Gravity::at(level, true);
        assert_eq!(gravity.rows_per_drop, 2);
        assert!(check_plans(gravity, hz, &bs) > 0);
    }
}

#[test]
fn kill_screen_gravity_limits_reach_at_low_tap_rates() {
    // At level 29 and 30 Hz, an I piece can still reach both walls; at 10 Hz it cannot.
    let b = Board::default();
    let reach = |hz| {
        let mut c = ControllerSearch::new(hz).unwrap();
        let mut locks = Vec::new();
        c.search(
            &b,
            Gravity::at(29, false),
            Control::spawned(0x12, 0),
            Pad::idle(),
            &mut locks,
        );
        locks
            .iter()
            .map(|l| l.piece.x)
            .collect::<std::collections::BTreeSet<_>>()
    };
    let fast = reach(30);
    assert!(fast.contains(&2) && fast.contains(&8), "{fast:?}");
    let slow = reach(10);
    assert!(slow.len() < fast.len(), "{slow:?} vs {fast:?}");
}

/// The earliest plan to each lock position on an empty board.
fn plans(level: u8, hz: u32, id: u8) -> Vec<(Piece, Vec<u8>)> {
    let mut c = ControllerSearch::new(hz).unwrap();
    let mut locks = Vec::new();
    c.search(
        &Board::default(),
        Gravity::at(level, false),
        Control::spawned(id, 0),
        Pad::idle(),
        &mut locks,
    );
    locks.iter().map(|l| (l.piece, c.plan(l))).collect()
}

#[test]
fn soft_drop_is_held_where_it_is_faster_than_gravity() {
    // Level 18 drops a row every 3 frames, a held Down every 2: plans hold Down and are shorter
    // than gravity alone (18 rows from spawn to the floor).
    for (piece, inputs) in plans(18, 30, 0x0A) {
        let held_down = inputs.iter().filter(|&&h| h & DOWN != 0).count();
        assert!(held_down > 10, "{piece:?}: {inputs:?}");
        assert!(inputs.len() < 18 * 3, "{piece:?}: {}", inputs.len());
        let gravity = Gravity::at(18, false);
        let end = execute(
            &Board::default(),
            gravity,
            Control::spawned(0x0A, 0),
            0,
            &inputs,
        )
        .unwrap();
        assert!(
            end.hold_down_points > 10,
            "soft-drop points are earned: {piece:?} {inputs:?} {end:?}"
        );
    }
}

#[test]
fn a_charged_das_shifts_without_a_press() {
    // Left held since the last piece with autorepeatX charged (16): the first frame shifts with
    // no press, and a tap of Left is still allowed on the third (its last press is long past).
    // At level 29 and 12 Hz that is five shifts before the floor (frames 1, 3, 8, 13, 18)
    // against four from an idle pad (1, 6, 11, 16): the J reaches column 0.
    let reach = |pad: Pad| {
        let mut c = ControllerSearch::new(12).unwrap();
        let mut locks = Vec::new();
        let start = Control::spawned(0x07, 16);
        c.search(
            &Board::default(),
            Gravity::at(29, false),
            start,
            pad,
            &mut locks,
        );
        locks
            .iter()
            .map(|l| (l.piece, c.plan(l)))
            .collect::<Vec<_>>()
    };
    let idle = reach(Pad::idle());
    let charged = reach(Pad {
        held: LEFT,
        ..Pad::idle()
    });
    let leftmost = |v: &[(Piece, Vec<u8>)]| v.iter().map(|(p, _)| p.x).min().unwrap();
    assert_eq!((leftmost(&idle), leftmost(&charged)), (1, 0));
    let (piece, inputs) = charged
        .iter()
        .find(|(p, _)| p.x == leftmost(&charged))
        .unwrap();
    assert_eq!(inputs[0] & LEFT, LEFT, "{inputs:?}");
    let start = Control::spawned(0x07, 16);
    let end = execute(
        &Board::default(),
        Gravity::at(29, false),
        start,
        LEFT,
        inputs,
    )
    .unwrap();
    assert_eq!(end.piece, *piece);
}

#[test]
fn fit_table_agrees_with_the_collision_check() {
    let mut bs = boards(20);
    // A piece locked partly above the playfield fills the padding rows -2/-1.
    bs[0].hidden = [0x0F0, 0x30C];
    for b in &bs {
        for id in 0..19 {
            let t = FitTable::new(b, TYPE_OF[id as usize]);
            for y in -3..23 {
                for x in -3..13 {
                    assert_eq!(
                        Collision::fits(&t, id, x, y),
                        b.fits(id, x, y),
                        "{id} {x} {y}"
                    );
                }
            }
        }
    }
}
