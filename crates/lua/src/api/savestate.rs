//! `savestate`: snapshots of the whole machine, anonymous, numbered (the host's slot files,
//! the window's F-key slots) or named by a file path. `persist` writes numbered and named states
//! in the machine's save-state format; creating a numbered or named object reads its file.

use super::{add, emu, int, number, register_slot, report};
use crate::script::{LOAD, SAVE};
use crate::state::{machine, shared, Snapshot};
use mlua::{AnyUserData, Lua, Result, Table, UserData, Value};
use std::path::PathBuf;

/// Where a savestate object persists.
#[derive(Clone)]
enum Target {
    /// In memory only (FCEUX's temporary file is deleted with the object).
    Anonymous,
    /// FCEUX's slot 0-9.
    Slot(u32),
    File(PathBuf),
}

/// A savestate object ("FCEU Savestate" userdata in FCEUX).
struct Savestate {
    target: Target,
    snap: Option<Snapshot>,
}

impl UserData for Savestate {}

/// The target's file; a slot without a host directory is reported.
fn path(lua: &Lua, target: &Target) -> Option<PathBuf> {
    match target {
        Target::Anonymous => None,
        Target::File(path) => Some(path.clone()),
        Target::Slot(slot) => {
            let path = shared(lua, |s| s.files.as_ref().and_then(|f| (f.slot)(*slot)));
            if path.is_none() {
                report(
                    lua,
                    &format!("savestate: no directory for slot {slot} files"),
                );
            }
            path
        }
    }
}

/// The state in the target's file, if there is one; a file that cannot be read or loaded is
/// reported and left alone.
fn read(lua: &Lua, target: &Target) -> Option<Snapshot> {
    let path = path(lua, target)?;
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            report(
                lua,
                &format!("savestate: cannot read {}: {e}", path.display()),
            );
            return None;
        }
    };
    let loaded = machine(|c| {
        let mut console = Box::new(c.clone());
        console.load_state(&bytes).map(|()| console)
    })?;
    match loaded {
        Ok(console) => Some(Snapshot {
            console,
            counters: None,
        }),
        Err(e) => {
            report(lua, &format!("savestate: {}: {e}", path.display()));
            None
        }
    }
}

fn object(lua: &Lua, target: Target) -> Result<AnyUserData> {
    let snap = read(lua, &target);
    lua.create_userdata(Savestate { target, snap })
}

fn invalid_slot() -> mlua::Error {
    mlua::Error::runtime("attempted to create savestate object with invalid slot")
}

pub fn install(lua: &Lua, t: &Table) -> Result<()> {
    add(lua, t, &["create"], |lua, which: Value| {
        let target = match which {
            Value::Nil => Target::Anonymous,
            // create(n) uses slot n-1.
            Value::Integer(_) | Value::Number(_) => match number(&which).map_or(0, int) {
                n @ 1..=10 => Target::Slot(n as u32 - 1),
                _ => return Err(invalid_slot()),
            },
            Value::String(path) => {
                let path = path.to_string_lossy();
                crate::sandbox::check(lua, "savestate.create", &path)?;
                Target::File(PathBuf::from(path))
            }
            other => {
                return Err(super::type_error(
                    lua,
                    1,
                    "create",
                    "number or string",
                    Some(&other),
                ))
            }
        };
        object(lua, target)
    })?;
    add(lua, t, &["object"], |lua, which: Option<f64>| {
        let target = match which.map(int) {
            None => Target::Anonymous,
            // object(n) uses slot n % 10.
            Some(n @ 1..=10) => Target::Slot(n as u32 % 10),
            Some(_) => return Err(invalid_slot()),
        };
        object(lua, target)
    })?;
    add(lua, t, &["save"], |lua, ud: AnyUserData| {
        if let Some(snap) = emu::snapshot(lua) {
            ud.borrow_mut::<Savestate>()?.snap = Some(snap);
        }
        Ok(())
    })?;
    add(lua, t, &["load"], |lua, ud: AnyUserData| {
        let snap = ud.borrow::<Savestate>()?.snap.clone();
        if let Some(snap) = snap {
            emu::restore(lua, &snap);
            shared(lua, |s| {
                let counting = s.rerecord_counting;
                if let Some(m) = s
                    .script_movie
                    .as_mut()
                    .filter(|m| m.recording() && counting)
                {
                    m.movie.rerecord_count += 1;
                }
            });
        }
        Ok(())
    })?;
    add(lua, t, &["persist"], |lua, ud: AnyUserData| {
        let (target, snap) = {
            let state = ud.borrow::<Savestate>()?;
            (state.target.clone(), state.snap.clone())
        };
        let (Some(snap), Some(path)) = (snap, path(lua, &target)) else {
            return Ok(());
        };
        let bytes = snap.console.save_state();
        let write = shared(lua, |s| s.files.as_ref().map(|f| f.write));
        let written = match write {
            Some(write) => write(&path, &bytes).map_err(|e| e.to_string()),
            None => Err("the host writes no files".into()),
        };
        if let Err(e) = written {
            report(
                lua,
                &format!("savestate.persist: cannot write {}: {e}", path.display()),
            );
        }
        Ok(())
    })?;
    // Called when the user saves or loads a numbered slot (`Scripts::user_saved`/`user_loaded`),
    // not by the script's own savestate calls.
    add(lua, t, &["registersave"], |lua, f: Value| {
        register_slot(lua, "registersave", SAVE, f)
    })?;
    add(lua, t, &["registerload"], |lua, f: Value| {
        register_slot(lua, "registerload", LOAD, f)
    })?;
    add(lua, t, &["loadscriptdata"], |_, _: Value| Ok(()))?;
    Ok(())
}
