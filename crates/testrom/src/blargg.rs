//! blargg's newer test shell (also bisqwit's ROMs): a status byte at $6000 and console text
//! from $6004, valid once the signature $DE $B0 $61 is at $6001.

use crate::{read_text, Machine, Report, Verdict, HUNG_FRAMES};

const STATUS: u16 = 0x6000;
const SIGNATURE_AT: u16 = 0x6001;
const SIGNATURE: [u8; 3] = [0xDE, 0xB0, 0x61];
const TEXT: u16 = 0x6004;
const TEXT_END: u16 = 0x8000;

const RUNNING: u8 = 0x80;
const WANTS_RESET: u8 = 0x81;
/// The ROM asks for the reset button to be pressed at least 100 ms after it says so.
const RESET_DELAY_FRAMES: u64 = 6;

fn signed<M: Machine>(machine: &M) -> bool {
    (0..3).all(|i| machine.peek(SIGNATURE_AT + i) == SIGNATURE[usize::from(i)])
}

/// Runs until the status byte holds a result (0 = passed), pressing reset when asked.
pub fn run<M: Machine>(machine: &mut M, max_frames: u64) -> Report {
    let mut reset_asked_at = None;
    let mut looping = 0;
    for frame in 1..=max_frames {
        let span = machine.run_frame();
        looping = if span.is_tight_loop() { looping + 1 } else { 0 };
        let status = signed(machine).then(|| machine.peek(STATUS));
        if looping >= HUNG_FRAMES && status != Some(WANTS_RESET) {
            return Report {
                verdict: Verdict::TimedOut,
                message: format!(
                    "stuck in a loop at ${:04X} for {HUNG_FRAMES} frames; {}",
                    span.lo,
                    text_or_none(machine)
                ),
                frames: frame,
            };
        }
        let Some(status) = status else {
            continue;
        };
        match status {
            WANTS_RESET => {
                let asked_at = *reset_asked_at.get_or_insert(frame);
                if frame - asked_at >= RESET_DELAY_FRAMES {
                    machine.reset();
                    reset_asked_at = None;
                }
            }
            code @ 0..=0x7F => {
                let verdict = match code {
                    0 => Verdict::Passed,
                    code => Verdict::Failed { code },
                };
                return Report {
                    verdict,
                    message: read_text(machine, TEXT, TEXT_END),
                    frames: frame,
                };
            }
            RUNNING | 0x82..=0xFF => reset_asked_at = None,
        }
    }
    Report {
        verdict: Verdict::TimedOut,
        message: text_or_none(machine),
        frames: max_frames,
    }
}

fn text_or_none<M: Machine>(machine: &M) -> String {
    if signed(machine) {
        read_text(machine, TEXT, TEXT_END)
    } else {
        "no $6000 signature seen".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake::FakeMachine;

    fn sign(m: &mut FakeMachine, status: u8) {
        m.mem[0x6000] = status;
        m.mem[0x6001..0x6004].copy_from_slice(&SIGNATURE);
    }

    #[test]
    fn reads_status_only_after_signature() {
        // $6000 = 0 before the signature must not count as "passed".
        let mut m = FakeMachine::new(|m| {
            if m.frame == 10 {
                sign(m, RUNNING);
                m.write_str(TEXT, "01-basics\n");
            }
            if m.frame == 20 {
                sign(m, 0);
                m.write_str(TEXT, "01-basics\n\nPassed\n");
            }
        });
        let r = run(&mut m, 100);
        assert_eq!(r.verdict, Verdict::Passed);
        assert_eq!(r.message, "01-basics\n\nPassed");
        assert_eq!(r.frames, 20);
    }

    #[test]
    fn failure_code_and_text() {
        let mut m = FakeMachine::new(|m| {
            sign(m, 3);
            m.write_str(TEXT, "ROR abs\nFailed #3");
        });
        let r = run(&mut m, 100);
        assert_eq!(r.verdict, Verdict::Failed { code: 3 });
        assert_eq!(r.message, "ROR abs\nFailed #3");
    }

    #[test]
    fn presses_reset_six_frames_after_request() {
        // The ROM asks at frame 5, carries on after the reset, asks again at frame 30, then
        // passes right after the second reset.
        let mut m = FakeMachine::new(|m| {
            let just_reset = m.resets.last() == Some(&(m.frame - 1));
            match (m.resets.len(), m.frame) {
                (0, 5) | (1, 30) => sign(m, WANTS_RESET),
                (1, _) if just_reset => sign(m, RUNNING),
                (2, _) if just_reset => sign(m, 0),
                _ => {}
            }
        });
        let r = run(&mut m, 100);
        assert_eq!(m.resets, [11, 36]);
        assert_eq!(r.verdict, Verdict::Passed);
    }

    #[test]
    fn a_hung_rom_is_given_up_early() {
        let mut m = FakeMachine::new(|m| {
            sign(m, RUNNING);
            if m.frame > 100 {
                m.halt();
            }
        });
        let r = run(&mut m, 10_000);
        assert_eq!(r.verdict, Verdict::TimedOut);
        assert_eq!(r.frames, 100 + HUNG_FRAMES);
        assert!(
            r.message.starts_with("stuck in a loop at $C123"),
            "{}",
            r.message
        );
    }

    #[test]
    fn waiting_for_reset_is_not_a_hang() {
        let mut m = FakeMachine::new(|m| match m.resets.len() {
            0 => {
                sign(m, WANTS_RESET);
                m.halt();
            }
            _ => sign(m, 0),
        });
        assert_eq!(run(&mut m, 1000).verdict, Verdict::Passed);
    }

    #[test]
    fn times_out_without_signature() {
        let mut m = FakeMachine::new(|_| {});
        let r = run(&mut m, 50);
        assert_eq!(r.verdict, Verdict::TimedOut);
        assert_eq!(r.frames, 50);
    }
}
