//! The whole console: CPU plus bus. This is the API front ends, the AI and Lua use.

use crate::bus::Bus;
use crate::cartridge::{BatteryError, Cartridge, RomError};
use crate::controller::Buttons;
use crate::cpu::{flags, Cpu, CpuBus};
use crate::game_genie::GameGenie;
use crate::port::{Device, Plug};
use crate::ppu::DOTS_PER_LINE;
use crate::region::Region;
use crate::state::{self, fields, Field, Fnv1a, StateError, StateIo};

#[derive(Clone)]
pub struct Console {
    pub cpu: Cpu,
    /// The machine's parts, for the machine's own white-box tests; everything else reaches
    /// them through the methods below (test `only_the_machine_reaches_into_its_bus`).
    pub bus: Bus,
    /// Cycles the fast path has skipped since power-on (a statistic).
    idle_cycles_skipped: u64,
}

impl Field for Console {
    fn visit(&mut self, io: &mut StateIo) {
        // Statistics only.
        let Console {
            cpu,
            bus,
            idle_cycles_skipped: _,
        } = self;
        fields!(io, cpu, bus);
    }
}

/// The scanline where host frames begin: the post-render line, after the last visible one.
pub const FRAME_START_LINE: u16 = 240;

/// More CPU cycles than one instruction can take (an OAM DMA of 513 cycles and DMC fetches).
const LONGEST_STEP: u64 = 1000;

/// CPU cycles (the one skipped dot can only make it fewer) before the PPU next enters
/// [`FRAME_START_LINE`].
fn cycles_to_frame_start(bus: &Bus) -> u64 {
    let ppu = &bus.ppu;
    let line = u64::from(ppu.scanline);
    let start = u64::from(FRAME_START_LINE);
    let lines = if line < start {
        start - line
    } else {
        u64::from(bus.region().lines_per_frame()) - line + start
    };
    bus.cycles_within((lines * u64::from(DOTS_PER_LINE)).saturating_sub(u64::from(ppu.dot) + 1))
}

/// What the 2 KiB of work RAM holds at power-on. On hardware it is indeterminate: each chip
/// settles to a pattern of its own, mostly but not always the same from one power-on to the
/// next, so games must not rely on it; emulators pick one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PowerOnRam {
    /// All $00: nestor's choice (and FCEUX's "fill $00").
    #[default]
    Zero,
    /// All $FF: FCEUX's "fill $FF".
    Ff,
    /// `00 00 00 00 FF FF FF FF` repeated: FCEUX's default.
    Fceux,
}

impl PowerOnRam {
    /// The byte at `addr` in RAM.
    fn byte(self, addr: usize) -> u8 {
        match self {
            PowerOnRam::Zero => 0x00,
            PowerOnRam::Ff => 0xFF,
            PowerOnRam::Fceux if addr & 4 == 0 => 0x00,
            PowerOnRam::Fceux => 0xFF,
        }
    }
}

/// The CPU's state when it last went back to an earlier address, the start of a loop.
#[derive(Default)]
struct LoopStart {
    /// [`loop_key`] there.
    key: u64,
    cycle: u64,
    /// Instructions run before it.
    steps: u64,
}

/// Bit 56 of [`loop_key`]: no interrupt is on its way.
const INTERRUPTS_IDLE: u64 = 1 << 56;

/// PC, A, X, Y, P and S in one word, with [`INTERRUPTS_IDLE`], so that the idle-loop search
/// compares them at once.
fn loop_key(cpu: &Cpu) -> u64 {
    let [pc_low, pc_high] = cpu.pc.to_le_bytes();
    let idle = u8::from(cpu.interrupts_idle());
    u64::from_le_bytes([pc_low, pc_high, cpu.a, cpu.x, cpu.y, cpu.p, cpu.s, idle])
}

impl Console {
    /// Plugs in the cartridge and powers on a console of the region its header names, else an
    /// NTSC one.
    pub fn new(cart: Cartridge) -> Console {
        let region = cart.header.region.unwrap_or_default();
        Console::with_region(cart, region)
    }

    /// Plugs in the cartridge and powers on a `region` console.
    pub fn with_region(cart: Cartridge, region: Region) -> Console {
        let mut console = Console {
            cpu: Cpu::default(),
            bus: Bus::with_region(cart, region),
            idle_cycles_skipped: 0,
        };
        console.cpu.reset(&mut console.bus);
        console.bus.catch_up();
        console
    }

    pub fn from_ines(bytes: &[u8]) -> Result<Console, RomError> {
        Cartridge::from_ines(bytes).map(Console::new)
    }

    /// nestest's "automation mode": after power-on, start at $C000 instead of the reset vector,
    /// so the ROM runs all its tests without a display (CPU cycle 7, PPU at line 0, dot 21).
    pub fn start_nestest_automation(&mut self) {
        self.cpu.pc = 0xC000;
    }

    /// Turns the console off and on: RAM, CPU, PPU, APU and mapper registers start afresh;
    /// the cartridge's memory (battery RAM, CHR RAM) is kept. RAM powers on to zeros.
    pub fn power_cycle(&mut self) {
        self.power_cycle_with(PowerOnRam::Zero);
    }

    /// [`Console::power_cycle`] with RAM powering on to `ram`.
    pub fn power_cycle_with(&mut self, ram: PowerOnRam) {
        let mut cart = self.bus.cart.clone();
        cart.power_on_mapper();
        let fast_forward = self.bus.fast_forward;
        // The devices stay plugged in; they power on too.
        let devices = [0, 1].map(|port| self.bus.ports[port].device());
        *self = Console::with_region(cart, self.region());
        self.bus.fast_forward = fast_forward;
        for (port, device) in devices.into_iter().enumerate() {
            self.plug(port, device);
        }
        for (addr, byte) in self.bus.ram.iter_mut().enumerate() {
            *byte = ram.byte(addr);
        }
    }

    /// Presses the reset button: RAM is kept, the CPU runs its reset sequence.
    pub fn reset(&mut self) {
        self.bus.ppu.catch_up(&mut self.bus.cart);
        self.bus.ppu.reset();
        self.bus.apu.reset();
        self.bus.settle();
        self.cpu.reset(&mut self.bus);
        self.bus.catch_up();
    }

    /// Executes one instruction, or the IRQ/NMI sequence that replaces one (7 cycles).
    #[inline]
    pub fn step(&mut self) {
        self.cpu.step(&mut self.bus);
        self.bus.catch_up();
    }

    /// The host frame the console is in, counted from 0 at power-on (see [`Console::run_frame`]).
    pub fn frame_number(&self) -> u64 {
        let ppu = &self.bus.ppu;
        (ppu.frame + u64::from(ppu.scanline >= FRAME_START_LINE)).saturating_sub(1)
    }

    /// Runs one host frame: to the first instruction boundary after the PPU enters the
    /// post-render line (240), where FCEUX's frames begin and front ends latch input. The
    /// first frame after power-on runs on to the second entry, so that it holds a VBlank, as
    /// FCEUX's does. Every front end's frame is this one. Returns the instructions run.
    pub fn run_frame(&mut self) -> u64 {
        let mut steps = 0;
        let frame = self.frame_number();
        while self.frame_number() == frame {
            // Most of the way without looking at the PPU: the cycles left can only be counted
            // exactly on the visible lines, after the pre-render line's skipped dot.
            let far = cycles_to_frame_start(&self.bus).saturating_sub(LONGEST_STEP);
            steps += self.run_cycles(far);
            let ppu = &self.bus.ppu;
            let line = ppu.scanline.min(FRAME_START_LINE);
            let dots = u64::from(FRAME_START_LINE - line) * u64::from(DOTS_PER_LINE);
            let dots = dots.saturating_sub(u64::from(ppu.dot));
            // The fewest cycles that run them.
            let cycles = dots
                .checked_sub(1)
                .map_or(0, |d| self.bus.cycles_within(d) + 1);
            steps += self.run_cycles(cycles.max(1));
        }
        // The picture of the frame, drawn to its last line.
        self.bus.ppu.catch_up(&mut self.bus.cart);
        steps
    }

    /// Runs at least `n` CPU cycles, stopping at an instruction boundary; returns the number
    /// of instructions run.
    pub fn run_cycles(&mut self, n: u64) -> u64 {
        let end = self.bus.cycles + n;
        self.run(u64::MAX, end, |console| console.bus.cycles < end)
    }

    /// Runs instructions while `go_on` holds, at most `max` of them, and returns how many
    /// ran. `go_on` must look at memory only, not at time: the passes of an idle loop it
    /// would have seen are skipped as a whole, and the devices are caught up only when the
    /// run ends (see [`Bus::catch_up`]).
    pub fn run_while(&mut self, max: u64, go_on: impl FnMut(&Console) -> bool) -> u64 {
        self.run(max, u64::MAX, go_on)
    }

    /// Turns the fast paths (idle loops skipped, OAM DMAs in VBlank done at once, boards
    /// that follow A12 told only of its changes instead of running the PPU in lockstep, quiet
    /// cycles only counted) on (the default) or off; the machine runs the same either way.
    pub fn set_fast_forward(&mut self, on: bool) {
        self.bus.fast_forward = on;
        self.bus.ppu.catch_up(&mut self.bus.cart);
        self.bus.cart.set_ppu_lockstep(!on);
        self.bus.ppu.cartridge_changed(&self.bus.cart);
        self.bus.settle();
    }

    /// CPU cycles the fast path has skipped since power-on.
    pub fn idle_cycles_skipped(&self) -> u64 {
        self.idle_cycles_skipped
    }

    /// Runs instructions while `go_on` holds, at most `max` of them, and returns how many
    /// ran; skipped loop passes never reach cycle `end`.
    ///
    /// The fast path: when the CPU comes back to a loop's start with the same registers, no
    /// interrupt on its way and, since the last time, nothing but reads of RAM and PRG-ROM,
    /// every further pass does the same until something outside the CPU changes: the /NMI
    /// line, the /IRQ line unless the CPU masks it, a DMA, the start of a frame (see
    /// [`Bus::idle_cycles`]). The passes that end before that are skipped by
    /// [`Bus::run_idle`], which leaves the machine as running them would (the APU's events
    /// on the way run in full); the last passes before the event run cycle by cycle.
    fn run(&mut self, max: u64, end: u64, mut go_on: impl FnMut(&Console) -> bool) -> u64 {
        let mut steps = 0;
        // No loop yet: a key without INTERRUPTS_IDLE matches nothing.
        let mut loop_start = LoopStart::default();
        let fast_forward = self.bus.fast_forward;
        while steps < max && go_on(self) {
            let pc = self.cpu.pc;
            self.cpu.step(&mut self.bus);
            steps += 1;
            // Skipping is for a run that goes on from here.
            if fast_forward && self.cpu.pc <= pc && steps < max && go_on(self) {
                steps += self.skip_idle_passes(&mut loop_start, steps, max, end);
            }
        }
        self.bus.catch_up();
        steps
    }

    /// The CPU went back to an earlier address after `steps` instructions: skips the passes
    /// of an idle loop that fit before the next event, at most `max` instructions in all and
    /// before cycle `end`, and returns the instructions skipped.
    fn skip_idle_passes(
        &mut self,
        loop_start: &mut LoopStart,
        steps: u64,
        max: u64,
        end: u64,
    ) -> u64 {
        let key = loop_key(&self.cpu);
        let skipped = if key == loop_start.key && key & INTERRUPTS_IDLE != 0 && !self.bus.impure {
            self.skip_passes(loop_start, steps, max, end)
        } else {
            0
        };
        self.bus.impure = false;
        *loop_start = LoopStart {
            key,
            cycle: self.bus.cycles,
            steps: steps + skipped,
        };
        skipped
    }

    /// The CPU is back at `start` with the same registers, no interrupt on its way and only
    /// RAM and PRG-ROM read since: [`Self::skip_idle_passes`]'s skip.
    #[cold]
    #[inline(never)]
    fn skip_passes(&mut self, start: &LoopStart, steps: u64, max: u64, end: u64) -> u64 {
        if !self.bus.outside_only_counts() {
            // Nothing can be skipped while the board sees every cycle (RAMBO-1 for one).
            return 0;
        }
        self.bus.catch_up();
        let now = self.bus.cycles;
        let cycles = now - start.cycle;
        let instructions = steps - start.steps;
        let irq_masked = self.cpu.p & flags::I != 0;
        let room = self
            .bus
            .idle_cycles(irq_masked)
            .min(end.saturating_sub(now + 1));
        let passes = (room / cycles).min((max - steps) / instructions);
        if passes > 0 {
            self.bus.run_idle(passes * cycles);
            self.idle_cycles_skipped += passes * cycles;
        }
        passes * instructions
    }

    /// Brings the PPU, the APU and the board up to the CPU's cycle, as after every
    /// instruction: anything that looks at them between two cycles (a script's memory hook)
    /// calls it first.
    #[inline]
    pub fn catch_up(&mut self) {
        self.bus.catch_up();
    }

    /// Sets the CPU's status register from outside the program (a debugger, a script); the
    /// CPU's next interrupt check sees its I flag.
    pub fn set_status(&mut self, p: u8) {
        self.cpu.set_status(p, &self.bus);
    }

    /// The 2 KiB of work RAM ($0000-$07FF, mirrored to $1FFF).
    pub fn ram(&self) -> &[u8; 0x800] {
        &self.bus.ram
    }

    /// The work RAM, to write as a cheat or an environment reset does: plain stores, no cycle.
    pub fn ram_mut(&mut self) -> &mut [u8; 0x800] {
        &mut self.bus.ram
    }

    /// Reads CPU memory without side effects.
    #[inline]
    pub fn peek(&self, addr: u16) -> u8 {
        self.bus.peek(addr)
    }

    /// Reads CPU memory without side effects on the machine, like [`Console::peek`]; a PPU
    /// register is read after the PPU has drawn the pixels it owes (drawing them now or at the
    /// next access makes the same picture), so that no copy of the PPU is needed.
    #[inline]
    pub fn inspect(&mut self, addr: u16) -> u8 {
        if (0x2000..0x4000).contains(&addr) {
            self.bus.ppu.catch_up(&mut self.bus.cart);
        }
        self.bus.peek(addr)
    }

    /// The last byte the CPU wrote to 2A03 register `addr` ($4000-$4017), if it is one: what
    /// debuggers show for those write-only registers.
    pub fn io_write(&self, addr: u16) -> Option<u8> {
        self.bus.io_write(addr)
    }

    /// Writes CPU memory as the CPU would (registers react), without spending a cycle.
    pub fn write(&mut self, addr: u16, val: u8) {
        self.bus.write_untimed(addr, val);
    }

    /// The cartridge's battery-backed RAM (what a save file holds); `None` without a battery.
    pub fn battery_ram(&self) -> Option<&[u8]> {
        self.bus.cart.battery_ram()
    }

    /// Puts a save file's bytes back into the battery-backed RAM.
    pub fn load_battery_ram(&mut self, bytes: &[u8]) -> Result<(), BatteryError> {
        self.bus.cart.load_battery_ram(bytes)
    }

    /// The machine as a save state (see [`crate::state`] for the format). Taken between
    /// instructions, like every other look at the console.
    pub fn save_state(&self) -> Vec<u8> {
        state::encode(self.bus.cart.rom_hash(), &self.snapshot())
    }

    /// Restores a state from [`Console::save_state`]. On any error the console is untouched.
    pub fn load_state(&mut self, bytes: &[u8]) -> Result<(), StateError> {
        self.restore(state::decode(bytes, self.bus.cart.rom_hash())?)
    }

    /// The machine's state without the file's framing (magic, ROM hash, checksum).
    pub fn snapshot(&self) -> Vec<u8> {
        let mut copy = self.clone();
        copy.snapshot_into(Vec::new())
    }

    /// [`Console::snapshot`] into a buffer of the caller's (cleared first, its capacity
    /// reused), without copying the machine: what the host takes every frame for rewind. The
    /// PPU draws the pixels it owes and the APU's units catch up to the current cycle, which
    /// they would do at the next access anyway: the machine runs on exactly as before.
    pub fn snapshot_into(&mut self, out: Vec<u8>) -> Vec<u8> {
        self.bus.ppu.catch_up(&mut self.bus.cart);
        StateIo::save_into(out, |io| self.visit(io))
    }

    /// A copy of the machine between two frames, to run on from here (run-ahead keeps such
    /// copies). The picture is not copied: the copy's next [`Console::run_frame`] draws every
    /// pixel of it again, into the picture buffer of `reuse` (a console no longer wanted) or a
    /// new one. Until then the copy's picture is whatever that buffer held.
    pub fn fork(&mut self, reuse: Option<Console>) -> Console {
        let picture = std::mem::take(&mut self.bus.ppu.frame_buffer);
        let mut copy = self.clone();
        copy.bus.ppu.frame_buffer = match reuse {
            Some(old) if old.bus.ppu.frame_buffer.len() == picture.len() => {
                old.bus.ppu.frame_buffer
            }
            _ => vec![0; picture.len()],
        };
        self.bus.ppu.frame_buffer = picture;
        copy
    }

    /// Restores a [`Console::snapshot`] of this console. On any error it is untouched.
    pub fn restore(&mut self, snapshot: &[u8]) -> Result<(), StateError> {
        let mut copy = self.clone();
        StateIo::load(snapshot, |io| copy.visit(io))?;
        *self = copy;
        Ok(())
    }

    /// A 64-bit FNV-1a hash of the frame buffer and the 2 KiB of RAM, to compare runs.
    pub fn hash(&self) -> u64 {
        if self.bus.ppu.lags() {
            // The pixels the render part still owes are part of the picture.
            let mut copy = self.clone();
            copy.bus.ppu.catch_up(&mut copy.bus.cart);
            return copy.hash();
        }
        let mut hash = Fnv1a::default();
        for pixel in &self.bus.ppu.frame_buffer {
            hash.write(&pixel.to_le_bytes());
        }
        hash.write(&self.bus.ram);
        hash.finish()
    }

    /// Sets the buttons of `player` (0-3). Players 1 and 2 are the pads in ports 1 and 2
    /// (or in front of a Four Score), 3 and 4 the pads behind a Four Score; a player with no
    /// pad plugged in is ignored.
    pub fn set_buttons(&mut self, player: usize, buttons: Buttons) {
        if let Some(held) = self.bus.ports[player % 2].buttons_mut(player >= 2) {
            *held = buttons;
        }
    }

    /// The buttons held by `player` (0-3): none if no pad of theirs is plugged in.
    pub fn buttons(&self, player: usize) -> Buttons {
        self.bus.ports[player % 2]
            .buttons(player >= 2)
            .unwrap_or_default()
    }

    /// Plugs a fresh `device` into controller port `port` (0: $4016, 1: $4017).
    pub fn plug(&mut self, port: usize, device: Device) {
        self.bus.ports[port] = Plug::new(device, port);
    }

    /// What is plugged into controller port `port`, with its state.
    pub fn port(&self, port: usize) -> &Plug {
        &self.bus.ports[port]
    }

    /// The host's pointer reaches the Zappers and Vaus controllers plugged in (see
    /// [`Plug::point`]).
    pub fn point(&mut self, aim: Option<(u8, u8)>, button: bool) {
        for plug in &mut self.bus.ports {
            plug.point(aim, button);
        }
    }

    /// Whether the game read a controller since the last call (FCEUX's lag flag is its
    /// negation); the mark is cleared.
    pub fn take_pads_polled(&mut self) -> bool {
        std::mem::take(&mut self.bus.polled)
    }

    /// The picture as far as the PPU has drawn it: 256x240 palette indices, emphasis in bits
    /// 6-8 (complete after [`Console::run_frame`]).
    pub fn frame_buffer(&self) -> &[u16] {
        &self.bus.ppu.frame_buffer
    }

    /// The picture up to the PPU's current dot, the pixels it owes drawn first: mid-frame, what
    /// a debugger shows (after [`Console::run_frame`], the same as [`Console::frame_buffer`]).
    pub fn picture_so_far(&mut self) -> &[u16] {
        self.bus.ppu.catch_up(&mut self.bus.cart);
        &self.bus.ppu.frame_buffer
    }

    /// Moves the sound made since the last call to `out`, at [`Console::sample_rate`].
    pub fn take_samples(&mut self, out: &mut Vec<i16>) {
        self.bus.apu.take_samples(out);
    }

    pub fn sample_rate(&self) -> f64 {
        self.bus.apu.sample_rate()
    }

    /// The output rate the APU resamples to (a window steers it to keep its buffer level).
    pub fn set_sample_rate(&mut self, rate: f64) {
        self.bus.apu.set_sample_rate(rate);
    }

    pub fn cartridge(&self) -> &Cartridge {
        &self.bus.cart
    }

    /// PPU memory as the PPU sees it, without side effects: pattern tables and nametables
    /// through the cartridge, palette RAM from $3F00 ($3F10/$14/$18/$1C mirror the backdrop).
    pub fn ppu_peek(&self, addr: u16) -> u8 {
        let addr = addr & 0x3FFF;
        if addr < 0x3F00 {
            return self.bus.cart.ppu_peek(addr);
        }
        let index = usize::from(addr & 0x1F);
        let index = if index & 0x13 == 0x10 {
            index & 0x0F
        } else {
            index
        };
        self.bus.ppu.palette[index]
    }

    /// Plugs in a Game Genie code; false if it already was in. Codes stay through resets and
    /// power cycles, and out of states (they are the cartridge's wiring, like the ROM).
    pub fn add_game_genie(&mut self, code: GameGenie) -> bool {
        self.bus.cart.add_game_genie(code)
    }

    /// Takes a Game Genie code out; false if it was not in.
    pub fn remove_game_genie(&mut self, code: GameGenie) -> bool {
        self.bus.cart.remove_game_genie(code)
    }

    /// Patches the loaded PRG-ROM, then CHR-ROM, `at` bytes into their data (as after the
    /// header in the file); false past their end.
    pub fn patch_rom(&mut self, at: usize, value: u8) -> bool {
        // The picture drawn so far used the old bytes.
        self.bus.ppu.catch_up(&mut self.bus.cart);
        let cart = &mut self.bus.cart;
        let prg = cart.prg_rom.len();
        let byte = match at.checked_sub(prg) {
            None => cart.prg_rom.get_mut(at),
            Some(chr_at) => {
                let rom = cart.header.chr_rom_size;
                cart.chr_mut()[..rom].get_mut(chr_at)
            }
        };
        let Some(byte) = byte else {
            return false;
        };
        *byte = value;
        self.bus.ppu.cartridge_changed(&self.bus.cart);
        self.bus.settle();
        true
    }

    /// The APU, to look at (its voices, for `sound.get`).
    pub fn apu(&self) -> &crate::apu::Apu {
        &self.bus.apu
    }

    /// The PPU, to look at (its registers, for debuggers' views of $2000-$2007).
    pub fn ppu(&self) -> &crate::ppu::Ppu {
        &self.bus.ppu
    }

    /// Frames the PPU has begun (at line 0) since power-on: the machine's own count, which
    /// [`Console::frame_number`]'s host frames follow.
    pub fn ppu_frames(&self) -> u64 {
        self.bus.ppu.frame
    }

    /// CPU cycles since power-on.
    pub fn cycles(&self) -> u64 {
        self.bus.cycles
    }

    /// The console's region: its CPU and PPU timing.
    pub fn region(&self) -> Region {
        self.bus.region()
    }
}

/// The console as its CPU's bus, each access a CPU cycle: for stepping a copy of the CPU on it,
/// as a script's memory hooks do, which are lent the console between two accesses.
impl CpuBus for Console {
    #[inline(always)]
    fn read(&mut self, addr: u16) -> u8 {
        self.bus.read(addr)
    }

    #[inline(always)]
    fn write(&mut self, addr: u16, val: u8) {
        CpuBus::write(&mut self.bus, addr, val);
    }

    #[inline(always)]
    fn cpu_read(&mut self, addr: u16) -> (u8, bool) {
        self.bus.cpu_read(addr)
    }

    #[inline(always)]
    fn cpu_write(&mut self, addr: u16, val: u8) -> bool {
        self.bus.cpu_write(addr, val)
    }

    #[inline]
    fn nmi_line(&self) -> bool {
        self.bus.nmi_line()
    }

    #[inline]
    fn irq_line(&self) -> bool {
        self.bus.irq_line()
    }

    #[inline]
    fn dma_halted_last_read(&self) -> bool {
        self.bus.dma_halted_last_read()
    }
}
