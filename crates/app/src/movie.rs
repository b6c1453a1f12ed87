//! `nestor run --movie FILE.fm2` plays an FCEUX movie back; `--record FILE.fm2` records the
//! run's controller input (from the keyboard, --input, Lua or the AI) as one. One movie line is
//! one frame of the session (see `session::movies`); a desync ends a headless run with exit
//! code 3 and shows in the window's title.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Play this FCEUX movie (.fm2) back; headless runs its length unless --frames is given.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["input", "ai", "record"])]
    pub movie: Option<PathBuf>,
    /// Record the run's controller input as an FCEUX movie (.fm2), written at the end (headless).
    #[arg(long, value_name = "FILE", requires = "headless")]
    pub record: Option<PathBuf>,
}
