//! Keeps scripts from overflowing the host's C stack. PUC Lua stops at 200 nested C calls;
//! LuaJIT has no such limit, so a script recursing through a library function that calls back
//! into Lua (`string.gsub` with a function calling `string.gsub`, a `table.sort` comparator, a
//! `__tostring` printing another table) takes C stack on every level (gsub alone 8 KiB) until
//! the process dies. Those functions are wrapped to check first that the thread's stack still
//! has [`RESERVE`] bytes free, and raise "C stack overflow" instead. Plain Lua recursion needs
//! no check: it runs on LuaJIT's own stack, which has a limit ("stack overflow").

use mlua::{ffi, Lua, Result};
use std::cell::Cell;
use std::ffi::c_int;

/// C stack left free for what runs after the check: one more library call, the error, the
/// traceback of the script's error handler.
const RESERVE: usize = 256 * 1024;

const OVERFLOW: &str = "C stack overflow";

/// Nested calls into Lua from the host's own functions, as PUC Lua counts C levels: each holds
/// references in mlua's auxiliary stack, which has room for 8,000 (beyond, mlua panics).
const HOST_LEVELS: u32 = 200;

thread_local! {
    static LEVELS: Cell<u32> = const { Cell::new(0) };
    /// The lowest address Lua may take this thread's stack to (0: bounds unknown, no check).
    static FLOOR: usize = floor();
}

#[cfg(target_os = "linux")]
fn floor() -> usize {
    let mut attr = std::mem::MaybeUninit::<libc::pthread_attr_t>::uninit();
    let (mut low, mut size) = (std::ptr::null_mut(), 0);
    // SAFETY: `attr` is initialised by `pthread_getattr_np` before it is read, and destroyed
    // once.
    unsafe {
        if libc::pthread_getattr_np(libc::pthread_self(), attr.as_mut_ptr()) != 0 {
            return 0;
        }
        let found = libc::pthread_attr_getstack(attr.as_ptr(), &mut low, &mut size) == 0;
        libc::pthread_attr_destroy(attr.as_mut_ptr());
        if found {
            low as usize + RESERVE
        } else {
            0
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn floor() -> usize {
    0
}

fn exhausted() -> bool {
    let here = 0u8;
    // The stack grows down on every platform LuaJIT runs on.
    (std::hint::black_box(&here) as *const u8 as usize) < FLOOR.with(|f| *f)
}

/// Runs `f`, a host function's call back into Lua, unless the C stack is nearly used up or
/// [`HOST_LEVELS`] such calls are already running.
pub fn nested<R>(f: impl FnOnce() -> Result<R>) -> Result<R> {
    /// Counts the level out even if `f` panics.
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            LEVELS.with(|l| l.set(l.get() - 1));
        }
    }
    if exhausted() || LEVELS.with(|l| l.get()) == HOST_LEVELS {
        return Err(mlua::Error::runtime(OVERFLOW));
    }
    LEVELS.with(|l| l.set(l.get() + 1));
    let _leave = Leave;
    f()
}

unsafe extern "C-unwind" fn check_from_lua(state: *mut ffi::lua_State) -> c_int {
    if exhausted() {
        ffi::lua_pushlstring(state, OVERFLOW.as_ptr().cast(), OVERFLOW.len());
        ffi::lua_error(state);
    }
    0
}

/// Wraps the standard functions that call back into Lua from C. The wrappers tail-call the
/// originals, so errors still name them ("bad argument #1 to 'gsub'") and coroutines can
/// still yield across them where they could before.
pub fn install(lua: &Lua) -> Result<()> {
    // SAFETY: `check_from_lua` touches nothing but the stack of the state it is called on.
    let check = unsafe { lua.create_c_function(check_from_lua) }?;
    lua.load(
        r#"
        local check = ...
        local function guard(f) return function(...) check() return f(...) end end
        string.gsub, string.format = guard(string.gsub), guard(string.format)
        table.sort, load, dofile, require = guard(table.sort), guard(load), guard(dofile), guard(require)
        -- An error handler that calls xpcall, whose handler calls xpcall...
        xpcall, coroutine.resume = guard(xpcall), guard(coroutine.resume)
        local wrap = coroutine.wrap
        coroutine.wrap = function(f) return guard(wrap(f)) end
        "#,
    )
    .set_name("=nestor")
    .call(check)
}

#[cfg(test)]
mod tests {
    use super::{nested, HOST_LEVELS};

    /// How deep `nested` calls go before one fails.
    fn depth() -> u32 {
        fn down(level: u32) -> mlua::Result<u32> {
            nested(|| down(level + 1)).or(Ok(level))
        }
        down(0).unwrap()
    }

    #[test]
    fn host_calls_into_lua_nest_to_the_limit_and_count_back_out() {
        assert_eq!(depth(), HOST_LEVELS);
        assert_eq!(depth(), HOST_LEVELS);
    }
}
