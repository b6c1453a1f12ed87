//! `nestor nestest`: nestest.nes in automation mode, compared with (or written as) a
//! nestest.log-format trace.

use crate::{read_rom, rom_error};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use testrom::Verdict;

/// Lines in the reference log.
const REFERENCE_LINES: usize = 8991;

#[derive(clap::Args)]
pub struct Args {
    /// nestest.nes (default: the one in the test-ROM folder, `$NESTOR_TEST_ROMS`).
    #[arg(long)]
    rom: Option<PathBuf>,
    /// The reference trace (default: nestest.log beside the ROM).
    #[arg(long)]
    reference: Option<PathBuf>,
    /// Also write our trace to this file.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let rom_path = match &args.rom {
        Some(rom) => rom.clone(),
        None => testrom::location::dir()
            .map_err(anyhow::Error::msg)?
            .join("nestest/nestest.nes"),
    };
    let reference_path = args
        .reference
        .clone()
        .unwrap_or_else(|| rom_path.with_file_name("nestest.log"));
    let rom = read_rom(&rom_path)?;
    let reference = std::fs::read_to_string(&reference_path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", reference_path.display()))?;
    if let Some(log_path) = &args.log {
        let lines = reference.lines().count().max(REFERENCE_LINES);
        let trace = testrom::nestest::trace(&rom, lines).map_err(|e| rom_error(&rom_path, e))?;
        let mut file = std::io::BufWriter::new(
            std::fs::File::create(log_path)
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", log_path.display()))?,
        );
        for line in trace {
            writeln!(file, "{line}")?;
        }
        file.flush()?;
    }
    let report =
        testrom::nestest::compare(&rom, &reference).map_err(|e| rom_error(&rom_path, e))?;
    println!("nestest: {}; {}", report.verdict, report.message);
    Ok(if report.verdict == Verdict::Passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
