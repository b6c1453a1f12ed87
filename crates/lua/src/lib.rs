//! FCEUX-compatible Lua scripting for the `nes` machine (PUC Lua 5.1, as FCEUX has it, through mlua).
//!
//! The host owns the [`Console`] and calls [`Scripts::run_frame`] instead of
//! `Console::run_frame` while scripts are loaded. A frame follows FCEUX's order: resume the
//! scripts' main coroutines, latch input (with `joypad.set` overrides), `emu.registerbefore`,
//! emulate the host frame, to the end of visible scanline 239 (memory hooks fire in here),
//! `emu.registerafter`, `gui.register`; then the host shows the picture with
//! [`Scripts::composite`] drawn over it.

mod api;
mod bitops;
mod colour;
mod fm2;
mod font;
mod format;
mod luasav;
mod overlay;
mod pattern;
mod sandbox;
mod script;
mod scriptdir;
mod state;
mod strlib;
mod watch;
mod watchdog;

pub use state::{HostFiles, HostInput, MovieMode, MovieStatus, Output, SpeedMode, Stream};

use script::Script;
use state::{state, PadOverride, Shared};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;
use watch::{Access, Kind, Watch, Watched};

use nes::Console;

/// An [`Output`] that collects what scripts print, each line of an error report marked
/// `stderr: `, with the text collected (for tests and tools that check a script's output).
pub fn captured_output() -> (Output, Rc<RefCell<String>>) {
    let text = Rc::new(RefCell::new(String::new()));
    let sink = text.clone();
    let output: Output = Rc::new(move |stream, printed: &str| {
        let mut out = sink.borrow_mut();
        for line in printed.lines() {
            if stream == Stream::Err {
                out.push_str("stderr: ");
            }
            out.push_str(line);
            out.push('\n');
        }
    });
    (output, text)
}

pub struct Scripts {
    shared: Rc<RefCell<Shared>>,
    scripts: Vec<Script>,
    /// Union of the scripts' hooked addresses.
    watch: Watch,
    /// Some address is hooked.
    hooked: bool,
    /// Instructions run since the session state was last updated (kept here so that the
    /// per-instruction loop touches no shared state).
    instructions: u64,
}

/// A script's movie reached the frame `movie.play` was asked to pause at.
fn pause_for_movie(s: &mut Shared) {
    if s.headless && !s.paused {
        s.print(
            Stream::Err,
            "movie.play: pause frame reached; no window to pause in a headless run; continuing",
        );
    }
    s.paused = true;
}

/// The registers a script can see and change.
fn registers(cpu: &nes::cpu::Cpu) -> (u8, u8, u8, u8, u8, u16) {
    (cpu.a, cpu.x, cpu.y, cpu.s, cpu.p, cpu.pc)
}

/// The PC a write hook reports, as FCEUX's CPU has it when it writes: past the bytes of the
/// instruction it has read (JSR and BRK push with PC two bytes on), or, for an interrupt, the
/// address it returns to. `fetch_from` is where the opcode comes from when an exec hook moved PC.
fn write_pc(console: &Console, fetch_from: Option<u16>) -> u16 {
    let pc = console.cpu.pc;
    if console.cpu.interrupt_due() {
        return pc;
    }
    let (op, mode) = nes::cpu::OPCODES[usize::from(console.peek(fetch_from.unwrap_or(pc)))];
    let len = match op {
        nes::cpu::Op::JSR | nes::cpu::Op::BRK => 2,
        _ => mode.instruction_len(),
    };
    pc.wrapping_add(len)
}

impl Scripts {
    /// A scripting session for the ROM in `rom` (the iNES file image) named `rom_name`;
    /// `print` goes to stdout and errors to stderr.
    pub fn new(rom: Vec<u8>, rom_name: &str) -> Scripts {
        Scripts::with_output(
            rom,
            rom_name,
            Rc::new(|stream, text: &str| match stream {
                Stream::Out => println!("{text}"),
                Stream::Err => eprintln!("{text}"),
            }),
        )
    }

    /// Like [`Scripts::new`], with printed lines handed to `output`.
    pub fn with_output(rom: Vec<u8>, rom_name: &str, output: Output) -> Scripts {
        Scripts {
            shared: Rc::new(RefCell::new(Shared::new(rom, rom_name.to_string(), output))),
            scripts: Vec::new(),
            watch: Watch::default(),
            hooked: false,
            instructions: 0,
        }
    }

    /// Loads a script and runs it up to its first `emu.frameadvance()`.
    pub fn load(&mut self, console: &mut Console, path: &Path) -> Result<(), String> {
        let script = Script::load(path, self.shared.clone(), console)?;
        self.scripts.push(script);
        self.refresh_watch();
        Ok(())
    }

    /// How long one call into a script may run before it is reported and stopped (10 s unless
    /// set; scripts loaded afterwards get it).
    pub fn set_time_limit(&mut self, limit: Duration) {
        self.shared.borrow_mut().time_limit = limit;
    }

    /// How many bytes one script may allocate (1 GiB unless set; scripts loaded afterwards get
    /// it). An allocation beyond it fails with the Lua error "not enough memory".
    pub fn set_memory_limit(&mut self, bytes: usize) {
        self.shared.borrow_mut().memory_limit = bytes;
    }

    /// Scripts loaded afterwards run in the sandbox (`--lua-sandbox`): no programs, no native
    /// code, files only in the script's own folder and `data_dir` (see scripts/README.md).
    pub fn set_sandbox(&mut self, data_dir: Option<PathBuf>) {
        self.shared.borrow_mut().sandbox = Some(data_dir.into_iter().collect());
    }

    /// A window is present: `emu.pause()` really pauses (see [`Scripts::paused`]).
    pub fn set_interactive(&mut self, interactive: bool) {
        self.shared.borrow_mut().headless = !interactive;
    }

    /// The user's controllers (before script overrides), as `nes::Buttons` bits.
    pub fn set_pads(&mut self, pads: [u8; 2]) {
        self.shared.borrow_mut().physical = pads;
    }

    /// Keyboard and mouse state for `input.get`.
    pub fn set_input(&mut self, input: HostInput) {
        self.shared.borrow_mut().input = input;
    }

    /// Where `savestate.persist` and `movie.record` write their files, and where
    /// `savestate.create`/`object` find numbered slots.
    pub fn set_files(&mut self, files: HostFiles) {
        self.shared.borrow_mut().files = Some(files);
    }

    /// The host's movie, for `movie.*` (None: no movie loaded).
    pub fn set_movie(&mut self, movie: Option<MovieStatus>) {
        self.shared.borrow_mut().movie = movie;
    }

    /// Whether the host writes RAM cheats at each frame's start: `movie.record` refuses while
    /// it does, as it refuses with Game Genie codes in.
    pub fn set_ram_cheats(&mut self, on: bool) {
        self.shared.borrow_mut().ram_cheats = on;
    }

    /// A script is recording a movie (`movie.record`): the host must not switch cheats on.
    pub fn recording_movie(&self) -> bool {
        let shared = self.shared.borrow();
        shared.script_movie.as_ref().is_some_and(|m| m.recording())
    }

    /// The host powers the machine on or resets it (`movie` crate command bits) at the start
    /// of the next frame: `emu.framecount` counts FCEUX's dead frames after it.
    pub fn set_restarts(&mut self, commands: u8) {
        self.shared.borrow_mut().restarts = commands;
    }

    /// Any script still loaded (waiting in frameadvance or with callbacks).
    pub fn active(&self) -> bool {
        !self.scripts.is_empty()
    }

    pub fn speed_mode(&self) -> SpeedMode {
        self.shared.borrow().speed
    }

    /// `emu.pause()` was called (and not `emu.unpause()`); the host should stop emulating and
    /// call [`Scripts::redraw`] for each displayed frame until the user resumes.
    pub fn paused(&self) -> bool {
        let s = self.shared.borrow();
        s.paused && !s.headless
    }

    /// The user resumed emulation.
    pub fn unpause(&mut self) {
        self.shared.borrow_mut().paused = false;
    }

    /// `emu.exit()` or `os.exit(n)` was called: the status to exit with.
    pub fn exit_code(&self) -> Option<i32> {
        self.shared.borrow().exit
    }

    /// `emu.message` texts since the last call.
    /// Errors the scripts have reported (each stopped its script or its gui callback).
    pub fn errors(&self) -> u32 {
        self.shared.borrow().errors
    }

    pub fn take_messages(&mut self) -> Vec<String> {
        std::mem::take(&mut self.shared.borrow_mut().messages)
    }

    /// Screenshot files requested by `gui.savescreenshotas` since the last call.
    pub fn take_screenshot_requests(&mut self) -> Vec<String> {
        std::mem::take(&mut self.shared.borrow_mut().screenshots)
    }

    /// Frames emulated since power-on, as `emu.framecount` reports them.
    pub fn framecount(&self) -> u32 {
        self.shared.borrow().framecount
    }

    /// One frame in FCEUX's order; ends at the end of visible scanline 239.
    pub fn run_frame(&mut self, console: &mut Console) {
        self.new_frame();
        self.for_each(console, |script, console| script.resume(console));
        self.latch_input(console);
        self.shared.borrow_mut().lagged = true;
        console.take_pads_polled();
        self.for_each(console, |script, console| {
            script.callback(console, script::BEFORE)
        });
        self.emulate(console);
        self.for_each(console, |script, console| {
            script.callback(console, script::AFTER)
        });
        self.draw(console);
        let mut s = self.shared.borrow_mut();
        if s.lagged {
            s.lagcount += 1;
        }
        drop(s);
        let failed: Vec<usize> = (0..self.scripts.len())
            .filter(|&i| self.scripts[i].finished())
            .collect();
        for i in failed.into_iter().rev() {
            self.scripts.remove(i).stop(console, true);
            self.shared.borrow_mut().hooks_changed = true;
        }
        self.refresh_watch();
    }

    /// Runs the `gui.register` callbacks and closes the overlays for display, as a frame of
    /// its own (the emulation is paused).
    pub fn redraw(&mut self, console: &mut Console) {
        self.new_frame();
        self.draw(console);
    }

    /// The scripts' work in a frame is timed from here (see `watchdog.rs`).
    fn new_frame(&self) {
        for script in &self.scripts {
            script.new_frame();
        }
    }

    fn draw(&mut self, console: &mut Console) {
        for script in &self.scripts {
            script.callback(console, script::GUI);
            state(&script.lua, |s| s.overlay.display());
        }
    }

    /// Blends the scripts' drawing over a 256x240 picture (`channels` = 3 for RGB, 4 for RGBA).
    pub fn composite(&self, frame: &mut [u8], channels: usize) {
        for script in &self.scripts {
            state(&script.lua, |s| s.overlay.composite(frame, channels));
        }
    }

    /// Stops every script (their `emu.registerexit` callbacks run).
    pub fn stop_all(&mut self, console: &mut Console) {
        for script in self.scripts.drain(..) {
            script.stop(console, true);
        }
        let mut s = self.shared.borrow_mut();
        s.stop_movie();
        s.hooks_changed = true;
        drop(s);
        self.refresh_watch();
    }

    /// The user saved numbered slot `slot` (not a script's own `savestate.save`): runs the
    /// scripts' `savestate.registersave` callbacks with the slot number. Returns what they
    /// returned, as the contents of the slot's `.luasav` file, or None when nothing returned
    /// anything. A value that cannot be kept (a function, a cycle) is reported and kept as nil.
    pub fn user_saved(&mut self, console: &mut Console, slot: u32) -> Option<Vec<u8>> {
        let mut records = Vec::new();
        for script in &self.scripts {
            let Some(values) = script.slot_callback(console, script::SAVE, slot) else {
                continue;
            };
            let shared = &self.shared;
            let values = luasav::detach_all(&values, |problem| {
                shared.borrow().print(
                    Stream::Err,
                    &format!("savestate.registersave in {}: {problem}", script.name),
                )
            });
            if !values.is_empty() {
                records.push((script.name.clone(), values));
            }
        }
        (!records.is_empty()).then(|| luasav::encode(&records))
    }

    /// The user loaded numbered slot `slot` into `console`, whose frame counter read
    /// `frame_before` until then; `luasav` is the slot's `.luasav` file, if it has one.
    /// `emu.framecount` follows the machine's frame counter. Each script's
    /// `savestate.registerload` callback gets the slot number and the values its `registersave`
    /// callback returned then. A damaged file is reported and passes no values.
    pub fn user_loaded(
        &mut self,
        console: &mut Console,
        frame_before: u64,
        slot: u32,
        luasav: Option<&[u8]>,
    ) {
        self.shared
            .borrow_mut()
            .follow_machine_frames(console.frame_number().wrapping_sub(frame_before));
        let records = luasav.map_or_else(Vec::new, |bytes| {
            luasav::decode(bytes).unwrap_or_else(|e| {
                self.shared.borrow().print(
                    Stream::Err,
                    &format!("savestate {slot}: Lua data not read: {e}"),
                );
                Vec::new()
            })
        });
        for script in &self.scripts {
            let saved = records
                .iter()
                .find(|(name, _)| *name == script.name)
                .map_or(&[][..], |(_, values)| &values[..]);
            let args: mlua::Result<Vec<mlua::Value>> =
                saved.iter().map(|v| v.to_lua(&script.lua)).collect();
            let Ok(args) = args else { continue };
            let args = std::iter::once(mlua::Value::Integer(i64::from(slot))).chain(args);
            script.slot_callback(console, script::LOAD, mlua::MultiValue::from_iter(args));
        }
    }

    /// Calls `f` for each script; a script for which it returns false is stopped.
    fn for_each(&mut self, console: &mut Console, f: impl Fn(&mut Script, &mut Console) -> bool) {
        let mut i = 0;
        while i < self.scripts.len() {
            if f(&mut self.scripts[i], console) {
                i += 1;
            } else {
                self.scripts.remove(i).stop(console, false);
                self.shared.borrow_mut().hooks_changed = true;
            }
        }
        self.refresh_watch();
    }

    /// FCEUX's input read: the user's pads through the scripts' one-frame overrides.
    fn latch_input(&mut self, console: &mut Console) {
        let mut pads = self.shared.borrow().physical;
        for script in &self.scripts {
            state(&script.lua, |s| {
                for (pad, o) in pads.iter_mut().zip(s.pads.iter_mut()) {
                    *pad = o.apply(*pad);
                    *o = PadOverride::PASS;
                }
            });
        }
        let mut s = self.shared.borrow_mut();
        let mut restarts = std::mem::take(&mut s.restarts);
        if let Some(movie) = &mut s.script_movie {
            let line = movie.latch(console, pads);
            pads = [line.pads[0], line.pads[1]];
            restarts |= line.commands;
        }
        if restarts & (movie::POWER | movie::SOFT_RESET) != 0 {
            s.restarted();
        }
        for (port, &pad) in pads.iter().enumerate() {
            console.set_buttons(port, nes::Buttons(pad));
        }
        s.pads = pads;
        let before = s.framecount;
        s.framecount = before.saturating_add(1 + std::mem::take(&mut s.dead_frames));
        let pause_at = s.script_movie.as_ref().and_then(|m| m.pause_at);
        if pause_at.is_some_and(|at| before < at && at <= s.framecount) {
            pause_for_movie(&mut s);
        }
    }

    /// Emulates the host frame (`Console::run_frame`): without hooks the machine runs on its
    /// own, fast paths and all (no Lua runs before the frame ends: hooks are only registered
    /// from inside a hook); with hooks, instruction by instruction to the same boundary.
    fn emulate(&mut self, console: &mut Console) {
        if self.hooked {
            let frame = console.frame_number();
            while console.frame_number() == frame {
                self.step(console);
            }
        } else {
            self.instructions += console.run_frame();
        }
        self.sync(console);
    }

    /// Hands the instruction count and the lag flag to the session state scripts read.
    fn sync(&mut self, console: &mut Console) {
        let mut s = self.shared.borrow_mut();
        s.instructions += std::mem::take(&mut self.instructions);
        // Cleared so that an `emu.setlagflag(true)` from a later hook is not undone.
        if console.take_pads_polled() {
            s.lagged = false;
        }
    }

    /// One instruction, with the scripts' memory hooks: exec before it, read and write right
    /// after the access, in the middle of the instruction.
    fn step(&mut self, console: &mut Console) {
        let pc = console.cpu.pc;
        let mut fetch_from = None;
        if self.watch.exec.get(pc) && !console.cpu.interrupt_due() && !console.cpu.jammed {
            self.dispatch(
                console,
                Access {
                    kind: Kind::Exec,
                    addr: pc,
                    value: 0,
                },
            );
            if console.cpu.pc != pc {
                fetch_from = Some(pc);
            }
        }
        // Hooks inside the instruction see the registers as they were before it. One that
        // changes them (setregister, savestate.load, a reset) leaves its CPU in place of the
        // rest of the instruction's.
        let before = registers(&console.cpu);
        let write_pc = write_pc(console, fetch_from);
        let mut cpu = console.cpu.clone();
        let (scripts, shared, instructions) = (&self.scripts, &self.shared, &mut self.instructions);
        let mut hook = |console: &mut Console, access: Access| {
            shared.borrow_mut().instructions += std::mem::take(instructions);
            // Write hooks see FCEUX's PC, unless an earlier hook moved it.
            let moved = access.kind == Kind::Write && console.cpu.pc == before.5;
            if moved {
                console.cpu.pc = write_pc;
            }
            for script in scripts {
                script.hook(console, access.kind, access.addr, access.value);
            }
            if moved && console.cpu.pc == write_pc {
                console.cpu.pc = before.5;
            }
        };
        let mut bus = Watched {
            console,
            watch: &self.watch,
            hook: &mut hook,
            fetch_from,
        };
        cpu.step(&mut bus);
        // As `Console::step` does.
        console.catch_up();
        if registers(&console.cpu) == before {
            console.cpu = cpu;
        }
        self.instructions += 1;
        self.refresh_watch();
    }

    fn dispatch(&mut self, console: &mut Console, access: Access) {
        self.sync(console);
        for script in &self.scripts {
            script.hook(console, access.kind, access.addr, access.value);
        }
        self.refresh_watch();
    }

    /// Rebuilds the union of the scripts' hooks after one registered, cleared or stopped.
    fn refresh_watch(&mut self) {
        if !self.shared.borrow().hooks_changed {
            return;
        }
        let mut watch = Watch::default();
        for script in &self.scripts {
            state(&script.lua, |s| watch.union(&s.watch));
        }
        self.hooked = !watch.is_empty();
        self.watch = watch;
        self.shared.borrow_mut().hooks_changed = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic in the host during a call into a script (here an API function that panics, as
    /// a bug in nestor or mlua would) stops that script with one report; the machine and the
    /// other scripts go on.
    #[test]
    fn a_panic_in_the_host_stops_only_its_script() {
        let output = Rc::new(RefCell::new(String::new()));
        let sink = output.clone();
        let rom = include_bytes!("../../../roms/quadfall.nes").to_vec();
        let mut console = Console::from_ines(&rom).unwrap();
        let mut scripts = Scripts::with_output(
            rom,
            "quadfall.nes",
            Rc::new(move |stream, text: &str| {
                let mut out = sink.borrow_mut();
                out.push_str(if stream == Stream::Err {
                    "stderr: "
                } else {
                    ""
                });
                out.push_str(text.lines().next().unwrap_or(""));
                out.push('\n');
            }),
        );
        let dir = std::env::temp_dir().join(format!("nestor-host-panic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, source) in [
            (
                "failing.lua",
                "emu.registerafter(function() print('failing') fail() end)\n",
            ),
            (
                "other.lua",
                "emu.registerafter(function() print('other') end)\n",
            ),
        ] {
            std::fs::write(dir.join(name), source).unwrap();
            scripts.load(&mut console, &dir.join(name)).unwrap();
        }
        let lua = &scripts.scripts[0].lua;
        let fail = lua
            .create_function(|_, ()| -> mlua::Result<()> { panic!("injected failure") })
            .unwrap();
        lua.globals().set("fail", fail).unwrap();
        let frame = console.frame_number();
        for _ in 0..3 {
            scripts.run_frame(&mut console);
        }
        assert_eq!(console.frame_number(), frame + 3, "the machine went on");
        assert_eq!(
            *output.borrow(),
            "failing\n\
             stderr: Lua thread bombed out: the Lua host failed: injected failure\n\
             other\nother\nother\n"
        );
        assert_eq!(scripts.errors(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
