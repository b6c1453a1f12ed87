//! One session runs every headless frame, whatever plays: the AI, Lua scripts and movies combine,
//! and what the AI pressed is what a movie records, frame for frame.

use std::process::Command;

#[path = "../../../tests/support/scratch.rs"]
mod scratch;
use scratch::Scratch;

/// Runs nestor; returns the exit code, stdout and stderr.
fn nestor(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("nestor runs");
    let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
    (
        out.status.code().unwrap(),
        text(out.stdout),
        text(out.stderr),
    )
}

fn json(stdout: &str) -> serde_json::Value {
    let last = stdout.lines().last().expect("a summary line");
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// A Lua HUD watches the AI play: it reads the game's RAM and the AI's buttons through
/// `joypad.get`, and the AI still plays without a single re-plan.
#[test]
fn a_lua_script_watches_the_ai_play() {
    let (code, out, err) = nestor(&[
        "run",
        "--ai",
        "--lua",
        "scripts/ai-hud.lua",
        "--headless",
        "--frames",
        "1801",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let hud: Vec<(u32, u32)> = out
        .lines()
        .filter_map(|line| {
            let (_, rest) = line.split_once("lines ")?;
            let (lines, rest) = rest.split_once(", score")?;
            let presses = rest.rsplit_once("frames with buttons ")?.1;
            Some((lines.parse().ok()?, presses.parse().ok()?))
        })
        .collect();
    assert_eq!(hud.len(), 3, "the HUD prints every 600 frames: {out}");
    let summary = json(&out);
    let (lines, presses) = hud[2];
    assert_eq!(
        u64::from(lines),
        summary["lines"].as_u64().unwrap(),
        "{out}"
    );
    assert!(lines > 0 && presses > 300, "{out}");
    assert_eq!(summary["replans"], 0, "{out}");
}

/// A movie recorded while the AI plays replays to the same picture and RAM at every frame.
#[test]
fn a_recorded_ai_game_replays_frame_for_frame() {
    let dir = Scratch::new("a_recorded_ai_game_replays_frame_for_frame");
    let movie = dir.join("ai.fm2");
    let movie = movie.to_str().unwrap();
    let hashes = |args: &[&str]| {
        let base = [
            "run",
            "--headless",
            "--frames",
            "900",
            "--hash",
            "15",
            "--json",
        ];
        let (code, out, err) = nestor(&[&base[..], args].concat());
        assert_eq!(code, 0, "{err}");
        json(&out)["hashes"].clone()
    };
    let played = hashes(&["--ai", "--record", movie]);
    let text = std::fs::read_to_string(movie).unwrap();
    let lines = text.lines().filter(|l| l.starts_with('|')).count();
    assert_eq!(
        lines,
        2 + 900,
        "FCEUX's two dead frames, then one line a frame"
    );
    let replayed = hashes(&["--movie", movie]);
    assert_eq!(played.as_array().unwrap().len(), 60);
    assert_eq!(played, replayed);
}
