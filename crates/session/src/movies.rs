//! FCEUX movies in a session: one being played back (its input replaces the user's), one being
//! recorded (what the game latched each frame, whatever source pressed it, and the resets and
//! power cycles). One movie line is one host frame (`Console::run_frame`), but for the two dead
//! frames FCEUX runs after power-on and each reset (see the `movie` crate): the session's frames
//! are the host's, a movie's lines FCEUX's.
//!
//! A movie for a ROM of another checksum, or one whose frames run out before the run ends, is a
//! desync: reported in one line (stderr, and the window's title), and the game goes on, with no
//! buttons pressed once the movie is over.

use crate::files;
use anyhow::{bail, Context};
use movie::{Frame, Movie, Playback, Recorder};
use nes::Console;
use std::path::{Path, PathBuf};

/// Exit code of a headless run whose movie desynchronised.
pub const DESYNC: u8 = 3;

/// A recording is written this often (in frames) while it goes on, so that a crash loses at
/// most this much of it.
const CHECKPOINT_FRAMES: usize = 600;

/// The movie being played and the one being recorded, if any.
#[derive(Default)]
pub struct Movies {
    playing: Option<Playing>,
    recording: Option<Recording>,
    desync: bool,
    /// Desync reports not yet shown by the front end.
    messages: Vec<String>,
}

struct Playing {
    movie: Movie,
    playback: Playback,
    path: PathBuf,
}

struct Recording {
    recorder: Recorder,
    movie: Movie,
    path: PathBuf,
    /// A checkpoint could not be written (reported once).
    failed: bool,
}

impl Recording {
    fn write(&self) -> anyhow::Result<()> {
        let movie = self.recorder.movie(&self.movie);
        files::write_atomic(&self.path, movie.to_fm2().as_bytes())
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

impl Movies {
    /// Reads the movie to `play` (a ROM checksum mismatch is a desync) and prepares the one to
    /// `record`, named after `rom_stem`.
    pub fn open(
        play: Option<&Path>,
        record: Option<&Path>,
        rom_stem: &str,
        console: &Console,
    ) -> anyhow::Result<Movies> {
        let checksum = movie::rom_checksum(console.cartridge());
        let mut movies = Movies::default();
        if let Some(path) = play {
            let bytes =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            let text = String::from_utf8(bytes).map_err(|e| {
                let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
                let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
                anyhow::anyhow!("{}: line {line}: not UTF-8 text", path.display())
            })?;
            let movie = Movie::parse(&text).with_context(|| path.display().to_string())?;
            let four_score = console.port(0).device() == nes::Device::FourScore;
            if movie.fourscore && !four_score {
                bail!(
                    "{}: a Four Score movie (players 3 and 4); `--four-score` plays it",
                    path.display()
                );
            }
            // FCEUX's palFlag tells PAL from the rest (its Dendy movies say 0).
            let pal = console.region() == nes::Region::Pal;
            if movie.pal != pal {
                let (made, key) = if movie.pal {
                    ("a PAL movie (palFlag 1)", "pal")
                } else {
                    ("an NTSC movie (palFlag 0)", "ntsc")
                };
                bail!(
                    "{}: {made}, and this console is {}; `--region {key}` plays it",
                    path.display(),
                    console.region()
                );
            }
            if movie.rom_checksum != checksum {
                movies.report_desync(format!(
                    "{} was recorded on a ROM with MD5 {}, this ROM's is {} ({})",
                    path.display(),
                    hex(&movie.rom_checksum),
                    hex(&checksum),
                    movie.rom_filename
                ));
            }
            movies.playing = Some(Playing {
                playback: Playback::new(&movie),
                movie,
                path: path.to_path_buf(),
            });
        }
        if let Some(path) = record {
            let mut movie = Movie::recording(rom_stem, checksum);
            movie.pal = console.region() == nes::Region::Pal;
            movie.fourscore = console.port(0).device() == nes::Device::FourScore;
            movie.extra.push((
                "comment".into(),
                format!("{} {}", movie::NESTOR_COMMENT, env!("CARGO_PKG_VERSION")),
            ));
            movies.recording = Some(Recording {
                recorder: Recorder::default(),
                movie,
                path: path.to_path_buf(),
                failed: false,
            });
        }
        Ok(movies)
    }

    /// A movie is being played or recorded: its frames must run forwards, one after another.
    pub fn active(&self) -> bool {
        self.playing.is_some() || self.recording.is_some()
    }

    /// The played movie's length in host frames.
    pub fn length(&self) -> Option<u64> {
        self.playing.as_ref().map(|p| p.playback.frames() as u64)
    }

    /// A movie is being recorded.
    pub fn recording(&self) -> bool {
        self.recording.is_some()
    }

    /// A movie is being played: its commands replace the user's.
    pub fn playing(&self) -> bool {
        self.playing.is_some()
    }

    /// What Lua's `movie.*` functions report while `frame` runs (a movie being played first).
    pub fn status(&self, frame: u64) -> Option<lua::MovieStatus> {
        let (mode, path, movie, length) = match (&self.playing, &self.recording) {
            (Some(p), _) => {
                let length = p.playback.frames();
                let mode = if frame < length as u64 {
                    lua::MovieMode::Playback
                } else {
                    lua::MovieMode::Finished
                };
                (mode, &p.path, &p.movie, p.movie.frames.len())
            }
            (None, Some(r)) => (
                lua::MovieMode::Record,
                &r.path,
                &r.movie,
                movie::fceux_frame_count(r.recorder.logged()),
            ),
            (None, None) => return None,
        };
        Some(lua::MovieStatus {
            mode,
            name: path.display().to_string(),
            length: length as u32,
            rerecords: movie.rerecord_count.max(0) as u32,
        })
    }

    /// At the start of `frame`: applies the played movie's commands (its first frame powers
    /// the machine on) and returns the frame as applied; once the movie has run out, reports it
    /// and lets go of the buttons.
    pub fn play(&mut self, frame: u64, console: &mut Console) -> Option<Frame> {
        let playing = self.playing.as_ref()?;
        let Some(line) = playing.playback.start_frame(frame as usize, console) else {
            if frame == playing.playback.frames() as u64 {
                let message = format!(
                    "{}: the movie's {frame} frames ran out; the game goes on with no input",
                    playing.path.display()
                );
                self.report_desync(message);
            }
            return Some(Frame::default());
        };
        Some(line)
    }

    /// After a frame: the recording logs the `commands` applied at its start and the pads it
    /// latched (and is written every [`CHECKPOINT_FRAMES`]).
    pub fn log(&mut self, console: &Console, commands: u8) {
        let Some(r) = &mut self.recording else {
            return;
        };
        r.recorder.log(console, commands);
        if r.recorder.frames() % CHECKPOINT_FRAMES == 0 && !r.failed {
            if let Err(err) = r.write() {
                r.failed = true;
                eprintln!("nestor: {err:#}");
            }
        }
    }

    /// Desync reports since the last call.
    pub fn take_messages(&mut self) -> Vec<String> {
        std::mem::take(&mut self.messages)
    }

    /// Writes the recording (once); returns the exit code a desync calls for.
    pub fn finish(&mut self, quiet: bool) -> anyhow::Result<Option<u8>> {
        if let Some(r) = self.recording.take() {
            r.write()?;
            if !quiet {
                println!(
                    "movie: {} ({} frames)",
                    r.path.display(),
                    r.recorder.frames()
                );
            }
        }
        Ok(self.desync.then_some(DESYNC))
    }

    /// Stops the movies before their end: the recording is written. Returns what was done, in
    /// one line for the front end (None when no movie went on).
    pub fn stop(mut self) -> anyhow::Result<Option<String>> {
        let played = self.playing.take().map(|p| p.path);
        let Some(r) = self.recording.take() else {
            return Ok(played.map(|path| format!("movie stopped: {}", path.display())));
        };
        r.write()?;
        let frames = r.recorder.frames();
        Ok(Some(format!(
            "movie saved: {} ({frames} frames)",
            r.path.display()
        )))
    }

    fn report_desync(&mut self, message: String) {
        eprintln!("nestor: desync: {message}");
        self.desync = true;
        self.messages.push(format!("desync: {message}"));
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
