//! nestest (Kevin Horton) in automation mode: started at $C000, the CPU's trace is compared
//! line by line with the reference `nestest.log` (8991 lines), then the result codes at
//! $02/$03 are checked (0 = all passed).

use crate::{contain_panics, Report, RunError, Verdict};
use nes::trace::trace_line;
use nes::Console;

/// The trace of the first `lines` instructions, each logged before it executes.
pub fn trace(rom: &[u8], lines: usize) -> Result<Vec<String>, RunError> {
    let mut console = load(rom)?;
    contain_panics(|| {
        (0..lines)
            .map(|_| {
                let line = trace_line(&console);
                console.step();
                line
            })
            .collect()
    })
}

/// Runs as many instructions as the reference log has lines and compares.
pub fn compare(rom: &[u8], reference: &str) -> Result<Report, RunError> {
    let mut console = load(rom)?;
    contain_panics(|| {
        let mut matched = 0;
        let mut mismatch = None;
        for (n, want) in reference.lines().enumerate() {
            let ours = trace_line(&console);
            if exact_columns(&ours) != exact_columns(want) {
                mismatch = Some(format!("line {}:\n ours: {ours}\n want: {want}", n + 1));
                break;
            }
            matched += 1;
            console.step();
        }
        let total = reference.lines().count();
        let codes = (console.peek(0x0002), console.peek(0x0003));
        let (verdict, detail) = match (mismatch, codes) {
            (Some(m), _) => (
                Verdict::Failed { code: 1 },
                format!("first difference at {m}"),
            ),
            (None, (0, 0)) => (Verdict::Passed, "$02 = $00, $03 = $00".to_string()),
            (None, (a, b)) => (
                Verdict::Failed { code: a.max(b) },
                format!("result codes $02 = ${a:02X}, $03 = ${b:02X} (see nestest.txt)"),
            ),
        };
        Report {
            verdict,
            message: format!("{matched}/{total} lines match; {detail}"),
            frames: console.ppu_frames(),
        }
    })
}

fn load(rom: &[u8]) -> Result<Console, RunError> {
    let mut console = contain_panics(|| Console::from_ines(rom))?.map_err(RunError::Load)?;
    console.start_nestest_automation();
    Ok(console)
}

/// PC and opcode bytes, then registers, PPU position and CYC: everything but the disassembly,
/// which is informational.
fn exact_columns(line: &str) -> (&str, &str) {
    (
        line.get(..15).unwrap_or(line),
        line.get(48..).unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disassembly_is_not_compared() {
        let a = "C000  4C F5 C5  JMP $C5F5                       A:00 X:00 Y:00 P:24 SP:FD PPU:  0, 21 CYC:7";
        let b = "C000  4C F5 C5  JMP $C5F6 (different)           A:00 X:00 Y:00 P:24 SP:FD PPU:  0, 21 CYC:7";
        let c = "C000  4C F5 C5  JMP $C5F5                       A:00 X:00 Y:00 P:25 SP:FD PPU:  0, 21 CYC:7";
        assert_eq!(exact_columns(a), exact_columns(b));
        assert_ne!(exact_columns(a), exact_columns(c));
        assert_eq!(exact_columns("short"), ("short", ""));
    }
}
