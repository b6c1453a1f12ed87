//! How to tell whether an NES test ROM passed, without looking at the screen.
//!
//! Each result protocol (see `scripts/test-roms/README.md`) is a module that drives a
//! [`Machine`] frame by frame and reads the ROM's verdict out of its memory. The protocols only
//! need the few operations of [`Machine`], so they are unit-tested against fake machines.

pub mod accuracycoin;
pub mod blargg;
pub mod board_report;
pub mod image;
pub mod location;
pub mod manifest;
pub mod nestest;
pub mod screen;
pub mod video;
pub mod zero_page;

use std::cell::RefCell;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

/// The lowest and highest PC at which an instruction started during a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PcSpan {
    pub lo: u16,
    pub hi: u16,
}

impl PcSpan {
    /// Whether the CPU spent the whole frame in a loop of a few bytes (`JMP *`, `BIT/BPL`).
    pub fn is_tight_loop(self) -> bool {
        self.hi.wrapping_sub(self.lo) < 8
    }

    /// Whether the CPU spent the whole frame on one instruction: `JMP *`, the way blargg's
    /// 2005 runtime ends.
    pub fn is_jump_to_self(self) -> bool {
        self.lo == self.hi
    }
}

/// Frames in a tight loop after which a ROM is taken to have stopped for good.
pub const STOPPED_FRAMES: u64 = 10;
/// No test waits this long in a loop of a few bytes (except blargg's reset request): after it
/// the ROM is taken to hang, typically waiting for a flag the emulator never sets.
pub const HUNG_FRAMES: u64 = 120;

/// What a protocol needs from the console.
pub trait Machine {
    /// Runs one frame and reports where the CPU spent it.
    fn run_frame(&mut self) -> PcSpan;
    /// The console's reset button (RAM and PRG-RAM are kept).
    fn reset(&mut self);
    /// CPU memory, without side effects.
    fn peek(&self, addr: u16) -> u8;
    /// A CPU memory write, as the test harness's poke.
    fn write(&mut self, addr: u16, val: u8);
    /// PPU memory ($0000-$2FFF: pattern tables and nametables), without side effects.
    fn ppu_peek(&self, addr: u16) -> u8;
    /// Buttons held on controller 1 (bits as in [`nes::Buttons`]).
    fn set_pad1(&mut self, buttons: u8);
}

impl Machine for nes::Console {
    /// Steps one instruction at a time to the machine's next frame (line 0), not through
    /// `Console::run_frame`: the protocols need the span of PCs each frame covers to tell a
    /// ROM's final `JMP *` from its work, and the host frame's fast path skips idle loops whole.
    fn run_frame(&mut self) -> PcSpan {
        let frame = self.ppu_frames();
        let mut span = PcSpan {
            lo: self.cpu.pc,
            hi: self.cpu.pc,
        };
        while self.ppu_frames() == frame {
            span.lo = span.lo.min(self.cpu.pc);
            span.hi = span.hi.max(self.cpu.pc);
            self.step();
        }
        span
    }
    fn reset(&mut self) {
        nes::Console::reset(self);
    }
    fn peek(&self, addr: u16) -> u8 {
        nes::Console::peek(self, addr)
    }
    fn write(&mut self, addr: u16, val: u8) {
        nes::Console::write(self, addr, val);
    }
    fn ppu_peek(&self, addr: u16) -> u8 {
        nes::Console::ppu_peek(self, addr)
    }
    fn set_pad1(&mut self, buttons: u8) {
        self.set_buttons(0, nes::Buttons(buttons));
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    /// The ROM's own result code (its meaning is in the suite's readme or source); for
    /// AccuracyCoin, the number of tests that did not pass.
    Failed {
        code: u8,
    },
    /// No verdict within the frame budget (or the ROM hung).
    TimedOut,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Verdict::Passed => write!(f, "passed"),
            Verdict::Failed { code } => write!(f, "failed (code {code})"),
            Verdict::TimedOut => write!(f, "timed out"),
        }
    }
}

/// The outcome of one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub verdict: Verdict,
    /// The text the ROM printed, as far as the protocol can recover it.
    pub message: String,
    /// Frames emulated.
    pub frames: u64,
}

/// The result protocols of `scripts/test-roms/README.md`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// Status byte at $6000, text at $6004.
    Blargg6000,
    /// blargg's 2005 runtime: a result byte in zero page, read once the ROM stops.
    ZeroPage { addr: u8 },
    /// The verdict is only printed on screen ("Passed", "FAILED #2"); `hold` are buttons held
    /// on controller 1 at power-on.
    Screen { hold: u8 },
    /// Holy Diver Batman's on-screen board report, which must name this mapper.
    BoardReport { mapper: u16 },
    /// AccuracyCoin's table of result bytes.
    AccuracyCoin(accuracycoin::Plan),
}

impl Protocol {
    pub fn name(&self) -> String {
        match self {
            Protocol::Blargg6000 => "blargg-6000".into(),
            Protocol::ZeroPage { addr } => format!("zero-page ${addr:02X}"),
            Protocol::Screen { hold: 0 } => "screen".into(),
            Protocol::Screen { hold } => format!("screen, buttons ${hold:02X} held at power-on"),
            Protocol::BoardReport { mapper } => format!("board report, mapper {mapper:03}"),
            Protocol::AccuracyCoin(_) => "accuracycoin-ram".into(),
        }
    }

    /// A frame budget that covers the slowest ROM of the protocol with some margin.
    pub fn default_max_frames(&self) -> u64 {
        const SECOND: u64 = 60;
        match self {
            // Multi-test ROMs run up to about a minute of emulated time.
            Protocol::Blargg6000 => 90 * SECOND,
            Protocol::ZeroPage { .. } => 30 * SECOND,
            // cpu_timing_test6 needs about 16 s.
            Protocol::Screen { .. } => 40 * SECOND,
            Protocol::BoardReport { .. } => 20 * SECOND,
            // The full run takes about a minute on an accurate machine.
            Protocol::AccuracyCoin(_) => 5 * 60 * SECOND,
        }
    }

    pub fn run<M: Machine>(&self, machine: &mut M, max_frames: u64) -> Report {
        match self {
            Protocol::Blargg6000 => blargg::run(machine, max_frames),
            Protocol::ZeroPage { addr } => zero_page::run(machine, *addr, max_frames),
            Protocol::Screen { hold } => screen::run(machine, *hold, max_frames),
            Protocol::BoardReport { mapper } => board_report::run(machine, *mapper, max_frames),
            Protocol::AccuracyCoin(plan) => plan.run(machine, max_frames),
        }
    }
}

/// Why a ROM could not be run at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    Load(nes::RomError),
    /// The emulator panicked (for example on an unimplemented part).
    Crashed(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            RunError::Load(e) => write!(f, "{e}"),
            RunError::Crashed(msg) => write!(f, "the emulator crashed: {msg}"),
        }
    }
}

impl std::error::Error for RunError {}

/// Loads an iNES image, powers on and runs `protocol` on it.
pub fn run_rom(rom: &[u8], protocol: &Protocol, max_frames: u64) -> Result<Report, RunError> {
    run_rom_on(None, rom, protocol, max_frames)
}

/// [`run_rom`] on a console of `region` (None: the one the header names, else NTSC).
pub fn run_rom_on(
    region: Option<nes::Region>,
    rom: &[u8],
    protocol: &Protocol,
    max_frames: u64,
) -> Result<Report, RunError> {
    let load = || {
        let cart = nes::Cartridge::from_ines(rom)?;
        let region = region.or(cart.header.region).unwrap_or_default();
        Ok(nes::Console::with_region(cart, region))
    };
    let mut console = contain_panics(load)?.map_err(RunError::Load)?;
    contain_panics(|| protocol.run(&mut console, max_frames))
}

thread_local! {
    /// Set while [`contain_panics`] runs on this thread; receives the panic's message.
    static CONTAINED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f`, turning a panic into [`RunError::Crashed`] with its message and location, printed
/// nowhere else: one ROM that crashes the emulator must not stop a runner or flood its output.
pub fn contain_panics<R>(f: impl FnOnce() -> R) -> Result<R, RunError> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let contained = CONTAINED.with(|c| {
                let mut c = c.borrow_mut();
                if let Some(slot) = c.as_mut() {
                    *slot = info.to_string().replace('\n', " ");
                }
                c.is_some()
            });
            if !contained {
                default(info);
            }
        }));
    });
    CONTAINED.with(|c| *c.borrow_mut() = Some(String::new()));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    let message = CONTAINED
        .with(|c| c.borrow_mut().take())
        .unwrap_or_default();
    result.map_err(|_| RunError::Crashed(message))
}

/// Text from a zero-terminated string in CPU memory, without ANSI colour escapes.
pub(crate) fn read_text<M: Machine>(machine: &M, start: u16, end: u16) -> String {
    let mut text = String::new();
    let mut escape = false;
    for addr in start..end {
        let byte = machine.peek(addr);
        match byte {
            0 => break,
            0x1B => escape = true,
            // An escape sequence `ESC [ params letter` ends at its letter.
            _ if escape => escape = !byte.is_ascii_alphabetic(),
            b'\n' | b'\t' | 0x20..=0x7E => text.push(char::from(byte)),
            _ => {}
        }
    }
    text.trim_end().to_string()
}

#[cfg(test)]
pub(crate) mod fake {
    use super::{Machine, PcSpan};

    /// CPU and PPU memories driven by a script: `on_frame` runs after each frame and may write
    /// into them, move the PC or look at the buttons.
    pub struct FakeMachine {
        pub mem: Vec<u8>,
        pub vram: Vec<u8>,
        pub frame: u64,
        pub pc: PcSpan,
        pub pad1: u8,
        pub resets: Vec<u64>,
        pub on_frame: fn(&mut FakeMachine),
    }

    impl FakeMachine {
        pub fn new(on_frame: fn(&mut FakeMachine)) -> Self {
            FakeMachine {
                mem: vec![0; 0x10000],
                vram: vec![0; 0x3000],
                frame: 0,
                // A busy program by default.
                pc: PcSpan {
                    lo: 0x8000,
                    hi: 0x9000,
                },
                pad1: 0,
                resets: Vec::new(),
                on_frame,
            }
        }

        pub fn write_str(&mut self, addr: u16, s: &str) {
            let start = usize::from(addr);
            self.mem[start..start + s.len()].copy_from_slice(s.as_bytes());
            self.mem[start + s.len()] = 0;
        }

        /// The CPU stops in `JMP *` from now on.
        pub fn halt(&mut self) {
            self.pc = PcSpan {
                lo: 0xC123,
                hi: 0xC123,
            };
        }
    }

    impl Machine for FakeMachine {
        fn run_frame(&mut self) -> PcSpan {
            self.frame += 1;
            (self.on_frame)(self);
            self.pc
        }
        fn reset(&mut self) {
            self.resets.push(self.frame);
        }
        fn peek(&self, addr: u16) -> u8 {
            self.mem[usize::from(addr)]
        }
        fn write(&mut self, addr: u16, val: u8) {
            self.mem[usize::from(addr)] = val;
        }
        fn ppu_peek(&self, addr: u16) -> u8 {
            self.vram[usize::from(addr) % self.vram.len()]
        }
        fn set_pad1(&mut self, buttons: u8) {
            self.pad1 = buttons;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fake::FakeMachine;
    use super::*;

    #[test]
    fn text_stops_at_terminator_and_drops_colour_escapes() {
        let mut m = FakeMachine::new(|_| {});
        let text = "\x1b[0;32mPassed\x1b[0m\n\n";
        m.write_str(0x6004, text);
        m.mem[0x6004 + text.len() + 1] = b'X';
        assert_eq!(read_text(&m, 0x6004, 0x8000), "Passed");
    }

    #[test]
    fn panics_become_run_errors() {
        let err = contain_panics(|| -> u8 { unimplemented!("CPU in progress") }).unwrap_err();
        match err {
            RunError::Crashed(msg) => assert!(msg.contains("CPU in progress"), "{msg}"),
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(contain_panics(|| 7), Ok(7));
    }

    #[test]
    fn bad_image_is_a_load_error() {
        assert_eq!(
            run_rom(&[], &Protocol::Blargg6000, 10),
            Err(RunError::Load(nes::RomError::Empty))
        );
    }
}
