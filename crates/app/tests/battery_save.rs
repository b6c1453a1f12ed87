//! Battery saves from the command line: a game's PRG-RAM survives `nestor run --headless`
//! exiting and starting again, and a damaged save file is reported and left as it was.

use std::path::Path;
use std::process::{Command, Output};

/// NROM with a battery whose code counts power-ons in $6000 and marks $7FFF.
fn counter_rom() -> Vec<u8> {
    // INC $6000; LDA #$A5; STA $7FFF; JMP (here)
    let code = [
        0xEE, 0x00, 0x60, 0xA9, 0xA5, 0x8D, 0xFF, 0x7F, 0x4C, 0x08, 0x80,
    ];
    testrom::image::nrom(&code, [0x8008, 0x8000, 0x8008], 0x02)
}

fn run_headless(rom: &Path, data_dir: &Path) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .args(["run", "--headless", "--frames", "5", "--json"])
        .arg(rom)
        .env("NESTOR_DATA_DIR", data_dir)
        .output()
        .expect("nestor runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    out
}

#[test]
fn prg_ram_survives_a_restart_and_bad_saves_stay_untouched() {
    let dir = std::env::temp_dir().join(format!("nestor-sav-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let rom = dir.join("counter.nes");
    std::fs::write(&rom, counter_rom()).unwrap();
    let data = dir.join("data");
    let sav = data.join("counter.sav");

    run_headless(&rom, &data);
    let saved = std::fs::read(&sav).expect("the save is written on exit");
    assert_eq!((saved.len(), saved[0], saved[0x1FFF]), (8192, 1, 0xA5));
    run_headless(&rom, &data);
    assert_eq!(
        std::fs::read(&sav).unwrap()[0],
        2,
        "the save was loaded at start"
    );

    let damaged = b"half a save".to_vec();
    std::fs::write(&sav, &damaged).unwrap();
    let out = run_headless(&rom, &data);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let reports: Vec<_> = stderr
        .lines()
        .filter(|l| l.contains("counter.sav"))
        .collect();
    assert_eq!(reports.len(), 1, "one line names the bad file: {stderr}");
    assert!(reports[0].contains("11 bytes"), "{stderr}");
    assert_eq!(std::fs::read(&sav).unwrap(), damaged, "left untouched");
    let aside = std::fs::read(data.join("counter.sav.new")).unwrap();
    assert_eq!(
        aside[0], 1,
        "this session started from fresh RAM and was saved aside"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh folder named `name` in the temporary folder, holding the counter ROM.
fn scratch(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("nestor-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let rom = dir.join("counter.nes");
    std::fs::write(&rom, counter_rom()).unwrap();
    (dir, rom)
}

/// Starts a long headless run of the counter ROM recording `movie`, with `more` arguments.
#[cfg(unix)]
fn spawn_recording(rom: &Path, data: &Path, movie: &Path, more: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_nestor"))
        .args(["run", "--headless", "--frames", "100000000", "--record"])
        .arg(movie)
        .args(more)
        .arg(rom)
        .env("NESTOR_DATA_DIR", data)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Frames of an FM2 movie file past FCEUX's two dead frames after power-on (see crates/movie).
fn movie_frames(text: &str) -> usize {
    text.lines().filter(|l| l.starts_with('|')).count() - 2
}

/// Waits until the child has run past the first movie checkpoint (600 frames): the movie file
/// exists and holds them.
#[cfg(unix)]
fn wait_for_checkpoint(movie: &Path) {
    let start = std::time::Instant::now();
    while !std::fs::read_to_string(movie).is_ok_and(|text| movie_frames(&text) >= 600) {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(120),
            "no movie checkpoint in {}",
            movie.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// SIGTERM, SIGINT (Ctrl-C) and SIGHUP each end a headless run cleanly: the battery RAM and the
/// movie recorded so far are written, and the exit status says it was interrupted.
#[cfg(unix)]
#[test]
fn a_signal_ends_the_run_with_everything_saved() {
    let (dir, rom) = scratch("sig");
    for signal in ["TERM", "INT", "HUP"] {
        let (data, movie) = (dir.join(signal), dir.join(format!("{signal}.fm2")));
        let child = spawn_recording(&rom, &data, &movie, &[]);
        wait_for_checkpoint(&movie);
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "SIG{signal}: {stderr}");
        assert!(
            stderr.contains("interrupted after"),
            "SIG{signal}: {stderr}"
        );
        let saved = std::fs::read(data.join("counter.sav")).expect("the battery RAM was written");
        assert_eq!((saved[0], saved[0x1FFF]), (1, 0xA5), "SIG{signal}");
        let text = std::fs::read_to_string(&movie).expect("the movie was written");
        let frames = movie_frames(&text);
        assert!(frames > 600, "SIG{signal}: {frames} frames recorded");
        let summary = String::from_utf8_lossy(&out.stdout);
        assert!(
            summary.contains(&format!("movie: {} ({frames} frames)", movie.display())),
            "SIG{signal}: {summary}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A process killed outright (SIGKILL, a crash) keeps the battery RAM written within the save
/// interval and the movie up to its last checkpoint, each file whole.
#[cfg(unix)]
#[test]
fn a_killed_run_keeps_its_checkpoints() {
    let (dir, rom) = scratch("kill");
    let (data, movie) = (dir.join("data"), dir.join("run.fm2"));
    let mut child = spawn_recording(&rom, &data, &movie, &[]);
    wait_for_checkpoint(&movie);
    // The battery RAM changed on the first frame: written within the save interval.
    let sav = data.join("counter.sav");
    let start = std::time::Instant::now();
    while !sav.exists() && start.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let saved = std::fs::read(&sav).expect("the battery RAM was written while running");
    assert_eq!((saved.len(), saved[0], saved[0x1FFF]), (8192, 1, 0xA5));
    let text = std::fs::read_to_string(&movie).unwrap();
    assert!(movie_frames(&text) >= 600, "{text:.200}");
    assert!(
        text.ends_with("|\n"),
        "a whole movie: {:?}",
        &text[text.len() - 40..]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A run that ends on an error (a script that failed: exit code 4) still writes the battery
/// RAM and the recording.
#[test]
fn a_failed_run_writes_its_saves() {
    let (dir, rom) = scratch("fail");
    let script = dir.join("failing.lua");
    std::fs::write(&script, "emu.frameadvance()\nerror('boom')\n").unwrap();
    let (data, movie) = (dir.join("data"), dir.join("run.fm2"));
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .args(["run", "--headless", "--frames", "30", "--record"])
        .arg(&movie)
        .arg("--lua")
        .arg(&script)
        .arg(&rom)
        .env("NESTOR_DATA_DIR", &data)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    let saved = std::fs::read(data.join("counter.sav")).expect("the battery RAM was written");
    assert_eq!((saved[0], saved[0x1FFF]), (1, 0xA5));
    let text = std::fs::read_to_string(&movie).expect("the movie was written");
    assert_eq!(movie_frames(&text), 30, "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
