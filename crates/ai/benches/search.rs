//! Placement speed: placement search two pieces deep (target under 1 ms) and controller search
//! plus two-piece evaluation (target under 5 ms), on mid-game playfields from the simulator; and
//! the strong profile's decision as it plays, with the third piece by expectation, and the
//! standard format's decision before the preview is seen on the kill screen.

use ai::controller::Pad;
use ai::eval::Profile;
use ai::planner::{Planner, SearchKind, EXPECT_PAIRS, FOURTH_PAIRS};
use ai::rules::{Board, Control, SPAWN_ID};
use ai::sim::SplitMix;
use criterion::{criterion_group, criterion_main, Criterion};

/// Playfields taken from a classic placement game, every 37th piece.
fn positions() -> Vec<(Board, u8, u8)> {
    let mut planner = Planner::new(Profile::Classic, SearchKind::Placement).unwrap();
    let mut r = SplitMix(3);
    let mut board = Board::default();
    let mut next = SPAWN_ID[(r.next_u64() % 7) as usize];
    let mut out = Vec::new();
    for i in 0..2000 {
        let cur = next;
        next = SPAWN_ID[(r.next_u64() % 7) as usize];
        if i % 37 == 0 && board.rows[10] == 0 {
            out.push((board, cur, next));
        }
        let d = planner
            .decide(
                &board,
                18,
                Control::spawned(cur, 0),
                Pad::idle(),
                Some(next),
            )
            .unwrap();
        board.lock(d.target.id, d.target.x, d.target.y);
    }
    out
}

fn bench(c: &mut Criterion) {
    let pos = positions();
    let mut group = c.benchmark_group("placement");
    let controller = SearchKind::Controller { tap_hz: 30 };
    let strong = || Profile::by_name("strong").unwrap();
    // (name, search, profile, level, pairs rated three deep, of them four deep)
    for (name, kind, profile, level, expect_pairs, fourth_pairs) in [
        (
            "placement_two_deep_classic",
            SearchKind::Placement,
            Profile::Classic,
            18,
            None,
            None,
        ),
        (
            "controller_two_deep_strong_l18",
            controller,
            strong(),
            18,
            None,
            None,
        ),
        (
            "controller_three_deep_strong_l18",
            controller,
            strong(),
            18,
            Some(EXPECT_PAIRS),
            None,
        ),
        (
            "controller_four_deep_strong_l18",
            controller,
            strong(),
            18,
            Some(EXPECT_PAIRS),
            Some(FOURTH_PAIRS),
        ),
        // Uncapped, level 29 is two deep whatever `expect_pairs` says.
        (
            "controller_two_deep_strong_l29",
            controller,
            strong(),
            29,
            None,
            None,
        ),
    ] {
        let mut planner = Planner::new(profile, kind).unwrap();
        planner.expect_pairs = expect_pairs;
        planner.fourth_pairs = fourth_pairs;
        let mut i = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                let (board, cur, next) = pos[i % pos.len()];
                i += 1;
                planner.decide(
                    &board,
                    level,
                    Control::spawned(cur, 0),
                    Pad::idle(),
                    Some(next),
                )
            })
        });
    }
    // The standard format's slowest decision: at level 29 of a capped game, before the
    // preview is seen, a third piece by expectation over each preview it may be.
    let mut planner = Planner::new(strong(), controller).unwrap();
    planner.capped = true;
    planner.double_kill_screen = true;
    let mut i = 0;
    group.bench_function("controller_unseen_strong_l29_capped", |b| {
        b.iter(|| {
            let (board, cur, _) = pos[i % pos.len()];
            i += 1;
            planner.decide_unseen(&board, 29, Control::spawned(cur, 0), Pad::idle())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
