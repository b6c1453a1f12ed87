//! blargg's 2005 runtime (branch_timing_tests, vbl_nmi_timing, the 2005 APU tests): the result
//! code sits in a zero-page byte that each sub-test overwrites with its own number, so it is
//! only meaningful once the ROM has stopped in its final loop (interrupts off, `JMP *`).

use crate::{screen, Machine, Report, Verdict, HUNG_FRAMES, STOPPED_FRAMES};

pub fn run<M: Machine>(machine: &mut M, addr: u8, max_frames: u64) -> Report {
    let (mut halted, mut looping) = (0, 0);
    for frame in 1..=max_frames {
        let span = machine.run_frame();
        halted = if span.is_jump_to_self() {
            halted + 1
        } else {
            0
        };
        looping = if span.is_tight_loop() { looping + 1 } else { 0 };
        if halted == STOPPED_FRAMES {
            return report(machine, addr, frame, End::Stopped);
        }
        if looping == HUNG_FRAMES {
            return report(machine, addr, frame, End::Stuck(span.lo));
        }
    }
    report(machine, addr, max_frames, End::OutOfFrames)
}

/// How the run ended.
enum End {
    /// In the final `JMP *`: the result byte is final.
    Stopped,
    /// Waiting in a small loop at this address, for something that never happens.
    Stuck(u16),
    OutOfFrames,
}

/// The verdict from the result byte, which only counts once the ROM has stopped.
fn report<M: Machine>(machine: &M, addr: u8, frames: u64, end: End) -> Report {
    let code = machine.peek(u16::from(addr));
    let verdict = match (code, &end) {
        (1, _) => Verdict::Passed,
        (2.., End::Stopped) => Verdict::Failed { code },
        _ => Verdict::TimedOut,
    };
    let state = match end {
        End::Stopped => "stopped in its final loop".to_string(),
        End::Stuck(pc) => format!("stuck in a loop at ${pc:04X}"),
        End::OutOfFrames => "still running".to_string(),
    };
    let mut message = screen::screen_text(machine);
    if !message.is_empty() {
        message.push('\n');
    }
    message += &format!("(ROM {state}; zero-page ${addr:02X} = {code})");
    Report {
        verdict,
        message,
        frames,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake::FakeMachine;

    #[test]
    fn sub_test_numbers_are_not_failures_until_the_rom_stops() {
        // Sub-tests 2..=5 run, then the ROM reports "passed" (1) and stops.
        let mut m = FakeMachine::new(|m| match m.frame {
            1..=40 => m.mem[0xF8] = 2 + (m.frame / 10) as u8,
            41 => m.mem[0xF8] = 1,
            _ => m.halt(),
        });
        let r = run(&mut m, 0xF8, 1000);
        assert_eq!(r.verdict, Verdict::Passed);
        assert_eq!(r.frames, 41 + STOPPED_FRAMES);
    }

    #[test]
    fn failure_code_once_stopped() {
        let mut m = FakeMachine::new(|m| {
            m.mem[0xF0] = 3;
            if m.frame > 20 {
                m.halt();
            }
        });
        let r = run(&mut m, 0xF0, 1000);
        assert_eq!(r.verdict, Verdict::Failed { code: 3 });
        assert!(r.message.ends_with("zero-page $F0 = 3)"), "{}", r.message);
    }

    #[test]
    fn waiting_forever_for_a_flag_is_not_the_final_loop() {
        let mut m = FakeMachine::new(|m| {
            m.mem[0xF8] = 2;
            // BIT $2002 / BPL: two instructions.
            m.pc = crate::PcSpan {
                lo: 0xE484,
                hi: 0xE487,
            };
        });
        let r = run(&mut m, 0xF8, 1000);
        assert_eq!(r.verdict, Verdict::TimedOut);
        assert_eq!(r.frames, HUNG_FRAMES);
        assert!(
            r.message.contains("stuck in a loop at $E484"),
            "{}",
            r.message
        );
    }

    #[test]
    fn running_out_of_frames_mid_test_is_a_timeout() {
        let mut m = FakeMachine::new(|m| m.mem[0xF8] = 4);
        let r = run(&mut m, 0xF8, 100);
        assert_eq!(r.verdict, Verdict::TimedOut);
    }
}
