//! `nestor run --record` / `--movie`: a recorded run plays back to the same picture; a movie
//! for another ROM or one that runs out is reported as a desync (exit 3); a broken movie is an
//! error naming its line (exit 2).

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../../tests/support/scratch.rs"]
mod scratch;
use scratch::Scratch;

/// Runs nestor; returns the exit code and stderr.
fn nestor(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .args(args)
        .output()
        .expect("nestor runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().expect("exited"), stderr)
}

/// Records 400 frames of Quadfall driven by an input script (menus, then a few moves) and
/// saves the last frame in `dir`; returns the movie's path.
fn record(dir: &Path, name: &str) -> (PathBuf, Vec<u8>) {
    let input = dir.join(format!("{name}.txt"));
    std::fs::write(
        &input,
        "100 start\n104 none\n160 start\n164 none\n220 left\n240 a\n244 none\n",
    )
    .unwrap();
    let movie = dir.join(format!("{name}.fm2"));
    let png = dir.join(format!("{name}.png"));
    let (code, err) = nestor(&[
        "run",
        "--headless",
        "--frames",
        "400",
        "--input",
        input.to_str().unwrap(),
        "--record",
        movie.to_str().unwrap(),
        "--screenshot",
        png.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    (movie, std::fs::read(png).unwrap())
}

#[test]
fn recorded_run_plays_back_to_the_same_frame() {
    let dir = Scratch::new("recorded_run_plays_back_to_the_same_frame");
    let (movie, recorded) = record(&dir, "replay");
    let text = std::fs::read_to_string(&movie).unwrap();
    assert!(text.starts_with("version 3\n"));
    // FCEUX's two dead frames after power-on, then one line per frame run.
    assert_eq!(text.lines().filter(|l| l.starts_with('|')).count(), 402);
    assert!(text.contains("\nRAMInitOption 2\n"), "{text}");
    assert!(
        text.contains("|0|....T...|........||"),
        "Start was not recorded"
    );
    let png = dir.join("replayed.png");
    let (code, err) = nestor(&[
        "run",
        "--headless",
        "--movie",
        movie.to_str().unwrap(),
        "--screenshot",
        png.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    assert_eq!(std::fs::read(png).unwrap(), recorded);
}

/// Lua's `movie.*` functions see the movie the run plays, then its end.
#[test]
fn lua_scripts_see_the_movie() {
    let dir = Scratch::new("lua_scripts_see_the_movie");
    let (movie, _) = record(&dir, "lua");
    let script = dir.join("movie.lua");
    std::fs::write(
        &script,
        "for _ = 1, 402 do\n\
           print(movie.mode(), movie.length(), movie.framecount(), movie.rerecordcount())\n\
           emu.frameadvance()\n\
         end\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .args(["run", "--headless", "--frames", "402", "--movie"])
        .arg(&movie)
        .arg("--lua")
        .arg(&script)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    // Running past the movie's end is reported, as without Lua.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("ran out"), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    let mut modes = Vec::new();
    for line in lines
        .iter()
        .filter(|l| l.starts_with("playback") || l.starts_with("finish"))
    {
        let fields: Vec<&str> = line.split(' ').collect();
        // The movie's 400 frames are 402 of FCEUX's, with the dead frames after power-on,
        // which the length and the frame count include.
        let frame: u64 = fields[2].parse().unwrap();
        let mode = if frame < 402 { "playback" } else { "finished" };
        assert_eq!(fields, [mode, "402", fields[2], "0"], "{stdout}");
        modes.push(mode);
    }
    assert!(
        modes.len() >= 400 && modes.contains(&"finished"),
        "{stdout}"
    );
}

#[test]
fn running_out_of_frames_is_a_desync() {
    let dir = Scratch::new("running_out_of_frames_is_a_desync");
    let (movie, _) = record(&dir, "short");
    let args = ["run", "--headless", "--frames", "450", "--movie"];
    let (code, err) = nestor(&[&args[..], &[movie.to_str().unwrap()]].concat());
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("desync") && err.contains("400 frames ran out"),
        "{err}"
    );
}

#[test]
fn movie_for_another_rom_is_a_desync() {
    let dir = Scratch::new("movie_for_another_rom_is_a_desync");
    let (movie, _) = record(&dir, "other");
    // An NROM image that loops at $8000.
    let rom = testrom::image::nrom(&[0x4C, 0x00, 0x80], [0x8000; 3], 0);
    let path = dir.join("loop.nes");
    std::fs::write(&path, rom).unwrap();
    let (code, err) = nestor(&[
        "run",
        path.to_str().unwrap(),
        "--headless",
        "--movie",
        movie.to_str().unwrap(),
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("desync") && err.contains("recorded on a ROM with MD5"),
        "{err}"
    );
}

#[test]
fn broken_movie_names_its_line() {
    let dir = Scratch::new("broken_movie_names_its_line");
    let path = dir.join("broken.fm2");
    std::fs::write(&path, "version 3\nemuVersion 1\nromFilename x\nromChecksum base64:YW55IGNhcm5hbCBwbGVhcw==\nguid x\nport0 1\nport1 1\nport2 0\n|0|....|........||\n").unwrap();
    let (code, err) = nestor(&["run", "--headless", "--movie", path.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("line 9: pad 1 field"), "{err}");
}

/// Movies nestor cannot play right are one line each: a PAL movie, a field a megabyte long (not
/// echoed whole), bytes that are not UTF-8 (with their line).
#[test]
fn bad_movies_are_one_short_line() {
    let dir = Scratch::new("bad_movies_are_one_short_line");
    let (good, _) = record(&dir, "good");
    let text = std::fs::read_to_string(&good).unwrap();
    let cases = [
        (
            "pal",
            text.replacen("palFlag 0", "palFlag 1", 1).into_bytes(),
            "PAL movie",
        ),
        (
            "long",
            format!("version 3\nemuVersion {}\n", "x".repeat(1 << 20)).into_bytes(),
            "line 2",
        ),
        (
            "binary",
            {
                let mut bytes = text.clone().into_bytes();
                let third = bytes
                    .iter()
                    .enumerate()
                    .filter(|(_, &b)| b == b'\n')
                    .nth(1)
                    .unwrap()
                    .0;
                bytes[third + 1] = 0xFF;
                bytes
            },
            "line 3: not UTF-8 text",
        ),
    ];
    assert!(text.contains("palFlag 0"), "{text}");
    // The PAL movie plays on a PAL console.
    let pal = dir.join("pal-console.fm2");
    std::fs::write(&pal, text.replacen("palFlag 0", "palFlag 1", 1)).unwrap();
    let (code, err) = nestor(&[
        "run",
        "--headless",
        "--region",
        "pal",
        "--movie",
        pal.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    for (name, bytes, problem) in cases {
        let path = dir.join(format!("{name}.fm2"));
        std::fs::write(&path, bytes).unwrap();
        let (code, err) = nestor(&["run", "--headless", "--movie", path.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.len() < 400, "{name}: {} bytes of error", err.len());
        assert!(err.contains(problem), "{name}: {err}");
    }
}
