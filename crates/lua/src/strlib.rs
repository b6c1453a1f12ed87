//! `string.find`, `match`, `gmatch` (also `gfind`) and `gsub` as Lua 5.1 has them, on the
//! matcher of `pattern.rs`, which the watchdog can stop, and `string.rep`, which looks at the
//! watchdog as it goes (`string.rep("", 2^31 - 1)` copies nothing for seconds: no memory limit
//! bounds it). They are C functions, as in Lua's own string library: the same argument checks,
//! errors raised as strings, and no Rust value with a destructor alive where Lua may raise an
//! error (it unwinds with `longjmp`).

use crate::pattern::{self, Captured, Error, Matcher};
use crate::watchdog;
use mlua::{ffi, Lua};
use std::ffi::{c_char, c_int};
use std::mem::MaybeUninit;

/// Lua 5.1's `luaL_Buffer` (its `LUAL_BUFFERSIZE` is the C library's `BUFSIZ`).
#[repr(C)]
struct Buffer {
    p: *mut c_char,
    lvl: c_int,
    state: *mut ffi::lua_State,
    buffer: [c_char; libc::BUFSIZ as usize],
}

extern "C-unwind" {
    fn luaL_buffinit(state: *mut ffi::lua_State, b: *mut Buffer);
    fn luaL_addlstring(b: *mut Buffer, s: *const c_char, l: usize);
    fn luaL_addvalue(b: *mut Buffer);
    fn luaL_pushresult(b: *mut Buffer);
}

unsafe fn add(b: *mut Buffer, bytes: &[u8]) {
    luaL_addlstring(b, bytes.as_ptr().cast(), bytes.len());
}

/// The string argument `arg` (numbers converted), or Lua's "bad argument" error.
unsafe fn check_bytes<'a>(state: *mut ffi::lua_State, arg: c_int) -> &'a [u8] {
    let mut len = 0;
    let text = ffi::luaL_checklstring(state, arg, &mut len);
    std::slice::from_raw_parts(text.cast(), len)
}

/// The string at `index`, which is one.
unsafe fn bytes_at<'a>(state: *mut ffi::lua_State, index: c_int) -> &'a [u8] {
    let mut len = 0;
    let text = ffi::lua_tolstring(state, index, &mut len);
    std::slice::from_raw_parts(text.cast(), len)
}

unsafe fn push_bytes(state: *mut ffi::lua_State, bytes: &[u8]) {
    ffi::lua_pushlstring(state, bytes.as_ptr().cast(), bytes.len());
}

/// Raises the matcher's error: the pattern's, or the watchdog's.
unsafe fn fail(state: *mut ffi::lua_State, error: Error) -> ! {
    match error {
        // With the caller's position, as Lua's own errors have it.
        Error::Pattern(message) => {
            ffi::luaL_where(state, 1);
            ffi::lua_pushstring(state, message.as_ptr());
            ffi::lua_concat(state, 2);
            ffi::lua_error(state)
        }
        Error::Stopped => watchdog::raise(state),
    }
}

/// Where a search from the 1-based (negative: from the end) position `init` starts.
fn start(init: ffi::lua_Integer, len: usize) -> usize {
    let len = len as ffi::lua_Integer;
    let init = if init < 0 { init + len + 1 } else { init };
    (init.max(0) - 1).clamp(0, len) as usize
}

/// Pushes capture `i` of the match from `s` to `e`.
unsafe fn push_capture(
    state: *mut ffi::lua_State,
    m: &Matcher<impl FnMut() -> bool>,
    i: usize,
    s: usize,
    e: usize,
) {
    match m.capture(i, s, e) {
        Ok(Captured::Text(from, to)) => push_bytes(state, &m.subject()[from..to]),
        Ok(Captured::Position(at)) => ffi::lua_pushinteger(state, at as ffi::lua_Integer),
        Err(error) => fail(state, error),
    }
}

/// Pushes the captures of the match from `s` to `e` (the whole match if it has none and
/// `whole` asks for it); returns how many.
unsafe fn push_captures(
    state: *mut ffi::lua_State,
    m: &Matcher<impl FnMut() -> bool>,
    s: usize,
    e: usize,
    whole: bool,
) -> c_int {
    let count = m.count(whole);
    ffi::luaL_checkstack_(state, count as c_int, c"too many captures".as_ptr());
    for i in 0..count {
        push_capture(state, m, i, s, e);
    }
    count as c_int
}

/// `string.find` (`find`) and `string.match`.
unsafe fn find_or_match(state: *mut ffi::lua_State, find: bool) -> c_int {
    let subject = check_bytes(state, 1);
    let pattern = check_bytes(state, 2);
    let init = start(ffi::luaL_optinteger(state, 3, 1), subject.len());
    let mut m = Matcher::new(subject, pattern, watchdog::running(state));
    if find && (ffi::lua_toboolean(state, 4) != 0 || !pattern::has_specials(pattern)) {
        match m.find_plain(init, pattern) {
            Ok(Some(at)) => {
                ffi::lua_pushinteger(state, at as ffi::lua_Integer + 1);
                ffi::lua_pushinteger(state, (at + pattern.len()) as ffi::lua_Integer);
                return 2;
            }
            Ok(None) => {}
            Err(error) => fail(state, error),
        }
    } else {
        let (anchored, p) = m.anchored();
        for at in init..=subject.len() {
            match m.match_at(at, p) {
                Ok(Some(end)) if find => {
                    ffi::lua_pushinteger(state, at as ffi::lua_Integer + 1);
                    ffi::lua_pushinteger(state, end as ffi::lua_Integer);
                    return 2 + push_captures(state, &m, at, end, false);
                }
                Ok(Some(end)) => return push_captures(state, &m, at, end, true),
                Ok(None) => {}
                Err(error) => fail(state, error),
            }
            if anchored {
                break;
            }
        }
    }
    ffi::lua_pushnil(state);
    1
}

unsafe extern "C-unwind" fn find(state: *mut ffi::lua_State) -> c_int {
    find_or_match(state, true)
}

unsafe extern "C-unwind" fn match_(state: *mut ffi::lua_State) -> c_int {
    find_or_match(state, false)
}

/// `string.gmatch`: an iterator over the subject, the pattern (`^` is not an anchor here, as
/// in Lua 5.1) and where the next search starts.
unsafe extern "C-unwind" fn gmatch(state: *mut ffi::lua_State) -> c_int {
    check_bytes(state, 1);
    check_bytes(state, 2);
    ffi::lua_settop(state, 2);
    ffi::lua_pushinteger(state, 0);
    ffi::lua_pushcclosure(state, gmatch_next, 3);
    1
}

unsafe extern "C-unwind" fn gmatch_next(state: *mut ffi::lua_State) -> c_int {
    let subject = bytes_at(state, ffi::lua_upvalueindex(1));
    let pattern = bytes_at(state, ffi::lua_upvalueindex(2));
    let from = ffi::lua_tointeger(state, ffi::lua_upvalueindex(3)) as usize;
    let mut m = Matcher::new(subject, pattern, watchdog::running(state));
    for at in from..=subject.len() {
        match m.match_at(at, 0) {
            Ok(Some(end)) => {
                // An empty match moves on by one.
                let next = if end == at { end + 1 } else { end };
                ffi::lua_pushinteger(state, next as ffi::lua_Integer);
                ffi::lua_replace(state, ffi::lua_upvalueindex(3));
                return push_captures(state, &m, at, end, true);
            }
            Ok(None) => {}
            Err(error) => fail(state, error),
        }
    }
    0
}

/// Adds the replacement string (argument 3) for the match from `s` to `e`: `%0` the match,
/// `%1`-`%9` its captures, `%` and anything else that thing (and a final `%` a NUL, as Lua
/// 5.1 reads past it).
unsafe fn add_replacement(
    state: *mut ffi::lua_State,
    b: *mut Buffer,
    m: &Matcher<impl FnMut() -> bool>,
    s: usize,
    e: usize,
) {
    let mut rest = bytes_at(state, 3);
    while let Some(i) = rest.iter().position(|&c| c == b'%') {
        add(b, &rest[..i]);
        match rest.get(i + 1).copied().unwrap_or(0) {
            b'0' => add(b, &m.subject()[s..e]),
            d @ b'1'..=b'9' => {
                push_capture(state, m, usize::from(d - b'1'), s, e);
                luaL_addvalue(b);
            }
            other => add(b, &[other]),
        }
        rest = rest.get(i + 2..).unwrap_or_default();
    }
    add(b, rest);
}

/// Adds what replaces the match from `s` to `e`, by the kind of argument 3.
unsafe fn add_value(
    state: *mut ffi::lua_State,
    b: *mut Buffer,
    m: &Matcher<impl FnMut() -> bool>,
    s: usize,
    e: usize,
    kind: c_int,
) {
    match kind {
        ffi::LUA_TFUNCTION => {
            ffi::lua_pushvalue(state, 3);
            let n = push_captures(state, m, s, e, true);
            ffi::lua_call(state, n, 1);
        }
        ffi::LUA_TTABLE => {
            push_capture(state, m, 0, s, e);
            ffi::lua_gettable(state, 3);
        }
        _ => return add_replacement(state, b, m, s, e),
    }
    if ffi::lua_toboolean(state, -1) == 0 {
        // nil or false keeps the original text.
        ffi::lua_pop(state, 1);
        push_bytes(state, &m.subject()[s..e]);
    } else if ffi::lua_isstring(state, -1) == 0 {
        ffi::luaL_error(
            state,
            c"invalid replacement value (a %s)".as_ptr(),
            ffi::luaL_typename(state, -1),
        );
    }
    luaL_addvalue(b);
}

unsafe extern "C-unwind" fn gsub(state: *mut ffi::lua_State) -> c_int {
    let subject = check_bytes(state, 1);
    let pattern = check_bytes(state, 2);
    let kind = ffi::lua_type(state, 3);
    // As Lua 5.1 has it, an int.
    let most = ffi::luaL_optinteger(state, 4, subject.len() as ffi::lua_Integer + 1) as c_int;
    if !matches!(
        kind,
        ffi::LUA_TNUMBER | ffi::LUA_TSTRING | ffi::LUA_TFUNCTION | ffi::LUA_TTABLE
    ) {
        ffi::luaL_argerror(state, 3, c"string/function/table expected".as_ptr());
    }
    let mut m = Matcher::new(subject, pattern, watchdog::running(state));
    let (anchored, p) = m.anchored();
    let mut buffer = MaybeUninit::<Buffer>::uninit();
    let b = buffer.as_mut_ptr();
    luaL_buffinit(state, b);
    let (mut at, mut count) = (0, 0);
    while count < most {
        let end = m.match_at(at, p).unwrap_or_else(|error| fail(state, error));
        if let Some(end) = end {
            count += 1;
            add_value(state, b, &m, at, end, kind);
        }
        match end {
            Some(end) if end > at => at = end,
            _ if at < subject.len() => {
                add(b, &subject[at..=at]);
                at += 1;
            }
            _ => break,
        }
        if anchored {
            break;
        }
    }
    add(b, &subject[at..]);
    luaL_pushresult(b);
    ffi::lua_pushinteger(state, ffi::lua_Integer::from(count));
    2
}

/// Bytes (an empty copy counts one) `string.rep` adds between two looks at the watchdog.
const REP_CHECK_EVERY: usize = 1 << 16;

unsafe extern "C-unwind" fn rep(state: *mut ffi::lua_State) -> c_int {
    let s = check_bytes(state, 1);
    // As Lua 5.1 has it, an int.
    let n = ffi::luaL_checkinteger(state, 2) as c_int;
    let mut running = watchdog::running(state);
    let mut buffer = MaybeUninit::<Buffer>::uninit();
    let b = buffer.as_mut_ptr();
    luaL_buffinit(state, b);
    let mut added = 0;
    for _ in 0..n.max(0) {
        add(b, s);
        added += s.len() + 1;
        if added >= REP_CHECK_EVERY {
            added = 0;
            if !running() {
                watchdog::raise(state);
            }
        }
    }
    luaL_pushresult(b);
    1
}

/// Replaces the string library's matching functions and `rep` with these.
pub fn install(lua: &Lua) -> mlua::Result<()> {
    let string: mlua::Table = lua.globals().get("string")?;
    // SAFETY: the functions keep to the Lua C API's rules, as above.
    let function = |f| unsafe { lua.create_c_function(f) };
    string.set("find", function(find)?)?;
    string.set("match", function(match_)?)?;
    let gmatch = function(gmatch)?;
    string.set("gmatch", gmatch.clone())?;
    string.set("gfind", gmatch)?;
    string.set("gsub", function(gsub)?)?;
    string.set("rep", function(rep)?)
}

#[cfg(test)]
mod tests {
    use mlua::{Lua, Table};

    /// These functions against Lua 5.1's own on generated patterns, subjects, start positions
    /// and replacements: the same results and the same errors, call by call.
    #[test]
    fn patterns_match_as_in_lua_5_1() {
        let lua = Lua::new();
        let string: Table = lua.globals().get("string").unwrap();
        let original = lua.create_table().unwrap();
        for name in ["find", "match", "gmatch", "gsub", "rep"] {
            original
                .set(name, string.get::<mlua::Function>(name).unwrap())
                .unwrap();
        }
        super::install(&lua).unwrap();
        let (cases, differences): (u32, Vec<mlua::String>) = lua
            .load(include_str!("../tests/patterns.lua"))
            .call((original, string))
            .unwrap();
        assert!(cases > 100_000, "{cases} cases");
        let differences: Vec<String> = differences.iter().map(|d| d.to_string_lossy()).collect();
        assert!(differences.is_empty(), "{}", differences.join("\n"));
    }
}
