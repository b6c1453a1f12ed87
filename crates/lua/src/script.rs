//! One loaded script: its Lua state, the main coroutine, and how errors are reported.

use crate::format::error_message as message;
use crate::state::{lend, shared, state, PadOverride, ScriptState, Shared, SpeedMode, Stream};
use crate::watch::Kind;
use crate::watchdog::Watchdog;
use mlua::{
    Error, Function, IntoLuaMulti, Lua, LuaOptions, MultiValue, StdLib, Thread, ThreadStatus, Value,
};
use nes::Console;
use std::cell::{Cell, RefCell};
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::rc::Rc;

/// Registry slots of the `emu.register*` and `gui.register` callbacks.
pub const BEFORE: &str = "nestor.before";
pub const AFTER: &str = "nestor.after";
pub const EXIT: &str = "nestor.exit";
pub const GUI: &str = "nestor.gui";
/// Registry slots of `savestate.registersave` and `registerload`.
pub const SAVE: &str = "nestor.registersave";
pub const LOAD: &str = "nestor.registerload";
/// The original `debug.traceback`, kept in case a script replaces `debug`.
const TRACEBACK: &str = "nestor.traceback";

/// Raised by `os.exit` to unwind the script; the host ends the program with the status.
#[derive(Debug)]
pub struct ExitRequest;

impl std::fmt::Display for ExitRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("os.exit")
    }
}

impl std::error::Error for ExitRequest {}

/// An entry into a script the watchdog has stopped (already reported).
#[derive(Debug)]
struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("script stopped")
    }
}

impl std::error::Error for Stopped {}

/// The script is to stop without a report: `os.exit`, or an entry after the watchdog fired.
fn is_exit(e: &Error) -> bool {
    match e {
        Error::CallbackError { cause, .. } => is_exit(cause),
        Error::ExternalError(inner) => inner.is::<ExitRequest>() || inner.is::<Stopped>(),
        _ => false,
    }
}

/// Message plus the traceback mlua recorded when a callback failed.
fn message_with_traceback(e: &Error) -> String {
    match e {
        Error::CallbackError { cause, traceback } if !traceback.is_empty() => {
            format!("{}\n{}", message(cause), traceback)
        }
        Error::CallbackError { cause, .. } => message_with_traceback(cause),
        // Raised through one of the host's calls into Lua: mlua added the traceback.
        Error::RuntimeError(text) => text.clone(),
        other => message(other),
    }
}

pub struct Script {
    watchdog: Watchdog,
    pub lua: Lua,
    /// The file's name, which keys its `registersave` values in a slot's `.luasav` file.
    pub name: String,
    /// The main chunk's coroutine while it is waiting in `emu.frameadvance`.
    main: Option<Thread>,
    /// A call into the script panicked in the host (mlua or an API function): the script's
    /// state can't be trusted, so it never runs again.
    broken: Cell<bool>,
}

impl Script {
    /// Compiles the file and runs it up to its first `emu.frameadvance`.
    pub fn load(
        path: &Path,
        shared_state: Rc<RefCell<Shared>>,
        console: &mut Console,
    ) -> Result<Script, String> {
        let source =
            std::fs::read(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        // SAFETY: FCEUX scripts expect the debug library; nothing else of mlua's safety net is
        // needed (the state never runs untrusted C modules we load ourselves).
        let lua = unsafe {
            Lua::unsafe_new_with(StdLib::ALL_SAFE | StdLib::DEBUG, LuaOptions::default())
        };
        let (time_limit, memory_limit, sandbox) = {
            let s = shared_state.borrow();
            (s.time_limit, s.memory_limit, s.sandbox.clone())
        };
        // A failed allocation is then a Lua error, not an abort.
        lua.set_memory_limit(memory_limit)
            .map_err(|e| format!("setting up Lua: {e}"))?;
        lua.set_app_data(ScriptState::new(shared_state));
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        crate::api::install(&lua, dir).map_err(|e| format!("setting up Lua: {e}"))?;
        if let Some(folders) = sandbox {
            crate::sandbox::install(&lua, dir, &folders)
                .map_err(|e| format!("setting up Lua: {e}"))?;
        }
        let watchdog =
            Watchdog::new(&lua, time_limit).map_err(|e| format!("setting up Lua: {e}"))?;
        let traceback: Function = lua
            .load("return debug.traceback")
            .eval()
            .map_err(|e| format!("setting up Lua: {e}"))?;
        lua.set_named_registry_value(TRACEBACK, traceback)
            .map_err(|e| format!("setting up Lua: {e}"))?;
        let chunk = lua
            .load(&source[..])
            .set_name(format!("@{}", path.display()))
            .into_function()
            .map_err(|e| format!("Failed to compile file: {}", message(&e)))?;
        // PUC Lua keeps a coroutine's stack after an error in it, so the traceback is taken from
        // the dead coroutine (as FCEUX does) and the chunk needs no wrapper.
        let main = lua.create_thread(chunk).map_err(|e| e.to_string())?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into(),
        );
        let mut script = Script {
            watchdog,
            lua,
            name,
            main: Some(main),
            broken: Cell::new(false),
        };
        script.resume(console);
        Ok(script)
    }

    fn shared(&self) -> Rc<RefCell<Shared>> {
        state(&self.lua, |s| s.shared.clone())
    }

    /// Reports an error of the script's.
    fn report(&self, text: &str) {
        let shared = self.shared();
        shared.borrow_mut().errors += 1;
        shared.borrow().print(Stream::Err, text);
    }

    /// Every entry into Lua: the console is lent to it, and the watchdog times it. Once the
    /// watchdog has fired, the entry fails with its error whatever the script caught, and no
    /// entry runs again; an entry once the frame has run past the limit fires it.
    fn enter<R>(
        &self,
        console: &mut Console,
        f: impl FnOnce() -> mlua::Result<R>,
    ) -> mlua::Result<R> {
        if self.watchdog.fired() || self.broken.get() {
            return Err(Error::external(Stopped));
        }
        if self.watchdog.overdue() {
            return Err(self.watchdog.error());
        }
        let entry = AssertUnwindSafe(|| lend(console, || self.watchdog.enter(f)));
        let result = std::panic::catch_unwind(entry).unwrap_or_else(|panic| {
            self.broken.set(true);
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(Error::runtime(format!("the Lua host failed: {what}")))
        });
        match result {
            Ok(_) if self.watchdog.fired() => Err(self.watchdog.error()),
            result => result,
        }
    }

    /// Resumes the main coroutine for one frame. Returns false if the script must stop.
    pub fn resume(&mut self, console: &mut Console) -> bool {
        let Some(main) = self.main.clone() else {
            return true;
        };
        state(&self.lua, |s| s.advancing = false);
        let result = self.enter(console, || {
            self.watchdog
                .resuming(&main, || main.resume::<MultiValue>(()).map(|_| ()))
        });
        match result {
            Ok(())
                if main.status() == ThreadStatus::Resumable
                    && state(&self.lua, |s| s.advancing) =>
            {
                true
            }
            Ok(()) => {
                // The main chunk ended (or yielded on its own): callbacks stay alive.
                self.main = None;
                self.finish_main();
                true
            }
            Err(e) => {
                self.main = None;
                if !is_exit(&e) {
                    let mut text = message_with_traceback(&e);
                    if !text.contains("stack traceback:") {
                        let traceback: Option<Function> =
                            self.lua.named_registry_value(TRACEBACK).ok();
                        if let Some(t) =
                            traceback.and_then(|t| t.call::<String>((main, text.clone())).ok())
                        {
                            text = t;
                        }
                    }
                    self.report(&format!("Lua thread bombed out: {text}"));
                }
                false
            }
        }
    }

    fn finish_main(&self) {
        state(&self.lua, |s| s.pads = [PadOverride::PASS; 4]);
        shared(&self.lua, |s| s.speed = SpeedMode::Normal);
    }

    /// Calls a registered callback, if any. Returns false when it failed.
    pub fn callback(&self, console: &mut Console, slot: &str) -> bool {
        let Ok(Some(f)) = self.lua.named_registry_value::<Option<Function>>(slot) else {
            return true;
        };
        match self.enter(console, || f.call::<()>(())) {
            Ok(()) => true,
            Err(e) if is_exit(&e) => false,
            Err(e) if slot == GUI => {
                self.report(&format!(
                    "Lua error in gui.register function: {}",
                    message_with_traceback(&e)
                ));
                let _ = self.lua.set_named_registry_value(GUI, Value::Nil);
                true
            }
            Err(e) => {
                self.report(&format!(
                    "Lua thread bombed out: {}",
                    message_with_traceback(&e)
                ));
                false
            }
        }
    }

    /// Calls the `registersave` or `registerload` callback, if any, with `args`; returns what
    /// it returned. A callback that fails is reported and unregistered, as in FCEUX.
    pub fn slot_callback(
        &self,
        console: &mut Console,
        slot: &str,
        args: impl IntoLuaMulti,
    ) -> Option<MultiValue> {
        let f = self
            .lua
            .named_registry_value::<Option<Function>>(slot)
            .ok()??;
        match self.enter(console, || f.call::<MultiValue>(args)) {
            Ok(values) => Some(values),
            Err(e) => {
                if !is_exit(&e) {
                    self.report(&format!(
                        "Lua error in savestate.{} function: {}",
                        slot.trim_start_matches("nestor."),
                        message_with_traceback(&e)
                    ));
                }
                let _ = self.lua.set_named_registry_value(slot, Value::Nil);
                None
            }
        }
    }

    /// Runs this script's hook at `addr`, if it has one.
    pub fn hook(&self, console: &mut Console, kind: Kind, addr: u16, value: u8) {
        if !state(&self.lua, |s| s.watch.of(kind).get(addr) && !s.hook_failed) {
            return;
        }
        let f = self
            .lua
            .named_registry_value::<mlua::Table>(kind.table())
            .and_then(|t| t.get::<Option<Function>>(addr));
        let Ok(Some(f)) = f else {
            return;
        };
        if let Err(e) = self.enter(console, || f.call::<()>((addr, 1, value))) {
            if !is_exit(&e) {
                self.report(&format!(
                    "Lua thread bombed out: {}",
                    message_with_traceback(&e)
                ));
            }
            state(&self.lua, |s| s.hook_failed = true);
        }
    }

    /// A frame begins: the watchdog times the script's work in it from zero.
    pub fn new_frame(&self) {
        self.watchdog.new_frame();
    }

    /// A memory hook failed, or the watchdog stopped the script: it must be removed.
    pub fn finished(&self) -> bool {
        self.watchdog.fired() || self.broken.get() || state(&self.lua, |s| s.hook_failed)
    }

    /// Stops the script: its exit callback runs (unless it is the one that failed, or the
    /// watchdog stopped the script).
    pub fn stop(mut self, console: &mut Console, run_exit: bool) {
        if run_exit && !self.watchdog.fired() {
            self.callback(console, EXIT);
        }
        if self.main.take().is_some() {
            self.finish_main();
        }
    }
}
