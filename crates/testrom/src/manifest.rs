//! `MANIFEST.tsv` of the shared test ROMs: which protocol judges each ROM, if any.

use crate::{accuracycoin, Protocol};
use std::path::{Path, PathBuf};

/// One row: `path suite mapper what_it_tests result_protocol expected_outcome`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub path: String,
    pub suite: String,
    pub what_it_tests: String,
    pub result_protocol: String,
    pub expected_outcome: String,
}

/// How a ROM is judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judge {
    Protocol(Protocol),
    /// nestest: the CPU trace is compared with `nestest.log`.
    NestestLog,
    /// Judged by the protocol, but only on a PAL machine (RP2A07 CPU, RP2C07 PPU): on NTSC
    /// timing the ROM does not test what it claims, and may pass by accident.
    OnPal(Protocol),
    /// No automatic verdict, and why.
    Nobody(&'static str),
}

impl Judge {
    /// The console the ROM is judged on, if not the one its header names.
    pub fn region(&self) -> Option<nes::Region> {
        matches!(self, Judge::OnPal(_)).then_some(nes::Region::Pal)
    }
}

pub fn parse(tsv: &str) -> Result<Vec<Entry>, String> {
    tsv.lines()
        .enumerate()
        .skip(1)
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            let fields: Vec<&str> = line.split('\t').collect();
            let [path, suite, _mapper, what, protocol, expected] = fields[..] else {
                return Err(format!("MANIFEST.tsv line {}: expected 6 columns", i + 1));
            };
            Ok(Entry {
                path: path.into(),
                suite: suite.into(),
                what_it_tests: what.into(),
                result_protocol: protocol.into(),
                expected_outcome: expected.into(),
            })
        })
        .collect()
}

/// The manifest of the folder holding `rom` (or of one of its parents) and the ROM's row in it.
pub fn find(rom: &Path) -> Option<(PathBuf, Entry)> {
    let rom = rom.canonicalize().ok()?;
    for dir in rom.ancestors().skip(1) {
        let Ok(tsv) = std::fs::read_to_string(dir.join("MANIFEST.tsv")) else {
            continue;
        };
        let relative = rom.strip_prefix(dir).ok()?.to_str()?.replace('\\', "/");
        let entry = parse(&tsv).ok()?.into_iter().find(|e| e.path == relative)?;
        return Some((dir.to_path_buf(), entry));
    }
    None
}

impl Entry {
    /// The judge for this row; `root` is the manifest's folder (AccuracyCoin's result map lives
    /// there).
    pub fn judge(&self, root: &Path) -> Result<Judge, String> {
        let judge = self.ntsc_judge(root)?;
        Ok(match judge {
            Judge::Protocol(protocol) if self.expected_outcome.contains("PAL machine only") => {
                Judge::OnPal(protocol)
            }
            judge => judge,
        })
    }

    fn ntsc_judge(&self, root: &Path) -> Result<Judge, String> {
        let expected = self.expected_outcome.as_str();
        Ok(match self.result_protocol.as_str() {
            "blargg-6000" => Judge::Protocol(Protocol::Blargg6000),
            "nestest-log" => Judge::NestestLog,
            "accuracycoin-ram" => {
                let map = root.join(Path::new(&self.path).with_file_name("RESULTS_MAP.tsv"));
                Judge::Protocol(Protocol::AccuracyCoin(accuracycoin::Plan::load(&map)?))
            }
            "screen" => {
                if let Some(addr) = zero_page_result(expected) {
                    Judge::Protocol(Protocol::ZeroPage { addr })
                } else if expected.contains("informational") {
                    Judge::Nobody("informational: prints values or a CRC, no pass/fail")
                } else if expected.starts_with("interactive") {
                    Judge::Nobody("interactive: a person must press the buttons it asks for")
                } else if expected.starts_with("visual") {
                    Judge::Nobody("visual: judged by looking at the picture")
                } else if expected.contains("Passed") || expected.contains("PASSED") {
                    // cpu_timing_test6 covers the unofficial opcodes too when B is held.
                    let hold = match expected.contains("hold B at boot") {
                        true => nes::Buttons::B,
                        false => 0,
                    };
                    Judge::Protocol(Protocol::Screen { hold })
                } else if let Some(mapper) = reported_mapper(expected) {
                    Judge::Protocol(Protocol::BoardReport { mapper })
                } else {
                    return Err(format!("{}: no verdict in {expected:?}", self.path));
                }
            }
            other => return Err(format!("{}: unknown result protocol {other}", self.path)),
        })
    }
}

/// "mapper shown as 066" or "mapper 001, ... detail code 0000": Holy Diver Batman's report.
fn reported_mapper(expected: &str) -> Option<u16> {
    if !expected.contains("detail code 0000") {
        return None;
    }
    let after = expected.split("mapper ").nth(1)?;
    let digits = after.strip_prefix("shown as ").unwrap_or(after).get(..3)?;
    digits.parse().ok()
}

/// "final zero-page $F8 == $01" names the 2005 runtime's result byte.
fn zero_page_result(expected: &str) -> Option<u8> {
    let hex = expected.split("zero-page $").nth(1)?.get(..2)?;
    u8::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(protocol: &str, expected: &str) -> Judge {
        let row = format!("header\nx/y.nes\tsuite\t0\twhat\t{protocol}\t{expected}\n");
        parse(&row).unwrap()[0].judge(Path::new("/")).unwrap()
    }

    #[test]
    fn judges_from_protocol_and_expected_outcome() {
        assert_eq!(
            judge("blargg-6000", "$6000 == $00"),
            Judge::Protocol(Protocol::Blargg6000)
        );
        assert_eq!(
            judge("screen", "screen \"PASSED\"; final zero-page $F8 == $01"),
            Judge::Protocol(Protocol::ZeroPage { addr: 0xF8 })
        );
        assert_eq!(
            judge("screen", "screen \"Passed\" (old shell)"),
            Judge::Protocol(Protocol::Screen { hold: 0 })
        );
        assert_eq!(
            judge(
                "screen",
                "screen \"PASSED\" (hold B at boot to include unofficial ops)"
            ),
            Judge::Protocol(Protocol::Screen {
                hold: nes::Buttons::B
            })
        );
        assert!(matches!(
            judge("screen", "screen CRC 85CF (informational, no pass/fail)"),
            Judge::Nobody(_)
        ));
        assert_eq!(judge("nestest-log", "trace"), Judge::NestestLog);
        assert_eq!(
            judge(
                "screen",
                "\"PASSED\"; final zero-page $F8 == $01; PAL machine only (header does not say PAL)"
            ),
            Judge::OnPal(Protocol::ZeroPage { addr: 0xF8 })
        );
        assert_eq!(
            judge(
                "screen",
                "screen: mapper shown as 066 (README) board NROM; 4-digit detail code 0000"
            ),
            Judge::Protocol(Protocol::BoardReport { mapper: 66 })
        );
        assert_eq!(
            judge(
                "screen",
                "screen: mapper 004, PRG 128K; 4-digit detail code 0000 (WRAM,PRG,IRQ,CHR)"
            ),
            Judge::Protocol(Protocol::BoardReport { mapper: 4 })
        );
        assert_eq!(
            judge(
                "screen",
                "screen: mapper 078 (README lists IF-12 as 078.3), PRG 128K; detail code 0000"
            ),
            Judge::Protocol(Protocol::BoardReport { mapper: 78 })
        );
    }
}
