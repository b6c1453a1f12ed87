//! `movie`: the movie nestor plays or records (`nestor run --movie/--record`), or one a script
//! started with `movie.play`/`movie.record` (see `crate::fm2`).

use super::{add, int, report};
use crate::fm2::ScriptMovie;
use crate::state::{machine, shared, MovieMode, MovieStatus};
use ::movie::Movie;
use mlua::{Lua, Result, Table, Value};
use std::path::{Path, PathBuf};

/// The script's movie if one runs, else the host's.
fn status(lua: &Lua) -> Option<MovieStatus> {
    shared(lua, |s| match &s.script_movie {
        Some(m) => Some(m.status()),
        None => s.movie.clone(),
    })
}

/// The movie, or FCEUX's error when there is none.
fn loaded(lua: &Lua) -> Result<MovieStatus> {
    status(lua).ok_or_else(|| mlua::Error::runtime("No movie loaded."))
}

fn mode(lua: &Lua) -> Option<MovieMode> {
    status(lua).map(|m| m.mode)
}

/// Starts a script's movie (ending the one before): movies run from power-on (with the RAM
/// the movie asks for), so the machine and FCEUX's counters start afresh. False without a
/// machine.
fn start(lua: &Lua, movie: ScriptMovie) -> bool {
    shared(lua, |s| s.stop_movie());
    let ram = movie.movie.power_on_ram();
    if machine(|c| c.power_cycle_with(ram)).is_none() {
        return false;
    }
    shared(lua, |s| {
        s.framecount = 0;
        s.dead_frames = ::movie::DEAD_FRAMES as u32;
        s.lagcount = 0;
        s.lagged = false;
        if movie.recording() {
            s.readonly = false;
        }
        s.script_movie = Some(movie);
    });
    true
}

/// A movie file to play: a movie of two gamepads.
fn read_movie(path: &Path) -> std::result::Result<Movie, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let movie = Movie::parse(&text).map_err(|e| e.to_string())?;
    if movie.fourscore {
        return Err("Four Score movies are not supported".into());
    }
    Ok(movie)
}

/// The movie's read-only toggle, which `emu` and `movie` both expose: FCEUX's, on from the
/// start, set by `movie.play`, off when a recording starts; setting it shows FCEUX's message.
pub fn add_readonly(lua: &Lua, t: &Table, getter: &[&'static str]) -> Result<()> {
    add(lua, t, getter, |lua, ()| Ok(shared(lua, |s| s.readonly)))?;
    add(lua, t, &["setreadonly"], |lua, on: Value| {
        let on = !matches!(on, Value::Nil | Value::Boolean(false));
        shared(lua, |s| {
            let now = if s.readonly == on { "" } else { "now " };
            let mode = if on { "Read-Only" } else { "Read+Write" };
            s.messages.push(format!("Movie is {now}{mode}."));
            s.readonly = on;
        });
        Ok(())
    })
}

pub fn install(lua: &Lua, t: &Table) -> Result<()> {
    add(lua, t, &["mode"], |lua, ()| {
        Ok(mode(lua).map(|m| match m {
            MovieMode::Record => "record",
            MovieMode::Playback => "playback",
            MovieMode::Finished => "finished",
        }))
    })?;
    // Every movie counts as active; FCEUX counts a finished one as playing. Movies start from
    // power-on, never from a savestate.
    add(lua, t, &["active", "ispoweron"], |lua, ()| {
        Ok(mode(lua).is_some())
    })?;
    add(lua, t, &["playing"], |lua, ()| {
        Ok(mode(lua).is_some_and(|m| m != MovieMode::Record))
    })?;
    add(lua, t, &["recording"], |lua, ()| {
        Ok(mode(lua) == Some(MovieMode::Record))
    })?;
    add(lua, t, &["isfromsavestate"], |_, ()| Ok(false))?;
    // FCEUX's one frame counter (a movie starts at power-on, so its frames are the same).
    add(lua, t, &["framecount"], |lua, ()| {
        Ok(shared(lua, |s| s.framecount))
    })?;
    add(lua, t, &["length"], |lua, ()| Ok(loaded(lua)?.length))?;
    add(lua, t, &["rerecordcount"], |lua, ()| {
        Ok(loaded(lua)?.rerecords)
    })?;
    add(lua, t, &["name", "getname", "filename"], |lua, ()| {
        Ok(loaded(lua)?.name)
    })?;
    add_readonly(lua, t, &["readonly", "getreadonly"])?;
    add(lua, t, &["rerecordcounting"], |lua, on: Value| {
        if on.is_nil() {
            return Err(super::type_error(
                lua,
                1,
                "rerecordcounting",
                "boolean",
                None,
            ));
        }
        shared(lua, |s| {
            s.rerecord_counting = !matches!(on, Value::Boolean(false))
        });
        Ok(())
    })?;
    add(
        lua,
        t,
        &["play", "playback", "load"],
        |lua, (file, read_only, pause): (String, Option<bool>, Option<f64>)| {
            crate::sandbox::check(lua, "movie.play", &file)?;
            let path = PathBuf::from(file);
            let movie = match read_movie(&path) {
                Ok(movie) => movie,
                Err(e) => {
                    report(lua, &format!("movie.play: {}: {e}", path.display()));
                    return Ok(false);
                }
            };
            let checksum = machine(|c| ::movie::rom_checksum(c.cartridge()));
            if checksum.is_some_and(|c| c != movie.rom_checksum) {
                report(
                    lua,
                    &format!(
                        "movie.play: {} was recorded on a ROM with another MD5; playing it anyway",
                        path.display()
                    ),
                );
            }
            let pause_at = pause.map(int).filter(|&f| f > 0).map(|f| f as u32);
            let started = start(lua, ScriptMovie::play(path, movie, pause_at));
            if started {
                shared(lua, |s| s.readonly = read_only.unwrap_or(false));
            }
            Ok(started)
        },
    )?;
    add(
        lua,
        t,
        &["record", "save"],
        |lua, (file, save_type, author): (String, Option<f64>, Option<String>)| {
            crate::sandbox::check(lua, "movie.record", &file)?;
            if save_type.map_or(0, int) != 0 {
                return Err(mlua::Error::runtime(
                    "movie.record: only movies from power-on (save_type 0) are supported",
                ));
            }
            let Some(checksum) = machine(|c| ::movie::rom_checksum(c.cartridge())) else {
                return Ok(false);
            };
            if machine(|c| c.cartridge().game_genie().len()).unwrap_or(0) > 0 {
                return Err(mlua::Error::runtime(
                    "movie.record: Game Genie codes are in, and a movie cannot hold them \
                     (emu.delgamegenie takes them out)",
                ));
            }
            if shared(lua, |s| s.ram_cheats) {
                return Err(mlua::Error::runtime(
                    "movie.record: RAM cheats are on in nestor (Tools > Cheats), and a movie \
                     cannot hold them",
                ));
            }
            let rom_name = shared(lua, |s| s.rom_name.clone());
            let rom_name = Path::new(&rom_name)
                .file_stem()
                .map_or(rom_name.clone(), |s| s.to_string_lossy().into_owned());
            let mut movie = Movie::recording(&rom_name, checksum);
            if let Some(author) = author.filter(|a| !a.is_empty()) {
                movie
                    .extra
                    .push(("comment".into(), format!("author {author}")));
            }
            Ok(start(lua, ScriptMovie::record(PathBuf::from(file), movie)))
        },
    )?;
    add(lua, t, &["stop", "close"], |lua, ()| {
        if shared(lua, |s| s.stop_movie()) {
            Ok(())
        } else if shared(lua, |s| s.movie.is_some()) {
            Err(mlua::Error::runtime(
                "movie.stop: the movie nestor was started with (--movie, --record) runs to the end",
            ))
        } else {
            Err(mlua::Error::runtime("no movie"))
        }
    })?;
    // Playback from the start, read-only, of a movie a script plays (no error without one).
    add(lua, t, &["replay", "playbeginning"], |lua, ()| {
        let playing = shared(lua, |s| {
            s.script_movie.as_ref().is_some_and(|m| !m.recording())
        });
        if playing {
            if let Some(movie) = shared(lua, |s| s.script_movie.take()) {
                start(lua, movie);
                shared(lua, |s| s.readonly = true);
            }
        }
        Ok(())
    })?;
    Ok(())
}
