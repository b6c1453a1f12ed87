//! The user's pointer and players 3-4 reach the devices in the ports, with and without
//! run-ahead: vaus-test (the Vaus knob moves its marker) and a Four Score's players.

use nes::vaus::Vaus;
use nes::{Buttons, Console, Device};
use session::movies::Movies;
use session::Session;

/// vaus-test's `indicator_x` (the marker's column: the knob's reading inverted) and
/// `control_type` (3: the NES Vaus in port 2), from its `main.s` zero page.
const INDICATOR_X: u16 = 0x1C;
const CONTROL_TYPE: u16 = 0x19;

fn vaus_test(run_ahead: u8) -> Session {
    let rom = std::fs::read(testrom::location::path("vaus-test/vaus-test.nes"))
        .expect("vaus-test/vaus-test.nes");
    let mut console = Console::from_ines(&rom).unwrap();
    console.plug(1, Device::Vaus);
    let mut session = Session::new(console);
    session.set_run_ahead(run_ahead).unwrap();
    session
}

/// The pointer's column each frame: the button for the first frames, then a sweep.
fn pointer(frame: u8) -> (Option<(u8, u8)>, bool) {
    match frame {
        0..20 => (None, false),
        20..24 => (Some((128, 100)), true),
        // Off the picture for a while: the knob stays where it was.
        60..70 => (None, false),
        _ => (Some((frame.wrapping_mul(7), 100)), false),
    }
}

#[test]
fn the_pointer_turns_the_vaus_knob_frame_by_frame_with_and_without_run_ahead() {
    for run_ahead in [0, 2] {
        let mut session = vaus_test(run_ahead);
        let mut knob = Vaus::default().knob;
        for frame in 0..120 {
            let (aim, button) = pointer(frame);
            session.set_pointer(aim, button);
            session.frame();
            if let Some((x, _)) = aim {
                knob = Vaus::knob_at(x);
            }
            if frame > 30 {
                let console = session.console();
                assert_eq!(console.peek(CONTROL_TYPE), 3);
                // The game reads the knob once a frame: by the frame's end it has this one's.
                assert_eq!(
                    console.peek(INDICATOR_X),
                    !knob,
                    "frame {frame}, run-ahead {run_ahead}"
                );
            }
        }
    }
}

#[test]
fn players_3_and_4_reach_a_four_score_only() {
    let rom = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../roms/quadfall.nes"
    ))
    .unwrap();
    let mut session = Session::new(Console::from_ines(&rom).unwrap());
    session.set_pads([0, 0, Buttons::A, Buttons::B]);
    session.frame();
    assert_eq!(session.console().buttons(2), Buttons(0), "no Four Score");
    for port in 0..2 {
        session.console_mut().plug(port, Device::FourScore);
    }
    session.frame();
    let console = session.console();
    assert_eq!(
        (console.buttons(2), console.buttons(3)),
        (Buttons(Buttons::A), Buttons(Buttons::B))
    );
}

/// A movie recorded with a Four Score says so (`fourscore 1`, four pad fields a line) and plays
/// players 3 and 4 back; without a Four Score it is refused in one line.
#[test]
fn four_score_movies_record_and_play_players_3_and_4() {
    let rom = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../roms/quadfall.nes"
    ))
    .unwrap();
    let four_score = || {
        let mut console = Console::from_ines(&rom).unwrap();
        for port in 0..2 {
            console.plug(port, Device::FourScore);
        }
        console
    };
    let path = std::env::temp_dir().join(format!("nestor-four-score-{}.fm2", std::process::id()));
    let pads = |frame: u8| [frame & 1, 0, frame, !frame];

    let mut session = Session::new(four_score());
    let movies = Movies::open(None, Some(&path), "quadfall", session.console()).unwrap();
    session.set_movies(movies);
    for frame in 0..20 {
        session.set_pads(pads(frame));
        session.frame();
    }
    session.finish(true).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("fourscore 1"), "{text}");

    let mut session = Session::new(four_score());
    let movies = Movies::open(Some(&path), None, "quadfall", session.console()).unwrap();
    session.set_movies(movies);
    for frame in 0..20 {
        session.frame();
        let console = session.console();
        let played = [0, 1, 2, 3].map(|player| console.buttons(player).0);
        assert_eq!(played, pads(frame), "frame {frame}");
    }

    let plain = Console::from_ines(&rom).unwrap();
    let refused = match Movies::open(Some(&path), None, "quadfall", &plain) {
        Ok(_) => panic!("a Four Score movie played without one"),
        Err(err) => err,
    };
    let _ = std::fs::remove_file(&path);
    assert!(
        format!("{refused:#}")
            .contains("a Four Score movie (players 3 and 4); `--four-score` plays it"),
        "{refused:#}"
    );
}
