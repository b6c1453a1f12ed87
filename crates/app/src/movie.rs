//! `nestor run --movie FILE.fm2` plays an FCEUX movie back; `--record FILE.fm2` records the
//! run's controller input (from --input, Lua or the AI) as one. Both run in FCEUX's frames
//! (see the movie crate): one input line per frame, its input latched before the frame runs.
//!
//! A movie for a ROM of another checksum, or one whose frames run out before the run ends,
//! is reported on stderr as a desync and the run ends with exit code 3 (the game goes on to
//! the end of the run, with no buttons pressed once the movie is over).

use ::movie::{Movie, Recorder};
use anyhow::{bail, Context};
use nes::Console;
use std::path::{Path, PathBuf};

/// Exit code of a run whose movie desynchronised.
pub const DESYNC: u8 = 3;

#[derive(clap::Args)]
pub struct Args {
    /// Play this FCEUX movie (.fm2) back; runs its length unless --frames is given (headless).
    #[arg(long, value_name = "FILE", requires = "headless", conflicts_with_all = ["input", "ai", "record"])]
    movie: Option<PathBuf>,
    /// Record the run's controller input as an FCEUX movie (.fm2), written at the end (headless).
    #[arg(long, value_name = "FILE", requires = "headless")]
    record: Option<PathBuf>,
}

/// The movie being played and the one being recorded, if any.
pub struct Movies {
    playing: Option<Playing>,
    recording: Option<Recording>,
    desync: bool,
}

struct Playing {
    movie: Movie,
    path: PathBuf,
}

struct Recording {
    recorder: Recorder,
    movie: Movie,
    path: PathBuf,
}

impl Movies {
    /// Reads the movie to play (reporting a ROM checksum mismatch) and prepares the recording.
    pub fn open(args: &Args, rom: Option<&Path>, console: &Console) -> anyhow::Result<Movies> {
        let checksum = ::movie::rom_checksum(&console.bus.cart);
        let mut movies = Movies {
            playing: None,
            recording: None,
            desync: false,
        };
        if let Some(path) = &args.movie {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let movie = Movie::parse(&text).with_context(|| path.display().to_string())?;
            if movie.fourscore {
                bail!("{}: Four Score movies are not supported", path.display());
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
                movie,
                path: path.clone(),
            });
        }
        if let Some(path) = &args.record {
            let name = rom
                .and_then(Path::file_stem)
                .map_or("quadfall".into(), |s| s.to_string_lossy().into_owned());
            let mut movie = Movie::recording(&name, checksum);
            movie.extra.push((
                "comment".into(),
                format!("recorded by nestor {}", env!("CARGO_PKG_VERSION")),
            ));
            movies.recording = Some(Recording {
                recorder: Recorder::default(),
                movie,
                path: path.clone(),
            });
        }
        Ok(movies)
    }

    /// Frames a headless run takes unless --frames says: the movie's length.
    pub fn length(&self) -> Option<u64> {
        self.playing.as_ref().map(|p| p.movie.frames.len() as u64)
    }

    /// What Lua's `movie.*` functions report while `frame` runs (a movie being played first).
    pub fn status(&self, frame: u64) -> Option<lua::MovieStatus> {
        let (mode, path, movie, length) = match (&self.playing, &self.recording) {
            (Some(p), _) => {
                let length = p.movie.frames.len();
                let mode = if frame < length as u64 {
                    lua::MovieMode::Playback
                } else {
                    lua::MovieMode::Finished
                };
                (mode, &p.path, &p.movie, length)
            }
            (None, Some(r)) => (
                lua::MovieMode::Record,
                &r.path,
                &r.movie,
                r.recorder.frames(),
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

    /// Whether runs go frame by frame in FCEUX's frames (rather than the PPU's, from line 0).
    pub fn active(&self) -> bool {
        self.playing.is_some() || self.recording.is_some()
    }

    /// At the start of `frame`: applies the movie's commands and returns its pads; once the
    /// movie has run out, reports it and lets go of the buttons.
    pub fn play(&mut self, frame: u64, console: &mut Console) -> Option<[u8; 2]> {
        let playing = self.playing.as_ref()?;
        let Some(line) = playing.movie.frames.get(frame as usize).copied() else {
            if frame == playing.movie.frames.len() as u64 {
                let message = format!(
                    "{}: the movie's {frame} frames ran out; the game goes on with no input",
                    playing.path.display()
                );
                self.report_desync(message);
            }
            return Some([0, 0]);
        };
        line.apply(console);
        Some([line.pads[0], line.pads[1]])
    }

    /// After setting the pads for a frame about to run, or after an AI step (see `Recorder`).
    pub fn log_started(&mut self, console: &Console) {
        if let Some(r) = &mut self.recording {
            r.recorder.log_started(console);
        }
    }

    /// After a Lua frame.
    pub fn log_ended(&mut self, console: &Console) {
        if let Some(r) = &mut self.recording {
            r.recorder.log_ended(console);
        }
    }

    /// Writes the recording; returns the exit code a desync calls for.
    pub fn finish(self, quiet: bool) -> anyhow::Result<Option<u8>> {
        if let Some(r) = self.recording {
            let frames = r.recorder.frames();
            let movie = r.recorder.finish(r.movie);
            desktop::files::write_atomic(&r.path, movie.to_fm2().as_bytes())
                .with_context(|| format!("cannot write {}", r.path.display()))?;
            if !quiet {
                println!("movie: {} ({frames} frames)", r.path.display());
            }
        }
        Ok(self.desync.then_some(DESYNC))
    }

    fn report_desync(&mut self, message: String) {
        eprintln!("nestor: desync: {message}");
        self.desync = true;
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
