//! The user's pointer and players 3-4 reach the devices in the ports, with and without
//! run-ahead: vaus-test (the Vaus knob moves its marker) and a Four Score's players.

use nes::vaus::Vaus;
use nes::{Buttons, Console, Device};
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
