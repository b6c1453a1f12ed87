//! `nestor run` (and `nestor` with no command): plays a ROM in the window, or runs it headless
//! for a number of frames with scripted input, Lua or the AI, and saves the last frame as a PNG.

use crate::ai_play::{AiArgs, AiPlayer};
use crate::input_script::InputScript;
use crate::tetris_stats::{GameEnd, GameStats};
use crate::{load_console, RomArg};
use anyhow::Context;
use desktop::files::{self, encode_png};
use indicatif::{ProgressBar, ProgressStyle};
use nes::ppu::palette::Palette;
use nes::ppu::{HEIGHT, WIDTH};
use session::movies::Movies;
use session::video_recording::VideoRecording;
use session::{signals, Session};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;

/// Exit status of a headless run in which a Lua script reported an error.
const SCRIPT_FAILED: u8 = 4;

/// Frames of a headless run without --frames: five minutes of play.
const DEFAULT_FRAMES: u64 = 18_000;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub rom: RomArg,
    #[command(flatten)]
    pub ai: AiArgs,
    #[command(flatten)]
    movies: crate::movie::Args,
    /// Run without a window, as fast as possible, and print a summary (otherwise the game
    /// opens in a window to play).
    #[arg(long)]
    headless: bool,
    /// Frames to run headless [default: 18000, five minutes; with --games, as many as they
    /// take].
    #[arg(long, requires = "headless")]
    frames: Option<u64>,
    /// End the run when the AI has finished this many games, topped out or at the format's
    /// level cap (headless, with --ai).
    #[arg(long, value_name = "N", requires_all = ["headless", "ai"],
          value_parser = clap::value_parser!(u32).range(1..))]
    games: Option<u32>,
    /// Save the last frame here as a PNG (headless).
    #[arg(long, value_name = "FILE", requires = "headless")]
    screenshot: Option<PathBuf>,
    /// Write the sound of the run here (16-bit PCM mono WAV at the APU's output rate; headless).
    #[arg(long, value_name = "FILE", requires = "headless")]
    wav: Option<PathBuf>,
    /// Record the run's pictures and sound into a video file: `.mkv` (lossless H.264 and FLAC)
    /// or `.mp4` (H.264 and AAC); needs ffmpeg. In the window, recording starts with the game.
    #[arg(long, value_name = "FILE")]
    record_video: Option<PathBuf>,
    /// Scale the screenshot by this whole factor (headless; default 1), or the window's picture
    /// (default: the config's `video.scale`, 3).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=16))]
    scale: Option<u32>,
    /// Controller 1 input script (`frame buttons` lines, see README; headless).
    #[arg(long, value_name = "FILE", requires = "headless")]
    input: Option<PathBuf>,
    /// A 64- or 512-colour .pal file instead of the built-in 2C02 palette (headless).
    #[arg(long, value_name = "FILE", requires = "headless")]
    palette: Option<PathBuf>,
    /// FCEUX Lua script to run alongside (repeatable; see scripts/README.md).
    #[arg(long = "lua", value_name = "SCRIPT")]
    pub lua: Vec<PathBuf>,
    /// Memory each Lua script may use, in MiB; past it an allocation is a Lua error.
    #[arg(long, value_name = "MIB", default_value_t = 1024,
          value_parser = clap::value_parser!(u64).range(1..=65536))]
    lua_memory: u64,
    /// Run the Lua scripts in the sandbox: no programs, no native code, files only in the
    /// script's folder and the data folder (the config's `lua.sandbox` sets it for every run).
    #[arg(long)]
    lua_sandbox: bool,
    /// Show the picture this many frames ahead of the machine (0-4), so that a button's effect
    /// is seen that many frames sooner; off while a movie plays or records [default: 0, or in
    /// the window the config's `emulation.run_ahead`].
    #[arg(long, value_name = "N")]
    run_ahead: Option<u8>,
    /// A Game Genie code (6 or 8 letters) plugged in from power-on (repeatable).
    #[arg(long = "cheat", value_name = "CODE")]
    cheats: Vec<String>,
    /// What is plugged into controller port 1: pad, zapper, vaus or none [default: pad, or in
    /// the window the config's `input.port1`].
    #[arg(long, value_name = "DEVICE")]
    port1: Option<nes::Device>,
    /// What is plugged into controller port 2: pad, zapper, vaus or none [default: pad, or in
    /// the window the config's `input.port2`]. The mouse aims a Zapper and turns a Vaus's knob.
    #[arg(long, value_name = "DEVICE")]
    port2: Option<nes::Device>,
    /// A Four Score in both ports, for players 3 and 4 [default: no, or in the window the
    /// config's `input.four_score`].
    #[arg(long)]
    four_score: bool,
    /// Print the summary as one JSON object (headless).
    #[arg(long, requires = "headless")]
    json: bool,
    /// Print a hash of the frame buffer and RAM every N frames, to compare runs (headless).
    #[arg(long, value_name = "N", requires = "headless",
          value_parser = clap::value_parser!(u64).range(1..))]
    hash: Option<u64>,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    // Options first: a bad value is reported before a window opens or a frame runs.
    let driver = args.ai.driver()?;
    if let Some(frames) = args.run_ahead {
        session::check_run_ahead(frames).map_err(anyhow::Error::msg)?;
    }
    for code in &args.cheats {
        nes::GameGenie::parse(code).map_err(anyhow::Error::msg)?;
    }
    let [port1, port2] = [args.port1, args.port2].map(|d| d.unwrap_or_default());
    let ports = nes::port::choose(port1, port2, args.four_score).map_err(anyhow::Error::msg)?;
    // An FM2 file has no place for codes, and a movie made with them would not replay.
    if !args.cheats.is_empty() && args.movies.record.is_some() {
        anyhow::bail!(
            "--cheat and --record: a movie cannot hold Game Genie codes; record without them"
        );
    }
    // Output files too: a run is not lost to a path found bad at its end.
    for path in [
        &args.screenshot,
        &args.wav,
        &args.movies.record,
        &args.record_video,
    ]
    .into_iter()
    .flatten()
    {
        files::check_writable(path).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if !args.headless {
        return play_in_window(args, driver);
    }
    // Before the run: without ffmpeg, a headless recording could not be made at all.
    let mut video = args
        .record_video
        .as_deref()
        .map(VideoRecording::start)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let script = match &args.input {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            InputScript::parse(&text).with_context(|| path.display().to_string())?
        }
        None => InputScript::default(),
    };
    let palette = match &args.palette {
        Some(path) => {
            let bytes =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            Some(Palette::from_pal_bytes(&bytes).with_context(|| path.display().to_string())?)
        }
        None => None,
    };
    let (name, mut console) = load_console(&args.rom)?;
    for (port, device) in ports.into_iter().enumerate() {
        console.plug(port, device);
    }
    let palette = palette.unwrap_or_else(|| Palette::for_region(console.region()));
    for code in &args.cheats {
        console.add_game_genie(nes::GameGenie::parse(code).map_err(anyhow::Error::msg)?);
    }
    let mut session = Session::new(console);
    session.open_battery(&name);
    session
        .set_run_ahead(args.run_ahead.unwrap_or(0))
        .map_err(anyhow::Error::msg)?;
    let movies = Movies::open(
        args.movies.movie.as_deref(),
        args.movies.record.as_deref(),
        &rom_stem(&args.rom),
        session.console(),
    )?;
    let frame_count = args.frames.or(movies.length()).unwrap_or(match args.games {
        Some(_) => u64::MAX,
        None => DEFAULT_FRAMES,
    });
    session.set_movies(movies);
    let driver = args.ai.ai.is_some().then(|| Rc::new(RefCell::new(driver)));
    if let Some(driver) = &driver {
        session.set_player(Box::new(AiPlayer::new(driver.clone())), true);
    }
    if !args.lua.is_empty() {
        let mut scripts = lua::Scripts::new(crate::rom_bytes(&args.rom)?.1, &name);
        scripts.set_memory_limit((args.lua_memory << 20) as usize);
        if args.lua_sandbox || sandbox_in_config() {
            scripts.set_sandbox(files::data_dir());
        }
        scripts.set_movie(session.movie_status());
        scripts.set_files(files::lua_files(&name));
        for path in &args.lua {
            scripts
                .load(session.console_mut(), path)
                .map_err(anyhow::Error::msg)?;
        }
        session.set_scripts(scripts);
    }
    // Hidden when stderr is not a terminal.
    let (length, unit) = match args.games {
        Some(games) => (u64::from(games), "games"),
        None => (frame_count, "frames"),
    };
    let progress = ProgressBar::new(length).with_style(
        ProgressStyle::with_template(&format!("{{bar:30}} {{pos}}/{{len}} {unit} {{msg}}"))
            .expect("valid template"),
    );
    // The AI's games, each reported as it ends.
    let mut game = GameStats::default();
    let mut ended: Vec<GameEnd> = Vec::new();
    let mut samples: Vec<i16> = Vec::new();
    let mut hashes = Vec::new();
    let mut video_error = None;
    signals::catch().map_err(anyhow::Error::msg)?;
    let run = testrom::contain_panics(|| {
        for frame in 0..frame_count {
            if signals::stop_requested() {
                return frame;
            }
            if let Some(buttons) = script.change_at(frame) {
                session.set_pads([buttons.0, 0]);
            }
            session.frame();
            if args.games.is_none() {
                progress.inc(1);
            }
            let end = driver.as_ref().and_then(|driver| {
                let cap = driver.borrow().cap_level();
                game.observe(session.console(), cap)
            });
            if let Some(end) = end {
                ended.push(end);
                if !args.json {
                    progress.suspend(|| println!("{}", describe_game(ended.len(), &end)));
                }
                if args.games.is_some() {
                    progress.inc(1);
                }
                if args
                    .games
                    .is_some_and(|games| ended.len() >= games as usize)
                {
                    return frame + 1;
                }
            }
            save_script_screenshots(&mut session, &palette);
            if args.wav.is_some() {
                samples.extend_from_slice(session.samples());
            }
            if let Some(recording) = &mut video {
                let picture = picture(&session, &palette);
                if let Err(err) = recording.frame(&picture, session.samples()) {
                    // The run goes on; the recording's temporary files go.
                    video = None;
                    video_error = Some(err);
                }
            }
            if driver.is_some() && frame % 60 == 0 {
                progress.set_message(format!("{} lines", game.lines));
            }
            if args.hash.is_some_and(|n| (frame + 1).is_multiple_of(n)) {
                let hash = format!("{:016x}", session.console().hash());
                if !args.json {
                    progress.suspend(|| println!("frame {}: {hash}", frame + 1));
                }
                hashes.push(serde_json::json!({ "frame": frame + 1, "hash": hash }));
            }
            if session.scripts().is_some_and(|s| s.exit_code().is_some()) {
                return frame + 1;
            }
        }
        frame_count
    });
    progress.finish_and_clear();
    // The scripts' exit code is read before they are stopped; saves and the recording are
    // written however the run ended.
    let script_exit = session.scripts().and_then(lua::Scripts::exit_code);
    let script_errors = session.scripts().map_or(0, lua::Scripts::errors);
    let rgb = picture(&session, &palette);
    let desync = session.finish(args.json)?;
    let frames = run.map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    if let Some(recording) = video {
        let path = recording.path().display().to_string();
        let frames = recording.finish().map_err(anyhow::Error::msg)?;
        if !args.json {
            println!("video: {path} ({frames} frames)");
        }
    }
    if let Some(err) = video_error {
        anyhow::bail!(err);
    }
    let console = session.console();
    if let Some(path) = &args.wav {
        let rate = console.sample_rate().round() as u32;
        write_atomic(path, &crate::wav::encode(&samples, rate))?;
        if !args.json {
            println!(
                "sound: {} ({} samples at {rate} Hz)",
                path.display(),
                samples.len()
            );
        }
    }
    let mut summary = serde_json::json!({ "rom": name, "frames": frames });
    if args.hash.is_some() {
        summary["hashes"] = hashes.into();
    }
    if let Some(driver) = &driver {
        let s = &driver.borrow().stats;
        summary["games"] = s.games.into();
        summary["pieces"] = s.pieces.into();
        summary["lines"] = game.lines.into();
        summary["score"] = game.uncapped_score.into();
        summary["replans"] = s.replans.into();
        summary["ended_games"] = ended
            .iter()
            .map(|g| {
                serde_json::json!({
                    "score": g.score, "lines": g.lines, "level": g.level, "capped": g.capped,
                })
            })
            .collect::<Vec<_>>()
            .into();
    }
    if args.json {
        println!("{summary}");
    } else if let Some(driver) = &driver {
        let s = &driver.borrow().stats;
        println!(
            "{name}: {frames} frames, AI: {} games, {} pieces, {} lines, score {}, {} replans",
            s.games, s.pieces, game.lines, game.uncapped_score, s.replans
        );
    } else {
        println!("{name}: ran {frames} frames");
    }
    if let Some(path) = &args.screenshot {
        write_png(path, &rgb, args.scale.unwrap_or(1))?;
        if !args.json {
            println!("screenshot: {}", path.display());
        }
    }
    if signals::stop_requested() {
        eprintln!("nestor: interrupted after {frames} frames; saves and recordings written");
        return Ok(ExitCode::from(signals::INTERRUPTED));
    }
    // os.exit(n) ends nestor with n, as it ends FCEUX; otherwise a script's error fails the
    // run, so that a headless job notices it.
    let status = match (script_exit, desync) {
        (Some(exit), _) => exit as u8,
        (None, Some(desync)) => desync,
        (None, None) if script_errors > 0 => SCRIPT_FAILED,
        (None, None) => 0,
    };
    Ok(ExitCode::from(status))
}

/// The picture shown, as packed RGB with the scripts' drawing over it.
fn picture(session: &Session, palette: &Palette) -> Vec<u8> {
    let mut rgb = Vec::new();
    palette.to_rgb(session.picture(), &mut rgb);
    if let Some(scripts) = session.scripts() {
        scripts.composite(&mut rgb, 3);
    }
    rgb
}

/// `gui.savescreenshot(as)` from a script: the picture is written at once, as the window does;
/// a path that cannot be written is reported and the run goes on.
fn save_script_screenshots(session: &mut Session, palette: &Palette) {
    let Some((scripts, _)) = session.scripts_mut() else {
        return;
    };
    let requests = scripts.take_screenshot_requests();
    if requests.is_empty() {
        return;
    }
    let rgb = picture(session, palette);
    for path in requests {
        let path = Path::new(&path);
        // No folders are made for it, as for every output path.
        let written = files::check_writable(path)
            .with_context(|| format!("cannot write {}", path.display()))
            .and_then(|()| write_png(path, &rgb, 1));
        if let Err(err) = written {
            eprintln!("nestor: screenshot failed: {err:#}");
        }
    }
}

/// The ROM's file stem, the name a recorded movie gives it.
fn rom_stem(rom: &RomArg) -> String {
    rom.rom
        .as_deref()
        .and_then(Path::file_stem)
        .map_or("quadfall".into(), |s| s.to_string_lossy().into_owned())
}

/// The config file (read, not created, without a window) puts every script in the sandbox.
pub fn sandbox_in_config() -> bool {
    desktop::config::Config::default_path()
        .and_then(|path| desktop::config::Config::load(&path))
        .is_some_and(|config| config.lua.sandbox)
}

/// Opens the window; the AI plays from the start if --ai was given, and I toggles it anyway.
fn play_in_window(args: &Args, driver: ai::driver::Driver) -> anyhow::Result<ExitCode> {
    let rom = match &args.rom.rom {
        Some(path) => desktop::Rom::from_file(path).map_err(anyhow::Error::msg)?,
        None => desktop::Rom {
            name: "quadfall.nes".into(),
            bytes: crate::GAME_ROM.to_vec(),
            path: None,
        },
    };
    let mut options = desktop::Options::new(rom);
    options.ai = Some(Box::new(AiPlayer::new(Rc::new(RefCell::new(driver)))));
    options.ai_enabled = args.ai.ai.is_some();
    options.ai_profile = args.ai.profile().map(str::to_string);
    options.ai_tap_hz = args.ai.tap_hz;
    options.lua = args.lua.clone();
    options.lua_memory = (args.lua_memory << 20) as usize;
    options.lua_sandbox = args.lua_sandbox;
    options.movie = args.movies.movie.clone();
    options.run_ahead = args.run_ahead;
    options.scale = args.scale;
    options.region = args.rom.region;
    options.port1 = args.port1;
    options.port2 = args.port2;
    options.four_score = args.four_score.then_some(true);
    options.game_genie = args.cheats.clone();
    options.record_video = args.record_video.clone();
    let status = desktop::run(options)?;
    // os.exit(n) in a script ends nestor with n, as it ends FCEUX.
    Ok(ExitCode::from(status as u8))
}

/// Writes a 256x240 RGB picture, each pixel repeated `scale` times in both directions.
fn write_png(path: &Path, rgb: &[u8], scale: u32) -> anyhow::Result<()> {
    let k = scale as usize;
    let mut scaled = Vec::with_capacity(rgb.len() * k * k);
    for row in rgb.chunks_exact(WIDTH * 3) {
        let mut line = Vec::with_capacity(row.len() * k);
        for pixel in row.chunks_exact(3) {
            for _ in 0..k {
                line.extend_from_slice(pixel);
            }
        }
        for _ in 0..k {
            scaled.extend_from_slice(&line);
        }
    }
    let png = encode_png(&scaled, WIDTH as u32 * scale, HEIGHT as u32 * scale);
    write_atomic(path, &png)
}

/// One line for a game the AI finished: `game 2: score 1234567, 430 lines, level 49 (the cap)`.
fn describe_game(number: usize, game: &GameEnd) -> String {
    let how = if game.capped { "the cap" } else { "topped out" };
    format!(
        "game {number}: score {}, {} lines, level {} ({how})",
        game.score, game.lines, game.level
    )
}

/// Replaces `path` whole or not at all: a user's file is never left half written.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    files::write_atomic(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}
