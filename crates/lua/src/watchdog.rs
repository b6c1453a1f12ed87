//! Stops a script that keeps the emulator waiting. An instruction-count hook would cost LuaJIT's
//! interpreter a check on every bytecode, so none is set while scripts behave: a thread watches
//! the host's entries into Lua and sets a hook only on an entry that has lasted longer than the
//! limit. The hook then lets the entry run Lua for another limit, or [`RUNAWAY_INSTRUCTIONS`]
//! more instructions, before it raises the error (which the host reports like any other); time
//! spent waiting in a C function (a socket, a pipe to another program) does not count, so a
//! script that was waiting there and then returns is left alone. (LuaJIT's JIT compiler
//! stays off: a compiled loop never looks at hooks.)
//!
//! Once the error is raised the script is finished for good: the hook stays, raising again at
//! the next instruction whatever catches the error (`pcall`, `xpcall`, a coroutine), only the
//! host's own code (registered with [`spare`]) runs on, `debug.sethook` and `emu.exec_count`
//! put it back, and the host stops the script when its entry returns ([`Watchdog::fired`]).

use mlua::{ffi, Lua};
use std::cell::Cell;
use std::ffi::{c_int, CStr};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Lua instructions an entry that has outlasted the limit may still run before it is stopped
/// (a fraction of a second), unless it has run Lua for another limit first.
const RUNAWAY_INSTRUCTIONS: u64 = 20_000_000;
/// The hook's period while it counts them.
const STEP: c_int = 100;
/// A longer pause between two of the hook's calls was a wait in a C function, not running Lua.
const WAIT: Duration = Duration::from_secs(1);

/// Registry key of the pointer to a state's [`Watch`], for the hook.
const WATCH_KEY: &CStr = c"nestor.watchdog";
/// Registry key of the coroutine the watching thread sets the hook through.
const THREAD_KEY: &CStr = c"nestor.watchdog.thread";

/// What the host thread and the watching thread share.
struct Watch {
    /// Odd while the host is inside Lua: bumped when it enters and when it leaves.
    entries: AtomicU64,
    /// The entry the hook was set for.
    tripped: AtomicU64,
    /// How much Lua that entry has run since.
    countdown: Mutex<Countdown>,
    /// The error was raised: the script is finished.
    fired: AtomicBool,
    /// Addresses of the host's Lua functions that run on once the hook has fired (kept out of
    /// the script's reach, unlike its registry).
    spared: Mutex<Vec<usize>>,
    limit: Duration,
    /// Serialises `lua_sethook` between the threads; true once the watching thread must end.
    stop: Mutex<bool>,
    wake: Condvar,
}

impl Watch {
    fn lock(&self) -> MutexGuard<'_, bool> {
        self.stop.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The running entry has outlasted the limit, or an earlier one did.
    fn runaway(&self) -> bool {
        self.fired.load(Ordering::Acquire)
            || self.entries.load(Ordering::Acquire) == self.tripped.load(Ordering::Acquire)
    }

    fn message(&self) -> String {
        format!(
            "script ran {:.1} s without yielding (infinite loop?)",
            self.limit.as_secs_f64()
        )
    }
}

/// What a tripped entry has run since the hook was set.
#[derive(Default)]
struct Countdown {
    /// The hook's last call.
    last: Option<Instant>,
    /// Time between its calls, waits left out.
    running: Duration,
    instructions: u64,
}

impl Countdown {
    /// Counts one call of the hook (a [`STEP`] of instructions): true once the entry has run
    /// its allowance.
    fn spent(&mut self, limit: Duration) -> bool {
        let now = Instant::now();
        if let Some(gap) = self.last.map(|last| now - last).filter(|&gap| gap < WAIT) {
            self.running += gap;
        }
        self.last = Some(now);
        self.instructions += STEP as u64;
        self.instructions >= RUNAWAY_INSTRUCTIONS || self.running >= limit
    }
}

/// The Lua state's pointer, handed to the watching thread.
struct State(*mut ffi::lua_State);

// SAFETY: the watching thread only calls `lua_sethook`, which LuaJIT allows from outside the
// running thread (its own command-line interpreter does it from a signal handler), under the
// `Watch` lock, and `Watchdog::drop` joins the thread before the state can close.
unsafe impl Send for State {}

pub struct Watchdog {
    watch: Arc<Watch>,
    state: *mut ffi::lua_State,
    thread: Option<JoinHandle<()>>,
    /// Nested entries (Lua calling back into the host that enters Lua again) count once.
    depth: Cell<u32>,
}

impl Watchdog {
    /// Watches `lua`, which must outlive the returned watchdog.
    pub fn new(lua: &Lua, limit: Duration) -> mlua::Result<Watchdog> {
        let watch = Arc::new(Watch {
            entries: AtomicU64::new(0),
            tripped: AtomicU64::new(u64::MAX),
            countdown: Mutex::new(Countdown::default()),
            fired: AtomicBool::new(false),
            spared: Mutex::new(Vec::new()),
            limit,
            stop: Mutex::new(false),
            wake: Condvar::new(),
        });
        let pointer = Arc::as_ptr(&watch).cast_mut().cast();
        let mut state = std::ptr::null_mut();
        // SAFETY: the registry keeps a plain pointer; `Watchdog` holds the `Watch` alive and
        // clears the hook (the pointer's only reader) before it lets go of it. The watching
        // thread gets a coroutine of its own that the registry anchors: hooks are per state in
        // LuaJIT, so setting one on it reaches whichever coroutine runs.
        unsafe {
            lua.exec_raw::<()>((), |raw| {
                ffi::lua_pushlightuserdata(raw, pointer);
                ffi::lua_setfield(raw, ffi::LUA_REGISTRYINDEX, WATCH_KEY.as_ptr());
                state = ffi::lua_newthread(raw);
                ffi::lua_setfield(raw, ffi::LUA_REGISTRYINDEX, THREAD_KEY.as_ptr());
            })?;
        }
        guard_sethook(lua)?;
        let thread = {
            let watch = watch.clone();
            let state = State(state);
            std::thread::Builder::new()
                .name("lua watchdog".into())
                .spawn(move || run(&watch, &state))
                .map_err(mlua::Error::external)?
        };
        Ok(Watchdog {
            watch,
            state,
            thread: Some(thread),
            depth: Cell::new(0),
        })
    }

    /// Runs `f`, a call into Lua, under watch.
    pub fn enter<R>(&self, f: impl FnOnce() -> R) -> R {
        /// Counts the exit even if `f` unwinds.
        struct Leave<'a>(&'a Watchdog);
        impl Drop for Leave<'_> {
            fn drop(&mut self) {
                self.0.step(-1);
            }
        }
        self.step(1);
        let _leave = Leave(self);
        f()
    }

    /// The script ran away and was stopped: it must not run again.
    pub fn fired(&self) -> bool {
        self.watch.fired.load(Ordering::Acquire)
    }

    /// Lets the host's function `f` (the main chunk's error handler) run after the hook has
    /// fired; `f` must stay alive as long as the state.
    pub fn spare(&self, f: &mlua::Function) {
        self.watch
            .spared
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(f.to_pointer() as usize);
    }

    /// The error a stopped script's entry ends with.
    pub fn error(&self) -> mlua::Error {
        mlua::Error::runtime(self.watch.message())
    }

    fn step(&self, by: i32) {
        let depth = self.depth.get().wrapping_add_signed(by);
        self.depth.set(depth);
        if depth == u32::from(by > 0) {
            // Only this thread writes the counter.
            let entries = &self.watch.entries;
            entries.store(entries.load(Ordering::Relaxed) + 1, Ordering::Release);
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        *self.watch.lock() = true;
        self.watch.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        // SAFETY: the state is alive (it outlives the watchdog) and no other thread touches it.
        unsafe { ffi::lua_sethook(self.state, None, 0, 0) };
    }
}

/// The watching thread: sets the hook once an entry has lasted `limit`. Once per entry: setting
/// it again would restart its count, which a limit shorter than the count's run never lets end.
fn run(watch: &Watch, state: &State) {
    let period = (watch.limit / 4).clamp(Duration::from_millis(1), Duration::from_millis(100));
    let mut seen = (watch.entries.load(Ordering::Acquire), Instant::now());
    let mut stop = watch.lock();
    while !*stop {
        stop = watch
            .wake
            .wait_timeout(stop, period)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
        let entry = watch.entries.load(Ordering::Acquire);
        if entry != seen.0 {
            seen = (entry, Instant::now());
        } else if !*stop
            && entry % 2 == 1
            && seen.1.elapsed() >= watch.limit
            && !watch.fired.load(Ordering::Acquire)
            && watch.tripped.load(Ordering::Acquire) != entry
        {
            watch.tripped.store(entry, Ordering::Release);
            *watch
                .countdown
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Countdown::default();
            // SAFETY: see `State`; the lock is held.
            unsafe { ffi::lua_sethook(state.0, Some(on_hook), ffi::LUA_MASKCOUNT, STEP) };
        }
    }
}

/// Reads the `Watch` a state's watchdog registered.
///
/// # Safety
/// `state` must be a live state that a [`Watchdog`] watches.
unsafe fn watch_of<'a>(state: *mut ffi::lua_State) -> &'a Watch {
    ffi::lua_getfield(state, ffi::LUA_REGISTRYINDEX, WATCH_KEY.as_ptr());
    let watch = ffi::lua_touserdata(state, -1).cast::<Watch>();
    ffi::lua_pop(state, 1);
    &*watch
}

/// Sets the state's hook, or, once the entry has run away, the hook that raises at the next
/// instruction. The caller holds the watchdog's lock.
///
/// # Safety
/// As [`watch_of`].
unsafe fn set_or_rearm(
    state: *mut ffi::lua_State,
    watch: &Watch,
    hook: Option<ffi::lua_Hook>,
    count: c_int,
) {
    if watch.runaway() {
        ffi::lua_sethook(state, Some(on_hook), ffi::LUA_MASKCOUNT, 1);
    } else if let Some(hook) = hook {
        ffi::lua_sethook(state, Some(hook), ffi::LUA_MASKCOUNT, count);
    } else {
        ffi::lua_sethook(state, None, 0, 0);
    }
}

/// The running function is one of the host's that [`Watchdog::spare`] registered.
///
/// # Safety
/// `state` and `ar` as a hook receives them.
unsafe fn spared(watch: &Watch, state: *mut ffi::lua_State, ar: *mut ffi::lua_Debug) -> bool {
    if ffi::lua_getinfo(state, c"f".as_ptr(), ar) == 0 {
        return false;
    }
    let running = ffi::lua_topointer(state, -1) as usize;
    ffi::lua_pop(state, 1);
    watch
        .spared
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .contains(&running)
}

/// The hook the watching thread sets: once the entry it was set for has run its allowance of
/// Lua, marks the script finished and raises the error, at every instruction from then on; if
/// that entry has returned, removes itself.
unsafe extern "C-unwind" fn on_hook(state: *mut ffi::lua_State, ar: *mut ffi::lua_Debug) {
    let watch = watch_of(state);
    let lock = watch.lock();
    if !watch.runaway() {
        ffi::lua_sethook(state, None, 0, 0);
        return;
    }
    if !watch.fired.load(Ordering::Acquire)
        && !watch
            .countdown
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .spent(watch.limit)
    {
        return;
    }
    watch.fired.store(true, Ordering::Release);
    set_or_rearm(state, watch, None, 0);
    drop(lock);
    if spared(watch, state, ar) {
        return;
    }
    let message = watch.message();
    ffi::lua_pushlstring(state, message.as_ptr().cast(), message.len());
    // The error unwinds through this frame: nothing may be left to drop.
    drop(message);
    ffi::lua_error(state);
}

/// Replaces `debug.sethook` with one that, once the script has run away, puts the watchdog's
/// hook back (a script could otherwise clear it in a loop), and that sets hooks under the
/// watchdog's lock.
fn guard_sethook(lua: &Lua) -> mlua::Result<()> {
    let debug: mlua::Table = lua.globals().get("debug")?;
    let sethook: mlua::Function = debug.get("sethook")?;
    let guarded = lua.create_function(move |lua, args: mlua::MultiValue| {
        let mut state = std::ptr::null_mut();
        // SAFETY: the script's state is watched for as long as its API can be called.
        unsafe { lua.exec_raw::<()>((), |raw| state = raw) }?;
        let watch = unsafe { watch_of(state) };
        let _lock = watch.lock();
        sethook.call::<()>(args)?;
        if watch.runaway() {
            // SAFETY: as above; the lock is held.
            unsafe { set_or_rearm(state, watch, None, 0) };
        }
        Ok(())
    })?;
    debug.set("sethook", guarded)
}

/// Closes the two ways Lua code runs where hooks are off, so that the watchdog could not stop
/// it: an `xpcall` handler called for the watchdog's own error (the interpreter calls it from
/// inside the hook) is skipped once the script is stopped, the error passing through as it
/// is; and `newproxy` is removed (a `__gc` finalizer of its userdata runs with hooks off).
/// Installed after the host's own chunk took the plain `xpcall`, whose handler is spared.
pub fn guard_handlers(lua: &Lua) -> mlua::Result<()> {
    let stopped = lua.create_function(|lua, ()| {
        let mut fired = false;
        // SAFETY: the script's state is watched for as long as its API can be called.
        unsafe {
            lua.exec_raw::<()>((), |state| {
                fired = watch_of(state).fired.load(Ordering::Acquire);
            })
        }?;
        Ok(fired)
    })?;
    lua.load(
        r#"
        local stopped, xpcall = ...
        _G.xpcall = function(...)
          local f, handler = ...
          if type(handler) ~= "function" then return xpcall(...) end
          return xpcall(f, function(...)
            if stopped() then return ... end
            return handler(...)
          end, select(3, ...))
        end
        newproxy = nil
        "#,
    )
    .set_name("=nestor")
    .call((stopped, lua.globals().get::<mlua::Value>("xpcall")?))
}

/// Runs `f` under an instruction-count limit (`emu.exec_count`): an error is raised in it after
/// `count` Lua instructions. True if `f` completed.
pub fn with_instruction_limit(lua: &Lua, count: u32, f: impl FnOnce() -> bool) -> bool {
    /// Removes the count hook even if `f` unwinds.
    struct Clear<'a>(&'a Lua);
    impl Drop for Clear<'_> {
        fn drop(&mut self) {
            set_hook(self.0, None, 0);
        }
    }
    if count == 0 {
        // As in FCEUX, where a zero count never reaches the hook.
        return f();
    }
    set_hook(lua, Some(on_count), count);
    let _clear = Clear(lua);
    f()
}

/// Sets or clears the state's hook (LuaJIT keeps one for all of a state's coroutines) under the
/// watchdog's lock.
fn set_hook(lua: &Lua, hook: Option<ffi::lua_Hook>, count: u32) {
    // SAFETY: the script's state is watched for as long as its API can be called.
    let _ = unsafe {
        lua.exec_raw::<()>((), |state| {
            let watch = watch_of(state);
            let _lock = watch.lock();
            set_or_rearm(state, watch, hook, count as c_int);
        })
    };
}

unsafe extern "C-unwind" fn on_count(state: *mut ffi::lua_State, _: *mut ffi::lua_Debug) {
    let watch = watch_of(state);
    let lock = watch.lock();
    set_or_rearm(state, watch, None, 0);
    drop(lock);
    ffi::luaL_error(state, c"instruction limit reached".as_ptr());
}
