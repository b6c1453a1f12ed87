//! Movies started and stopped in the middle of a session (the window's Tools menu): a recording
//! starts from power-on and plays back to the same machine at every frame; a script's
//! `movie.record` refuses while the session writes RAM cheats, and a script that records keeps
//! cheats from being switched on.

mod common;

use common::{pads, run, ROM};
use nes::Console;
use session::cheats::{Cheat, CheatList};
use session::movies::Movies;
use session::Session;
use std::cell::RefCell;
use std::rc::Rc;

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("nestor-session-{}-{name}", std::process::id()))
}

#[test]
fn a_movie_recorded_mid_session_plays_back_from_power_on() {
    let mut session = Session::new(Console::from_ines(ROM).unwrap());
    session.set_rewind(Some(session::rewind::DEFAULT_BUDGET));
    run(&mut session, 0..300, pads);
    let path = temp("recorded.fm2");
    let movies = Movies::open(None, Some(&path), "quadfall", session.console()).unwrap();
    session.start_movies(movies);
    assert_eq!(session.frames(), 0);
    assert!(
        !session.rewind(),
        "no going back into the frames before the movie"
    );
    let recorded = run(&mut session, 0..900, pads);
    let saved = session.stop_movies().unwrap().unwrap();
    assert_eq!(
        saved,
        format!("movie saved: {} (900 frames)", path.display())
    );

    // Other input meanwhile, then the movie again: its pads, not these, from power-on.
    run(&mut session, 0..100, |_| [nes::Buttons::DOWN, 0]);
    let movies = Movies::open(Some(&path), None, "quadfall", session.console()).unwrap();
    assert_eq!(movies.length(), Some(900));
    session.start_movies(movies);
    let played = run(&mut session, 0..900, |_| [nes::Buttons::START, 0]);
    assert_eq!(played, recorded);
    assert!(session.take_messages().is_empty(), "no desync");
    let stopped = session.stop_movies().unwrap().unwrap();
    assert_eq!(stopped, format!("movie stopped: {}", path.display()));
    assert!(session.stop_movies().unwrap().is_none());
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_script_records_no_movie_while_ram_cheats_are_on() {
    let script = temp("record.lua");
    let movie = temp("script.fm2");
    std::fs::write(
        &script,
        format!(
            r#"
            emu.frameadvance()
            local ok, err = pcall(movie.record, "{movie}")
            print("with a RAM cheat: " .. tostring(ok) .. ", " .. tostring(err))
            emu.frameadvance()
            print("without: " .. tostring(movie.record("{movie}")))
            while true do emu.frameadvance() end
            "#,
            movie = movie.display()
        ),
    )
    .unwrap();
    let output = Rc::new(RefCell::new(Vec::new()));
    let sink = output.clone();
    let mut scripts = lua::Scripts::with_output(
        ROM.to_vec(),
        "quadfall",
        Rc::new(move |_, text: &str| sink.borrow_mut().push(text.to_string())),
    );
    let mut session = Session::new(Console::from_ines(ROM).unwrap());
    scripts.load(session.console_mut(), &script).unwrap();
    session.set_scripts(scripts);
    let mut cheats = CheatList::default();
    cheats
        .cheats
        .push(Cheat::parse("0050:09", "lines").unwrap());
    session.set_cheats(cheats);
    session.frame();
    assert!(!session.scripts().unwrap().recording_movie());
    session.set_cheats(CheatList::default());
    session.frame();
    assert!(session.scripts().unwrap().recording_movie());
    session.finish(true).unwrap();
    let _ = std::fs::remove_file(&movie);
    std::fs::remove_file(&script).unwrap();
    // (At the end the movie is not written: this host gives the scripts no files.)
    let output = output.borrow();
    assert_eq!(output.len(), 3, "{output:?}");
    assert!(
        output[0].starts_with("with a RAM cheat: false, ")
            && output[0].contains("movie.record: RAM cheats are on in nestor"),
        "{output:?}"
    );
    assert_eq!(output[1], "without: true");
}
