//! Rewinding goes back frame by frame to exactly the machine of that frame: replaying the same
//! input from there gives the same picture and RAM at every frame.

mod common;

use common::{pads, run, ROM};
use nes::Console;
use session::Session;

#[test]
fn rewound_frames_replay_to_the_same_hashes() {
    let mut session = Session::new(Console::from_ines(ROM).unwrap());
    session.set_rewind(Some(session::rewind::DEFAULT_BUDGET));
    let first = run(&mut session, 0..1200, pads);
    // Back 300 frames, one at a time: each is the machine as it was after that frame.
    for n in (900..1200).rev() {
        assert_eq!(session.console().hash(), first[n as usize], "frame {n}");
        assert!(session.rewind(), "the ring ends before frame {n}");
    }
    assert_eq!(session.frames(), 900);
    assert_eq!(session.console().hash(), first[899]);
    let again = run(&mut session, 900..1200, pads);
    assert_eq!(again, first[900..]);
    let ring = session.rewind_ring().unwrap();
    assert_eq!(ring.depth(), 1199, "{} bytes", ring.bytes());
}

#[test]
fn the_ring_keeps_to_its_budget() {
    let mut session = Session::new(Console::from_ines(ROM).unwrap());
    session.set_rewind(Some(400 << 10));
    run(&mut session, 0..1200, pads);
    let ring = session.rewind_ring().unwrap();
    assert!(ring.bytes() <= 400 << 10, "{} bytes", ring.bytes());
    let depth = ring.depth();
    assert!(depth > 10 && depth < 1199, "{depth} frames");
    for _ in 0..depth {
        assert!(session.rewind());
    }
    assert!(!session.rewind(), "went back further than the ring holds");
}
