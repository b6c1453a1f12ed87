//! The CPU's address space and the one place where time advances.
//!
//! $0000-$1FFF 2 KiB RAM (mirrored), $2000-$3FFF PPU registers (mirrored every 8),
//! $4000-$4017 APU and I/O, $4018-$401F test mode (open bus), $4020-$FFFF cartridge.
//!
//! Timing: every CPU cycle goes through [`Bus::tick`]: the cartridge's M2 clock, two PPU dots
//! (whose render part may run later, see ppu.rs) and the APU's cycle, then the CPU's (or the DMA unit's) memory access, then the cycle's third
//! PPU dot; the CPU samples the NMI and IRQ lines after that (if they may have moved), at the
//! end of the cycle. The access lands late in the cycle as on the hardware (data is latched
//! at the end of φ2); the
//! PPU's VBlank races and the blargg PPU timing ROMs are tuned to this order
//! (ppu_vbl_nmi and cpu_interrupts_v2 in `tests/conformance` check it). Where `tick` would
//! only count, two shortcuts stand for it: quiet cycles ([`Bus::count_quiet_cycle`]), around
//! RAM and PRG-ROM accesses within a budget planned at the end of each full cycle, are only
//! counted, and [`Bus::catch_up`], `tick`'s batch form, brings the devices up to the count
//! later; [`Bus::run_idle`] runs it over many cycles at once (an idle loop's passes, an OAM
//! DMA in VBlank).
//!
//! A PAL console's PPU runs 16 dots in 5 CPU cycles: every fifth cycle has a fourth dot, after
//! the third.

use crate::apu::Apu;
use crate::cartridge::Cartridge;
use crate::cpu::CpuBus;
use crate::port::{Device, Plug};
use crate::ppu::Ppu;
use crate::region::Region;
use crate::state::{fields, Field, StateError, StateIo};

#[derive(Clone)]
pub struct Bus {
    pub ram: [u8; 0x800],
    pub ppu: Ppu,
    pub apu: Apu,
    pub cart: Cartridge,
    /// What is plugged into the controller ports, $4016 and $4017.
    pub ports: [Plug; 2],
    /// The game read a controller port since the host last cleared this (FCEUX's lag frames
    /// are frames without such a read). Host bookkeeping, not part of a state.
    pub polled: bool,
    /// CPU cycles since power-on.
    pub cycles: u64,
    /// The cycle the PPU, the APU, the board and the PAL divider have been brought to: the
    /// cycles after it were quiet ones, only counted (see [`Bus::catch_up`]).
    devices_at: u64,
    /// The cycles before this one are quiet: the pads' strobe is low, no DMA waits or comes
    /// due, the board lets cycles pass, the PPU's dots only count and the APU has no full
    /// cycle (planned by [`Bus::plan_quiet_cycles`]). Not part of a state.
    quiet_end: u64,
    /// The console's region (see [`Bus::with_region`]).
    region: Region,
    /// PPU dots in the coming CPU cycle: 3, and on PAL, whose five cycles take 16 dots, 4 on
    /// the last of each five.
    dots: u16,
    /// PAL: the coming cycle's place among the five (0-4).
    pal_phase: u8,
    /// The external data-bus latch: what a read of an undriven address returns.
    pub open_bus: u8,
    /// The 2A03's internal data bus, which alone sees $4015 reads (its bit 5 is open bus).
    internal_bus: u8,
    /// Source page of an OAM DMA requested by a $4014 write and not started yet.
    oam_dma: Option<u8>,
    /// A DMA ran right before the CPU's last read.
    dma_halted: bool,
    /// Bit 0 of the last $4016 write; it reaches the pads' strobe pins only on put cycles.
    joypad_out: bool,
    /// The last byte written to each of $4000-$4017. The 2A03's registers are write-only, so
    /// no read returns these, but debuggers show them (as FCEUX's memory view and Lua do).
    io_writes: [u8; 0x18],
    /// The pads' strobe pins may be high: while they and `joypad_out` are low, a put cycle
    /// has nothing to pass on.
    strobe_high: bool,
    /// The joypad port whose output enable this cycle asserts, and the one of the cycle before.
    joypad_oe: Option<usize>,
    joypad_oe_before: Option<usize>,
    /// The serial bit each port put on the bus at its last clocking read.
    pad_bits: [u8; 2],
    /// Something besides RAM and PRG-ROM reads happened since the console's idle-loop
    /// detector last cleared this: a write, a read of a register or of the cartridge below
    /// $8000, a DMA. Not part of a state: the detector starts afresh with every run.
    pub(crate) impure: bool,
    /// The fast paths are on: idle loops skipped (see `Console::run`), OAM DMAs in VBlank
    /// done at once. The host's choice, not part of a state: the machine runs the same.
    pub(crate) fast_forward: bool,
    /// The /NMI and /IRQ lines (true = asserted) as the last full cycle of [`Bus::tick`] left
    /// them: a quiet cycle only counts, so it cannot move them, and the CPU's sampling reads
    /// two bytes. Worked out again from the devices after anything else that may move them
    /// ([`Bus::settle_lines`]); not part of a state.
    nmi: bool,
    irq: bool,
    /// A line moved, or may have, since the CPU last looked ([`CpuBus::cpu_read`]): the CPU
    /// samples them only then. No cycle is quiet while it is set, so the CPU hears of it at
    /// its next cycle. Not part of a state: a load sets it.
    lines_moved: bool,
}

impl Field for Bus {
    fn visit(&mut self, io: &mut StateIo) {
        let Bus {
            ram,
            ppu,
            apu,
            cart,
            ports,
            polled: _,
            cycles,
            devices_at,
            quiet_end: _,
            region,
            dots: _,
            pal_phase,
            open_bus,
            internal_bus,
            oam_dma,
            dma_halted,
            joypad_out,
            io_writes,
            strobe_high,
            joypad_oe,
            joypad_oe_before,
            pad_bits,
            impure: _,
            fast_forward: _,
            nmi: _,
            irq: _,
            lines_moved: _,
        } = self;
        // Not stored: the pads' strobe flags are, and the next put cycle passes the latch on.
        *strobe_high = true;
        // A state runs on a console of its own region only.
        let mut saved = *region as u8;
        saved.visit(io);
        if saved != *region as u8 {
            io.fail_with(match Region::ALL.get(usize::from(saved)) {
                Some(&state) => StateError::OtherRegion {
                    state,
                    console: *region,
                },
                None => StateError::BadField("region"),
            });
        }
        io.checked(pal_phase, "PAL clock phase", |&p| p < 5);
        fields!(
            io,
            ram,
            ppu,
            apu,
            cart,
            open_bus,
            internal_bus,
            oam_dma,
            dma_halted
        );
        fields!(io, joypad_out, io_writes, pad_bits);
        for (port, plug) in ports.iter_mut().enumerate() {
            plug.visit(io, port);
        }
        for port in [joypad_oe, joypad_oe_before] {
            io.checked(port, "joypad port", |p| p.is_none_or(|p| p < 2));
        }
        io.counter(cycles, "CPU cycle counter");
        // A state is saved with the devices caught up.
        *devices_at = *cycles;
        // The board's sound is part of its registers; the mix holds its level.
        apu.restore_expansion(cart.audio());
        self.advance_divider(0);
        self.settle();
    }
}

impl Bus {
    pub fn new(cart: Cartridge) -> Bus {
        Bus::with_region(cart, Region::Ntsc)
    }

    /// The machine of a `region` console.
    pub fn with_region(cart: Cartridge, region: Region) -> Bus {
        let mut ppu = Ppu::default();
        ppu.set_region(region);
        let mut apu = Apu::default();
        apu.set_region(region);
        Bus {
            ram: [0; 0x800],
            ppu,
            apu,
            cart,
            ports: [Plug::new(Device::Pad, 0), Plug::new(Device::Pad, 1)],
            polled: false,
            cycles: 0,
            devices_at: 0,
            quiet_end: 0,
            region,
            dots: 3,
            pal_phase: 0,
            open_bus: 0,
            internal_bus: 0,
            oam_dma: None,
            dma_halted: false,
            joypad_out: false,
            io_writes: [0; 0x18],
            strobe_high: false,
            joypad_oe: None,
            joypad_oe_before: None,
            pad_bits: [0; 2],
            impure: true,
            fast_forward: true,
            nmi: false,
            irq: false,
            lines_moved: true,
        }
    }

    /// One CPU cycle of the whole machine around one memory access (see the module notes).
    #[inline(always)]
    fn tick<R>(&mut self, access: impl FnOnce(&mut Bus) -> R) -> R {
        self.catch_up();
        if (self.joypad_out || self.strobe_high) && !self.apu.next_cycle_is_get() {
            // The 2A03's OUT pins follow the $4016 latch at the get-to-put transition.
            self.strobe_high = self.joypad_out;
            for plug in &mut self.ports {
                plug.write_strobe(self.joypad_out);
            }
        }
        self.joypad_oe_before = self.joypad_oe.take();
        self.cycles += 1;
        self.devices_at = self.cycles;
        if self.cart.cpu_clock() {
            self.expansion_moved();
        }
        self.ppu.run_dots(2, &mut self.cart);
        self.apu.step();
        let result = access(self);
        self.ppu.run_dots(self.dots - 2, &mut self.cart);
        self.advance_divider(1);
        self.settle_lines();
        self.plan_quiet_cycles();
        result
    }

    /// The batch form of [`Bus::tick`]: brings the PPU (its timing part), the APU, the board
    /// and the PAL divider from `devices_at` to `cycles`, over cycles on which the CPU (or the
    /// DMA unit) only read RAM and PRG-ROM or wrote RAM, with the pads' strobe low: quiet
    /// cycles, only counted, or [`Bus::run_idle`]'s. The PPU and the APU run the events on the
    /// way in full; the /NMI and /IRQ lines are left to the caller. The console calls it
    /// after every instruction; anything that looks at the devices between two cycles (a
    /// debugger's hook) calls it first. Inlined: it runs at the start of every full cycle.
    #[inline(always)]
    pub fn catch_up(&mut self) {
        let n = self.cycles - self.devices_at;
        if n == 0 {
            return;
        }
        self.devices_at = self.cycles;
        (self.joypad_oe, self.joypad_oe_before) = (None, None);
        if self.cart.a12_filtered() {
            self.catch_up_a12_filter(n);
        } else {
            let dots = u32::try_from(self.dots_in(n)).expect("less than a frame's worth of dots");
            self.advance_divider(n);
            self.ppu.run_many_dots(dots, &mut self.cart);
            self.cart.pass_quiet_cycles(n);
        }
        self.apu.run(n);
    }

    /// [`Bus::catch_up`]'s PPU and board with a board whose A12 filter counts M2 edges: the
    /// quiet cycles may pass A12's changes the filter cannot count (`Ppu::bus_quiet_dots`),
    /// which the PPU's timing part tells it on their dots, so each cycle's edge reaches the
    /// board before its dots, as in [`Bus::tick`]: cycles whose dots only count at once, a
    /// cycle with a dot the timing part runs on its own.
    fn catch_up_a12_filter(&mut self, mut n: u64) {
        while n > 0 {
            let cycles = self
                .cycles_within(u64::from(self.ppu.quiet_dots()))
                .clamp(1, n);
            self.cart.pass_quiet_cycles(cycles);
            let dots =
                u32::try_from(self.dots_in(cycles)).expect("less than a frame's worth of dots");
            self.advance_divider(cycles);
            self.ppu.run_many_dots(dots, &mut self.cart);
            n -= cycles;
        }
    }

    /// Plans the quiet cycles from here (see `quiet_end`): the fewest before the pads' strobe,
    /// a DMA, the board, the PPU or the APU needs [`Bus::tick`], none with the fast paths off
    /// (every cycle then runs in full, the reference for this one). The devices are caught up.
    fn plan_quiet_cycles(&mut self) {
        // After a DMA the next read runs in full, which tells `dma_halted` again: a quiet read
        // need not.
        let quiet = self.fast_forward
            && !(self.joypad_out || self.strobe_high)
            && self.joypad_oe.is_none()
            && self.oam_dma.is_none()
            && !self.dma_halted
            && !self.lines_moved
            && self.cart.quiet_cycles();
        let cycles = if quiet {
            let ppu = self.cycles_within(u64::from(self.ppu.bus_quiet_dots()));
            ppu.min(self.apu.quiet_cycles())
        } else {
            0
        };
        self.quiet_end = self.cycles + cycles;
    }

    /// After anything but a cycle that may have moved the devices (an untimed write, a reset,
    /// a state load): the lines read again and the quiet cycles planned again.
    pub(crate) fn settle(&mut self) {
        self.catch_up();
        self.settle_lines();
        // The CPU's own view of them (a loaded state's, say) may be an older one.
        self.lines_moved = true;
        self.plan_quiet_cycles();
    }

    /// Reads the /NMI and /IRQ lines from the devices (see the `nmi` field).
    fn settle_lines(&mut self) {
        let nmi = self.ppu.nmi_line();
        let irq = self.apu.irq_line() || self.cart.irq();
        self.lines_moved |= (nmi != self.nmi) | (irq != self.irq);
        self.nmi = nmi;
        self.irq = irq;
    }

    /// The console's region.
    pub fn region(&self) -> Region {
        self.region
    }

    /// `n` CPU cycles have passed: on PAL, where the coming cycle is among the five.
    #[inline(always)]
    fn advance_divider(&mut self, n: u64) {
        if self.region == Region::Pal {
            let phase = (u64::from(self.pal_phase) + n) % 5;
            self.pal_phase = phase as u8;
            self.dots = 3 + u16::from(phase == 4);
        }
    }

    /// PPU dots in the next `n` CPU cycles.
    pub(crate) fn dots_in(&self, n: u64) -> u64 {
        let fourth_dots = if self.region == Region::Pal {
            (u64::from(self.pal_phase) + n) / 5
        } else {
            0
        };
        3 * n + fourth_dots
    }

    /// The most CPU cycles from now whose dots fit in `dots`.
    pub(crate) fn cycles_within(&self, dots: u64) -> u64 {
        if self.region != Region::Pal {
            // Three dots every cycle.
            return dots / 3;
        }
        let mut n = dots * 5 / self.region.dots_per_five_cycles();
        while self.dots_in(n) > dots {
            n -= 1;
        }
        while self.dots_in(n + 1) <= dots {
            n += 1;
        }
        n
    }

    /// The cartridge's sound moved: the APU mixes its new level in.
    #[cold]
    #[inline(never)]
    fn expansion_moved(&mut self) {
        self.apu.set_expansion(self.cart.audio());
    }

    /// `n` cycles on which the CPU (or the DMA unit) only reads RAM and PRG-ROM, or writes
    /// OAM as [`Bus::oam_dma_at_once`] has done: what `n` calls of [`Bus::tick`] around those
    /// accesses do when the pads' strobe is low and the cartridge does not count cycles. The
    /// PPU's timing part runs its dots (its render part follows line by line, as always) and
    /// the APU its cycles, the full ones among them in full.
    pub fn run_idle(&mut self, n: u64) {
        self.catch_up();
        self.cycles += n;
        self.settle();
    }

    /// The pads' strobe is low and the cartridge neither counts CPU cycles nor watches the
    /// PPU's bus, or only for an A12 filter that hears of them later
    /// ([`Cartridge::a12_filtered`]): all a cycle of [`Bus::tick`] does outside the CPU, the
    /// PPU and the APU is count. (A board's IRQ only moves with one of those two.)
    pub(crate) fn outside_only_counts(&self) -> bool {
        !(self.joypad_out
            || self.strobe_high
            || self.cart.sees_every_cycle() && !self.cart.a12_filtered())
    }

    /// How many cycles from now on [`Bus::run_idle`] can stand in for an idle loop: the /NMI
    /// line keeps its level, the /IRQ line too unless the CPU masks it (`irq_masked`), no
    /// DMA wants the bus, no frame begins. None unless [`Bus::outside_only_counts`].
    pub fn idle_cycles(&self, irq_masked: bool) -> u64 {
        if !self.outside_only_counts() {
            return 0;
        }
        let mut dots = self.ppu.dots_before_event();
        if self.cart.a12_filtered() && !irq_masked {
            // The board's IRQ may rise on the next rise of A12 its filter can count.
            dots = dots.min(u32::from(self.ppu.bus_quiet_dots()));
        }
        let ppu = self.cycles_within(u64::from(dots));
        ppu.min(self.apu.idle_cycles(irq_masked))
    }

    /// [`Bus::tick`] on a cycle where it would only count, for an access to RAM or PRG-ROM
    /// (which the PPU's position within the cycle does not matter to): the cycle is one of
    /// the quiet ones planned (`quiet_end`). Counts it and returns true, or returns false with
    /// nothing done; [`Bus::catch_up`] brings the devices to the count later. Most cycles take
    /// this way, with no call (so the CPU's reads and writes save no registers).
    #[inline(always)]
    fn count_quiet_cycle(&mut self) -> bool {
        if self.cycles < self.quiet_end {
            self.cycles += 1;
            return true;
        }
        false
    }

    /// The CPU's read on a quiet cycle, if this is one (see [`Bus::count_quiet_cycle`]).
    #[inline(always)]
    fn quiet_read(&mut self, addr: u16) -> Option<u8> {
        if !(is_ram_or_rom(addr) && self.count_quiet_cycle()) {
            return None;
        }
        let val = self.read_ram_or_rom(addr);
        self.open_bus = val;
        self.internal_bus = val;
        Some(val)
    }

    /// Whether the lines moved since the CPU last asked; clears the mark.
    fn take_lines_moved(&mut self) -> bool {
        std::mem::take(&mut self.lines_moved)
    }

    /// A CPU read on a cycle that is not a quiet one: the DMA unit first if it wants the bus
    /// (DMA can only halt the CPU on a read cycle), then the read through [`Bus::tick`].
    #[inline(never)]
    fn read_in_full(&mut self, addr: u16) -> u8 {
        self.catch_up();
        self.dma_halted = self.oam_dma.is_some() || self.apu.dmc_dma_request().is_some();
        if self.dma_halted {
            self.dma(addr);
        }
        self.tick_read(addr)
    }

    /// A read cycle through [`Bus::tick`]: the value lands on the data bus.
    fn tick_read(&mut self, addr: u16) -> u8 {
        self.tick(|bus| {
            let val = bus.read_mem(addr);
            // $4015 is inside the 2A03, so its value never reaches the external data bus.
            if addr != 0x4015 {
                bus.open_bus = val;
            }
            bus.internal_bus = val;
            val
        })
    }

    /// A write cycle as the CPU (or the DMA unit) does it; returns whether it ran in full.
    #[inline(always)]
    fn write_cycle(&mut self, addr: u16, val: u8) -> bool {
        let access = |bus: &mut Bus| {
            bus.open_bus = val;
            bus.internal_bus = val;
            bus.write_mem(addr, val);
        };
        if addr < 0x2000 && self.count_quiet_cycle() {
            access(self);
            return false;
        }
        self.tick_write(access);
        true
    }

    /// [`Bus::write_cycle`] through [`Bus::tick`].
    #[inline(never)]
    fn tick_write(&mut self, access: impl FnOnce(&mut Bus)) {
        self.tick(access);
    }

    /// The 2A03's DMA unit, entered when the CPU is about to read `cpu_addr` and the OAM or
    /// the DMC unit wants the bus (DMA can only halt the CPU on a read cycle). Each pass of the
    /// loop is one cycle. Gets (reads) happen on get cycles and puts (writes) on put cycles, as
    /// the APU clock alternates them; a cycle where no unit can move repeats the CPU's read,
    /// side effects included (halt, DMC dummy and alignment cycles).
    /// - OAM: halt, then 256 get/put pairs from page `$xx00-$xxFF` to $2004 (513/514 cycles).
    /// - DMC: halt, dummy, then one get (3/4 cycles). Its halt and dummy cycles overlap OAM
    ///   cycles; its get takes priority over an OAM get.
    fn dma(&mut self, cpu_addr: u16) {
        self.impure = true;
        if self
            .oam_dma
            .is_some_and(|page| self.oam_dma_at_once(page, cpu_addr))
        {
            self.oam_dma = None;
            return;
        }
        let mut oam = self.oam_dma.take().map(|page| OamDma {
            addr: u16::from(page) << 8,
            halted: false,
            latch: None,
        });
        // Cycles the DMC unit has held the CPU for its pending request; past the dummy cycle
        // the transfer goes through even if the DMC is disabled meanwhile.
        let mut dmc_waited = 0;
        let mut dmc_committed = None;
        loop {
            let dmc = dmc_committed.or_else(|| self.apu.dmc_dma_request());
            if dmc.is_none() && oam.is_none() {
                break;
            }
            let get = self.apu.next_cycle_is_get();
            if let Some(sample_addr) = dmc {
                if get && dmc_waited >= 2 {
                    let byte = self.dma_read_cycle(sample_addr, cpu_addr);
                    self.apu.dmc_dma_complete(byte);
                    dmc_waited = 0;
                    dmc_committed = None;
                    continue;
                }
                dmc_waited += 1;
                if dmc_waited == 2 {
                    dmc_committed = Some(sample_addr);
                }
            } else {
                // Withdrawn after its halt cycle: that one cycle was all it took.
                dmc_waited = 0;
            }
            let Some(o) = oam.as_mut().filter(|o| o.halted) else {
                if let Some(o) = &mut oam {
                    o.halted = true;
                }
                self.tick_read(cpu_addr);
                continue;
            };
            match (get, o.latch) {
                (true, None) => o.latch = Some(self.dma_read_cycle(o.addr, cpu_addr)),
                (false, Some(val)) => {
                    self.write_cycle(0x2004, val);
                    o.latch = None;
                    o.addr = o.addr.wrapping_add(1);
                    if o.addr & 0xFF == 0 {
                        oam = None;
                    }
                }
                // Alignment: the OAM unit waits for the other half of the APU cycle.
                _ => {
                    self.tick_read(cpu_addr);
                }
            }
        }
    }

    /// The OAM DMA of `page` as one step, when nothing can see its cycles one by one: the
    /// CPU's address and the page are RAM or PRG-ROM (reads without side effects), the DMC's
    /// reader is idle (no DMC DMA can join), [`Bus::outside_only_counts`], and the PPU stays on the VBlank lines throughout (where $2004
    /// writes go to OAM and the render part does not read it). The halt cycle, the alignment
    /// cycle if the halt came on a get cycle, then 256 get/put pairs, as [`Bus::dma`] runs
    /// them. Returns whether it did.
    fn oam_dma_at_once(&mut self, page: u8, cpu_addr: u16) -> bool {
        let source = u16::from(page) << 8;
        let cycles = if self.apu.next_cycle_is_get() {
            514
        } else {
            513
        };
        if !(self.fast_forward
            && is_ram_or_rom(cpu_addr)
            && is_ram_or_rom(source)
            && self.outside_only_counts()
            && self.apu.dmc_reader_idle()
            && u64::from(self.ppu.vblank_dots_left()) >= self.dots_in(cycles))
        {
            return false;
        }
        let bytes: [u8; 256] = std::array::from_fn(|i| self.read_mem(source + i as u16));
        self.ppu.write_oam_page(&bytes, &mut self.cart);
        self.run_idle(cycles);
        self.open_bus = bytes[255];
        self.internal_bus = bytes[255];
        true
    }

    /// A read that selects joypad `port`: D0-D4 are its device's, D5-D7 stay `external`.
    /// The port's output enable stays asserted over back-to-back cycles reading the same port,
    /// so such a run sees one value and clocks the device's shift register once.
    fn read_joypad(&mut self, port: usize, external: u8) -> u8 {
        self.polled = true;
        if self.joypad_oe_before != Some(port) {
            self.pad_bits[port] = match self.ports[port] {
                Plug::Zapper(_) => self.read_zapper(port),
                ref mut plug => plug.read(),
            };
        }
        self.joypad_oe = Some(port);
        (external & 0xE0) | self.pad_bits[port]
    }

    /// The Zapper in `port`: it sees the picture as far as the beam has drawn it.
    #[cold]
    #[inline(never)]
    fn read_zapper(&mut self, port: usize) -> u8 {
        self.ppu.catch_up(&mut self.cart);
        let (line, dot) = (self.ppu.scanline, self.ppu.dot);
        let lines = self.region.lines_per_frame();
        match &self.ports[port] {
            Plug::Zapper(gun) => gun.read(&self.ppu.frame_buffer, line, dot, lines),
            plug => plug.peek(),
        }
    }

    /// A DMA get cycle reading `addr` while the halted CPU holds `cpu_addr` on its address bus.
    /// The APU and joypad registers decode only when the CPU's address is in $4000-$401F, and
    /// then they answer to the low five bits of the DMA address, whatever its page; the external
    /// bus is read as well, and $4015 only drives the internal bus.
    fn dma_read_cycle(&mut self, addr: u16, cpu_addr: u16) -> u8 {
        self.tick(|bus| {
            let external = if (0x4000..=0x401F).contains(&addr) {
                bus.open_bus
            } else {
                bus.read_mem(addr)
            };
            bus.open_bus = external;
            let val = match addr & 0x1F {
                _ if cpu_addr & 0xFFE0 != 0x4000 => external,
                0x15 => bus.apu.read_status() | (bus.internal_bus & 0x20),
                0x16 | 0x17 => {
                    // The pad drives the external bus too.
                    bus.open_bus = bus.read_joypad(usize::from(addr & 1), external);
                    bus.open_bus
                }
                _ => external,
            };
            bus.internal_bus = val;
            val
        })
    }

    /// RAM and $8000-$FFFF, almost every read, on the fast path; the rest in [`Self::read_io`].
    #[inline]
    fn read_mem(&mut self, addr: u16) -> u8 {
        if addr >= 0x8000 {
            // The board may show RAM there, or see the read.
            self.cart.cpu_read_prg(addr).unwrap_or(self.open_bus)
        } else if addr < 0x2000 {
            self.ram[usize::from(addr & 0x7FF)]
        } else {
            self.read_io(addr)
        }
    }

    #[inline(always)]
    fn read_ram_or_rom(&self, addr: u16) -> u8 {
        if addr < 0x2000 {
            self.ram[usize::from(addr & 0x7FF)]
        } else {
            self.cart.prg_rom_byte(addr)
        }
    }

    /// The PPU and APU registers, the joypads, and the cartridge below $8000.
    fn read_io(&mut self, addr: u16) -> u8 {
        self.impure = true;
        match addr {
            0x2000..=0x3FFF => self.ppu.read_register(addr & 7, &mut self.cart),
            0x4015 => self.apu.read_status() | (self.internal_bus & 0x20),
            0x4016 | 0x4017 => self.read_joypad(usize::from(addr & 1), self.open_bus),
            0x4000..=0x401F => self.open_bus,
            _ => self.cart.cpu_read(addr).unwrap_or(self.open_bus),
        }
    }

    /// RAM, almost every write, on the fast path; the rest in [`Self::write_io`].
    #[inline]
    fn write_mem(&mut self, addr: u16, val: u8) {
        self.impure = true;
        if addr < 0x2000 {
            self.ram[usize::from(addr & 0x7FF)] = val;
        } else {
            self.write_io(addr, val);
        }
    }

    /// Above RAM: the PPU and APU registers, the joypads' strobe, OAM DMA and the cartridge.
    fn write_io(&mut self, addr: u16, val: u8) {
        match addr {
            0x2000..=0x3FFF => {
                self.ppu.write_register(addr & 7, val, &mut self.cart);
                self.cart.ppu_register_written(addr, val);
            }
            0x4000..=0x4017 => {
                self.io_writes[usize::from(addr - 0x4000)] = val;
                match addr {
                    0x4014 => self.oam_dma = Some(val),
                    0x4016 => self.joypad_out = val & 1 != 0,
                    _ => self.apu.write_register(addr, val),
                }
            }
            0x4018..=0x401F => {}
            _ => {
                // Banks and mirroring may change: the PPU's picture so far used the old ones.
                self.ppu.catch_up(&mut self.cart);
                self.cart.cpu_write(addr, val, self.cycles);
                self.ppu.cartridge_changed(&self.cart);
            }
        }
    }

    /// The last byte the CPU wrote to 2A03 register `addr` ($4000-$4017), if it is one.
    pub(crate) fn io_write(&self, addr: u16) -> Option<u8> {
        self.io_writes
            .get(usize::from(addr.wrapping_sub(0x4000)))
            .copied()
    }

    /// What a CPU read would return, with no side effect on any device.
    #[inline]
    pub fn peek(&self, addr: u16) -> u8 {
        match addr {
            0x0000..=0x1FFF => self.ram[usize::from(addr & 0x7FF)],
            _ => self.peek_io(addr),
        }
    }

    /// [`Bus::peek`] above RAM.
    fn peek_io(&self, addr: u16) -> u8 {
        match addr {
            0x2000..=0x3FFF => self.ppu.peek_register(addr & 7, &self.cart),
            0x4015 => self.apu.peek_status() | (self.internal_bus & 0x20),
            0x4016 | 0x4017 => (self.open_bus & 0xE0) | self.ports[usize::from(addr & 1)].peek(),
            0x4000..=0x401F => self.open_bus,
            _ => self.cart.cpu_peek(addr).unwrap_or(self.open_bus),
        }
    }

    /// A write with its side effects (registers, mappers) but taking no CPU time.
    pub fn write_untimed(&mut self, addr: u16, val: u8) {
        self.catch_up();
        self.write_mem(addr, val);
        self.settle();
    }
}

/// Reads of these addresses have no side effect on any device.
#[inline(always)]
fn is_ram_or_rom(addr: u16) -> bool {
    !(0x2000..0x8000).contains(&addr)
}

/// Progress of an OAM DMA.
struct OamDma {
    /// Next source address.
    addr: u16,
    /// The halt cycle is done.
    halted: bool,
    /// Byte read on the last get, waiting for its put.
    latch: Option<u8>,
}

impl CpuBus for Bus {
    /// A quiet cycle has no DMA waiting, nor one just done (see `quiet_end`).
    #[inline(always)]
    fn read(&mut self, addr: u16) -> u8 {
        self.quiet_read(addr)
            .unwrap_or_else(|| self.read_in_full(addr))
    }

    #[inline(always)]
    fn write(&mut self, addr: u16, val: u8) {
        self.write_cycle(addr, val);
    }

    /// Only a full cycle ([`Bus::tick`]) or [`Bus::settle`] moves the lines, and no cycle is
    /// quiet while the CPU has not heard of it.
    #[inline(always)]
    fn cpu_read(&mut self, addr: u16) -> (u8, bool) {
        match self.quiet_read(addr) {
            Some(val) => (val, false),
            None => (self.read_in_full(addr), self.take_lines_moved()),
        }
    }

    #[inline(always)]
    fn cpu_write(&mut self, addr: u16, val: u8) -> bool {
        self.write_cycle(addr, val) && self.take_lines_moved()
    }

    fn nmi_line(&self) -> bool {
        self.nmi
    }

    fn irq_line(&self) -> bool {
        self.irq
    }

    fn dma_halted_last_read(&self) -> bool {
        self.dma_halted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bus(mapper: u8) -> Bus {
        let mut image = vec![b'N', b'E', b'S', 0x1A, 2, 1, mapper << 4, mapper & 0xF0];
        image.resize(16 + 0x8000 + 0x2000, 0);
        Bus::new(Cartridge::from_ines(&image).unwrap())
    }

    #[test]
    fn idle_loops_run_in_bulk_only_where_the_board_sees_no_cycle() {
        assert!(bus(0).idle_cycles(true) > 0, "NROM");
        assert_eq!(bus(69).idle_cycles(true), 0, "FME-7 counts CPU cycles");
        assert_eq!(bus(9).idle_cycles(true), 0, "MMC2 watches the PPU's bus");
    }
}
