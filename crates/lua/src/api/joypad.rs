//! `joypad` (one-frame overrides with FCEUX's nil/false/true/invert meanings), `input`, `zapper`.

use super::{add, int};
use crate::state::{shared, state, PadOverride};
use mlua::{Lua, Result, Table, Value};

/// Button names in `nes::Buttons` bit order.
const BUTTONS: [&str; 8] = ["A", "B", "select", "start", "up", "down", "left", "right"];

fn port(which: f64) -> Result<usize> {
    match int(which) {
        n @ 1..=4 => Ok(n as usize - 1),
        n => Err(mlua::Error::runtime(format!(
            "Invalid input port (valid range 1-4, specified {n})"
        ))),
    }
}

/// The buttons the game got for the last latched frame (ports 3-4 are not connected).
fn latched(lua: &Lua, which: f64) -> Result<u8> {
    let p = port(which)?;
    Ok(shared(lua, |s| s.pads.get(p).copied().unwrap_or(0)))
}

/// A table of buttons; `keep` selects which ones appear (pressed, released or all).
fn buttons(lua: &Lua, pad: u8, keep: impl Fn(bool) -> bool) -> Result<Table> {
    let t = lua.create_table()?;
    for (bit, name) in BUTTONS.iter().enumerate() {
        let down = pad & (1 << bit) != 0;
        if keep(down) {
            t.set(*name, down)?;
        }
    }
    Ok(t)
}

pub fn install(lua: &Lua, joypad: &Table, input: &Table, zapper: &Table) -> Result<()> {
    add(lua, joypad, &["get", "read"], |lua, which: f64| {
        buttons(lua, latched(lua, which)?, |_| true)
    })?;
    add(lua, joypad, &["getdown", "readdown"], |lua, which: f64| {
        buttons(lua, latched(lua, which)?, |down| down)
    })?;
    add(lua, joypad, &["getup", "readup"], |lua, which: f64| {
        buttons(lua, latched(lua, which)?, |down| !down)
    })?;
    add(
        lua,
        joypad,
        &["getimmediate", "readimmediate"],
        |lua, which: f64| {
            let p = port(which)?;
            buttons(
                lua,
                shared(lua, |s| s.physical.get(p).copied().unwrap_or(0)),
                |_| true,
            )
        },
    )?;
    add(
        lua,
        joypad,
        &["set", "write"],
        |lua, (which, t): (f64, Table)| {
            let p = port(which)?;
            let mut o = PadOverride::PASS;
            for (bit, name) in BUTTONS.iter().enumerate() {
                let mask = 1u8 << bit;
                match t.get::<Value>(*name)? {
                    Value::Nil => {}
                    // FCEUX tests "is string", which numbers pass too: invert the user's button.
                    Value::String(_) | Value::Number(_) | Value::Integer(_) => {
                        o.keep &= !mask;
                        o.set |= mask;
                    }
                    Value::Boolean(false) => {
                        o.keep &= !mask;
                        o.set &= !mask;
                    }
                    _ => {
                        o.keep |= mask;
                        o.set |= mask;
                    }
                }
            }
            state(lua, |s| s.pads[p] = o);
            Ok(())
        },
    )?;

    add(lua, input, &["get", "read"], |lua, ()| {
        let (keys, (x, y)) = shared(lua, |s| (s.input.keys.clone(), s.input.mouse));
        let t = lua.create_table()?;
        t.set("xmouse", x)?;
        t.set("ymouse", y)?;
        let click = ["leftclick", "rightclick", "middleclick"]
            .iter()
            .enumerate()
            .filter(|(_, k)| keys.contains(**k))
            .fold(0, |acc, (i, _)| acc | 1 << i);
        t.set("click", click)?;
        for key in keys {
            t.set(key, true)?;
        }
        Ok(t)
    })?;
    add(lua, input, &["popup"], |_, _: mlua::MultiValue| Ok("yes"))?;

    add(lua, zapper, &["read"], |lua, ()| {
        let (keys, (x, y)) = shared(lua, |s| (s.input.keys.clone(), s.input.mouse));
        let t = lua.create_table()?;
        t.set("x", x)?;
        t.set("y", y)?;
        t.set("fire", u8::from(keys.contains("leftclick")))?;
        Ok(t)
    })?;
    add(lua, zapper, &["set"], |_, _: Table| Ok(()))?;
    Ok(())
}
