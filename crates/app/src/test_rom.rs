//! `nestor test-rom`: runs a test ROM by its result protocol and reports the verdict.

use crate::{read_rom, rom_error};
use std::path::PathBuf;
use std::process::ExitCode;
use testrom::{Protocol, Verdict};

#[derive(clap::Args)]
pub struct Args {
    /// The test ROM (iNES file).
    rom: PathBuf,
    /// Give up after this many frames (default: enough for the slowest ROM of the protocol).
    #[arg(long)]
    max_frames: Option<u64>,
    /// Print the result as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let rom = read_rom(&args.rom)?;
    let protocol = Protocol::Blargg6000;
    let max_frames = args
        .max_frames
        .unwrap_or_else(|| protocol.default_max_frames());
    let report =
        testrom::run_rom(&rom, protocol, max_frames).map_err(|e| rom_error(&args.rom, e))?;
    if args.json {
        let code = match report.verdict {
            Verdict::Failed { code } => Some(code),
            _ => None,
        };
        let json = serde_json::json!({
            "rom": args.rom.display().to_string(),
            "protocol": protocol.name(),
            "verdict": report.verdict.to_string(),
            "passed": report.verdict == Verdict::Passed,
            "code": code,
            "frames": report.frames,
            "message": report.message,
        });
        println!("{json}");
    } else {
        println!(
            "{}: {} after {} frames ({})",
            args.rom.display(),
            report.verdict,
            report.frames,
            protocol.name()
        );
        if !report.message.is_empty() {
            println!("{}", report.message);
        }
    }
    Ok(if report.verdict == Verdict::Passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
