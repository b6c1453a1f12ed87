//! Movies a script plays or records (`movie.play`, `movie.record`): FCEUX's .fm2 files through
//! the movie crate, from power-on, their input taken or logged at the scripts' input latch.

use crate::state::{HostFiles, MovieMode, MovieStatus};
use ::movie::{Frame, Movie};
use nes::Console;
use std::path::PathBuf;

pub struct ScriptMovie {
    pub path: PathBuf,
    pub movie: Movie,
    pub recording: bool,
    /// `movie.play`'s pause frame: emulation pauses when playback reaches it.
    pub pause_at: Option<u64>,
}

impl ScriptMovie {
    /// At the input latch of the frame the console is about to run, with the pads the user
    /// and the scripts chose: a recording logs them (dropping what it held from this frame on,
    /// so that input after a `savestate.load` rerecords); playback applies the movie's line
    /// instead. Returns the pads the game gets.
    pub fn latch(&mut self, console: &mut Console, pads: [u8; 2]) -> [u8; 2] {
        let frame = console.frame_number() as usize;
        if self.recording {
            let line = Frame {
                commands: 0,
                pads: [pads[0], pads[1], 0, 0],
            };
            self.movie.frames.truncate(frame);
            self.movie.frames.resize(frame + 1, line);
            return pads;
        }
        match self.movie.frames.get(frame) {
            Some(line) => {
                line.apply(console);
                [line.pads[0], line.pads[1]]
            }
            None => pads,
        }
    }

    /// What `movie.*` reports with the console at `frame`.
    pub fn status(&self, frame: u64) -> MovieStatus {
        let length = self.movie.frames.len();
        let mode = if self.recording {
            MovieMode::Record
        } else if frame < length as u64 {
            MovieMode::Playback
        } else {
            MovieMode::Finished
        };
        MovieStatus {
            mode,
            name: self.path.display().to_string(),
            length: length as u32,
            rerecords: self.movie.rerecord_count.max(0) as u32,
        }
    }

    /// Ends the movie; a recording is written to its file.
    pub fn finish(self, files: Option<&HostFiles>) -> Result<(), String> {
        if !self.recording {
            return Ok(());
        }
        let write = files.map(|f| f.write).ok_or("the host writes no files")?;
        write(&self.path, self.movie.to_fm2().as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}
