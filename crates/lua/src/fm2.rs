//! Movies a script plays or records (`movie.play`, `movie.record`): FCEUX's .fm2 files through
//! the movie crate, from power-on, their input taken or logged at the scripts' input latch.
//! As with `nestor run --movie/--record`, the movie's lines are FCEUX's frames, with its dead
//! frames after power-on and resets, and the script movie steps through the host's frames
//! (see the movie crate).

use crate::state::{HostFiles, MovieMode, MovieStatus};
use ::movie::{Frame, Movie, Playback, POWER, SOFT_RESET};
use nes::Console;
use std::path::PathBuf;

pub struct ScriptMovie {
    pub path: PathBuf,
    /// The file's header and, when played, its lines.
    pub movie: Movie,
    log: Log,
    /// The host frame the console runs next, counted from the movie's power-on.
    pub frame: usize,
    /// Resets and power cycles a script asked for while recording: applied and logged at the
    /// next frame's start, where playing the movie applies them too.
    pub commands: u8,
    /// `movie.play`'s pause frame (one of FCEUX's frames): emulation pauses when playback
    /// reaches it.
    pub pause_at: Option<u32>,
}

enum Log {
    Playing(Playback),
    /// The host frames recorded so far.
    Recording(Vec<Frame>),
}

impl ScriptMovie {
    pub fn play(path: PathBuf, movie: Movie, pause_at: Option<u32>) -> ScriptMovie {
        ScriptMovie {
            path,
            log: Log::Playing(Playback::new(&movie)),
            movie,
            frame: 0,
            commands: 0,
            pause_at,
        }
    }

    pub fn record(path: PathBuf, movie: Movie) -> ScriptMovie {
        ScriptMovie {
            path,
            movie,
            log: Log::Recording(Vec::new()),
            frame: 0,
            commands: 0,
            pause_at: None,
        }
    }

    pub fn recording(&self) -> bool {
        matches!(self.log, Log::Recording(_))
    }

    /// At the input latch of the frame the console is about to run, with the pads the user
    /// and the scripts chose: a recording applies the commands asked for and logs them with
    /// the pads (dropping what it held from this frame on, so that input after a
    /// `savestate.load` rerecords); playback applies the movie's line instead. Returns the
    /// frame the game gets (its commands are those applied).
    pub fn latch(&mut self, console: &mut Console, pads: [u8; 2]) -> Frame {
        let frame = self.frame;
        self.frame += 1;
        let line = match &mut self.log {
            Log::Recording(frames) => {
                let line = Frame {
                    commands: std::mem::take(&mut self.commands) & (POWER | SOFT_RESET),
                    pads: [pads[0], pads[1], 0, 0],
                };
                line.apply(console);
                frames.truncate(frame);
                frames.resize(frame + 1, line);
                return line;
            }
            Log::Playing(playback) => playback.start_frame(frame, console),
        };
        line.unwrap_or(Frame {
            commands: 0,
            pads: [pads[0], pads[1], 0, 0],
        })
    }

    /// What `movie.*` reports: the length in FCEUX's frames (the file's lines).
    pub fn status(&self) -> MovieStatus {
        let (mode, length) = match &self.log {
            Log::Recording(frames) => (MovieMode::Record, ::movie::fceux_frame_count(frames)),
            Log::Playing(playback) if self.frame < playback.frames() => {
                (MovieMode::Playback, self.movie.frames.len())
            }
            Log::Playing(_) => (MovieMode::Finished, self.movie.frames.len()),
        };
        MovieStatus {
            mode,
            name: self.path.display().to_string(),
            length: length as u32,
            rerecords: self.movie.rerecord_count.max(0) as u32,
        }
    }

    /// Ends the movie; a recording is written to its file.
    pub fn finish(mut self, files: Option<&HostFiles>) -> Result<(), String> {
        let Log::Recording(frames) = &self.log else {
            return Ok(());
        };
        self.movie.set_host_frames(frames);
        let write = files.map(|f| f.write).ok_or("the host writes no files")?;
        write(&self.path, self.movie.to_fm2().as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()))
    }
}
