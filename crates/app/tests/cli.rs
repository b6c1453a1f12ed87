//! Bad input never crashes `nestor`: each broken image gives one line naming the problem and
//! exit code 2 ("could not run").

use ai::eval::SURVIVAL_FEATURES;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../../tests/support/scratch.rs"]
mod scratch;
use scratch::Scratch;

/// `text` in a file `name` of `dir`.
fn write_in(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn nestor_on(bytes: &[u8], name: &str) -> (i32, String) {
    let dir = Scratch::new(name);
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    run(&["test-rom", path.to_str().unwrap()])
}

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .args(args)
        .output()
        .expect("nestor runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().expect("exited, not killed"), stderr)
}

/// Runs `args` (split at spaces) with `--out out`, which must succeed: its stderr and what it
/// wrote.
fn run_writing(args: &str, out: &Path) -> (String, String) {
    let args: Vec<&str> = args.split(' ').collect();
    let (code, stderr) = run(&[&args[..], &["--out", out.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{stderr}");
    (stderr, std::fs::read_to_string(out).unwrap())
}

/// `nestor run --headless` for `frames` frames with a Lua script, then `more` arguments.
fn run_script(frames: &str, script: &Path, more: &[&str]) -> (i32, String) {
    let base = [
        "run",
        "--headless",
        "--frames",
        frames,
        "--lua",
        script.to_str().unwrap(),
    ];
    run(&[&base[..], more].concat())
}

/// Exit code 2 and one line of stderr that names `problem`.
fn assert_one_line(code: i32, stderr: &str, problem: &str) {
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(problem), "{stderr}");
}

/// A 16-byte iNES header: `prg` 16 KiB banks, `chr` 8 KiB banks, mapper number.
fn header(prg: u8, chr: u8, mapper: u8) -> Vec<u8> {
    let mut h = vec![b'N', b'E', b'S', 0x1A, prg, chr, mapper << 4, mapper & 0xF0];
    h.resize(16, 0);
    h
}

fn assert_one_line_error(bytes: &[u8], name: &str, problem: &str) {
    let (code, stderr) = nestor_on(bytes, name);
    assert_eq!(code, 2, "{name}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
    assert!(stderr.contains(problem), "{name}: {stderr}");
    assert!(!stderr.contains("panicked"), "{name}: {stderr}");
}

#[test]
fn empty_file() {
    assert_one_line_error(&[], "empty.nes", "the file is empty");
}

#[test]
fn shorter_than_header_claims() {
    let mut image = header(2, 1, 0);
    image.resize(16 + 1000, 0xEA);
    assert_one_line_error(&image, "short.nes", "truncated");
}

#[test]
fn wrong_magic() {
    let mut image = header(1, 1, 0);
    image[0] = b'X';
    image.resize(16 + 0x4000 + 0x2000, 0);
    assert_one_line_error(&image, "magic.nes", "magic");
}

#[test]
fn zero_prg_banks() {
    let mut image = header(0, 1, 0);
    image.resize(16 + 0x2000, 0);
    assert_one_line_error(&image, "noprg.nes", "zero PRG-ROM banks");
}

#[test]
fn unsupported_mapper() {
    let mut image = header(2, 1, 20);
    image.resize(16 + 0x8000 + 0x2000, 0);
    assert_one_line_error(
        &image,
        "fds.nes",
        "mapper 20 (Famicom Disk System) is not supported",
    );
    let mut image = header(2, 1, 68);
    image[7] |= 0x08; // NES 2.0, submapper 1
    image[8] = 0x10;
    image.resize(16 + 0x8000 + 0x2000, 0);
    assert_one_line_error(
        &image,
        "nantettatte.nes",
        "mapper 68 (Sunsoft-4) is supported, but not its submapper 1",
    );
}

#[test]
fn missing_file() {
    let (code, stderr) = run(&["test-rom", "/nonexistent/rom.nes"]);
    assert_eq!(code, 2);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cannot read /nonexistent/rom.nes"),
        "{stderr}"
    );
}

#[test]
fn run_and_bench_report_bad_images_too() {
    let dir = Scratch::new("run_and_bench_report_bad_images_too");
    let path = dir.join("run.nes");
    std::fs::write(&path, b"NES").unwrap();
    for args in [
        vec!["run", path.to_str().unwrap(), "--headless", "--frames", "1"],
        vec!["bench", path.to_str().unwrap(), "--frames", "1"],
    ] {
        let (code, stderr) = run(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("shorter than the 16-byte iNES header"),
            "{stderr}"
        );
    }
}

#[test]
fn bad_input_script_names_the_line() {
    let dir = Scratch::new("bad_input_script_names_the_line");
    let script = write_in(&dir, "in.txt", "10 start\n20 jump\n");
    let (code, stderr) = run(&[
        "run",
        "--headless",
        "--frames",
        "1",
        "--input",
        script.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("input line 2: unknown button \"jump\""),
        "{stderr}"
    );
}

/// `nestor nestest` finds nestest.nes where the tests find the test ROMs, and says in one line
/// how to get them when they are not there.
#[test]
fn nestest_without_test_roms_says_how_to_get_them() {
    let missing = std::env::temp_dir().join(format!("nestor-no-roms-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .arg("nestest")
        .env("NESTOR_TEST_ROMS", &missing)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(&missing.display().to_string()), "{stderr}");
    assert!(stderr.contains("scripts/fetch-test-roms"), "{stderr}");

    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .arg("nestest")
        .env("NESTOR_TEST_ROMS", testrom::location::dir().unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

#[test]
fn test_rom_verdict_and_json() {
    let rom = testrom::location::path("instr_test-v5/rom_singles/01-basics.nes");
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .arg("test-rom")
        .arg(&rom)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(json.contains("\"passed\":true"), "{json}");
    assert!(json.contains("\"protocol\":\"blargg-6000\""), "{json}");
    assert!(json.contains("Passed"), "{json}");
}

#[test]
fn screenshot_has_the_scaled_size() {
    let dir = Scratch::new("screenshot_has_the_scaled_size");
    let shot = dir.join("shot.png");
    let (code, stderr) = run(&[
        "run",
        "--headless",
        "--frames",
        "30",
        "--scale",
        "2",
        "--screenshot",
        shot.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let decoder = png::Decoder::new(std::fs::File::open(&shot).unwrap());
    let info = decoder.read_info().unwrap().info().clone();
    assert_eq!((info.width, info.height), (512, 480));
}

#[test]
fn wav_holds_the_run_sound() {
    let dir = Scratch::new("wav_holds_the_run_sound");
    let path = dir.join("run.wav");
    let (code, _) = run(&[
        "run",
        "--headless",
        "--frames",
        "120",
        "--wav",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let wav = std::fs::read(&path).unwrap();
    assert_eq!((&wav[0..4], &wav[8..16]), (&b"RIFF"[..], &b"WAVEfmt "[..]));
    let rate = u32::from_le_bytes(wav[24..28].try_into().unwrap());
    let samples = u32::from_le_bytes(wav[40..44].try_into().unwrap()) / 2;
    assert_eq!(rate, 48_000);
    // 120 frames at 60.0988 frames/s, less the resampler's few samples of latency; the first
    // frame runs from power-on (line 0) through a VBlank to the second start of line 240, 502
    // of a frame's 262 lines.
    let frames = 119.0 + 502.0 / 262.0;
    let expected = frames / 60.0988 * 48_000.0;
    assert!(
        (f64::from(samples) - expected).abs() < 100.0,
        "{samples} samples"
    );
    assert_eq!(wav.len(), 44 + samples as usize * 2);
}

#[test]
fn run_ahead_beyond_four_frames_is_one_line() {
    let (code, stderr) = run(&["run", "--headless", "--frames", "1", "--run-ahead", "9"]);
    assert_one_line(code, &stderr, "run-ahead of 9 frames: at most 4");
}

#[test]
fn game_genie_codes_are_checked_before_the_run() {
    let (code, stderr) = run(&["run", "--headless", "--frames", "1", "--cheat", "SXIOP"]);
    assert_one_line(code, &stderr, "'SXIOP' is not a Game Genie code");
    let record = std::env::temp_dir().join(format!("nestor-cheat-{}.fm2", std::process::id()));
    let args = [
        "run",
        "--headless",
        "--frames",
        "1",
        "--cheat",
        "SXIOPO",
        "--record",
    ];
    let (code, stderr) = run(&[&args[..], &[record.to_str().unwrap()]].concat());
    assert_one_line(code, &stderr, "a movie cannot hold Game Genie codes");
    assert!(!record.exists());
    let (code, stderr) = run(&["run", "--headless", "--frames", "1", "--cheat", "sxiopo"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
}

/// Output paths are checked before the run, and no folder is created for them: a bad one is
/// one line before any frame runs, not a lost run at the end.
#[test]
fn bad_output_paths_stop_the_run_before_it_starts() {
    let missing = std::env::temp_dir().join(format!("nestor-no-dir-{}", std::process::id()));
    for option in ["--screenshot", "--wav", "--record", "--record-video"] {
        let path = missing.join("out.file");
        let started = std::time::Instant::now();
        // A million frames would take minutes: the check must come first.
        let (code, stderr) = run(&[
            "run",
            "--headless",
            "--frames",
            "1000000",
            option,
            path.to_str().unwrap(),
        ]);
        assert_eq!(code, 2, "{option}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{option}: {stderr}");
        assert!(
            stderr.contains("cannot write") && stderr.contains("no folder"),
            "{stderr}"
        );
        assert!(
            started.elapsed().as_secs() < 20,
            "{option}: the run went ahead"
        );
        assert!(!missing.exists(), "{option} created {}", missing.display());
    }
}

/// The help says which options only work headless, and what a bare `--ai` means.
#[test]
fn run_help_is_complete() {
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .args(["run", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    // Each option's text, up to the next option.
    let text = |option: &str| {
        let start = help
            .find(&format!("{option} "))
            .unwrap_or_else(|| panic!("{help}"));
        let rest = &help[start + option.len()..];
        rest[..rest.find("\n  -").unwrap_or(rest.len())].to_string()
    };
    for option in [
        "--wav",
        "--json",
        "--frames",
        "--screenshot",
        "--input",
        "--record",
    ] {
        assert!(
            text(option).contains("headless"),
            "{option}: {}",
            text(option)
        );
    }
    assert!(
        text("--ai").contains("alone means strong"),
        "{}",
        text("--ai")
    );
    assert!(text("--scale").contains("window"), "{}", text("--scale"));
}

/// `bench --no-fast-forward` runs the machine without its fast paths, and says so.
#[test]
fn bench_without_fast_paths_says_so() {
    let (code, stdout) = {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_nestor"))
            .args([
                "bench",
                "--frames",
                "30",
                "--warmup",
                "0",
                "--json",
                "--no-fast-forward",
            ])
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    assert_eq!(code, Some(0));
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["fast_forward"], false, "{stdout}");
    assert_eq!(json["frames"], 30, "{stdout}");
}

/// `ai-bench` with its defaults ends: each game stops at 1,500 pieces (the strong AI survives
/// that long from level 18, so the cap is what stops it).
#[test]
fn ai_bench_defaults_are_bounded() {
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .args(["ai-bench", "--games", "1", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pieces = report["pieces"]["p90"].as_f64().unwrap();
    assert_eq!(pieces, 1500.0, "{report}");
}

/// `ai-bench --format standard --json` states its format and reports the pre-19/29/39 scores
/// and the decision time.
#[test]
fn ai_bench_reports_the_standard_format() {
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .args([
            "ai-bench",
            "--format",
            "standard",
            "--games",
            "1",
            "--max-pieces",
            "40",
        ])
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let format = &report["format"];
    assert_eq!(format["reaction"], 18, "{report}");
    assert_eq!(format["double_kill_screen"], true, "{report}");
    assert_eq!(format["cap_level"], 49, "{report}");
    for key in ["score", "score_at_19", "score_at_29", "score_at_39"] {
        for stat in ["mean", "median", "p1", "p10"] {
            assert!(report[key][stat].is_f64(), "{key}.{stat}: {report}");
        }
    }
    assert!(
        report["decision_ms"]["p99"].as_f64().unwrap() > 0.0,
        "{report}"
    );
    assert!(report["decision_ms"]["median"].is_f64(), "{report}");
    assert_eq!(report["mispredictions"], 0, "{report}");
    for band in ["clears_before_29", "clears_29_to_38", "clears_from_39"] {
        for kind in ["singles", "doubles", "triples", "tetrises"] {
            assert!(report[band][kind].is_f64(), "{band}.{kind}: {report}");
        }
    }
    assert!(report["ended_before_29"].is_f64(), "{report}");
    assert!(report["ended_before_39"].is_f64(), "{report}");
}

/// `ai-bench`'s format options refuse bad values in one line, before any game is played.
#[test]
fn ai_bench_bad_formats_are_one_line_errors() {
    for (args, problem) in [
        (&["--format", "blitz"][..], "unknown format 'blitz'"),
        (
            &["--format", "standard", "--reaction", "61"],
            "reaction of 61 frames",
        ),
        (
            &["--cap-level", "17"],
            "cap level 17 is not above the starting level 18",
        ),
        (&["--format", "standard", "--level", "49"], "cap level 49"),
    ] {
        let (code, stderr) = run(&[&["ai-bench"], args].concat());
        assert_one_line(code, &stderr, problem);
    }
}

/// `ai-train` gives the same weights for the same seed, writes a file `ai-bench --weights`
/// reads, and refuses bad options in one line; a weights file that cannot be read gets one
/// line naming it and the built-in weights.
#[test]
fn ai_train_is_reproducible_and_its_weights_load() {
    let dir = Scratch::new("ai_train_is_reproducible_and_its_weights_load");
    let train = |name: &str| {
        let args = "ai-train --generations 1 --population 4 --games 1 --max-pieces 30 --seed 5";
        let (stderr, weights) = run_writing(args, &dir.join(name));
        assert!(stderr.contains("generation 1:"), "{stderr}");
        weights
    };
    let first = train("a.toml");
    assert_eq!(first, train("b.toml"), "same seed, same weights");
    assert!(first.starts_with("holes = "), "{first}");
    let bench = |weights: &str| {
        let path = dir.join(weights);
        run(&[
            "ai-bench",
            "--games",
            "1",
            "--max-pieces",
            "20",
            "--weights",
            path.to_str().unwrap(),
        ])
    };
    assert_eq!(bench("a.toml"), (0, String::new()));
    let (code, stderr) = bench("absent.json");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("absent.json") && stderr.contains("built-in"),
        "{stderr}"
    );
    let (code, stderr) = run(&["ai-train", "--objective", "speed"]);
    assert_one_line(code, &stderr, "unknown objective 'speed'");
}

/// `ai-train --weights-of double-kill-screen` trains the survival weights from the classic
/// function's (a file of their twelve features, the same for the same seed); it and the kill
/// screen's weights train in the standard format only, and unknown weights are refused in one line.
#[test]
fn ai_train_trains_the_double_kill_screens_weights() {
    let dir = Scratch::new("ai_train_trains_the_double_kill_screens_weights");
    let train = |name: &str| {
        let args = "ai-train --weights-of double-kill-screen --format standard --level 39 \
                    --objective score --generations 1 --population 4 --games 1 --max-pieces 30";
        let (stderr, weights) = run_writing(args, &dir.join(name));
        assert!(
            stderr.contains("start: ") && stderr.contains("generation 1:"),
            "{stderr}"
        );
        weights
    };
    let first = train("survival-a.toml");
    assert_eq!(first, train("survival-b.toml"), "same seed, same weights");
    assert!(
        first.starts_with("lines = ") && first.contains("well_ready = "),
        "{first}"
    );
    assert_eq!(first.lines().count(), SURVIVAL_FEATURES, "{first}");
    for weights in ["double-kill-screen", "kill-screen", "kill-screen-survival"] {
        let (code, stderr) = run(&["ai-train", "--weights-of", weights]);
        assert_one_line(code, &stderr, "--format standard");
    }
    let (code, stderr) = run(&["ai-train", "--weights-of", "speed"]);
    assert_one_line(code, &stderr, "unknown weights 'speed'");
}

/// `ai-bench --games-out` writes each game's figures; `--against` pairs a later run's games
/// with them by seed, and refuses in one line, before playing, a file it cannot read or use.
#[test]
fn ai_bench_pairs_a_run_with_an_earlier_ones_games() {
    let dir = Scratch::new("ai_bench_pairs_a_run_with_an_earlier_ones_games");
    let games = dir.join("games.jsonl");
    let bench = "ai-bench --format standard --games 3 --max-pieces 30 --json";
    let args: Vec<&str> = bench.split(' ').collect();
    let (code, stderr) = run(&[&args[..], &["--games-out", games.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{stderr}");
    let written = std::fs::read_to_string(&games).unwrap();
    assert_eq!(written.lines().count(), 3, "{written}");
    assert!(
        written.starts_with(r#"{"game":0,"seed":1000003,"score":"#),
        "{written}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .args(&args)
        .args(["--against", games.to_str().unwrap()])
        .output()
        .unwrap();
    let json = String::from_utf8_lossy(&out.stdout);
    // The same games played alike: every difference is 0.
    assert!(
        json.contains(r#""paired":{"games":3,"score":{"mean":0.0,"se":0.0}"#),
        "{json}"
    );
    let (code, stderr) = run(&[
        "ai-bench",
        "--seed",
        "2",
        "--against",
        games.to_str().unwrap(),
    ]);
    assert_one_line(code, &stderr, "none of its games has a seed of this run's");
    let bad = write_in(&dir, "bad.jsonl", "{\"game\": 0}\n");
    let (code, stderr) = run(&["ai-bench", "--against", bad.to_str().unwrap()]);
    assert_one_line(code, &stderr, "bad.jsonl: line 1: not a game");
}

/// `ai-train --fit-value` gives the same value for the same seed; `ai-bench --value` plays
/// the standard format with the committed one, names a file it cannot read in one line (and
/// plays with the built-in one), and refuses a value outside the standard format, a negative
/// scale or a horizon of 0.
#[test]
fn ai_train_fits_a_value_that_ai_bench_plays() {
    let dir = Scratch::new("ai_train_fits_a_value_that_ai_bench_plays");
    let fit = |name: &str| {
        let args = "ai-train --format standard --fit-value 5 --rounds 1 --games 1 --max-pieces 40";
        run_writing(args, &dir.join(name)).1
    };
    let first = fit("a.json");
    assert_eq!(first, fit("b.json"), "same seed, same value");
    assert!(first.starts_with(r#"{"horizon":5,"w":["#), "{first}");
    let bench = |value: &str| {
        let args = "ai-bench --format standard --games 1 --max-pieces 20 --value";
        run(&[&args.split(' ').collect::<Vec<_>>()[..], &[value]].concat())
    };
    let committed = concat!(env!("CARGO_MANIFEST_DIR"), "/../ai/weights/value.json");
    assert_eq!(bench(committed), (0, String::new()));
    let absent = dir.join("absent.json");
    let (code, stderr) = bench(absent.to_str().unwrap());
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("absent.json") && stderr.contains("the built-in one"),
        "{stderr}"
    );
    let (code, stderr) = run(&["ai-bench", "--value", committed]);
    assert_one_line(code, &stderr, "--value corrects the standard format");
    let (code, stderr) = run(&["ai-bench", "--format", "standard", "--value-scale=-1"]);
    assert_one_line(code, &stderr, "--value-scale is a number from 0");
    let (code, stderr) = run(&["ai-train", "--format", "standard", "--fit-value", "0"]);
    assert_one_line(code, &stderr, "horizon of at least 2");
    let (code, stderr) = run(&["ai-train", "--fit-value", "20"]);
    assert_one_line(code, &stderr, "--format standard");
}

/// A file far larger than any ROM (here endless) is refused after 64 MiB, not read until memory
/// runs out.
#[cfg(unix)]
#[test]
fn endless_files_are_not_roms() {
    let (code, stderr) = run(&["test-rom", "/dev/zero"]);
    assert_one_line(code, &stderr, "larger than 64 MiB");
}

/// A headless run whose Lua script failed says so in its exit status (4), after running to its
/// end; one that ends with os.exit(n) keeps n.
#[test]
fn a_failed_script_fails_the_headless_run() {
    let dir = Scratch::new("a_failed_script_fails_the_headless_run");
    let failing = write_in(&dir, "failing.lua", "emu.frameadvance()\nerror('boom')\n");
    let (code, stderr) = run_script("30", &failing, &[]);
    assert_eq!(code, 4, "{stderr}");
    assert!(stderr.contains("boom"), "{stderr}");
    let exiting = write_in(&dir, "exiting.lua", "emu.frameadvance()\nos.exit(7)\n");
    let (code, stderr) = run_script("18000", &exiting, &[]);
    assert_eq!(code, 7, "{stderr}");
}

/// `rom.getfilename()` is the ROM file's name without folder and extension, as in FCEUX.
#[test]
fn scripts_see_the_rom_file_name_as_fceux_gives_it() {
    let dir = Scratch::new("scripts_see_the_rom_file_name_as_fceux_gives_it");
    let script = write_in(&dir, "name.lua", "print(rom.getfilename())\n");
    let rom = script.with_file_name("Some Game (U).nes");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../roms/quadfall.nes"),
        &rom,
    )
    .unwrap();
    for (args, name) in [
        (vec![], "quadfall"),
        (vec![rom.to_str().unwrap()], "Some Game (U)"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
            .args([
                "run",
                "--headless",
                "--frames",
                "1",
                "--lua",
                script.to_str().unwrap(),
            ])
            .args(args)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(stdout.lines().next(), Some(name), "{stdout}");
    }
}

/// `gui.savescreenshotas` writes the picture headless too; a path that cannot be written is
/// one line and the run goes on.
#[test]
fn scripts_save_screenshots_headless() {
    let dir = Scratch::new("scripts_save_screenshots_headless");
    let (shot, bad) = (dir.join("shot.png"), dir.join("missing").join("shot.png"));
    let script = write_in(&dir,
        "shot.lua",
        &format!(
            "for _ = 1, 3 do emu.frameadvance() end\ngui.savescreenshotas({:?})\ngui.savescreenshotas({:?})\n",
            shot.to_str().unwrap(),
            bad.to_str().unwrap()
        ),
    );
    let (code, stderr) = run_script("10", &script, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("screenshot failed"), "{stderr}");
    let decoder = png::Decoder::new(std::fs::File::open(&shot).unwrap());
    let info = decoder.read_info().unwrap().info().clone();
    assert_eq!((info.width, info.height), (256, 240));
}

/// Nested `pcall`s whose results once ran mlua out of reference slots (32,000 values for
/// `print`) stop at Lua 5.1's limit of 200 nested C calls: the values print and the run ends
/// normally.
#[test]
fn deep_pcall_nesting_stops_at_the_c_call_limit() {
    let dir = Scratch::new("deep_pcall_nesting_stops_at_the_c_call_limit");
    let script = write_in(
        &dir,
        "many.lua",
        "local function g() return pcall(g) end\nprint(g())\n",
    );
    let (code, stderr) = run_script("30", &script, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr, "", "{stderr}");
}

/// `--lua-memory` sets how much a script may allocate: past it, a Lua error stops the script.
#[test]
fn lua_memory_limit_is_an_option() {
    // About 40 MiB of strings.
    let dir = Scratch::new("lua_memory_limit_is_an_option");
    let script = write_in(&dir,
        "grow.lua",
        "local t = {}\nfor i = 1, 40 do t[i] = string.rep('x', 1048576) .. i end\nprint('kept', #t)\n",
    );
    let (code, stderr) = run_script("2", &script, &["--lua-memory", "16"]);
    assert_eq!(code, 4, "{stderr}");
    assert!(stderr.contains("not enough memory"), "{stderr}");
    let (code, stderr) = run_script("2", &script, &["--lua-memory", "256"]);
    assert_eq!(code, 0, "{stderr}");
}

/// `--lua-sandbox`, or `sandbox = true` in the config's `[lua]` section, puts a headless run's
/// scripts in the sandbox: no `os.execute`, files only in the script's folder and the data
/// folder. Without either, a script has FCEUX's full access; a headless run creates no config.
#[test]
fn lua_sandbox_reaches_the_script_from_the_option_and_the_config() {
    let dir = Scratch::new("lua_sandbox_reaches_the_script_from_the_option_and_the_config");
    let (data, config) = (dir.join("data"), dir.join("config"));
    for folder in [&data, &dir.join("scripts"), &config] {
        std::fs::create_dir_all(folder).unwrap();
    }
    std::fs::write(data.join("note.txt"), "in the data folder").unwrap();
    let outside = dir.join("outside.txt");
    std::fs::write(&outside, "").unwrap();
    let script = dir.join("scripts").join("probe.lua");
    std::fs::write(
        &script,
        format!(
            "print('os.execute', type(os.execute))\n\
             local ok, f = pcall(io.open, {outside:?})\n\
             print('outside', ok, ok and io.type(f) or f)\n\
             print(io.open({note:?}):read('*a'))\n",
            note = data.join("note.txt"),
        ),
    )
    .unwrap();
    let run = |more: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
            .args(["run", "--headless", "--frames", "1", "--lua"])
            .arg(&script)
            .args(more)
            .env("XDG_CONFIG_HOME", &config)
            .env("NESTOR_DATA_DIR", &data)
            .output()
            .expect("nestor runs");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(out.status.code(), Some(0), "{stdout}");
        stdout
    };
    let open = run(&[]);
    assert!(open.contains("os.execute function"), "{open}");
    assert!(open.contains("outside true file"), "{open}");
    assert!(
        !config.join("nestor").exists(),
        "a headless run created a config"
    );

    let refused = format!(
        "outside false io.open: '{}' refused by the sandbox",
        outside.display()
    );
    for sandboxed in [run(&["--lua-sandbox"]), {
        std::fs::create_dir_all(config.join("nestor")).unwrap();
        std::fs::write(
            config.join("nestor").join("config.toml"),
            "[lua]\nsandbox = true\n",
        )
        .unwrap();
        run(&[])
    }] {
        assert!(sandboxed.contains("os.execute nil"), "{sandboxed}");
        assert!(sandboxed.contains(&refused), "{sandboxed}");
        assert!(sandboxed.contains("in the data folder"), "{sandboxed}");
    }
}

/// PAL-only test ROMs run on a PAL console by default; `--region` picks another, and a region
/// that contradicts the ROM runs with one line of warning.
#[test]
fn regions_on_the_command_line() {
    let rom = testrom::location::path("pal_apu_tests/08.irq_timing.nes");
    let rom = rom.to_str().unwrap();
    assert_eq!(run(&["test-rom", rom]).0, 0, "passes on PAL");
    assert_eq!(
        run(&["test-rom", rom, "--region", "ntsc"]).0,
        1,
        "fails on NTSC"
    );

    let (code, stderr) = run(&["test-rom", rom, "--region", "secam"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("\"secam\" is not ntsc, pal or dendy"),
        "{stderr}"
    );

    // A file name tagged as a PAL release, run on NTSC as asked.
    let dir = Scratch::new("regions_on_the_command_line");
    let tagged = dir.join("Quadfall (Europe).nes");
    std::fs::write(&tagged, include_bytes!("../../../roms/quadfall.nes")).unwrap();
    let tagged = tagged.to_str().unwrap();
    let headless = ["run", "--headless", "--frames", "2", tagged];
    let (code, stderr) = run(&[&headless[..], &["--region", "ntsc"]].concat());
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("is made for PAL consoles (its file name says so); running it on NTSC"),
        "{stderr}"
    );
    let (code, stderr) = run(&headless);
    assert_eq!(
        (code, stderr.as_str()),
        (0, ""),
        "PAL by its name, no warning"
    );
}

/// A movie cannot hold Game Genie codes, so none goes in while one records, from the command
/// line or a script, and a script's movie does not start while codes are in.
#[test]
fn movies_and_game_genie_codes_stay_apart_in_scripts() {
    let dir = Scratch::new("movies_and_game_genie_codes_stay_apart_in_scripts");
    let movie = dir.join("genie.fm2");
    let add = write_in(&dir, "add-genie.lua", "emu.addgamegenie('SXIOPO')\n");
    let (code, stderr) = run_script("2", &add, &["--record", movie.to_str().unwrap()]);
    assert_eq!(code, 4, "{stderr}");
    assert!(
        stderr.contains("emu.addgamegenie: SXIOPO: a movie is being recorded, and a movie cannot hold Game Genie codes"),
        "{stderr}"
    );
    let (code, stderr) = run_script("2", &add, &[]);
    assert_eq!(
        (code, stderr.as_str()),
        (0, ""),
        "no movie: the code goes in"
    );

    let record = write_in(
        &dir,
        "record-genie.lua",
        &format!("movie.record('{}')\n", dir.join("script.fm2").display()),
    );
    let (code, stderr) = run_script("2", &record, &["--cheat", "SXIOPO"]);
    assert_eq!(code, 4, "{stderr}");
    assert!(
        stderr.contains("movie.record: Game Genie codes are in, and a movie cannot hold them"),
        "{stderr}"
    );
    assert!(!dir.join("script.fm2").exists());
    let (code, stderr) = run_script("2", &record, &[]);
    assert_eq!(
        (code, stderr.as_str()),
        (0, ""),
        "no codes: the movie records"
    );
    assert!(dir.join("script.fm2").exists());
}

/// `--port1`, `--port2` and `--four-score` plug their devices: vaus-test takes what reads 1 on
/// every bit of $4017's D3 for a Vaus holding its button, and a Zapper looking at nothing (dark)
/// does just that (the script exits with vaus-test's `control_type`, 3 for that). Ones that do
/// not fit together, or a device that is none, are one line and exit 2.
#[test]
fn controller_ports_on_the_command_line() {
    let rom = testrom::location::path("vaus-test/vaus-test.nes");
    let dir = Scratch::new("controller_ports_on_the_command_line");
    let script = write_in(
        &dir,
        "port2.lua",
        "for _ = 1, 20 do emu.frameadvance() end\nos.exit(memory.readbyte(0x19))\n",
    );
    let control_type = |more: &[&str]| {
        let (code, stderr) = run_script("30", &script, &[&[rom.to_str().unwrap()], more].concat());
        assert!(stderr.is_empty(), "{stderr}");
        code
    };
    assert_eq!(control_type(&["--port2", "zapper"]), 3);
    assert_eq!(
        control_type(&["--port1", "zapper"]),
        0,
        "port 1's D3 is not looked at"
    );
    assert_eq!(control_type(&["--four-score"]), 0);

    let (code, stderr) = run_script("2", &script, &["--four-score", "--port2", "vaus"]);
    assert_one_line(
        code,
        &stderr,
        "a Four Score takes both ports: no vaus beside it",
    );
    let (code, stderr) = run(&["run", "--headless", "--port1", "gun"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("unknown controller \"gun\": pad, zapper, vaus or none"),
        "{stderr}"
    );
}
