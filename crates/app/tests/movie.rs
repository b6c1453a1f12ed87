//! `nestor run --record` / `--movie`: a recorded run plays back to the same picture; a movie
//! for another ROM or one that runs out is reported as a desync (exit 3); a broken movie is an
//! error naming its line (exit 2).

use std::path::PathBuf;
use std::process::Command;

fn dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nestor-movie-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

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
/// saves the last frame; returns the movie's path.
fn record(name: &str) -> (PathBuf, Vec<u8>) {
    let dir = dir();
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
    let (movie, recorded) = record("replay");
    let text = std::fs::read_to_string(&movie).unwrap();
    assert!(text.starts_with("version 3\n"));
    assert_eq!(text.lines().filter(|l| l.starts_with('|')).count(), 400);
    assert!(
        text.contains("|0|....T...|........||"),
        "Start was not recorded"
    );
    let png = dir().join("replayed.png");
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

#[test]
fn running_out_of_frames_is_a_desync() {
    let (movie, _) = record("short");
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
    let (movie, _) = record("other");
    // An NROM image that loops at $8000.
    let mut rom = vec![b'N', b'E', b'S', 0x1A, 1, 1, 0, 0];
    rom.resize(16, 0);
    let mut prg = vec![0xEA; 0x4000];
    prg[..3].copy_from_slice(&[0x4C, 0x00, 0x80]);
    prg[0x3FFA..].copy_from_slice(&[0x00, 0x80, 0x00, 0x80, 0x00, 0x80]);
    rom.extend_from_slice(&prg);
    rom.resize(rom.len() + 0x2000, 0);
    let path = dir().join("loop.nes");
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
    let path = dir().join("broken.fm2");
    std::fs::write(&path, "version 3\nemuVersion 1\nromFilename x\nromChecksum base64:YW55IGNhcm5hbCBwbGVhcw==\nguid x\nport0 1\nport1 1\nport2 0\n|0|....|........||\n").unwrap();
    let (code, err) = nestor(&["run", "--headless", "--movie", path.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("line 9: pad 1 field"), "{err}");
}
