//! Placement speed: placement search two pieces deep (target under 1 ms) and controller search
//! plus two-piece evaluation (target under 5 ms), on mid-game playfields from the simulator.

use ai::controller::Pad;
use ai::eval::Profile;
use ai::planner::{Planner, SearchKind};
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
    for (name, kind, profile, level) in [
        (
            "placement_two_deep_classic",
            SearchKind::Placement,
            Profile::Classic,
            18,
        ),
        (
            "controller_two_deep_strong_l18",
            SearchKind::Controller { tap_hz: 30 },
            Profile::by_name("strong").unwrap(),
            18,
        ),
        (
            "controller_two_deep_strong_l29",
            SearchKind::Controller { tap_hz: 30 },
            Profile::by_name("strong").unwrap(),
            29,
        ),
    ] {
        let mut planner = Planner::new(profile, kind).unwrap();
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
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
