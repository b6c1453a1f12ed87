//! `savestate`: in-memory snapshots of the whole machine, anonymous, numbered or named.
//! Persisted states live for the session (the machine has no file format yet).

use super::{add, emu, int, number, register_slot};
use crate::state::{shared, Snapshot};
use mlua::{AnyUserData, Lua, Result, Table, UserData, Value};

/// A savestate object ("FCEU Savestate" userdata in FCEUX).
struct Savestate {
    /// Slot or file name for `persist`; None for anonymous objects.
    key: Option<String>,
    snap: Option<Snapshot>,
}

impl UserData for Savestate {}

fn slot_key(slot: i64) -> String {
    format!("slot {slot}")
}

fn object(lua: &Lua, key: Option<String>) -> Result<AnyUserData> {
    let snap = key
        .as_ref()
        .and_then(|k| shared(lua, |s| s.persisted.get(k).cloned()));
    lua.create_userdata(Savestate { key, snap })
}

pub fn install(lua: &Lua, t: &Table) -> Result<()> {
    add(lua, t, &["create"], |lua, which: Value| {
        let key = match which {
            Value::Nil => None,
            // create(n) uses slot n-1.
            Value::Integer(_) | Value::Number(_) => {
                let n = number(&which).map_or(0, int);
                if !(1..=10).contains(&n) {
                    return Err(mlua::Error::runtime(
                        "attempted to create savestate object with invalid slot",
                    ));
                }
                Some(slot_key(n - 1))
            }
            Value::String(path) => Some(path.to_string_lossy()),
            other => {
                return Err(mlua::Error::runtime(format!(
                    "bad argument #1 to 'create' (number or string expected, got {})",
                    other.type_name()
                )))
            }
        };
        object(lua, key)
    })?;
    add(lua, t, &["object"], |lua, which: Option<f64>| {
        let key = match which.map(int) {
            None => None,
            // object(n) uses slot n % 10.
            Some(n @ 1..=10) => Some(slot_key(n % 10)),
            Some(_) => {
                return Err(mlua::Error::runtime(
                    "attempted to create savestate object with invalid slot",
                ))
            }
        };
        object(lua, key)
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
        }
        Ok(())
    })?;
    add(lua, t, &["persist"], |lua, ud: AnyUserData| {
        let state = ud.borrow::<Savestate>()?;
        if let (Some(key), Some(snap)) = (&state.key, &state.snap) {
            shared(lua, |s| s.persisted.insert(key.clone(), snap.clone()));
        }
        Ok(())
    })?;
    // Called only when the user saves or loads a slot from the front end, which has no slots.
    add(lua, t, &["registersave"], |lua, f: Value| {
        register_slot(lua, "nestor.registersave", f)
    })?;
    add(lua, t, &["registerload"], |lua, f: Value| {
        register_slot(lua, "nestor.registerload", f)
    })?;
    add(lua, t, &["loadscriptdata"], |_, _: Value| Ok(()))?;
    Ok(())
}
