use ai::controller::{execute, Pad};
use ai::eval::Profile;
use ai::planner::{Planner, SearchKind};
use ai::rules::*;
use ai::sim::SplitMix;
fn main() {
    let seed: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let level: u8 = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(18);
    let mut planner = Planner::new(
        Profile::by_name("strong").unwrap(),
        SearchKind::Controller { tap_hz: 30 },
    )
    .unwrap();
    let mut r = SplitMix(seed);
    let mut picker = Picker::default();
    for _ in 0..r.next_u64() % 32767 {
        picker.frame();
    }
    let mut board = Board::default();
    let mut prog = Progress::new(level);
    let mut cur = picker.pick();
    let mut next = picker.pick();
    let mut hist = Vec::new();
    for n in 0..3000 {
        let start = Control::spawned(cur, 0);
        let d = if board.fits(cur, 5, 0) {
            planner.decide(&board, prog.level, start, Pad::idle(), Some(next))
        } else {
            None
        };
        let Some(d) = d else {
            println!(
                "died after {n} pieces, level {}, lines {}\n{board}",
                prog.level,
                prog.lines_value()
            );
            for (b, c, nx) in hist.iter().rev().take(4).rev() {
                println!("cur {c:#x} next {nx:#x}\n{b}");
            }
            return;
        };
        let end = execute(&board, prog.level, start, 0, &d.inputs).unwrap();
        assert_eq!(end.piece, d.target);
        hist.push((board, cur, next));
        let t = d.target;
        let c = board.lock(t.id, t.x, t.y);
        prog.lock(c, 0);
        cur = next;
        for _ in 0..(20 + d.inputs.len()) {
            picker.frame();
        }
        next = picker.pick();
    }
    println!("survived, lines {}", prog.lines_value());
}
