//! The FCEUX tables. Each is an ordinary global table (scripts add their own functions to them)
//! and is also in `package.loaded`.

mod emu;
mod gui;
mod joypad;
mod memory;
mod misc;
mod movie;
mod savestate;
mod socket;
mod sound;

use crate::state::{shared, Stream};
use crate::{bitops, format};
use mlua::{FromLuaMulti, IntoLuaMulti, Lua, MultiValue, Result, Table, Value};
use std::path::Path;

/// The length of a `readbyterange` (negative: 0). Longer than the `space` it reads is a Lua
/// error rather than a string of that many bytes (a hostile length would exhaust memory).
pub fn range_len(len: f64, space: usize) -> Result<usize> {
    let len = int(len).max(0);
    match usize::try_from(len) {
        Ok(len) if len <= space => Ok(len),
        _ => Err(mlua::Error::runtime(format!(
            "bad argument #2 to 'readbyterange' (length {len} is longer than the {space} bytes it reads)"
        ))),
    }
}

/// FCEUX reads integers with `luaL_checkinteger`: fractions are truncated and the C code then
/// wraps; scripts pass `x/2`, 300 or -1 and expect no range errors.
pub fn int(x: f64) -> i64 {
    x as i64
}

/// A Lua number argument read as-is (no string coercion).
pub fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Number(n) => Some(*n),
        _ => None,
    }
}

pub fn addr(x: f64) -> u16 {
    int(x) as u16
}

/// Reports a problem on the error stream without stopping the script.
pub fn report(lua: &Lua, text: &str) {
    shared(lua, |s| s.print(Stream::Err, text));
}

/// Adds a function to `table` under each of `names`.
pub fn add<A, R>(
    lua: &Lua,
    table: &Table,
    names: &[&str],
    f: impl Fn(&Lua, A) -> Result<R> + 'static,
) -> Result<()>
where
    A: FromLuaMulti,
    R: IntoLuaMulti,
{
    let f = lua.create_function(f)?;
    for name in names {
        table.set(*name, f.clone())?;
    }
    Ok(())
}

/// Stores `f` (function or nil) in a registry slot and returns the previous one.
pub fn register_slot(lua: &Lua, slot: &str, f: Value) -> Result<Value> {
    if !matches!(f, Value::Nil | Value::Function(_)) {
        return Err(mlua::Error::runtime(format!(
            "bad argument #1 (function expected, got {})",
            f.type_name()
        )));
    }
    let previous: Value = lua.named_registry_value(slot)?;
    lua.set_named_registry_value(slot, f)?;
    Ok(previous)
}

pub fn install(lua: &Lua, dir: &Path) -> Result<()> {
    let globals = lua.globals();
    let loaded: Table = lua.load("return package.loaded").eval()?;
    let mut library = |name: &str| -> Result<Table> {
        let t = lua.create_table()?;
        globals.set(name, t.clone())?;
        loaded.set(name, t.clone())?;
        Ok(t)
    };

    let emu_table = library("emu")?;
    let fceu = library("FCEU")?;
    emu::install(lua, &emu_table)?;
    emu::install(lua, &fceu)?;
    memory::install(lua, &library("memory")?)?;
    joypad::install(
        lua,
        &library("joypad")?,
        &library("input")?,
        &library("zapper")?,
    )?;
    savestate::install(lua, &library("savestate")?)?;
    gui::install(lua, &library("gui")?)?;
    sound::install(lua, &library("sound")?)?;
    movie::install(lua, &library("movie")?)?;
    misc::install(lua, &globals, &mut library)?;
    crate::strlib::install(lua)?;
    socket::install(lua)?;
    let bit = bitops::install(lua, &globals)?;
    globals.set("bit", bit.clone())?;
    loaded.set("bit", bit)?;

    // Both call `__tostring` metamethods.
    let print = lua.create_function(|lua, args: MultiValue| {
        let values: Vec<Value> = args.into_iter().collect();
        let tostring: Value = lua.globals().get("tostring")?;
        let ours: Value = lua.named_registry_value("nestor.tostring")?;
        let text = if tostring == ours {
            format::join(&values)?
        } else {
            // The script replaced tostring: FCEUX's print then calls it.
            let tostring = match tostring {
                Value::Function(f) => f,
                other => {
                    return Err(mlua::Error::runtime(format!(
                        "'tostring' is a {}",
                        other.type_name()
                    )))
                }
            };
            let parts: Vec<String> = values
                .into_iter()
                .map(|v| tostring.call::<String>(v))
                .collect::<Result<_>>()?;
            parts.join(" ")
        };
        shared(lua, |s| s.print(Stream::Out, &text));
        Ok(())
    })?;
    let tostring = lua.create_function(|_, v: Value| format::to_string(&v))?;
    lua.set_named_registry_value("nestor.tostring", tostring.clone())?;
    globals.set("print", print.clone())?;
    globals.set("tostring", tostring)?;
    emu_table.set("print", print.clone())?;
    fceu.set("print", print)?;

    crate::scriptdir::install(lua, dir)?;

    // emu.frameadvance yields the main coroutine; the flag tells the host that the yield was a
    // frame advance, not the end of the script. The yield is captured now in case a script
    // replaces `coroutine`.
    lua.load(
        r#"
        local yield, advancing = coroutine.yield, ...
        local function frameadvance() advancing() return yield() end
        emu.frameadvance, FCEU.frameadvance = frameadvance, frameadvance
        "#,
    )
    .call::<()>(lua.create_function(|lua, ()| {
        crate::state::state(lua, |s| s.advancing = true);
        Ok(())
    })?)
}
