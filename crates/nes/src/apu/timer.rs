//! The channels' timers: dividers that count down once per clock and, on the clock that finds
//! them at 0, reload and clock their channel's sequencer ("expire").
//!
//! The APU runs a timer one clock at a time only on cycles where its channel's output may
//! change; in between, [`run`] jumps it over many clocks at once.

/// Runs `timer` (reloading with `reload`) for `clocks` clocks; returns how often it expired.
pub fn run(timer: &mut u16, reload: u16, clocks: u64) -> u64 {
    let now = u64::from(*timer);
    if clocks <= now {
        *timer = (now - clocks) as u16;
        return 0;
    }
    let after_first = clocks - now - 1;
    let span = u64::from(reload) + 1;
    *timer = (u64::from(reload) - after_first % span) as u16;
    1 + after_first / span
}

/// Clocks until `timer` next expires, that clock included.
pub fn clocks_to_expiry(timer: u16) -> u64 {
    u64::from(timer) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One clock as the channels' `step_timer` count it.
    fn clock(timer: &mut u16, reload: u16) -> bool {
        if *timer == 0 {
            *timer = reload;
            true
        } else {
            *timer -= 1;
            false
        }
    }

    #[test]
    fn run_matches_clocking_one_at_a_time() {
        for reload in [0, 1, 2, 7, 300] {
            for start in [0, 1, 5, 299, 1000] {
                for clocks in 0..700 {
                    let (mut stepped, mut jumped) = (start, start);
                    let expiries = (0..clocks).filter(|_| clock(&mut stepped, reload)).count();
                    assert_eq!(run(&mut jumped, reload, clocks), expiries as u64);
                    assert_eq!(
                        jumped, stepped,
                        "reload {reload} start {start} clocks {clocks}"
                    );
                }
            }
        }
    }

    #[test]
    fn expiry_comes_on_the_counted_clock() {
        for (start, reload) in [(0, 5), (3, 5), (9, 0)] {
            let mut timer = start;
            let clocks = clocks_to_expiry(timer);
            assert_eq!(run(&mut timer, reload, clocks - 1), 0);
            assert!(clock(&mut timer, reload));
        }
    }
}
