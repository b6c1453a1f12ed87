//! Holy Diver Batman's board report: the screen names the mapper it detected, the memory sizes,
//! and a four-digit detail code (WRAM, PRG, IRQ, CHR checks) that reads `0000` when every check
//! held. Its font puts digits and punctuation at their ASCII codes (letters elsewhere), so the
//! digits are read back from the nametables: the mapper opens the first line, and the detail
//! code is the first four digits after a colon ("DETAILED TEST RESULT: 0000").

use crate::screen::screen_text;
use crate::{Machine, Report, Verdict};

const READ_EVERY: u64 = 15;
/// The report counts once the screen has not changed for this long (the tests finish first).
const SETTLE_FRAMES: u64 = 60;

/// The four digits after the first colon that has any, once they are all on screen.
fn detail_code(text: &str) -> Option<&str> {
    text.split(':').skip(1).find_map(|after| {
        let code = after.trim_start_matches(' ').get(..4)?;
        code.chars().all(|c| c.is_ascii_digit()).then_some(code)
    })
}

/// Runs until the report shows its detail code; passes when it is `0000` and the first line
/// names `mapper` (NROM and CNROM boards are reported as 066, as the tool's README says).
pub fn run<M: Machine>(machine: &mut M, mapper: u16, max_frames: u64) -> Report {
    let (mut last, mut since) = (String::new(), 0);
    for frames in 1..=max_frames {
        machine.run_frame();
        if frames % READ_EVERY != 0 {
            continue;
        }
        let message = screen_text(machine);
        if message != last {
            (last, since) = (message, frames);
            continue;
        }
        let Some(code) = detail_code(&message).filter(|_| frames - since >= SETTLE_FRAMES) else {
            continue;
        };
        let shown = message
            .trim_start()
            .get(..3)
            .and_then(|n| n.parse::<u16>().ok());
        let verdict = match (code, shown) {
            ("0000", Some(m)) if m == mapper => Verdict::Passed,
            // Code 2: the board was detected as another mapper; 1: a check failed.
            (_, shown) if shown != Some(mapper) => Verdict::Failed { code: 2 },
            _ => Verdict::Failed { code: 1 },
        };
        return Report {
            verdict,
            message,
            frames,
        };
    }
    Report {
        verdict: Verdict::TimedOut,
        message: screen_text(machine),
        frames: max_frames,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_code_only_when_complete() {
        assert_eq!(
            detail_code("001 (1)\n128\n        : 0000\n    :\n 00 00"),
            Some("0000")
        );
        assert_eq!(detail_code("001\n        : 01"), None);
        assert_eq!(detail_code("001\n128"), None);
    }
}
