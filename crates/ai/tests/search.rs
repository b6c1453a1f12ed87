//! Search correctness: every placement-search result is legal and reachable by its path; every
//! controller plan, run through the rules model, lands exactly where the search promised.

use ai::controller::{execute, ControllerSearch, Pad};
use ai::placement::{apply, Move, PlacementSearch};
use ai::rules::{buttons::*, *};
use ai::sim::SplitMix;

/// Random ragged boards: a bumpy stack with some holes.
fn boards(n: usize) -> Vec<Board> {
    let mut r = SplitMix(7);
    (0..n)
        .map(|_| {
            let mut b = Board::default();
            for x in 0..10 {
                let h = 2 + (r.next_u64() % 9) as i8;
                for y in (20 - h)..20 {
                    if !r.next_u64().is_multiple_of(6) {
                        b.set(x, y);
                    }
                }
            }
            b.clear_rows();
            b
        })
        .collect()
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

fn check_plans(level: u8, hz: u32, boards: &[Board]) -> usize {
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
            c.search(b, level, start, Pad::idle(), &mut locks);
            p.search(b, id, &mut placements);
            for l in &locks {
                assert!(
                    placements.contains(&l.piece),
                    "controller locks are placement locks"
                );
                let inputs = c.plan(l);
                let end = execute(b, level, start, 0, &inputs).expect("the plan locks");
                assert_eq!(
                    end.piece, l.piece,
                    "level {level}: plan lands where promised"
                );
                // Tap rate: presses of shift and rotate buttons at least `period` frames apart.
                for group in [LEFT | RIGHT, A | B] {
                    let presses: Vec<usize> = inputs
                        .iter()
                        .enumerate()
                        .filter(|(_, &h)| h & group != 0)
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
        assert!(check_plans(level, hz, &bs) > 0);
    }
}

#[test]
fn kill_screen_gravity_limits_reach_at_low_tap_rates() {
    // At level 29 and 30 Hz, an I piece can still reach both walls; at 10 Hz it cannot.
    let b = Board::default();
    let reach = |hz| {
        let mut c = ControllerSearch::new(hz).unwrap();
        let mut locks = Vec::new();
        c.search(&b, 29, Control::spawned(0x12, 0), Pad::idle(), &mut locks);
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
