//! `memory`: side-effect-free reads, writes as real bus writes, registers, and hooks.

use super::{add, addr, int, number, range_len, type_error};
use crate::state::{machine, peek_lent, shared, state};
use crate::watch::Kind;
use mlua::{ffi, Lua, MultiValue, Result, Table, Value};
use nes::Console;
use std::ffi::c_int;

fn word((low, high): (f64, Option<f64>)) -> u16 {
    let low = addr(low);
    let high = high.map_or(low.wrapping_add(1), addr);
    u16::from_le_bytes([peek_lent(low), peek_lent(high)])
}

fn register(c: &mut Console, name: &str) -> Option<u16> {
    let cpu = &c.cpu;
    Some(match name.to_ascii_lowercase().as_str() {
        "pc" => cpu.pc,
        "a" => cpu.a.into(),
        "x" => cpu.x.into(),
        "y" => cpu.y.into(),
        "s" => cpu.s.into(),
        "p" => cpu.p.into(),
        _ => return None,
    })
}

fn set_register(c: &mut Console, name: &str, v: i64) {
    match name.to_ascii_lowercase().as_str() {
        "pc" => c.cpu.pc = v as u16,
        "a" => c.cpu.a = v as u8,
        "x" => c.cpu.x = v as u8,
        "y" => c.cpu.y = v as u8,
        "s" => c.cpu.s = v as u8,
        "p" => c.set_status(v as u8),
        _ => {}
    }
}

/// `memory.register*(addr, [size,] fn|nil)`: one function per address over [addr, addr+size).
fn register_hook(lua: &Lua, name: &str, kind: Kind, args: MultiValue) -> Result<()> {
    let args: Vec<Value> = args.into_iter().collect();
    let number = |v: Option<&Value>| v.and_then(number).map(int);
    let start =
        number(args.first()).ok_or_else(|| type_error(lua, 1, name, "number", args.first()))?;
    let (size, f, at) = match number(args.get(1)) {
        Some(size) => (size, args.get(2).cloned().unwrap_or(Value::Nil), 3),
        None => (1, args.get(1).cloned().unwrap_or(Value::Nil), 2),
    };
    if !matches!(f, Value::Nil | Value::Function(_)) {
        return Err(type_error(lua, at, name, "function or nil", Some(&f)));
    }
    let (from, to) = if size < 0 {
        (start.saturating_add(size), start)
    } else {
        (start, start.saturating_add(size))
    };
    // Addresses wrap at 64 KiB, so a wider range covers each address once.
    let to = to.min(from.saturating_add(0x10000));
    let table: Table = lua.named_registry_value(kind.table())?;
    let on = !f.is_nil();
    for a in from..to {
        let a = a as u16;
        table.set(a, f.clone())?;
        state(lua, |s| s.watch.of_mut(kind).set(a, on));
    }
    shared(lua, |s| s.hooks_changed = true);
    Ok(())
}

/// `memory.readbyte` (and, with `SIGNED`, `readbytesigned`) as a raw C function: scripts call
/// it hundreds of times a frame, and a call through mlua's callback machinery (argument
/// conversion, app-data lookup, unwinding guard) costs several times the read. A non-number
/// argument raises Lua's usual "bad argument" error.
unsafe extern "C-unwind" fn read_byte<const SIGNED: bool>(state: *mut ffi::lua_State) -> c_int {
    let mut number = ffi::lua_tonumber(state, 1);
    if number == 0.0 && ffi::lua_isnumber(state, 1) == 0 {
        // Not a number: raises the usual error.
        number = ffi::luaL_checknumber(state, 1);
    }
    let value = peek_lent(addr(number));
    let value = if SIGNED {
        f64::from(value as i8)
    } else {
        f64::from(value)
    };
    ffi::lua_pushnumber(state, value);
    1
}

/// Adds the C function `f` to `table` under each of `names`.
fn add_reader(lua: &Lua, table: &Table, names: &[&str], f: ffi::lua_CFunction) -> Result<()> {
    // SAFETY: `read_byte` touches nothing but its argument, its result and the lent console.
    let f = unsafe { lua.create_c_function(f) }?;
    for name in names {
        table.set(*name, f.clone())?;
    }
    Ok(())
}

pub fn install(lua: &Lua, t: &Table) -> Result<()> {
    for kind in Kind::ALL {
        lua.set_named_registry_value(kind.table(), lua.create_table()?)?;
    }
    add_reader(
        lua,
        t,
        &["readbyte", "readbyteunsigned"],
        read_byte::<false>,
    )?;
    add_reader(lua, t, &["readbytesigned"], read_byte::<true>)?;
    add(
        lua,
        t,
        &["readword", "readwordunsigned"],
        |_, a: (f64, Option<f64>)| Ok(word(a)),
    )?;
    add(lua, t, &["readwordsigned"], |_, a: (f64, Option<f64>)| {
        Ok(word(a) as i16)
    })?;
    add(lua, t, &["readbyterange"], |lua, (a, len): (f64, f64)| {
        if int(len) < 0 {
            return Ok(None);
        }
        // Addresses wrap at 64 KiB, whatever the start.
        let start = int(a) as u16;
        let bytes: Vec<u8> = (0..range_len(lua, len, 0x10000)?)
            .map(|i| peek_lent(start.wrapping_add(i as u16)))
            .collect();
        Ok(Some(lua.create_string(&bytes)?))
    })?;
    add(lua, t, &["writebyte"], |_, (a, v): (f64, f64)| {
        if (0..0x10000).contains(&int(a)) {
            machine(|c| c.write(addr(a), int(v) as u8));
        }
        Ok(())
    })?;
    add(lua, t, &["legacywritebyte"], |_, (a, v): (f64, f64)| {
        // FCEUX 2.2: a bus write (for RAM, a plain store).
        let (a, v) = (addr(a), int(v) as u8);
        machine(|c| c.write(a, v));
        Ok(())
    })?;
    add(lua, t, &["getregister"], |_, name: String| {
        Ok(machine(|c| register(c, &name)).flatten())
    })?;
    add(lua, t, &["setregister"], |_, (name, v): (String, f64)| {
        machine(|c| set_register(c, &name, int(v)));
        Ok(())
    })?;
    add(
        lua,
        t,
        &["registerwrite", "register"],
        |lua, args: MultiValue| register_hook(lua, "registerwrite", Kind::Write, args),
    )?;
    add(lua, t, &["registerread"], |lua, args: MultiValue| {
        register_hook(lua, "registerread", Kind::Read, args)
    })?;
    add(
        lua,
        t,
        &["registerexec", "registerrun", "registerexecute"],
        |lua, args: MultiValue| register_hook(lua, "registerexec", Kind::Exec, args),
    )?;
    Ok(())
}
