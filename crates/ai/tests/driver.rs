//! End to end, headless, on the project's own ROM: the driver plays from power-on at level 19
//! and must clear at least 200 lines with no re-plan caused by a wrong prediction.

use ai::driver::{Driver, Mode};
use ai::eval::Profile;

const ROM: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../roms/quadfall.nes"
));

fn play_200_lines(mode: Mode, reaction: u8) {
    let mut console = nes::Console::from_ines(ROM).expect("roms/quadfall.nes loads");
    let mut driver = Driver::new(Profile::by_name("strong").unwrap(), mode, 19).unwrap();
    driver.set_reaction(reaction);
    // 200 lines take about 500 pieces of at most ~60 frames each at level 19.
    for _ in 0..60_000 {
        driver.step(&mut console);
        if driver.stats.lines >= 200 {
            break;
        }
    }
    let s = &driver.stats;
    assert_eq!(s.games, 1, "one game from power-on, no game over: {s:?}");
    assert!(s.lines >= 200, "{s:?}");
    assert_eq!(s.replans, 0, "{s:?}");
    assert!(console.peek(0x44) >= 19, "started at level 19");
}

#[test]
fn controller_mode_plays_200_lines_at_level_19_without_replans() {
    play_200_lines(Mode::Controller { tap_hz: 30 }, 0);
}

/// The standard format's reaction delay: each piece is planned without the preview, and again
/// with it 18 frames after its spawn.
#[test]
fn controller_mode_with_18_frames_of_reaction_plays_200_lines_without_replans() {
    play_200_lines(Mode::Controller { tap_hz: 30 }, 18);
}

#[test]
fn teleport_mode_plays_200_lines_at_level_19() {
    play_200_lines(Mode::Teleport, 0);
}

#[test]
fn a_reset_drops_the_planned_placement() {
    let mut console = nes::Console::from_ines(ROM).unwrap();
    let mut driver = Driver::new(Profile::by_name("strong").unwrap(), Mode::Teleport, 0).unwrap();
    let mut frames = 0;
    while driver.target().is_none() {
        driver.step(&mut console);
        frames += 1;
        assert!(frames < 3_000, "no piece planned in {frames} frames");
    }
    console.reset();
    for _ in 0..10 {
        driver.step(&mut console);
    }
    assert_eq!(
        driver.target(),
        None,
        "the title screen has no piece to outline"
    );
}

#[test]
fn bad_driver_options_are_one_line_errors() {
    let err = |r: Result<Driver, String>| r.err().expect("rejected");
    assert!(err(Driver::from_options("best", "controller", 19, 30)).contains("profile"));
    assert!(err(Driver::from_options("strong", "fly", 19, 30)).contains("mode"));
    assert!(err(Driver::from_options("strong", "controller", 25, 30)).contains("level"));
    assert!(err(Driver::from_options("strong", "controller", 19, 7)).contains("tap rate"));
    assert!(Driver::from_options("classic", "teleport", 0, 30).is_ok());
}
