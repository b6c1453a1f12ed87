//! `nestor run --headless --record-video`: the file ffprobe reads back holds every frame run,
//! at the NTSC frame rate, with each frame's share of the sound; it is written whole however the
//! run ends, and without ffmpeg the run does not start. Needs ffmpeg (Debian package ffmpeg).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use testrom::video::probe;

/// An empty folder of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nestor-video-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn nestor(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nestor"))
        .args(args)
        .output()
        .expect("nestor runs")
}

/// The files in a folder, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// 48 kHz sound over `frames` frames of 655171/39375000 s.
fn samples_for(frames: u64) -> u64 {
    frames * 48_000 * 655_171 / 39_375_000
}

#[test]
fn a_recording_holds_every_frame_and_its_sound() {
    let dir = scratch("mkv");
    let (video, screenshot) = (dir.join("ai.mkv"), dir.join("last.png"));
    let out = nestor(&[
        "run",
        "--ai",
        "--headless",
        "--frames",
        "300",
        "--record-video",
        video.to_str().unwrap(),
        "--screenshot",
        screenshot.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("(300 frames)"), "{stdout}");
    let probe = probe(&video).unwrap();
    assert_eq!(probe.codecs, ["h264", "flac"]);
    assert_eq!(probe.frames, 300);
    assert!((probe.frame_rate - 60.0988).abs() < 0.0001, "{probe:?}");
    assert_eq!(
        (probe.sample_rate, probe.samples),
        (48_000, samples_for(300))
    );
    assert_eq!(names(&dir), ["ai.mkv", "last.png"]);

    // Lossless: the last picture is the screenshot of the last frame, pixel for pixel.
    let last = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(&video)
        .args(["-vf", r"select=eq(n\,299)", "-frames:v", "1"])
        .args(["-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        .output()
        .unwrap();
    assert!(last.status.success(), "{last:?}");
    let png = std::fs::read(&screenshot).unwrap();
    let mut reader = png::Decoder::new(png.as_slice()).read_info().unwrap();
    let mut shot = vec![0; reader.output_buffer_size()];
    reader.next_frame(&mut shot).unwrap();
    assert_eq!(last.stdout.len(), 256 * 240 * 3);
    assert!(
        last.stdout == shot,
        "the video's last frame is not the screenshot"
    );

    // The sound is the game's: the same as --wav's but for a sample stretched here and there
    // to keep each frame's share.
    let wav = dir.join("run.wav");
    let out = nestor(&[
        "run",
        "--ai",
        "--headless",
        "--frames",
        "300",
        "--wav",
        wav.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let wav = std::fs::read(&wav).unwrap();
    let sound = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(&video)
        .args(["-map", "0:a", "-f", "s16le", "-"])
        .output()
        .unwrap();
    let level = |bytes: &[u8]| -> f64 {
        let samples = bytes.chunks_exact(2);
        let n = samples.len() as f64;
        samples
            .map(|b| f64::from(i16::from_le_bytes([b[0], b[1]])).abs())
            .sum::<f64>()
            / n
    };
    let (recorded, played) = (level(&sound.stdout), level(&wav[44..]));
    assert!(played > 100.0, "the run is not silent: {played}");
    assert!(
        (recorded / played - 1.0).abs() < 0.01,
        "sound level {recorded} recorded, {played} in the WAV"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mp4_is_h264_and_aac() {
    let dir = scratch("mp4");
    let video = dir.join("short.mp4");
    let out = nestor(&[
        "run",
        "--headless",
        "--frames",
        "60",
        "--record-video",
        video.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let probe = probe(&video).unwrap();
    assert_eq!(probe.codecs, ["h264", "aac"]);
    assert_eq!(probe.frames, 60);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_ffmpeg_the_run_does_not_start() {
    let dir = scratch("no-ffmpeg");
    let video = dir.join("out.mkv");
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .args(["run", "--headless", "--frames", "1000000", "--record-video"])
        .arg(&video)
        .env("PATH", &dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr,
        "nestor: video recording needs ffmpeg, which is not installed (not found in PATH)\n"
    );
    assert!(names(&dir).is_empty(), "{:?}", names(&dir));
    let out = nestor(&[
        "run",
        "--headless",
        "--frames",
        "1",
        "--record-video",
        "x.avi",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "nestor: x.avi: a video recording is a .mkv (lossless) or .mp4 file\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Ctrl-C (SIGINT) in the middle of a run: the video holds the frames run until then.
#[test]
fn an_interrupted_run_writes_its_video() {
    let dir = scratch("interrupted");
    let video = dir.join("long.mkv");
    let child = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .args(["run", "--headless", "--frames", "1000000", "--record-video"])
        .arg(&video)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Until the encoder has written some of the picture.
    let partial = dir.join(format!("long.mkv.{}.video.mkv", child.id()));
    let started = std::time::Instant::now();
    while std::fs::metadata(&partial).map_or(0, |m| m.len()) < 100_000 {
        assert!(started.elapsed().as_secs() < 60, "{:?}", names(&dir));
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(!video.exists(), "the file is there before the run ends");
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let probe = probe(&video).unwrap();
    assert!(probe.frames > 0);
    assert!(
        stdout.contains(&format!("({} frames)", probe.frames)),
        "{stdout} {probe:?}"
    );
    assert_eq!(probe.samples, samples_for(probe.frames));
    assert_eq!(names(&dir), ["long.mkv"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
