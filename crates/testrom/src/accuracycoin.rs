//! AccuracyCoin (100thCoin): 141 tests run from the main menu by pressing Start; each leaves a
//! result byte in CPU RAM at the address `RESULTS_MAP.tsv` gives.

use crate::{Machine, Report, Verdict};
use std::fmt::Write;

/// Zero-page boot-progress counter; `$0A` once the menu is up with NMI enabled.
const BOOT_PROGRESS: u16 = 0xEC;
const MENU_READY: u8 = 0x0A;
/// 1 while "run all tests" is in progress.
const RUNNING_ALL_TESTS: u16 = 0x35;
/// 1-based number of the running test; the ROM's own tally afterwards.
const TEST_NUMBER: u16 = 0x37;
const PASS_TALLY: u16 = 0x38;
const SKIP: u8 = 0xFF;
const START: u8 = nes::Buttons::START;
/// Start is read in NMI and edge-triggered: hold it this long, then let go.
const START_HELD_FRAMES: u64 = 2;
/// The menu is up after about 50 frames.
const BOOT_FRAMES: u64 = 10 * 60;
/// A test that runs longer than this is taken to have hung.
const HANG_FRAMES: u64 = 20 * 60;
/// The summary screen is drawn after the tests finish; results are read after it.
const SETTLE_FRAMES: u64 = 5;

/// One pass/fail test of the ROM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Test {
    /// 1-based, in the order the tests run (what `$37` counts).
    pub number: usize,
    pub page: String,
    pub name: String,
    pub result_addr: u16,
}

/// The tests to read, and the ones to skip (by writing `$FF` to their result byte first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub tests: Vec<Test>,
    pub skip: Vec<usize>,
}

impl Plan {
    /// Parses `RESULTS_MAP.tsv` (columns page, page_title, index_on_page, test_name,
    /// result_addr, kind); DRAW rows have no result and are left out.
    pub fn from_results_map(tsv: &str) -> Result<Plan, String> {
        let mut tests = Vec::new();
        for (i, line) in tsv.lines().enumerate().skip(1) {
            let fields: Vec<&str> = line.split('\t').collect();
            let [_, page, _, name, addr, kind] = fields[..] else {
                return Err(format!(
                    "RESULTS_MAP.tsv line {}: expected 6 columns",
                    i + 1
                ));
            };
            if kind != "TEST" {
                continue;
            }
            let result_addr = addr
                .strip_prefix('$')
                .and_then(|hex| u16::from_str_radix(hex, 16).ok())
                .ok_or_else(|| format!("RESULTS_MAP.tsv line {}: bad address {addr}", i + 1))?;
            tests.push(Test {
                number: tests.len() + 1,
                page: page.to_string(),
                name: name.trim().to_string(),
                result_addr,
            });
        }
        if tests.is_empty() {
            return Err("RESULTS_MAP.tsv lists no tests".into());
        }
        Ok(Plan {
            tests,
            skip: Vec::new(),
        })
    }

    /// Reads and parses a `RESULTS_MAP.tsv` file.
    pub fn load(path: &std::path::Path) -> Result<Plan, String> {
        let tsv = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Plan::from_results_map(&tsv)
    }

    fn test(&self, number: usize) -> Option<&Test> {
        self.tests.iter().find(|t| t.number == number)
    }

    pub fn run<M: Machine>(&self, machine: &mut M, max_frames: u64) -> Report {
        let mut frames = 0;
        let timed_out = |frames, message: String| Report {
            verdict: Verdict::TimedOut,
            message,
            frames,
        };

        while machine.peek(BOOT_PROGRESS) != MENU_READY {
            if frames == max_frames.min(BOOT_FRAMES) {
                let progress = machine.peek(BOOT_PROGRESS);
                return timed_out(
                    frames,
                    format!("menu never came up ($EC = ${progress:02X})"),
                );
            }
            machine.run_frame();
            frames += 1;
        }
        for test in self.skip.iter().filter_map(|&n| self.test(n)) {
            machine.write(test.result_addr, SKIP);
        }
        machine.set_pad1(START);
        for _ in 0..START_HELD_FRAMES {
            machine.run_frame();
        }
        machine.set_pad1(0);
        frames += START_HELD_FRAMES;

        let mut started = false;
        let mut current = machine.peek(TEST_NUMBER);
        let mut current_since = frames;
        loop {
            if frames >= max_frames {
                let what = match started {
                    true => "the tests were still running",
                    false => "Start did not start the tests",
                };
                return timed_out(frames, format!("{what} after {max_frames} frames"));
            }
            machine.run_frame();
            frames += 1;
            let running = machine.peek(RUNNING_ALL_TESTS) == 1;
            if started && !running {
                break;
            }
            started |= running;
            let number = machine.peek(TEST_NUMBER);
            if number != current {
                (current, current_since) = (number, frames);
            }
            if started && frames - current_since > HANG_FRAMES {
                let name = self.test(usize::from(number)).map_or("?", |t| &t.name);
                return timed_out(
                    frames,
                    format!("test #{number} ({name}) hung; skip it to run the others"),
                );
            }
        }
        for _ in 0..SETTLE_FRAMES {
            machine.run_frame();
        }
        self.report(machine, frames + SETTLE_FRAMES)
    }

    fn report<M: Machine>(&self, machine: &M, frames: u64) -> Report {
        let mut passed = 0;
        let mut problems = String::new();
        for test in &self.tests {
            let v = machine.peek(test.result_addr);
            let outcome = match v {
                SKIP => "skipped".to_string(),
                _ if v & 3 == 1 => {
                    passed += 1;
                    continue;
                }
                _ if v & 3 == 2 => format!("error code {}", error_code(v >> 2)),
                _ => format!("no result (${v:02X})"),
            };
            let _ = writeln!(
                problems,
                "  #{} {} / {}: {outcome}",
                test.number, test.page, test.name
            );
        }
        let total = self.tests.len();
        let tally = format!(
            "ROM's tally: {} tests, {} passed",
            machine.peek(TEST_NUMBER),
            machine.peek(PASS_TALLY)
        );
        let message = format!("{passed}/{total} passed\n{problems}{tally}");
        let not_passed = total - passed;
        Report {
            verdict: match not_passed {
                0 => Verdict::Passed,
                n => Verdict::Failed {
                    code: u8::try_from(n).unwrap_or(u8::MAX),
                },
            },
            message,
            frames,
        }
    }
}

/// Error codes are shown as 0-9 then A-Z.
fn error_code(code: u8) -> char {
    char::from_digit(u32::from(code), 36).map_or('?', |c| c.to_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake::FakeMachine;

    const MAP: &str = "page\tpage_title\tindex_on_page\ttest_name\tresult_addr\tkind
1\tCPU Behavior\t0\tROM is not writable\t$0405\tTEST
1\tCPU Behavior\t1\tRAM Mirroring\t$0403\tTEST
1\tCPU Behavior\t2\tSome picture\t$03FF\tDRAW
2\tTiming\t0\tInterrupt flag latency\t$0461\tTEST
";

    #[test]
    fn parses_tests_in_run_order() {
        let plan = Plan::from_results_map(MAP).unwrap();
        let numbers: Vec<(usize, u16)> = plan
            .tests
            .iter()
            .map(|t| (t.number, t.result_addr))
            .collect();
        assert_eq!(numbers, [(1, 0x405), (2, 0x403), (3, 0x461)]);
        assert!(Plan::from_results_map("header\n1\t2\n").is_err());
    }

    /// The ROM as the fake sees it: menu at frame 30, Start runs tests 1-3 for 10 frames each
    /// (skipping those marked $FF), with the given results.
    fn rom(m: &mut FakeMachine, results: [u8; 3]) {
        let addrs = [0x405, 0x403, 0x461];
        match m.frame {
            30 => m.mem[0xEC] = MENU_READY,
            f if f > 30 && m.pad1 == START && m.mem[0x35] == 0 && m.mem[0x37] == 0 => {
                m.mem[0x35] = 1;
                m.mem[0x37] = 1;
                m.mem[0x80] = f as u8; // start frame
            }
            f if m.mem[0x35] == 1 => {
                let n = ((f - u64::from(m.mem[0x80])) / 10 + 1) as usize;
                if n > 3 {
                    m.mem[0x35] = 0;
                    m.mem[0x38] = results.iter().filter(|&&v| v & 3 == 1).count() as u8;
                    return;
                }
                m.mem[0x37] = n as u8;
                if m.mem[addrs[n - 1]] != SKIP {
                    m.mem[addrs[n - 1]] = results[n - 1];
                }
            }
            _ => {}
        }
    }

    #[test]
    fn all_passing() {
        let mut m = FakeMachine::new(|m| rom(m, [0x01, 0x05, 0x01]));
        let r = Plan::from_results_map(MAP).unwrap().run(&mut m, 1000);
        assert_eq!(r.verdict, Verdict::Passed, "{}", r.message);
        assert!(r.message.starts_with("3/3 passed\n"), "{}", r.message);
    }

    #[test]
    fn failures_and_skips_are_named() {
        // Test 2 fails with error code $0B ("B"); test 3 is skipped.
        let mut m = FakeMachine::new(|m| rom(m, [0x01, (0x0B << 2) | 2, 0x01]));
        let mut plan = Plan::from_results_map(MAP).unwrap();
        plan.skip = vec![3];
        let r = plan.run(&mut m, 1000);
        assert_eq!(r.verdict, Verdict::Failed { code: 2 });
        assert_eq!(
            r.message,
            "1/3 passed\n  #2 CPU Behavior / RAM Mirroring: error code B\n  \
             #3 Timing / Interrupt flag latency: skipped\nROM's tally: 3 tests, 2 passed"
        );
    }

    #[test]
    fn menu_never_up() {
        let mut m = FakeMachine::new(|_| {});
        let r = Plan::from_results_map(MAP).unwrap().run(&mut m, 100);
        assert_eq!(r.verdict, Verdict::TimedOut);
        assert_eq!(r.message, "menu never came up ($EC = $00)");
    }
}
