//! ROMs that only print their verdict on screen: the text is read back from the nametables.
//! blargg's fonts are laid out so that a character's tile number is its ASCII code.

use crate::{Machine, Report, Verdict, STOPPED_FRAMES};

const NAMETABLES: u16 = 0x2000;
const NAMETABLE_SIZE: u16 = 0x400;
const COLUMNS: u16 = 32;
const ROWS: u16 = 30;
/// How often (in frames) the screen is read while the ROM runs.
const READ_EVERY: u64 = 15;
/// A verdict on screen counts once the text has not changed for this long.
const SETTLE_FRAMES: u64 = 60;

/// The text of the distinct, non-blank nametables, one line per non-blank tile row.
pub fn screen_text<M: Machine>(machine: &M) -> String {
    let mut pages: Vec<String> = Vec::new();
    for table in 0..4 {
        let base = NAMETABLES + table * NAMETABLE_SIZE;
        let lines: Vec<String> = (0..ROWS)
            .map(|row| {
                let line: String = (0..COLUMNS)
                    .map(|col| glyph(machine.ppu_peek(base + row * COLUMNS + col)))
                    .collect();
                line.trim_end().to_string()
            })
            .filter(|line| !line.is_empty())
            .collect();
        let page = lines.join("\n");
        // Mirrored nametables show the same page twice.
        if !page.is_empty() && !pages.contains(&page) {
            pages.push(page);
        }
    }
    pages.join("\n")
}

fn glyph(tile: u8) -> char {
    match tile {
        0x21..=0x7E => char::from(tile),
        _ => ' ',
    }
}

/// The last "passed" or "failed" word in the text; a failure's code follows a `#`.
pub fn verdict_in(text: &str) -> Option<Verdict> {
    let lower = text.to_ascii_lowercase();
    let passed = lower.rfind("passed");
    let failed = lower.rfind("failed");
    match (passed, failed) {
        (Some(p), f) if f.is_none_or(|f| p > f) => Some(Verdict::Passed),
        (_, Some(f)) => {
            let after = &lower[f..];
            let code = after
                .find('#')
                .map(|hash| {
                    after[hash + 1..]
                        .trim_start()
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect::<String>()
                })
                .and_then(|digits| digits.parse().ok())
                .unwrap_or(1);
            Some(Verdict::Failed { code })
        }
        _ => None,
    }
}

/// Buttons held at power-on are let go after this long (the ROM prints its title first).
const HOLD_FRAMES: u64 = 120;

/// Runs until the ROM stops, or its verdict has stayed on screen for a second. `hold` are
/// buttons held on controller 1 at power-on (cpu_timing_test6 picks its opcode set that way).
pub fn run<M: Machine>(machine: &mut M, hold: u8, max_frames: u64) -> Report {
    machine.set_pad1(hold);
    let mut looping = 0;
    let mut text = String::new();
    let mut text_since = 0;
    let mut frames = 0;
    let mut loop_at = None;
    while frames < max_frames {
        frames += 1;
        if frames == HOLD_FRAMES {
            machine.set_pad1(0);
        }
        let span = machine.run_frame();
        looping = if span.is_tight_loop() { looping + 1 } else { 0 };
        let stopped = looping == STOPPED_FRAMES;
        if stopped || frames % READ_EVERY == 0 {
            let now = screen_text(machine);
            if now != text {
                text = now;
                text_since = frames;
            }
            let settled = stopped || frames - text_since >= SETTLE_FRAMES;
            if let Some(verdict) = verdict_in(&text).filter(|_| settled) {
                return Report {
                    verdict,
                    message: text,
                    frames,
                };
            }
            if stopped {
                loop_at = Some(span.lo);
                break;
            }
        }
    }
    let mut message = screen_text(machine);
    if let Some(pc) = loop_at {
        let newline = if message.is_empty() { "" } else { "\n" };
        message += &format!("{newline}(stopped in a loop at ${pc:04X} without a verdict)");
    }
    Report {
        verdict: Verdict::TimedOut,
        message,
        frames,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake::FakeMachine;

    fn print(m: &mut FakeMachine, table: usize, row: usize, text: &str) {
        let at = table * 0x400 + row * 32;
        m.vram[0x2000 + at..0x2000 + at + text.len()].copy_from_slice(text.as_bytes());
    }

    #[test]
    fn reads_distinct_tables_and_skips_blank_rows() {
        let mut m = FakeMachine::new(|_| {});
        print(&mut m, 0, 2, "cpu_dummy_reads");
        print(&mut m, 0, 5, "Passed");
        print(&mut m, 1, 2, "cpu_dummy_reads");
        print(&mut m, 1, 5, "Passed");
        assert_eq!(screen_text(&m), "cpu_dummy_reads\nPassed");
    }

    #[test]
    fn verdict_words() {
        assert_eq!(verdict_in("TEST\nPASSED"), Some(Verdict::Passed));
        assert_eq!(
            verdict_in("LDA abs,X\nFailed #3"),
            Some(Verdict::Failed { code: 3 })
        );
        assert_eq!(
            verdict_in("FAILED: # 12"),
            Some(Verdict::Failed { code: 12 })
        );
        assert_eq!(verdict_in("Failed"), Some(Verdict::Failed { code: 1 }));
        assert_eq!(verdict_in("11 22 33"), None);
    }

    #[test]
    fn waits_for_the_verdict_to_settle() {
        let mut m = FakeMachine::new(|m| {
            if m.frame == 100 {
                print(m, 0, 1, "Passed");
            }
        });
        let r = run(&mut m, 0, 1000);
        assert_eq!(r.verdict, Verdict::Passed);
        assert!((160..=175).contains(&r.frames), "{}", r.frames);
    }

    #[test]
    fn holds_buttons_at_power_on_only() {
        let mut m = FakeMachine::new(|m| {
            let held = m.pad1 == nes::Buttons::B;
            if m.frame == 10 && held || m.frame == 130 && !held {
                m.mem[0x10] += 1;
            }
        });
        run(&mut m, nes::Buttons::B, 150);
        assert_eq!(m.mem[0x10], 2);
    }

    #[test]
    fn stopped_without_verdict_is_a_timeout() {
        let mut m = FakeMachine::new(|m| {
            print(m, 0, 1, "CRC 159A7A8F");
            m.halt();
        });
        let r = run(&mut m, 0, 1000);
        assert_eq!(r.verdict, Verdict::TimedOut);
        assert_eq!(
            r.message,
            "CRC 159A7A8F\n(stopped in a loop at $C123 without a verdict)"
        );
    }
}
