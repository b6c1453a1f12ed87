//! What the Lua functions reach: the console (lent for the duration of each entry into Lua), the
//! per-script state (mlua app data) and the session state all scripts share.

use crate::fm2::ScriptMovie;
use crate::overlay::Overlay;
use crate::watch::Watch;
use mlua::Lua;
use nes::Console;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::ptr::NonNull;
use std::rc::Rc;
use std::time::Duration;

thread_local! {
    /// The console lent to Lua for the duration of one call into it (None otherwise). One per
    /// thread, not per script: the scripts on a thread all run on the same console, and the raw
    /// C functions of `memory` reach it without a lookup in the Lua state.
    static LENT: Cell<Option<NonNull<Console>>> = const { Cell::new(None) };
}

/// Reads CPU memory as FCEUX's `memory.readbyte` does (its debugger read, `GetMem`); 0 when no
/// console is lent (Lua running outside an emulation call).
#[inline]
pub fn peek_lent(addr: u16) -> u8 {
    match LENT.get() {
        // SAFETY: the pointer comes from the `&mut Console` that `lend` holds for as long as it
        // is set, and no other reference to the console is live while Lua code runs (`machine`
        // takes it out).
        Some(mut console) => fceux_peek(unsafe { console.as_mut() }, addr),
        None => 0,
    }
}

/// What FCEUX's memory functions show for the registers, which a real read would change or
/// cannot return: the PPU's $2000 (PPUCTRL), $2001 (PPUMASK), $2003 (OAMADDR), $2005 (fine X)
/// and $2006 (the VRAM address's low byte: the machine's, which differs from FCEUX's
/// simpler PPU around rendering), mirrored to $3FFF; the 2A03's $4000-$4016 as last
/// written and $4017 as the frame counter's mode bits of its last write (bits 7-6 as bits
/// 1-0); $FF for $4018-$4FFF. The rest reads like `Console::inspect`, without side effects.
#[inline]
fn fceux_peek(console: &mut Console, addr: u16) -> u8 {
    match addr {
        0x0000..=0x1FFF => console.peek(addr),
        0x2000..=0x3FFF => {
            // Catches the PPU up first, so that the address is the one of this dot.
            let read = console.inspect(addr);
            let ppu = console.ppu();
            match addr & 7 {
                0 => ppu.ppu_ctrl,
                1 => ppu.mask_written(),
                3 => ppu.oam_addr,
                5 => ppu.fine_x,
                6 => ppu.v as u8,
                _ => read,
            }
        }
        0x4017 => console.io_write(addr).unwrap_or(0) >> 6,
        0x4000..=0x4016 => console.io_write(addr).unwrap_or(0),
        0x4018..=0x4FFF => 0xFF,
        _ => console.inspect(addr),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Out,
    Err,
}

/// Where `print` and error reports go.
pub type Output = Rc<dyn Fn(Stream, &str)>;

/// `emu.speedmode`: what the host should do with its frame pacing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SpeedMode {
    #[default]
    Normal,
    NoThrottle,
    Turbo,
    Maximum,
}

/// Keyboard and mouse of the host window, as `input.get` reports them.
#[derive(Clone, Debug, Default)]
pub struct HostInput {
    /// Held keys by FCEUX's Windows names ("A", "space", "leftclick", ...).
    pub keys: HashSet<String>,
    /// Mouse position in NES pixels.
    pub mouse: (i32, i32),
}

/// What the host's movie (FM2 playback or recording) is doing, for `movie.*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MovieMode {
    Record,
    Playback,
    /// Playback ran past the last frame of the movie.
    Finished,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MovieStatus {
    pub mode: MovieMode,
    /// The movie file's path.
    pub name: String,
    /// Frames in the movie.
    pub length: u32,
    pub rerecords: u32,
}

/// A machine snapshot as savestates hold it.
#[derive(Clone)]
pub struct Snapshot {
    pub console: Box<Console>,
    /// The frame and lag counters; not in a state read from a file (the machine's save-state
    /// format holds the machine only).
    pub counters: Option<Counters>,
}

#[derive(Clone, Copy)]
pub struct Counters {
    pub framecount: u32,
    pub dead_frames: u32,
    pub lagcount: u32,
    pub lagged: bool,
    /// The host frame a script's movie was at.
    pub movie_frame: usize,
}

/// Files scripts persist, as the host names and writes them.
pub struct HostFiles {
    /// The file of FCEUX's savestate slot 0-9; None when the host has no directory for them.
    pub slot: Box<dyn Fn(u32) -> Option<PathBuf>>,
    /// Replaces a file whole or not at all (the host's atomic write).
    pub write: fn(&Path, &[u8]) -> std::io::Result<()>,
}

pub struct Shared {
    /// The iNES file image (for `rom.*` and power cycles).
    pub rom: Vec<u8>,
    pub rom_name: String,
    /// FCEUX's frame counter (`emu.framecount`, `movie.framecount`): reset by a power-on or a
    /// reset outside movies, and counting FCEUX's dead frames after them (`dead_frames`).
    pub framecount: u32,
    /// FCEUX's frames without VBlank after the last power-on or reset, which the host does
    /// not run: `framecount` counts them with the next frame.
    pub dead_frames: u32,
    /// Power-on and reset commands (movie crate bits) the host applies at the next frame.
    pub restarts: u8,
    pub lagcount: u32,
    pub lagged: bool,
    /// Buttons the game got for the most recently latched frame, pads 1-2.
    pub pads: [u8; 2],
    /// The user's own pads, before script overrides.
    pub physical: [u8; 2],
    pub input: HostInput,
    pub paused: bool,
    pub speed: SpeedMode,
    /// `emu.exit`/`os.exit` asked the application to end with this status.
    pub exit: Option<i32>,
    /// Errors reported by the scripts (a headless run that had one ends with a failure).
    pub errors: u32,
    /// `emu.message` texts for the host's on-screen display.
    pub messages: Vec<String>,
    /// Where savestates and movies are written (None: the host writes no files).
    pub files: Option<HostFiles>,
    /// Instructions executed since power-on (`debugger.getinstructionscount`).
    pub instructions: u64,
    pub instructions_base: u64,
    pub cycles_base: u64,
    /// A script registered or cleared a memory hook.
    pub hooks_changed: bool,
    /// Screenshot files scripts asked for (written by the host after the frame is shown).
    pub screenshots: Vec<String>,
    /// `emu.setrenderplanes` (sprites, background), for the host's display.
    pub render_planes: (bool, bool),
    pub readonly: bool,
    /// The host's movie (`nestor run --movie/--record`).
    pub movie: Option<MovieStatus>,
    /// A movie a script plays or records.
    pub script_movie: Option<ScriptMovie>,
    /// The host writes RAM cheats at each frame's start (a movie cannot hold them).
    pub ram_cheats: bool,
    /// `savestate.load` while a script records counts as a rerecord.
    pub rerecord_counting: bool,
    /// How long one entry into a script may run before the watchdog stops it.
    pub time_limit: Duration,
    /// Bytes one script's Lua state may allocate; beyond, allocations fail with a Lua error.
    pub memory_limit: usize,
    /// Scripts run in the sandbox, with files in their own folder and these.
    pub sandbox: Option<Vec<PathBuf>>,
    /// Running without a window: `emu.pause` cannot wait for a user.
    pub headless: bool,
    pub output: Output,
}

impl Shared {
    pub fn new(rom: Vec<u8>, rom_name: String, output: Output) -> Shared {
        Shared {
            rom,
            rom_name,
            framecount: 0,
            dead_frames: 0,
            restarts: 0,
            lagcount: 0,
            lagged: false,
            pads: [0; 2],
            physical: [0; 2],
            input: HostInput::default(),
            paused: false,
            speed: SpeedMode::Normal,
            exit: None,
            errors: 0,
            messages: Vec::new(),
            files: None,
            instructions: 0,
            instructions_base: 0,
            cycles_base: 0,
            hooks_changed: false,
            screenshots: Vec::new(),
            render_planes: (true, true),
            readonly: true,
            movie: None,
            script_movie: None,
            ram_cheats: false,
            rerecord_counting: true,
            time_limit: Duration::from_secs(10),
            memory_limit: 1 << 30,
            sandbox: None,
            headless: true,
            output,
        }
    }

    /// The machine was replaced by a state read from a file, which holds the machine alone:
    /// `emu.framecount` moves as far as the machine's own frame counter did (`moved`, wrapping),
    /// since both count the same frames.
    pub fn follow_machine_frames(&mut self, moved: u64) {
        let framecount = i64::from(self.framecount) + moved as i64;
        self.framecount = framecount.clamp(0, i64::from(u32::MAX)) as u32;
        if let Some(movie) = &mut self.script_movie {
            movie.frame = (movie.frame as i64 + moved as i64).max(0) as usize;
        }
    }

    /// The machine was powered on or reset: FCEUX's frame counter starts again (but in a
    /// movie, which counts its own frames on), and its dead frames follow.
    pub fn restarted(&mut self) {
        if self.movie.is_none() && self.script_movie.is_none() {
            self.framecount = 0;
        }
        self.dead_frames = ::movie::DEAD_FRAMES as u32;
    }

    /// The counters a savestate keeps.
    pub fn counters(&self) -> Counters {
        Counters {
            framecount: self.framecount,
            dead_frames: self.dead_frames,
            lagcount: self.lagcount,
            lagged: self.lagged,
            movie_frame: self.script_movie.as_ref().map_or(0, |m| m.frame),
        }
    }

    /// Puts back the counters of a savestate.
    pub fn set_counters(&mut self, counters: Counters) {
        self.framecount = counters.framecount;
        self.dead_frames = counters.dead_frames;
        self.lagcount = counters.lagcount;
        self.lagged = counters.lagged;
        if let Some(movie) = &mut self.script_movie {
            movie.frame = counters.movie_frame;
        }
    }

    pub fn print(&self, stream: Stream, text: &str) {
        (self.output)(stream, text);
    }

    /// Ends a movie a script started (writing a recording); false if there was none.
    pub fn stop_movie(&mut self) -> bool {
        let Some(movie) = self.script_movie.take() else {
            return false;
        };
        if let Err(e) = movie.finish(self.files.as_ref()) {
            self.print(Stream::Err, &format!("movie: {e}"));
        }
        true
    }
}

/// FCEUX's two joypad masks: result = (pad & keep) | (!pad & set).
#[derive(Clone, Copy, Debug)]
pub struct PadOverride {
    pub keep: u8,
    pub set: u8,
}

impl PadOverride {
    pub const PASS: PadOverride = PadOverride { keep: 0xFF, set: 0 };

    pub fn apply(self, pad: u8) -> u8 {
        (pad & self.keep) | (!pad & self.set)
    }
}

pub struct ScriptState {
    pub shared: Rc<RefCell<Shared>>,
    pub overlay: Overlay,
    /// `gui.opacity`, multiplies the alpha of later drawing.
    pub opacity: f64,
    pub pads: [PadOverride; 4],
    /// Addresses this script hooks.
    pub watch: Watch,
    /// The main coroutine yielded through `emu.frameadvance`.
    pub advancing: bool,
    /// A memory hook failed: no more hook calls; the script stops at the frame boundary.
    pub hook_failed: bool,
}

impl ScriptState {
    pub fn new(shared: Rc<RefCell<Shared>>) -> ScriptState {
        ScriptState {
            shared,
            overlay: Overlay::default(),
            opacity: 1.0,
            pads: [PadOverride::PASS; 4],
            watch: Watch::default(),
            advancing: false,
            hook_failed: false,
        }
    }
}

/// Runs `f` with the script's state. Never call Lua inside `f`.
pub fn state<R>(lua: &Lua, f: impl FnOnce(&mut ScriptState) -> R) -> R {
    f(&mut lua.app_data_mut::<ScriptState>().expect("script state"))
}

/// Runs `f` with the session state. Never call Lua inside `f`.
pub fn shared<R>(lua: &Lua, f: impl FnOnce(&mut Shared) -> R) -> R {
    let shared = lua
        .app_data_ref::<ScriptState>()
        .expect("script state")
        .shared
        .clone();
    let mut shared = shared.borrow_mut();
    f(&mut shared)
}

/// Runs `f` with the console; `None` when Lua runs outside an emulation call (no machine).
pub fn machine<R>(f: impl FnOnce(&mut Console) -> R) -> Option<R> {
    // Taken out while `f` runs, so a nested call finds no machine instead of a second `&mut`.
    let mut console = LENT.take()?;
    // SAFETY: the pointer comes from the `&mut Console` that `lend` holds for as long as it is
    // set, and it is out of the cell while this reference lives: no other reference exists.
    let result = f(unsafe { console.as_mut() });
    LENT.set(Some(console));
    Some(result)
}

/// Lends the console to Lua while `f` runs (the machine is passed in explicitly; Lua never
/// keeps it beyond the call).
pub fn lend<R>(console: &mut Console, f: impl FnOnce() -> mlua::Result<R>) -> mlua::Result<R> {
    /// Puts the previous loan back even if `f` unwinds.
    struct Restore(Option<NonNull<Console>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            LENT.set(self.0);
        }
    }
    let _restore = Restore(LENT.replace(Some(NonNull::from(console))));
    f()
}
