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
use mlua::{FromLua, FromLuaMulti, Function, IntoLuaMulti, Lua, MultiValue, Result, Table, Value};
use std::path::Path;

/// The length of a `readbyterange` (negative: 0). Longer than the `space` it reads is a Lua
/// error rather than a string of that many bytes (a hostile length would exhaust memory).
pub fn range_len(lua: &Lua, len: f64, space: usize) -> Result<usize> {
    let len = int(len).max(0);
    match usize::try_from(len) {
        Ok(len) if len <= space => Ok(len),
        _ => Err(arg_error(
            lua,
            2,
            "readbyterange",
            &format!("length {len} is longer than the {space} bytes it reads"),
        )),
    }
}

/// A value's type as Lua 5.1's `luaL_typename` names it (mlua tells integers apart).
pub fn lua_type(v: &Value) -> &'static str {
    match v {
        Value::Integer(_) | Value::Number(_) => "number",
        Value::LightUserData(_) | Value::UserData(_) | Value::Error(_) => "userdata",
        other => other.type_name(),
    }
}

/// Lua 5.1's `luaL_argerror` for argument `n` of the running function: `file:line: bad
/// argument #n to 'name' (message)`, the function named as its caller named it (a method's
/// arguments counted after `self`, and `calling 'name' on bad self` for `self`), and the
/// caller's file and line in front when the caller is Lua code. Where Lua knows no name (the
/// function called through `pcall`, say), `fallback`, the name it was registered under, where
/// Lua would say `'?'`.
pub fn arg_error(lua: &Lua, n: usize, fallback: &str, message: &str) -> mlua::Error {
    let (mut name, mut method) = (fallback.to_string(), false);
    if let Some(running) = lua.inspect_stack(0) {
        let names = running.names();
        if let Some(called) = names.name {
            name = called.into_owned();
            method = names.name_what == Some("method");
        }
    }
    let place = lua
        .inspect_stack(1)
        .filter(|caller| caller.curr_line() > 0)
        .map(|caller| {
            let source = caller.source();
            let file = source.short_src.unwrap_or_default();
            format!("{file}:{}: ", caller.curr_line())
        })
        .unwrap_or_default();
    let n = if method { n - 1 } else { n };
    mlua::Error::runtime(if n == 0 {
        format!("{place}calling '{name}' on bad self ({message})")
    } else {
        format!("{place}bad argument #{n} to '{name}' ({message})")
    })
}

/// Lua 5.1's `luaL_typerror`: argument `n` (of `given` arguments) is `got` where `expected`
/// was expected; `no value` past the last argument.
pub fn type_error(
    lua: &Lua,
    n: usize,
    fallback: &str,
    expected: &str,
    got: Option<&Value>,
) -> mlua::Error {
    let got = got.map_or("no value", lua_type);
    arg_error(lua, n, fallback, &format!("{expected} expected, got {got}"))
}

/// mlua's error for an argument it could not convert, as Lua 5.1 words it (see
/// [`arg_error`]): `given` is the number of arguments passed.
fn conversion_error(lua: &Lua, fallback: &str, given: usize, e: mlua::Error) -> mlua::Error {
    let mlua::Error::BadArgument { pos, cause, .. } = &e else {
        return e;
    };
    let mlua::Error::FromLuaConversionError { from, to, .. } = &**cause else {
        return arg_error(lua, *pos, fallback, &cause.to_string());
    };
    let expected = match to.as_str() {
        "f64" | "f32" | "i8" | "i16" | "i32" | "i64" | "isize" | "u8" | "u16" | "u32" | "u64"
        | "usize" | "Integer" | "Number" => "number",
        "String" | "string" | "BString" | "OsString" | "PathBuf" => "string",
        "table" | "Table" => "table",
        "function" | "Function" => "function",
        "userdata" | "AnyUserData" => "userdata",
        _ => return arg_error(lua, *pos, fallback, &cause.to_string()),
    };
    let got = match *from {
        _ if *pos > given => "no value",
        "integer" => "number",
        from => from,
    };
    arg_error(
        lua,
        *pos,
        fallback,
        &format!("{expected} expected, got {got}"),
    )
}

/// The numbers among a function's remaining arguments (`bit.band(a, ...)`), each one checked
/// as its own argument.
pub struct Numbers(pub Vec<f64>);

impl FromLuaMulti for Numbers {
    fn from_lua_multi(values: MultiValue, lua: &Lua) -> Result<Self> {
        Self::from_lua_args(values, 1, None, lua)
    }

    fn from_lua_args(values: MultiValue, i: usize, to: Option<&str>, lua: &Lua) -> Result<Self> {
        values
            .into_iter()
            .enumerate()
            .map(|(k, v)| f64::from_lua_arg(v, i + k, to, lua))
            .collect::<Result<_>>()
            .map(Numbers)
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

/// A Rust function as a Lua function named `name`: an argument of the wrong type is Lua 5.1's
/// `bad argument` error naming it ([`arg_error`]).
pub fn function<A, R>(
    lua: &Lua,
    name: &'static str,
    f: impl Fn(&Lua, A) -> Result<R> + 'static,
) -> Result<Function>
where
    A: FromLuaMulti,
    R: IntoLuaMulti,
{
    lua.create_function(move |lua, args: MultiValue| {
        let given = args.len();
        let args = A::from_lua_args(args, 1, None, lua)
            .map_err(|e| conversion_error(lua, name, given, e))?;
        f(lua, args)
    })
}

/// Adds a function to `table` under each of `names` (the first names it in errors where Lua
/// knows no name).
pub fn add<A, R>(
    lua: &Lua,
    table: &Table,
    names: &[&'static str],
    f: impl Fn(&Lua, A) -> Result<R> + 'static,
) -> Result<()>
where
    A: FromLuaMulti,
    R: IntoLuaMulti,
{
    let f = function(lua, names[0], f)?;
    for name in names {
        table.set(*name, f.clone())?;
    }
    Ok(())
}

/// Stores `f` (function or nil) in a registry slot and returns the previous one.
pub fn register_slot(lua: &Lua, name: &str, slot: &str, f: Value) -> Result<Value> {
    if !matches!(f, Value::Nil | Value::Function(_)) {
        return Err(type_error(lua, 1, name, "function", Some(&f)));
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
