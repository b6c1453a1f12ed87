//! Ctrl-C, SIGTERM and SIGHUP end the frame loop cleanly, so that every way out writes the
//! battery RAM and the recording ([`crate::Session::finish`]). A second signal, for a loop that
//! does not come back to check, ends the process at once.

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

/// Exit status of a run ended by a signal (the shell's 128 + SIGINT).
pub const INTERRUPTED: u8 = 130;

/// Installs the handler (once per process).
pub fn catch() -> Result<(), String> {
    ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            std::process::exit(i32::from(INTERRUPTED));
        }
    })
    .map_err(|e| format!("cannot catch Ctrl-C and SIGTERM: {e}"))
}

/// A signal asked the program to end.
pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}
