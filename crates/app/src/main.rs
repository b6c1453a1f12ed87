//! The `nestor` command: plays ROMs in a window or headless (the AI playing Quadfall when given
//! no command), judges test ROMs.

mod ai_bench;
mod ai_play;
mod ai_train;
mod bench;
mod input_script;
mod movie;
mod nestest;
mod run;
mod soak;
mod test_rom;
mod tetris_stats;
mod wav;

use clap::{Parser, Subcommand};
use std::path::Path;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "nestor",
    version,
    about = "A cycle-accurate NES emulator",
    long_about = "A cycle-accurate NES emulator.\n\n\
        With no command it plays: `nestor` opens a window where the native AI plays Quadfall, the \
        built-in game (strong profile, controller mode, level 18; I toggles the AI); \
        `nestor game.nes` lets you play a ROM; `nestor --headless` lets the AI play without a \
        window and prints a summary. The options below are those of `nestor run`.",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// With no command: play (`nestor run` options).
    #[command(flatten)]
    play: run::Args,
}

#[derive(Subcommand)]
enum Command {
    /// Runs a test ROM headless and prints its verdict (exit 0 pass, 1 fail, 2 could not run).
    TestRom(test_rom::Args),
    /// Runs nestest.nes from $C000 and compares its CPU trace with nestest.log.
    Nestest(nestest::Args),
    /// Plays a ROM in a window (keyboard, gamepad or --ai), or headless for a number of frames
    /// with scripted input, Lua or the AI, with a summary and a screenshot.
    Run(Box<run::Args>),
    /// Measures emulation speed (frames per second), headless.
    Bench(bench::Args),
    /// Plays simulated games with the native Tetris AI and prints lines, score, level and timing.
    AiBench(ai_bench::Args),
    /// Tunes the Tetris AI's strong evaluation weights on the simulator (cross-entropy method)
    /// and compares them with the start on held-out games.
    AiTrain(ai_train::Args),
    /// The AI plays Quadfall for a million frames: frames per second and resident memory.
    Soak(soak::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let command = cli.command.unwrap_or_else(|| {
        // The main job: the AI plays the built-in game unless a ROM of one's own or a Lua
        // script is given.
        let mut play = cli.play;
        if play.rom.rom.is_none() && play.ai.ai.is_none() && play.lua.is_empty() {
            play.ai.ai = Some(String::new());
        }
        Command::Run(Box::new(play))
    });
    let result = match command {
        Command::TestRom(args) => test_rom::run(&args),
        Command::Nestest(args) => nestest::run(&args),
        Command::AiBench(args) => ai_bench::run(&args),
        Command::AiTrain(args) => ai_train::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Soak(args) => soak::run(&args),
    };
    report(result)
}

fn report(result: anyhow::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("nestor: {err:#}");
            // "Could not run": distinct from a ROM's own failure (1).
            ExitCode::from(2)
        }
    }
}

/// Quadfall, the project's own game: the ROM commands run when given none.
const GAME_ROM: &[u8] = include_bytes!("../../../roms/quadfall.nes");

/// The ROM argument of the commands that run a game.
#[derive(clap::Args)]
pub struct RomArg {
    /// iNES file to run (default: Quadfall, the built-in game ROM).
    pub rom: Option<std::path::PathBuf>,
    /// The console: ntsc, pal or dendy. Default: the one the NES 2.0 header names, else PAL
    /// for a file name tagged (E), (Europe), (Australia) or (PAL), else NTSC.
    #[arg(long, value_name = "REGION", value_parser = parse_region)]
    pub region: Option<nes::Region>,
}

/// `--region`'s value.
fn parse_region(name: &str) -> Result<nes::Region, String> {
    nes::Region::from_key(name).ok_or_else(|| format!("{name:?} is not ntsc, pal or dendy"))
}

/// Loads the ROM argument (or the built-in game) and powers on a console of its region
/// (printing a warning when `--region` contradicts the ROM); returns a name for messages.
fn load_console(arg: &RomArg) -> anyhow::Result<(String, nes::Console)> {
    let (name, bytes) = rom_bytes(arg)?;
    let cart = testrom::contain_panics(|| nes::Cartridge::from_ines(&bytes))
        .map_err(|e| anyhow::anyhow!("{name}: {e}"))?
        .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    let (region, warning) = session::files::region_for(&cart, &name, arg.region);
    if let Some(warning) = warning {
        eprintln!("nestor: warning: {warning}");
    }
    Ok((name, nes::Console::with_region(cart, region)))
}

/// The ROM argument's file image (or the built-in game's) and a name for messages.
fn rom_bytes(arg: &RomArg) -> anyhow::Result<(String, Vec<u8>)> {
    Ok(match &arg.rom {
        Some(path) => (path.display().to_string(), read_rom(path)?),
        None => ("quadfall.nes (built in)".to_string(), GAME_ROM.to_vec()),
    })
}

/// Reads a ROM file; the error names the file.
fn read_rom(path: &Path) -> anyhow::Result<Vec<u8>> {
    session::files::read_rom(path).map_err(anyhow::Error::msg)
}

/// Names the ROM in a run error ("nes.nes: the file is empty").
fn rom_error(path: &Path, err: testrom::RunError) -> anyhow::Error {
    anyhow::anyhow!("{}: {err}", path.display())
}
