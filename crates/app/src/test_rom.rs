//! `nestor test-rom`: runs a test ROM by its result protocol and reports the verdict.

use crate::{read_rom, rom_error};
use anyhow::{anyhow, bail};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use testrom::manifest::{self, Judge};
use testrom::{accuracycoin, Protocol, Verdict};

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
    /// How to read the verdict: blargg-6000, zero-page:F8 (any address), screen, accuracycoin.
    /// Default: the protocol MANIFEST.tsv gives the ROM when it sits in the shared test-ROM
    /// folder, else blargg-6000.
    #[arg(long, value_name = "PROTOCOL")]
    protocol: Option<String>,
    /// The console: ntsc, pal or dendy. Default: PAL for the ROMs MANIFEST.tsv marks "PAL
    /// machine only", else the one the header names, else NTSC.
    #[arg(long, value_name = "REGION", value_parser = crate::parse_region)]
    region: Option<nes::Region>,
    /// AccuracyCoin: skip the test with this number (as counted in $37), e.g. one that hangs.
    #[arg(long, value_name = "N")]
    skip: Vec<usize>,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let rom = read_rom(&args.rom)?;
    let (mut protocol, region) = match &args.protocol {
        Some(name) => (parse_protocol(name, &args.rom)?, None),
        None => manifest_protocol(&args.rom)?,
    };
    let region = args.region.or(region);
    if let Protocol::AccuracyCoin(plan) = &mut protocol {
        plan.skip.clone_from(&args.skip);
    } else if !args.skip.is_empty() {
        bail!("--skip only applies to AccuracyCoin");
    }
    let max_frames = args
        .max_frames
        .unwrap_or_else(|| protocol.default_max_frames());
    let report = testrom::run_rom_on(region, &rom, &protocol, max_frames)
        .map_err(|e| rom_error(&args.rom, e))?;
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

fn parse_protocol(name: &str, rom: &Path) -> anyhow::Result<Protocol> {
    Ok(match name {
        "blargg-6000" => Protocol::Blargg6000,
        "screen" => Protocol::Screen { hold: 0 },
        "accuracycoin" => {
            let map = rom.with_file_name("RESULTS_MAP.tsv");
            Protocol::AccuracyCoin(accuracycoin::Plan::load(&map).map_err(|e| anyhow!(e))?)
        }
        _ if name.starts_with("board-report:") => {
            let mapper = name["board-report:".len()..]
                .parse()
                .map_err(|_| anyhow!("board-report:<mapper number> (e.g. board-report:004)"))?;
            Protocol::BoardReport { mapper }
        }
        _ => {
            let addr = name
                .strip_prefix("zero-page:")
                .and_then(|hex| u8::from_str_radix(hex.trim_start_matches('$'), 16).ok())
                .ok_or_else(|| anyhow!("unknown protocol {name:?} (blargg-6000, zero-page:F8, screen, board-report:NNN, accuracycoin)"))?;
            Protocol::ZeroPage { addr }
        }
    })
}

/// The protocol MANIFEST.tsv gives the ROM, and the console it is judged on if not the
/// header's.
fn manifest_protocol(rom: &Path) -> anyhow::Result<(Protocol, Option<nes::Region>)> {
    let Some((root, entry)) = manifest::find(rom) else {
        return Ok((Protocol::Blargg6000, None));
    };
    let judge = entry.judge(&root).map_err(|e| anyhow!(e))?;
    let region = judge.region();
    match judge {
        Judge::Protocol(protocol) | Judge::OnPal(protocol) => Ok((protocol, region)),
        Judge::NestestLog => bail!("{}: run it with `nestor nestest`", entry.path),
        Judge::Nobody(why) => bail!("{}: no automatic verdict ({why})", entry.path),
    }
}
