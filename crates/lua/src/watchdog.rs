//! Stops a script that keeps the emulator waiting. The watchdog's hook is a count hook that
//! looks at the clock every [`STEP`] Lua instructions, but a script pays for it only when it
//! runs long: PUC Lua checks a count hook's counter at every instruction, which costs a busy
//! script about a tenth of its time. Nestor's entries into Lua (the main chunk's resumption,
//! callbacks, memory hooks) start without it; a timer thread ([`Alarm`]) arms it, with
//! `lua_sethook`, which Lua 5.1 allows from another thread, on every state the script may be
//! running on once an entry has lasted a while. Those states are the main state and the
//! coroutines being resumed: the script's `coroutine.resume` and `coroutine.wrap` are the
//! watchdog's own, which keep that list, and Lua 5.1 has no other way to run a coroutine.
//!
//! Once the script's work in the frame (the entries since the frame began) has lasted longer
//! than the limit, the script may run [`RUNAWAY_INSTRUCTIONS`] more Lua instructions, within
//! another limit of time, before the hook raises the error (which the host reports like any
//! other), so a script that was waiting in a C function (a pipe to another program) and then
//! returns is left alone. An entry that outlasts the limit gets the hook at its next
//! instruction however few it runs (a loop of slow C calls). The string library's pattern
//! matching and `string.rep` look at the clock as the hook does, with a [`running`] check; the
//! `socket` module's waits count as running: they call [`check_wait`] as they wait.
//!
//! Once the error is raised the script is finished for good: the hook raises again at the next
//! instruction whatever catches the error (`pcall`, `xpcall`, a coroutine), `debug.sethook` and
//! `emu.exec_count` put it back, and the host stops the script when its entry returns
//! ([`Watchdog::fired`]). The same hook counts `emu.exec_count`'s instructions.

use mlua::{ffi, Lua};
use std::cell::Cell;
use std::ffi::{c_int, CStr};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

extern "C-unwind" {
    /// Lua 5.1's own (lua.h): a resumed coroutine starts at its resumer's depth of C calls, so
    /// that Lua's limit on them counts through coroutines.
    fn lua_setlevel(from: *mut ffi::lua_State, to: *mut ffi::lua_State);
}

/// Lua instructions between two looks at the clock.
const STEP: u32 = 10_000;

/// Lua instructions an entry that has outlasted the limit may still run before it is stopped
/// (a fraction of a second, with the hook called at each), within another limit of time.
const RUNAWAY_INSTRUCTIONS: u32 = 1_000_000;

/// Registry key of the pointer to a state's [`Watch`], for the hook.
const WATCH_KEY: &CStr = c"nestor.watchdog";

/// What the hook reads and the host updates (both on the host's thread).
struct Watch {
    limit: Duration,
    /// The state's main thread, which runs the host's calls into Lua.
    main: *mut ffi::lua_State,
    /// What the timer thread watches.
    alarm: Arc<Alarm>,
    /// No timer thread could be started: every state keeps the hook.
    eager: Cell<bool>,
    /// When the host's running entry into Lua began (None: the host is not in Lua).
    entered: Cell<Option<Instant>>,
    /// How long the frame's earlier entries lasted.
    spent: Cell<Duration>,
    /// Instructions the script may still run in this frame once its work has outlasted the
    /// limit, and until when (slow C functions between them would make a count alone take
    /// minutes).
    grace: Cell<Option<(u32, Instant)>>,
    /// The error was raised: the script is finished.
    fired: Cell<Option<Stop>>,
    /// Instructions left to the function `emu.exec_count` runs (None: no count running).
    budget: Cell<Option<u32>>,
    /// The error for one entry that ran past the limit.
    without_yielding: String,
    /// The error for a frame of entries that together ran past it.
    slow_frame: String,
}

/// Why the script was stopped.
#[derive(Clone, Copy)]
enum Stop {
    /// One entry ran past the limit.
    Entry,
    /// The frame's entries together did.
    Frame,
}

impl Watch {
    /// The script needs the hook from its next instruction: it is stopped, being stopped, or
    /// counted by `emu.exec_count`.
    fn needs_hook(&self) -> bool {
        self.eager.get()
            || self.fired.get().is_some()
            || self.grace.get().is_some()
            || self.budget.get().is_some()
    }

    /// The script's work in this frame so far.
    fn worked(&self) -> Duration {
        self.spent.get() + self.entered.get().map_or(Duration::ZERO, |t| t.elapsed())
    }

    /// Stops the script; returns its error.
    fn fire(&self) -> &str {
        let stop = self.fired.get().unwrap_or_else(|| {
            let alone = self
                .entered
                .get()
                .is_some_and(|t| t.elapsed() >= self.limit);
            if alone {
                Stop::Entry
            } else {
                Stop::Frame
            }
        });
        self.fired.set(Some(stop));
        match stop {
            Stop::Entry => &self.without_yielding,
            Stop::Frame => &self.slow_frame,
        }
    }

    /// Instructions until the hook must look again: one at a time once the entry has outlasted
    /// the limit, as re-setting the hook (`debug.sethook`, `emu.exec_count` in a loop) restarts
    /// its count.
    fn interval(&self) -> u32 {
        if self.fired.get().is_some() || self.grace.get().is_some() {
            return 1;
        }
        self.budget.get().map_or(STEP, |left| left.clamp(1, STEP))
    }

    /// Counts `ran` instructions against the grace, and starts the grace once the frame's work
    /// has outlasted the limit. Returns the watchdog's error once due.
    fn timed(&self, ran: u32) -> Option<&str> {
        if self.fired.get().is_some() {
            return Some(self.fire());
        }
        match self.grace.get() {
            Some((left, until)) => {
                let left = left.saturating_sub(ran);
                self.grace.set(Some((left, until)));
                if left == 0 || Instant::now() >= until {
                    return Some(self.fire());
                }
            }
            None if self.worked() >= self.limit => {
                self.grace
                    .set(Some((RUNAWAY_INSTRUCTIONS, Instant::now() + self.limit)));
            }
            None => {}
        }
        None
    }

    /// Counts `ran` instructions against the grace and the budget. Returns the error to
    /// raise, if any.
    fn count(&self, ran: u32) -> Option<&str> {
        if let Some(message) = self.timed(ran) {
            return Some(message);
        }
        let left = self.budget.get()?.saturating_sub(ran);
        self.budget.set(Some(left));
        (left == 0).then_some("instruction limit reached")
    }

    /// For a wait that counts as running however few instructions it takes (on a socket):
    /// once the frame's work has outlasted the limit, the script is stopped. Returns its error
    /// then.
    fn check_waiting(&self) -> Option<&str> {
        (self.fired.get().is_some() || self.worked() >= self.limit).then(|| self.fire())
    }
}

/// What the timer thread shares with the host.
struct Alarm {
    /// Bumped as the host's outermost entry into Lua begins and as it ends: odd while one runs.
    entries: AtomicU32,
    /// The states the script may be running Lua on: the main state, then the coroutines being
    /// resumed, innermost last. Each is alive while it is listed (a coroutine being resumed is
    /// on its resumer's stack).
    running: Mutex<Vec<RawState>>,
    /// The watchdog is gone: the thread ends and touches no state again.
    closed: AtomicBool,
}

/// A Lua state, for the timer thread to arm.
struct RawState(*mut ffi::lua_State);

// SAFETY: the timer thread only passes it to `lua_sethook` and `lua_gethook` (which Lua 5.1
// allows asynchronously: its own interpreter arms a hook from a signal handler), and only while
// it is listed in `Alarm::running`, under its lock.
unsafe impl Send for RawState {}

impl Alarm {
    fn running(&self) -> MutexGuard<'_, Vec<RawState>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f`, which resumes the coroutine `co`, with `co` listed as running.
    fn resuming<R>(&self, co: *mut ffi::lua_State, f: impl FnOnce() -> R) -> R {
        /// Takes `co` off the list even if `f` unwinds.
        struct Done<'a>(&'a Alarm, *mut ffi::lua_State);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                let mut running = self.0.running();
                if let Some(at) = running.iter().rposition(|s| s.0 == self.1) {
                    running.remove(at);
                }
            }
        }
        self.running().push(RawState(co));
        let _done = Done(self, co);
        f()
    }

    /// The timer thread: once the same entry has run for a poll or more, gives the hook to
    /// each listed state that has none, so that it looks at the clock; once the entry has run
    /// past the limit, makes the hook run at the next instruction, however long the C
    /// functions between instructions take.
    fn watch(&self, limit: Duration) {
        let poll = (limit / 10).clamp(Duration::from_millis(1), Duration::from_millis(50));
        // The entry seen last, and when it was first seen.
        let mut seen = (u32::MAX, Instant::now());
        while !self.closed.load(Relaxed) {
            thread::park_timeout(poll);
            let entries = self.entries.load(Relaxed);
            if entries != seen.0 {
                seen = (entries, Instant::now());
                continue;
            }
            if entries.is_multiple_of(2) {
                continue;
            }
            let overdue = seen.1.elapsed() >= limit;
            let running = self.running();
            if self.closed.load(Relaxed) {
                break;
            }
            for state in running.iter() {
                // SAFETY: listed states are alive (see `RawState`).
                unsafe {
                    let hook = ffi::lua_gethook(state.0);
                    if hook.is_none() || (overdue && is_ours(hook)) {
                        ffi::lua_sethook(state.0, Some(on_hook), ffi::LUA_MASKCOUNT, 1);
                    }
                }
            }
        }
    }
}

pub struct Watchdog {
    watch: Rc<Watch>,
    /// Nested entries (Lua calling back into the host that enters Lua again) count once.
    depth: Cell<u32>,
    /// The timer thread, to wake as the watchdog goes.
    timer: Option<thread::Thread>,
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        let alarm = &self.watch.alarm;
        alarm.closed.store(true, Relaxed);
        alarm.running().clear();
        if let Some(timer) = &self.timer {
            timer.unpark();
        }
    }
}

impl Watchdog {
    /// Watches `lua`; must be called before the script runs.
    pub fn new(lua: &Lua, limit: Duration) -> mlua::Result<Watchdog> {
        let seconds = limit.as_secs_f64();
        let mut main_state = std::ptr::null_mut();
        // SAFETY: only reads which state runs the host's calls.
        unsafe { lua.exec_raw::<()>((), |raw| main_state = raw)? };
        let alarm = Arc::new(Alarm {
            entries: AtomicU32::new(0),
            running: Mutex::new(vec![RawState(main_state)]),
            closed: AtomicBool::new(false),
        });
        let watch = Rc::new(Watch {
            limit,
            main: main_state,
            alarm: alarm.clone(),
            eager: Cell::new(false),
            entered: Cell::new(None),
            spent: Cell::new(Duration::ZERO),
            grace: Cell::new(None),
            fired: Cell::new(None),
            budget: Cell::new(None),
            without_yielding: format!(
                "script ran {seconds:.1} s without yielding (infinite loop?)"
            ),
            slow_frame: format!(
                "script's callbacks and memory hooks ran {seconds:.1} s in one frame"
            ),
        });
        let pointer = Rc::as_ptr(&watch);
        // The state's app data keeps the `Watch` alive: mlua drops it after closing the state,
        // whose `__gc` metamethods may still run Lua, and so the hook.
        lua.set_app_data(watch.clone());
        // SAFETY: the registry keeps a plain pointer to the `Watch`, alive as long as the state.
        unsafe {
            lua.exec_raw::<()>((), |raw| {
                ffi::lua_pushlightuserdata(raw, pointer.cast_mut().cast());
                ffi::lua_setfield(raw, ffi::LUA_REGISTRYINDEX, WATCH_KEY.as_ptr());
            })?;
        }
        guard_sethook(lua)?;
        guard_handlers(lua)?;
        guard_coroutines(lua)?;
        let timer = thread::Builder::new()
            .name("lua watchdog".into())
            .spawn(move || alarm.watch(limit))
            .ok()
            .map(|handle| handle.thread().clone());
        watch.eager.set(timer.is_none());
        Ok(Watchdog {
            watch,
            depth: Cell::new(0),
            timer,
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

    /// Looks at the clock before an entry, as the hook does between instructions: entries
    /// that each run too few instructions for the hook (memory hooks that create coroutines,
    /// which start their own count) are stopped all the same once the frame has run past the
    /// limit and its grace. True if the script is stopped now.
    pub fn overdue(&self) -> bool {
        self.watch.timed(0).is_some()
    }

    /// Runs `f`, the host's resumption of the script's coroutine `thread`, under watch.
    pub fn resuming<R>(&self, thread: &mlua::Thread, f: impl FnOnce() -> R) -> R {
        let co = thread.to_pointer().cast_mut().cast();
        // SAFETY: `thread` keeps the coroutine alive.
        unsafe { settle(co, &self.watch) };
        self.watch.alarm.resuming(co, f)
    }

    /// The script ran away and was stopped: it must not run again.
    pub fn fired(&self) -> bool {
        self.watch.fired.get().is_some()
    }

    /// The error a stopped script's entry ends with.
    pub fn error(&self) -> mlua::Error {
        mlua::Error::runtime(self.watch.fire())
    }

    /// A frame begins: the script's work is counted from zero.
    pub fn new_frame(&self) {
        self.watch.spent.set(Duration::ZERO);
        self.watch.grace.set(None);
    }

    fn step(&self, by: i32) {
        let depth = self.depth.get().wrapping_add_signed(by);
        self.depth.set(depth);
        if depth == u32::from(by > 0) {
            let watch = &self.watch;
            watch.alarm.entries.fetch_add(1, Relaxed);
            if by > 0 {
                // SAFETY: the main state lives as long as the watchdog.
                unsafe { settle(watch.main, watch) };
            }
            if let Some(entered) = watch.entered.replace((by > 0).then(Instant::now)) {
                watch.spent.set(watch.spent.get() + entered.elapsed());
            }
        }
    }
}

/// Reads the `Watch` a state's watchdog registered.
///
/// # Safety
/// `state` must be a live state (or coroutine of one) that a [`Watchdog`] watches.
unsafe fn watch_of<'a>(state: *mut ffi::lua_State) -> &'a Watch {
    ffi::lua_getfield(state, ffi::LUA_REGISTRYINDEX, WATCH_KEY.as_ptr());
    let watch = ffi::lua_touserdata(state, -1).cast::<Watch>();
    ffi::lua_pop(state, 1);
    &*watch
}

/// Sets the watchdog's hook on the coroutine `state`, due after the watch's next interval.
///
/// # Safety
/// As [`watch_of`].
unsafe fn rearm(state: *mut ffi::lua_State, watch: &Watch) {
    ffi::lua_sethook(
        state,
        Some(on_hook),
        ffi::LUA_MASKCOUNT,
        watch.interval() as c_int,
    );
}

/// Gives the state `state`, about to run Lua, the hook if the script needs it now, and takes
/// the watchdog's away if not (the timer thread arms it again if the entry runs long).
///
/// # Safety
/// As [`watch_of`].
unsafe fn settle(state: *mut ffi::lua_State, watch: &Watch) {
    if watch.needs_hook() {
        rearm(state, watch);
    } else if is_ours(ffi::lua_gethook(state)) {
        ffi::lua_sethook(state, None, 0, 0);
    }
}

/// The hook is the watchdog's.
fn is_ours(hook: Option<ffi::lua_Hook>) -> bool {
    hook.is_some_and(|hook| std::ptr::fn_addr_eq(hook, on_hook as ffi::lua_Hook))
}

/// Counts the instructions run since the last call, raises the watchdog's or `exec_count`'s
/// error when one is due, and sets itself again.
unsafe extern "C-unwind" fn on_hook(state: *mut ffi::lua_State, _: *mut ffi::lua_Debug) {
    let watch = watch_of(state);
    let error = watch.count(ffi::lua_gethookcount(state).max(1) as u32);
    rearm(state, watch);
    if let Some(message) = error {
        // The error unwinds through this frame (nothing in it has anything to drop).
        ffi::lua_pushlstring(state, message.as_ptr().cast(), message.len());
        ffi::lua_error(state);
    }
}

/// Replaces `debug.sethook` with one the watchdog survives. A script clearing its hook gets the
/// watchdog's back when it needs it now, and a script that has run away always gets it back (it
/// could otherwise clear it in a loop). A script's own hook is set wrapped: the wrapper is also called every [`STEP`]
/// instructions, looks at the clock as the watchdog's hook does, and hands the script's
/// function only the events it asked for.
fn guard_sethook(lua: &Lua) -> mlua::Result<()> {
    let debug: mlua::Table = lua.globals().get("debug")?;
    let sethook: mlua::Function = debug.get("sethook")?;
    let guarded = lua.create_function(move |lua, args: mlua::MultiValue| {
        let mut args: Vec<mlua::Value> = args.into_iter().collect();
        let target = match args.first() {
            Some(mlua::Value::Thread(t)) => Some(t.clone()),
            _ => None,
        };
        let at = usize::from(target.is_some());
        if let Some(mlua::Value::Function(hook)) = args.get(at).cloned() {
            let count = match args.get(at + 2) {
                Some(mlua::Value::Integer(n)) => (*n).clamp(0, i64::from(i32::MAX)) as u32,
                Some(mlua::Value::Number(n)) => n.clamp(0.0, f64::from(i32::MAX)) as u32,
                _ => 0,
            };
            args.truncate(at + 2);
            args[at] = mlua::Value::Function(wrap_hook(lua, hook, count)?);
            if args.len() < at + 2 {
                args.push(mlua::Value::String(lua.create_string("")?));
            }
            let every = if count == 0 { STEP } else { count.min(STEP) };
            args.push(mlua::Value::Integer(i64::from(every)));
        }
        sethook.call::<()>(mlua::MultiValue::from_iter(args))?;
        // SAFETY: the script's state is watched for as long as its API can be called; a
        // thread argument is a coroutine of it.
        unsafe {
            lua.exec_raw::<()>((), |raw| {
                let state = target
                    .as_ref()
                    .map_or(raw, |t| t.to_pointer().cast_mut().cast());
                let watch = watch_of(raw);
                // The count restarts here: look at the clock now.
                watch.count(0);
                let cleared = ffi::lua_gethook(state).is_none();
                if watch.fired.get().is_some() || (cleared && watch.needs_hook()) {
                    rearm(state, watch);
                }
            })
        }
    })?;
    debug.set("sethook", guarded)
}

/// Once the script is stopped, or `emu.exec_count`'s count has run out, `xpcall`'s handlers
/// are not called: Lua 5.1 runs a handler for the hook's error inside the hook, where hooks are
/// off, so a handler that loops would never be stopped (and the error is raised again at the
/// next instruction anyway). For the same reason `newproxy` is not there: its `__gc` finalizers
/// also run with hooks off.
fn guard_handlers(lua: &Lua) -> mlua::Result<()> {
    let stopped = lua.create_function(|lua, ()| {
        Ok(lua
            .app_data_ref::<Rc<Watch>>()
            .is_some_and(|watch| watch.fired.get().is_some() || watch.budget.get() == Some(0)))
    })?;
    let globals = lua.globals();
    let global = |name: &str| globals.get::<mlua::Value>(name);
    lua.load(
        r##"
        local stopped, xpcall, type, select, error = ...
        _G.xpcall = function(...)
          local f, handler = ...
          if select("#", ...) < 2 then
            error("bad argument #2 to 'xpcall' (value expected)", 2)
          end
          if type(handler) ~= "function" then return xpcall(...) end
          return xpcall(f, function(e)
            if stopped() then return e end
            return handler(e)
          end)
        end
        newproxy = nil
        "##,
    )
    .set_name("=nestor")
    .call((
        stopped,
        global("xpcall")?,
        global("type")?,
        global("select")?,
        global("error")?,
    ))
}

/// Replaces `coroutine.resume` and `coroutine.wrap` with the watchdog's, which behave as Lua
/// 5.1's and list the coroutine they resume as running for the timer thread.
fn guard_coroutines(lua: &Lua) -> mlua::Result<()> {
    let coroutine: mlua::Table = lua.globals().get("coroutine")?;
    // SAFETY: both keep to Lua's C API, and raise errors only with nothing to drop.
    unsafe {
        coroutine.set("resume", lua.create_c_function(resume)?)?;
        coroutine.set("wrap", lua.create_c_function(wrap)?)?;
    }
    Ok(())
}

/// `coroutine.resume(co, ...)`: true and what `co` yielded or returned, or false and its error.
unsafe extern "C-unwind" fn resume(state: *mut ffi::lua_State) -> c_int {
    let co = ffi::lua_tothread(state, 1);
    if co.is_null() {
        return ffi::luaL_argerror(state, 1, c"coroutine expected".as_ptr());
    }
    // The values, or the error message.
    let results = resume_with(state, co, ffi::lua_gettop(state) - 1);
    let values = if results < 0 { 1 } else { results };
    ffi::lua_pushboolean(state, c_int::from(results >= 0));
    ffi::lua_insert(state, -(values + 1));
    values + 1
}

/// `coroutine.wrap(f)`: a function that resumes a new coroutine running `f` and returns what
/// it yields or returns, or raises its error.
unsafe extern "C-unwind" fn wrap(state: *mut ffi::lua_State) -> c_int {
    let co = ffi::lua_newthread(state);
    if ffi::lua_isfunction(state, 1) == 0 || ffi::lua_iscfunction(state, 1) != 0 {
        return ffi::luaL_argerror(state, 1, c"Lua function expected".as_ptr());
    }
    ffi::lua_pushvalue(state, 1);
    ffi::lua_xmove(state, co, 1);
    ffi::lua_pushcclosure(state, resume_wrapped, 1);
    1
}

/// A function `coroutine.wrap` made.
unsafe extern "C-unwind" fn resume_wrapped(state: *mut ffi::lua_State) -> c_int {
    let co = ffi::lua_tothread(state, ffi::lua_upvalueindex(1));
    let results = resume_with(state, co, ffi::lua_gettop(state));
    if results < 0 {
        if ffi::lua_isstring(state, -1) != 0 {
            // Where the wrapped function was called, before the message.
            ffi::luaL_where(state, 1);
            ffi::lua_insert(state, -2);
            ffi::lua_concat(state, 2);
        }
        ffi::lua_error(state);
    }
    results
}

/// Resumes `co` with the top `args` values of `state`, listed as running. Leaves what it
/// yielded or returned on `state` and returns their number, or leaves the error and returns -1.
unsafe fn resume_with(state: *mut ffi::lua_State, co: *mut ffi::lua_State, args: c_int) -> c_int {
    let refused = cannot_resume(state, co);
    if ffi::lua_checkstack(co, args) == 0 {
        return ffi::luaL_error(state, c"too many arguments to resume".as_ptr());
    }
    if let Some(message) = refused {
        ffi::lua_pushstring(state, message.as_ptr());
        return -1;
    }
    ffi::lua_xmove(state, co, args);
    lua_setlevel(state, co);
    let watch = watch_of(state);
    settle(co, watch);
    let status = watch.alarm.resuming(co, || ffi::lua_resume_(co, args));
    if status != 0 && status != ffi::LUA_YIELD {
        ffi::lua_xmove(co, state, 1);
        return -1;
    }
    let results = ffi::lua_gettop(co);
    if ffi::lua_checkstack(state, results + 1) == 0 {
        return ffi::luaL_error(state, c"too many results to resume".as_ptr());
    }
    ffi::lua_xmove(co, state, results);
    results
}

/// Why `co` can't be resumed from `state`, if it can't: it is running, resuming another
/// (normal), or dead (returned, or failed).
unsafe fn cannot_resume(
    state: *mut ffi::lua_State,
    co: *mut ffi::lua_State,
) -> Option<&'static CStr> {
    if co == state {
        return Some(c"cannot resume running coroutine");
    }
    match ffi::lua_status(co) {
        ffi::LUA_YIELD => None,
        0 => {
            let mut frame: ffi::lua_Debug = std::mem::zeroed();
            if ffi::lua_getstack(co, 0, &mut frame) > 0 {
                Some(c"cannot resume normal coroutine")
            } else if ffi::lua_gettop(co) == 0 {
                Some(c"cannot resume dead coroutine")
            } else {
                // Not started yet.
                None
            }
        }
        _ => Some(c"cannot resume dead coroutine"),
    }
}

/// The script's hook `hook`, asked to run every `count` instructions (0: never on a count),
/// inside one that stops a runaway script as the watchdog's own hook would.
fn wrap_hook(lua: &Lua, hook: mlua::Function, count: u32) -> mlua::Result<mlua::Function> {
    let counted = Cell::new(0u32);
    lua.create_function(move |lua, (event, line): (mlua::String, mlua::Value)| {
        check_wait(lua)?;
        if event.as_bytes() == b"count" {
            let every = if count == 0 { STEP } else { count.min(STEP) };
            counted.set(counted.get().saturating_add(every));
            if count == 0 || counted.get() < count {
                return Ok(());
            }
            counted.set(0);
        }
        hook.call::<()>((event, line))
    })
}

/// Runs `f` under an instruction-count limit (`emu.exec_count`): an error is raised in it after
/// `count` Lua instructions. True if `f` completed.
pub fn with_instruction_limit(lua: &Lua, count: u32, f: impl FnOnce() -> bool) -> bool {
    /// Puts the budget of an enclosing count back even if `f` unwinds.
    struct Restore<'a>(&'a Lua, Option<u32>);
    impl Drop for Restore<'_> {
        fn drop(&mut self) {
            set_budget(self.0, self.1);
        }
    }
    if count == 0 {
        // As in FCEUX, where a zero count never reaches the hook.
        return f();
    }
    let outer = set_budget(lua, Some(count));
    let _restore = Restore(lua, outer);
    f()
}

/// Sets `emu.exec_count`'s budget and the running coroutine's hook to match; returns the
/// previous budget.
fn set_budget(lua: &Lua, budget: Option<u32>) -> Option<u32> {
    let mut previous = None;
    // SAFETY: the script's state is watched for as long as its API can be called.
    let _ = unsafe {
        lua.exec_raw::<()>((), |state| {
            let watch = watch_of(state);
            watch.count(0);
            previous = watch.budget.replace(budget);
            rearm(state, watch);
        })
    };
    previous
}

/// For a host function that waits on the outside world (the `socket` module), to call while it
/// waits: once the script's work in the frame has outlasted the limit, the script is stopped
/// as the hook stops it (its error, raised again at every instruction) instead of left waiting.
pub fn check_wait(lua: &Lua) -> mlua::Result<()> {
    let mut message = None;
    // SAFETY: the script's state is watched for as long as its API can be called.
    unsafe {
        lua.exec_raw::<()>((), |state| {
            let watch = watch_of(state);
            message = watch.check_waiting().map(str::to_string);
            if message.is_some() {
                rearm(state, watch);
            }
        })
    }?;
    message.map_or(Ok(()), |m| Err(mlua::Error::runtime(m)))
}

/// For a C function that computes for long (pattern matching) on the coroutine `state`: a
/// check to call as it goes, false once the script is stopped as the hook stops it (its time
/// counted as Lua instructions' time, with the same grace after a wait in another C function;
/// [`raise`] then raises the error). Always true in a state no watchdog watches.
///
/// # Safety
/// `state` must be a live state whose watchdog, if any, outlives the check.
pub unsafe fn running<'a>(state: *mut ffi::lua_State) -> impl FnMut() -> bool + 'a {
    ffi::lua_getfield(state, ffi::LUA_REGISTRYINDEX, WATCH_KEY.as_ptr());
    let watch = ffi::lua_touserdata(state, -1).cast::<Watch>().as_ref();
    ffi::lua_pop(state, 1);
    move || {
        let Some(watch) = watch else { return true };
        let stopped = watch.timed(0).is_some();
        if stopped || watch.grace.get().is_some() {
            // The hook looks at every instruction from here on (and raises the error again).
            rearm(state, watch);
        }
        !stopped
    }
}

/// Raises the error of the stopped script that `state` belongs to.
///
/// # Safety
/// As [`watch_of`]; nothing in the caller's frames may be left to drop.
pub unsafe fn raise(state: *mut ffi::lua_State) -> ! {
    let message = watch_of(state).fire();
    ffi::lua_pushlstring(state, message.as_ptr().cast(), message.len());
    ffi::lua_error(state)
}
