use ai::controller::{ControllerSearch, Pad};
use ai::eval::{strong_features, Placed, Profile};
use ai::planner::{Planner, SearchKind};
use ai::rules::*;
fn main() {
    let mut b = Board::default();
    for y in 12..20 {
        b.rows[y] = 0x1FF;
    }
    let mut planner = Planner::new(
        Profile::by_name("strong").unwrap(),
        SearchKind::Controller { tap_hz: 30 },
    )
    .unwrap();
    let d = planner
        .decide(&b, 18, Control::spawned(0x12, 0), Pad::idle(), Some(0x02))
        .unwrap();
    println!("decision {:?}", d.target);
    let mut c = ControllerSearch::new(30).unwrap();
    let mut locks = Vec::new();
    c.search(&b, 18, Control::spawned(0x12, 0), Pad::idle(), &mut locks);
    for l in &locks {
        let mut t = b;
        let n = t.lock(l.piece.id, l.piece.x, l.piece.y);
        let p = [Placed {
            piece: l.piece,
            lines: n,
            height_before: 8,
        }];
        println!(
            "{:?} lines {n} v {:.1} f {:?}",
            l.piece,
            Profile::by_name("strong").unwrap().evaluate(&t, &p),
            strong_features(&t, &p)
        );
    }
}
