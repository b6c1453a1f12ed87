//! Stops a script that keeps the emulator waiting. Every coroutine of the script carries a count
//! hook that runs every [`STEP`] Lua instructions (PUC Lua keeps one hook per coroutine, and a
//! new coroutine inherits its creator's, so the one set on the main state reaches them all). The
//! hook looks at the clock: once the script's work in the frame (the host's entries into Lua
//! since the frame began: the main chunk's resumption, callbacks, memory hooks) has lasted
//! longer than the limit, the script may run [`RUNAWAY_INSTRUCTIONS`] more Lua instructions
//! before the hook raises the error (which the host reports like any other), so a script that
//! was waiting in a C function (a pipe to another program) and then returns is left alone. The
//! string library's pattern matching and `string.rep` look at the clock as the hook does, with
//! a [`running`] check; the `socket` module's waits count as running: they call [`check_wait`]
//! as they wait.
//!
//! Once the error is raised the script is finished for good: the hook raises again at the next
//! instruction whatever catches the error (`pcall`, `xpcall`, a coroutine), `debug.sethook` and
//! `emu.exec_count` put it back, and the host stops the script when its entry returns
//! ([`Watchdog::fired`]). The same hook counts `emu.exec_count`'s instructions.

use mlua::{ffi, Lua};
use std::cell::Cell;
use std::ffi::{c_int, CStr};
use std::rc::Rc;
use std::time::{Duration, Instant};

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

pub struct Watchdog {
    watch: Rc<Watch>,
    /// Nested entries (Lua calling back into the host that enters Lua again) count once.
    depth: Cell<u32>,
}

impl Watchdog {
    /// Watches `lua`; must be called before the script creates coroutines.
    pub fn new(lua: &Lua, limit: Duration) -> mlua::Result<Watchdog> {
        let seconds = limit.as_secs_f64();
        let watch = Rc::new(Watch {
            limit,
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
                rearm(raw, &watch);
            })?;
        }
        guard_sethook(lua)?;
        guard_handlers(lua)?;
        Ok(Watchdog {
            watch,
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

    /// Looks at the clock before an entry, as the hook does between instructions: entries
    /// that each run too few instructions for the hook (memory hooks that create coroutines,
    /// which start their own count) are stopped all the same once the frame has run past the
    /// limit and its grace. True if the script is stopped now.
    pub fn overdue(&self) -> bool {
        self.watch.timed(0).is_some()
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
/// watchdog's back, and always once the script has run away (a script could otherwise clear it
/// in a loop). A script's own hook is set wrapped: the wrapper is also called every [`STEP`]
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
                if watch.fired.get().is_some() || ffi::lua_gethook(state).is_none() {
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
