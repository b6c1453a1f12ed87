//! One loaded script: its Lua state, the main coroutine, and how errors are reported.

use crate::format::error_message as message;
use crate::state::{
    lend, shared, state, Lent, PadOverride, ScriptState, Shared, SpeedMode, Stream,
};
use crate::watch::Kind;
use mlua::{
    Error, Function, HookTriggers, IntoLuaMulti, Lua, LuaOptions, MultiValue, StdLib, Thread,
    ThreadStatus, Value, VmState,
};
use nes::Console;
use std::cell::RefCell;
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

/// The watchdog looks at the instruction budget this often.
const CHECK_EVERY: u32 = 10_000;

/// Raised by `os.exit` to unwind the script; the host ends the program with the status.
#[derive(Debug)]
pub struct ExitRequest;

impl std::fmt::Display for ExitRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("os.exit")
    }
}

impl std::error::Error for ExitRequest {}

fn is_exit(e: &Error) -> bool {
    match e {
        Error::CallbackError { cause, .. } => is_exit(cause),
        Error::ExternalError(inner) => inner.is::<ExitRequest>(),
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
        other => message(other),
    }
}

/// The instruction-count hook: stops a script that runs too long without returning to the host.
fn watchdog(limit: u64) -> impl Fn(&Lua, mlua::Debug) -> mlua::Result<VmState> {
    move |lua, _| {
        state(lua, |s| {
            match s.budget.checked_sub(u64::from(CHECK_EVERY)) {
                Some(left) => {
                    s.budget = left;
                    Ok(VmState::Continue)
                }
                None => Err(Error::RuntimeError(format!(
                    "script ran {limit} Lua instructions without yielding (infinite loop?)"
                ))),
            }
        })
    }
}

pub struct Script {
    pub lua: Lua,
    /// The file's name, which keys its `registersave` values in a slot's `.luasav` file.
    pub name: String,
    /// The main chunk's coroutine while it is waiting in `emu.frameadvance`.
    main: Option<Thread>,
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
        let lua = unsafe { Lua::unsafe_new_with(StdLib::ALL, LuaOptions::default()) };
        let budget = shared_state.borrow().instruction_limit;
        lua.set_app_data(ScriptState::new(shared_state));
        lua.set_app_data(Lent::default());
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        crate::api::install(&lua, dir).map_err(|e| format!("setting up Lua: {e}"))?;
        lua.set_hook(
            HookTriggers::new().every_nth_instruction(CHECK_EVERY),
            watchdog(budget),
        );
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
        let main = lua.create_thread(chunk).map_err(|e| e.to_string())?;
        // Coroutines the script creates inherit the hook from the main coroutine.
        main.set_hook(
            HookTriggers::new().every_nth_instruction(CHECK_EVERY),
            watchdog(budget),
        );
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into(),
        );
        let mut script = Script {
            lua,
            name,
            main: Some(main),
        };
        script.resume(console);
        Ok(script)
    }

    fn shared(&self) -> Rc<RefCell<Shared>> {
        state(&self.lua, |s| s.shared.clone())
    }

    fn report(&self, text: &str) {
        self.shared().borrow().print(Stream::Err, text);
    }

    /// Every entry into Lua gets a fresh instruction budget.
    fn enter<R>(
        &self,
        console: &mut Console,
        f: impl FnOnce() -> mlua::Result<R>,
    ) -> mlua::Result<R> {
        let limit = self.shared().borrow().instruction_limit;
        state(&self.lua, |s| s.budget = limit);
        lend(&self.lua, console, f)
    }

    /// Resumes the main coroutine for one frame. Returns false if the script must stop.
    pub fn resume(&mut self, console: &mut Console) -> bool {
        let Some(main) = self.main.clone() else {
            return true;
        };
        state(&self.lua, |s| s.advancing = false);
        let result = self.enter(console, || main.resume::<()>(()));
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

    pub fn hook_failed(&self) -> bool {
        state(&self.lua, |s| s.hook_failed)
    }

    /// Stops the script: its exit callback runs (unless it is the one that failed).
    pub fn stop(mut self, console: &mut Console, run_exit: bool) {
        if run_exit {
            self.callback(console, EXIT);
        }
        if self.main.take().is_some() {
            self.finish_main();
        }
    }
}
