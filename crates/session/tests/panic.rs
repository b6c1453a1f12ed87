//! A failure inside a frame (here an automatic player that panics, as a bug in nestor would)
//! is contained as the front ends contain it, and the session still finishes: the battery RAM
//! and the recording made so far are written.

use nes::{Buttons, Console};
use session::movies::Movies;
use session::{Player, Session};

/// NROM with a battery whose code counts power-ons in $6000 and marks $7FFF.
fn counter_rom() -> Vec<u8> {
    // INC $6000; LDA #$A5; STA $7FFF; JMP (here)
    let code = [
        0xEE, 0x00, 0x60, 0xA9, 0xA5, 0x8D, 0xFF, 0x7F, 0x4C, 0x08, 0x80,
    ];
    testrom::image::nrom(&code, [0x8008, 0x8000, 0x8008], 0x02)
}

/// Presses Right, and panics at its `fail_at`th frame.
struct FailingPlayer {
    frames: u32,
    fail_at: u32,
}

impl Player for FailingPlayer {
    fn buttons(&mut self, _: &mut Console) -> Buttons {
        self.frames += 1;
        assert!(self.frames < self.fail_at, "injected failure");
        Buttons(Buttons::RIGHT)
    }
}

#[test]
fn a_panic_in_a_frame_still_writes_the_battery_and_the_recording() {
    let dir = std::env::temp_dir().join(format!("nestor-session-panic-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // The only test in this binary: nothing else reads the environment meanwhile.
    std::env::set_var("NESTOR_DATA_DIR", &dir);
    let mut session = Session::new(Console::from_ines(&counter_rom()).unwrap());
    session.open_battery("counter.nes");
    let movie = dir.join("run.fm2");
    let movies = Movies::open(None, Some(&movie), "counter", session.console()).unwrap();
    session.set_movies(movies);
    session.set_player(
        Box::new(FailingPlayer {
            frames: 0,
            fail_at: 50,
        }),
        true,
    );
    let failure = testrom::contain_panics(|| {
        for _ in 0..100 {
            session.frame();
        }
    })
    .expect_err("the player failed");
    assert!(
        failure.to_string().contains("injected failure"),
        "{failure}"
    );
    session.finish(true).unwrap();
    let saved = std::fs::read(dir.join("counter.sav")).expect("the battery RAM was written");
    assert_eq!((saved[0], saved[0x1FFF]), (1, 0xA5));
    let text = std::fs::read_to_string(&movie).expect("the recording was written");
    let right: Vec<_> = text.lines().filter(|l| l.contains("R.......")).collect();
    assert_eq!(right.len(), 49, "the frames before the failure:\n{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
