//! The `nestor` command: runs ROMs headless, judges test ROMs.

mod ai_bench;
mod nestest;
mod test_rom;

use clap::{Parser, Subcommand};
use std::path::Path;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "nestor", version, about = "A cycle-accurate NES emulator")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Runs a test ROM headless and prints its verdict (exit 0 pass, 1 fail, 2 could not run).
    TestRom(test_rom::Args),
    /// Runs nestest.nes from $C000 and compares its CPU trace with nestest.log.
    Nestest(nestest::Args),
    /// Plays simulated games with the native Tetris AI and prints lines, score, level and timing.
    AiBench(ai_bench::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::TestRom(args) => test_rom::run(&args),
        Command::Nestest(args) => nestest::run(&args),
        Command::AiBench(args) => ai_bench::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("nestor: {err:#}");
            // "Could not run": distinct from a ROM's own failure (1).
            ExitCode::from(2)
        }
    }
}

/// Reads a ROM file; the error names the file.
fn read_rom(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))
}

/// Names the ROM in a run error ("nes.nes: the file is empty").
fn rom_error(path: &Path, err: testrom::RunError) -> anyhow::Error {
    anyhow::anyhow!("{}: {err}", path.display())
}
