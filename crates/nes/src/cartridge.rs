//! The cartridge: the memories on the board (PRG-ROM, PRG-RAM, CHR-ROM or CHR-RAM) and the
//! console's 2 KiB nametable RAM (CIRAM), whose address lines the cartridge controls. The
//! image's header is read in [`crate::header`], bank switching lives in [`crate::mapper`].

use crate::game_genie::GameGenie;
use crate::header::CHR_BANK;
pub use crate::header::{Header, RomError};
use crate::mapper::{Board, CpuTarget, Mapper, Needs, PpuRead, WithBoard};
use crate::state::{fields, Field, Fnv1a, StateIo};
use std::fmt;

/// Why saved battery RAM cannot go into this cartridge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BatteryError {
    NoBattery,
    WrongSize { expected: usize, actual: usize },
}

impl fmt::Display for BatteryError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            BatteryError::NoBattery => write!(f, "the cartridge has no battery-backed RAM"),
            BatteryError::WrongSize { expected, actual } => write!(
                f,
                "the save is {actual} bytes, the cartridge's battery-backed RAM {expected}"
            ),
        }
    }
}

impl std::error::Error for BatteryError {}

/// A cartridge plugged into the console, with the console's nametable RAM that it wires.
#[derive(Clone)]
pub struct Cartridge {
    pub header: Header,
    mapper: Mapper,
    pub prg_rom: Vec<u8>,
    pub prg_ram: Vec<u8>,
    /// The PPU side's memories in one, so that any 1 KiB window of the PPU's space can show
    /// any of them: CHR-ROM, CHR-RAM, the console's 2 KiB of nametable RAM (CIRAM, plus 2 KiB
    /// more on four-screen boards), then a KiB of open bus (see [`OPEN_BUS`]). Each part is
    /// a whole number of KiB.
    ppu_memory: Vec<[u8; 0x400]>,
    /// Where CHR-RAM, CIRAM and the open bus begin in `ppu_memory`, in bytes.
    chr_ram_start: usize,
    ciram_start: usize,
    open_bus_start: usize,
    /// The mapper's current banks, so that reads need no mapper call (see [`Banks`]).
    banks: Banks,
    /// What the board needs besides address translation, asked once.
    needs: Needs,
    /// Game Genie codes, in the order entered (not part of a state, like the ROM).
    game_genie: Vec<GameGenie>,
    /// Bit n: a code's address is in the 8 KiB window $8000 + n * $2000.
    game_genie_windows: u8,
    /// Bit n: a read of window n needs more than the bank table's PRG-ROM byte: a Game Genie
    /// code, PRG-RAM there, or a board that sees the read.
    special_windows: u8,
    /// Where a PRG-ROM read of each window of $8000-$FFFF starts: the bank's offset, or one
    /// past the ROM's end ([`GAME_GENIE_FAR`]) for a window with Game Genie codes, so that the
    /// read's bounds check alone sends those, and banks that wrap, the slow way.
    prg_reads: [usize; 4],
    /// The PPU shows a board that watches its bus every fetch as it happens, even one that
    /// only needs A12's changes: the reference for that shortcut (not part of a state).
    ppu_lockstep: bool,
    /// Cycles passed quietly ([`Self::quiet_cycle`]) since the board was last told: a board
    /// that [`Self::follows_a12`] and counts cycles only for its A12 filter hears of them
    /// before A12's next change, a change of its banks or a save (so they are part of a state
    /// through the board); any other board is owed none.
    m2_owed: u64,
}

/// Where the mapper points each window of the address spaces, as offsets into the memories
/// (already reduced to their size). Every mapper's banks are whole windows: 8 KiB of CPU
/// space, 1 KiB of PPU space. Refreshed whenever the mapper's choice may have changed.
#[derive(Clone, Default)]
struct Banks {
    /// What answers at $8000, $A000, $C000 and $E000: offsets into PRG-ROM, or into PRG-RAM
    /// where `prg_ram_windows` says.
    prg: [usize; 4],
    /// Bit n: window n of $8000-$FFFF shows PRG-RAM (open bus if the cartridge has none).
    prg_ram_windows: u8,
    /// Bit n: the board sees the CPU's reads of window n ([`Board::prg_read`]).
    prg_read_windows: u8,
    /// What answers at $6000-$7FFF.
    low: LowWindow,
    /// The PPU's $0000-$3FFF in 1 KiB windows, each the number of a KiB of `ppu_memory`:
    /// pattern tables, then the nametables twice ($3000-$3FFF mirrors $2000-$2FFF).
    ppu: [usize; 16],
    /// Bit n: window n is RAM, which PPU writes change.
    ppu_writable: u16,
    /// The mapper must see the PPU's accesses as they happen ([`Board::watches_ppu_bus`]).
    watches_ppu_bus: bool,
    /// That, and it looks at A12 alone ([`Needs::ppu_a12_only`]): the PPU tells it A12's
    /// changes from its fetch pattern, and its fetches pass no address on.
    follows_a12: bool,
    /// That, and it counts CPU cycles only for an A12 filter ([`Needs::ppu_a12_only`]).
    a12_filtered: bool,
    /// That, or the board counts CPU cycles.
    sees_every_cycle: bool,
    /// Cycles with no PPU dot in them that the board must hear of as it happens can pass
    /// without the board: it sees no cycle, or it follows A12 and counts cycles only for its
    /// A12 filter, which may hear of them later ([`Cartridge::m2_owed`]); and $8000-$FFFF
    /// shows only PRG-ROM, which the board does not see read.
    quiet_cycles: bool,
}

/// What answers a CPU access at $6000-$7FFF, as an offset into that memory.
#[derive(Clone, Copy, Default)]
enum LowWindow {
    Ram(usize),
    /// PRG-ROM (FME-7 can bank it there).
    Rom(usize),
    #[default]
    OpenBus,
}

/// The memories' sizes and places, from which [`Banks`] follow the board's registers.
struct Layout {
    prg_rom: usize,
    prg_ram: usize,
    chr_ram_start: usize,
    ciram_start: usize,
    open_bus_start: usize,
    four_screen: bool,
    needs: Needs,
    /// The PPU may tell an A12-only board A12's changes alone (not in lockstep).
    a12_changes: bool,
}

/// The banks as the board's own type sees them: one dispatch on the board type, then every
/// question to the board is a direct call (most of them fold away for fixed boards).
impl WithBoard for Layout {
    type Output = Banks;

    fn with<B: Board>(self, board: &B) -> Banks {
        let mut prg_ram_windows = 0;
        let mut prg = [0; 4];
        for (slot, window) in prg.iter_mut().enumerate() {
            *window = match board.map_cpu(0x8000 + slot as u16 * 0x2000) {
                CpuTarget::PrgRom(off) => wrap(off, self.prg_rom),
                target => {
                    prg_ram_windows |= 1 << slot;
                    match target {
                        CpuTarget::PrgRam(off) if self.prg_ram > 0 => wrap(off, self.prg_ram),
                        _ => 0,
                    }
                }
            };
        }
        let prg_read_windows = if self.needs.prg_reads {
            board.prg_read_windows()
        } else {
            0
        };
        let low = match board.map_cpu(0x6000) {
            CpuTarget::PrgRam(off) if self.prg_ram > 0 => LowWindow::Ram(wrap(off, self.prg_ram)),
            CpuTarget::PrgRom(off) => LowWindow::Rom(wrap(off, self.prg_rom)),
            _ => LowWindow::OpenBus,
        };
        // CHR-ROM and CHR-RAM, where the board's CHR offsets point.
        let chr_size = self.ciram_start;
        let chr_enabled = board.chr_enabled();
        let mut ppu = [0; 16];
        for (slot, window) in ppu[..8].iter_mut().enumerate() {
            *window = if chr_enabled {
                wrap(board.map_chr(slot as u16 * 0x400), chr_size)
            } else {
                self.open_bus_start
            };
        }
        for table in 0..4 {
            let window = match board.nametable_chr(table) {
                Some(offset) => wrap(offset, chr_size),
                None if self.four_screen => self.ciram_start + table * 0x400,
                None => self.ciram_start + board.nametable_page(table) * 0x400,
            };
            ppu[8 + table] = window;
            ppu[12 + table] = window;
        }
        let ram = self.chr_ram_start..self.open_bus_start;
        let ppu_writable = (0..16)
            .filter(|&n| ram.contains(&ppu[n]))
            .fold(0, |bits, n| bits | 1 << n);
        // Every bank is whole KiB: the windows count KiB.
        let ppu = ppu.map(|offset| offset / 0x400);
        let watches_ppu_bus = self.needs.ppu_bus && board.watches_ppu_bus();
        let follows_a12 = watches_ppu_bus && self.needs.ppu_a12_only && self.a12_changes;
        // A read there may be of RAM or seen by the board: it takes the bus's full cycle.
        let plain_prg = prg_ram_windows | prg_read_windows == 0;
        Banks {
            prg,
            prg_ram_windows,
            prg_read_windows,
            low,
            ppu,
            ppu_writable,
            watches_ppu_bus,
            follows_a12,
            a12_filtered: follows_a12 && self.needs.cpu_clock,
            sees_every_cycle: watches_ppu_bus || self.needs.cpu_clock,
            quiet_cycles: plain_prg
                && if follows_a12 {
                    true
                } else {
                    !(watches_ppu_bus || self.needs.cpu_clock)
                },
        }
    }
}

/// The board's memories and registers; the ROMs come from the image.
impl Field for Cartridge {
    fn visit(&mut self, io: &mut StateIo) {
        // A save has the cycles the board is owed counted; a load owes none.
        self.tell_owed_m2();
        let Cartridge {
            header: _,
            mapper,
            prg_rom: _,
            prg_ram,
            ppu_memory,
            chr_ram_start,
            ciram_start,
            open_bus_start,
            banks: _,
            needs: _,
            game_genie: _,
            game_genie_windows: _,
            special_windows: _,
            prg_reads: _,
            ppu_lockstep: _,
            m2_owed: _,
        } = self;
        fields!(io, mapper);
        io.fixed(prg_ram);
        io.fixed(ppu_memory[*chr_ram_start / 0x400..*ciram_start / 0x400].as_flattened_mut());
        io.fixed(ppu_memory[*ciram_start / 0x400..*open_bus_start / 0x400].as_flattened_mut());
        // The banks follow from the (maybe just loaded) mapper registers.
        self.refresh_banks();
    }
}

impl Cartridge {
    pub fn from_ines(bytes: &[u8]) -> Result<Cartridge, RomError> {
        let header = Header::parse(bytes)?;
        let start = 16 + if header.trainer { 512 } else { 0 };
        let expected = start + header.prg_rom_size + header.chr_rom_size;
        if bytes.len() < expected {
            return Err(RomError::Truncated {
                expected,
                actual: bytes.len(),
            });
        }
        let prg_rom = bytes[start..start + header.prg_rom_size].to_vec();
        let chr_start = start + header.prg_rom_size;
        let mut memory = bytes[chr_start..chr_start + header.chr_rom_size].to_vec();
        memory.resize(whole_kib(memory.len()), 0);
        let chr_ram_start = memory.len();
        let chr_ram_size = match header.chr_ram_size {
            0 if header.chr_rom_size == 0 => CHR_BANK,
            size => whole_kib(size),
        };
        let ciram_start = chr_ram_start + chr_ram_size;
        let open_bus_start = ciram_start + if header.four_screen { 0x1000 } else { 0x800 };
        memory.resize(open_bus_start, 0);
        memory.extend(OPEN_BUS);
        let ppu_memory = memory.as_chunks().0.to_vec();
        let mapper = Mapper::new(&header)?;
        let needs = mapper.needs();
        // NES 2.0 states the PRG-RAM exactly; iNES 1.0 cannot, and test ROMs and games expect
        // 8 KiB at $6000 there.
        let ram_size = if header.nes2 {
            header.prg_ram_size + header.prg_nvram_size
        } else {
            8 * 1024
        };
        let mut prg_ram = vec![0; ram_size];
        if header.trainer && prg_ram.len() >= 0x1200 {
            prg_ram[0x1000..0x1200].copy_from_slice(&bytes[16..16 + 512]);
        }
        let mut cart = Cartridge {
            header,
            mapper,
            prg_rom,
            prg_ram,
            ppu_memory,
            chr_ram_start,
            ciram_start,
            open_bus_start,
            banks: Banks::default(),
            needs,
            game_genie: Vec::new(),
            game_genie_windows: 0,
            special_windows: 0,
            prg_reads: [0; 4],
            ppu_lockstep: false,
            m2_owed: 0,
        };
        cart.refresh_banks();
        Ok(cart)
    }

    /// The mapper's registers at power-on; the memories keep their contents.
    pub fn power_on_mapper(&mut self) {
        self.m2_owed = 0;
        if let Ok(mapper) = Mapper::new(&self.header) {
            self.mapper = mapper;
        }
        self.refresh_banks();
    }

    /// Asks the mapper where each window points now.
    fn refresh_banks(&mut self) {
        // Told under the banks they passed with.
        self.tell_owed_m2();
        self.banks = self.mapper.with(Layout {
            prg_rom: self.prg_rom.len(),
            prg_ram: self.prg_ram.len(),
            chr_ram_start: self.chr_ram_start,
            ciram_start: self.ciram_start,
            open_bus_start: self.open_bus_start,
            four_screen: self.header.four_screen,
            needs: self.needs,
            a12_changes: !self.ppu_lockstep,
        });
        self.special_windows =
            self.game_genie_windows | self.banks.prg_ram_windows | self.banks.prg_read_windows;
        self.prg_reads = std::array::from_fn(|n| {
            let far = if self.game_genie_windows & 1 << n != 0 {
                GAME_GENIE_FAR
            } else {
                0
            };
            self.banks.prg[n] + far
        });
    }

    /// Whether the PPU shows a board that watches its bus every fetch as it happens
    /// (`true`), or, to one that needs A12's changes alone, only those (the default; the
    /// board sees the same either way).
    pub fn set_ppu_lockstep(&mut self, on: bool) {
        self.ppu_lockstep = on;
        self.refresh_banks();
    }

    /// CPU read of $4020-$FFFF; `None` where nothing drives the bus (open bus).
    pub fn cpu_read(&mut self, addr: u16) -> Option<u8> {
        if addr < 0x6000 {
            return if self.needs.low_registers {
                self.mapper.read_low(addr)
            } else {
                None
            };
        }
        self.cpu_peek(addr)
    }

    /// Same as [`Self::cpu_read`] without side effects (for debuggers, the AI and Lua).
    #[inline]
    pub fn cpu_peek(&self, addr: u16) -> Option<u8> {
        match addr {
            0x8000..=0xFFFF => self.prg_peek(addr),
            // Boards with registers there may divide the window finer than 8 KiB (X1-005's
            // 128 bytes of RAM at $7F00): ask them.
            0x6000..=0x7FFF if self.needs.low_registers => match self.mapper.map_cpu(addr) {
                CpuTarget::PrgRam(off) if !self.prg_ram.is_empty() => {
                    Some(self.prg_ram[wrap(off, self.prg_ram.len())])
                }
                CpuTarget::PrgRom(off) => Some(self.prg_rom[wrap(off, self.prg_rom.len())]),
                _ => None,
            },
            0x6000..=0x7FFF => match self.banks.low {
                LowWindow::Ram(bank) => {
                    Some(self.prg_ram[wrap(bank + usize::from(addr & 0x1FFF), self.prg_ram.len())])
                }
                LowWindow::Rom(bank) => {
                    Some(self.prg_rom[wrap(bank + usize::from(addr & 0x1FFF), self.prg_rom.len())])
                }
                LowWindow::OpenBus => None,
            },
            _ if self.needs.low_registers => self.mapper.peek_low(addr),
            _ => None,
        }
    }

    /// The byte at CPU address `addr` ($8000-$FFFF) where the window shows PRG-ROM: the ROM's,
    /// or a Game Genie code's. The bus's quiet cycles read this way: they never come while a
    /// window shows RAM or the board sees reads (see [`Banks::quiet_cycles`]).
    #[inline(always)]
    pub fn prg_rom_byte(&self, addr: u16) -> u8 {
        let at = self.prg_reads[usize::from(addr >> 13) & 3] + usize::from(addr & 0x1FFF);
        match self.prg_rom.get(at) {
            Some(&byte) => byte,
            None => self.prg_rom_far(addr),
        }
    }

    /// [`Self::prg_rom_byte`] past the ROM's end: a bank that wraps (a ROM whose size is not
    /// a whole number of windows) or a window with Game Genie codes.
    #[cold]
    #[inline(never)]
    fn prg_rom_far(&self, addr: u16) -> u8 {
        let bank = self.banks.prg[usize::from(addr >> 13) & 3];
        let byte = self.prg_rom[wrap(bank + usize::from(addr & 0x1FFF), self.prg_rom.len())];
        self.game_genie_byte(addr, byte)
    }

    /// A CPU read of $8000-$FFFF, which the board may see; `None` is open bus.
    #[inline]
    pub fn cpu_read_prg(&mut self, addr: u16) -> Option<u8> {
        if self.special_windows == 0 {
            return Some(self.prg_rom_byte(addr));
        }
        self.special_prg_read(addr)
    }

    #[cold]
    fn special_prg_read(&mut self, addr: u16) -> Option<u8> {
        let val = self.prg_peek(addr);
        if let Some(val) = val {
            if self.banks.prg_read_windows & window_bit(addr) != 0 {
                self.mapper.prg_read(addr, val);
            }
        }
        val
    }

    /// [`Self::cpu_read_prg`] without side effects.
    fn prg_peek(&self, addr: u16) -> Option<u8> {
        if self.banks.prg_ram_windows & window_bit(addr) == 0 {
            return Some(self.prg_rom_byte(addr));
        }
        let bank = self.banks.prg[usize::from(addr >> 13) & 3];
        let ram = &self.prg_ram;
        (!ram.is_empty()).then(|| ram[wrap(bank + usize::from(addr & 0x1FFF), ram.len())])
    }

    fn game_genie_byte(&self, addr: u16, byte: u8) -> u8 {
        if self.game_genie_windows & window_bit(addr) == 0 {
            return byte;
        }
        self.game_genie
            .iter()
            .fold(byte, |read, code| code.apply(addr, read))
    }

    /// Plugs a Game Genie code in; false if it already was.
    pub fn add_game_genie(&mut self, code: GameGenie) -> bool {
        if self.game_genie.contains(&code) {
            return false;
        }
        self.game_genie.push(code);
        self.game_genie_windows |= window_bit(code.addr);
        self.refresh_banks();
        true
    }

    /// Takes a Game Genie code out; false if it wasn't in.
    pub fn remove_game_genie(&mut self, code: GameGenie) -> bool {
        let before = self.game_genie.len();
        self.game_genie.retain(|&c| c != code);
        self.game_genie_windows = self
            .game_genie
            .iter()
            .fold(0, |windows, c| windows | window_bit(c.addr));
        self.refresh_banks();
        self.game_genie.len() != before
    }

    /// The Game Genie codes plugged in.
    pub fn game_genie(&self) -> &[GameGenie] {
        &self.game_genie
    }

    /// CPU write of $4020-$FFFF. `cpu_cycle` lets serial mappers see back-to-back writes.
    pub fn cpu_write(&mut self, addr: u16, val: u8, cpu_cycle: u64) {
        let ram_window = addr >= 0x8000 && self.banks.prg_ram_windows & window_bit(addr) != 0;
        if ram_window && !self.prg_ram.is_empty() && self.mapper.prg_ram_writable(addr) {
            let bank = self.banks.prg[usize::from(addr >> 13) & 3];
            let len = self.prg_ram.len();
            self.prg_ram[wrap(bank + usize::from(addr & 0x1FFF), len)] = val;
        }
        if addr >= 0x8000 {
            let val = if self.mapper.bus_conflicts() {
                val & self.prg_rom_byte(addr)
            } else {
                val
            };
            self.mapper.write_register(addr, val, cpu_cycle);
        } else {
            if let CpuTarget::PrgRam(off) = self.mapper.map_cpu(addr) {
                if !self.prg_ram.is_empty() && self.mapper.prg_ram_writable(addr) {
                    let len = self.prg_ram.len();
                    self.prg_ram[off % len] = val;
                }
            }
            if !self.needs.low_registers {
                return;
            }
            self.mapper.write_low(addr, val);
        }
        self.refresh_banks();
    }

    /// PPU read of $0000-$3EFF: pattern tables from CHR, nametables from CIRAM. The board
    /// sees the address after the byte is read (MMC2's latches switch after the tile).
    pub fn ppu_read(&mut self, addr: u16) -> u8 {
        if self.needs.ppu_bus {
            return self.watched_ppu_read(addr);
        }
        self.ppu_peek(addr)
    }

    /// [`Self::ppu_read`] on a board that sees the PPU's bus, and may answer the reads itself.
    #[cold]
    fn watched_ppu_read(&mut self, addr: u16) -> u8 {
        if !self.needs.ppu_reads {
            let val = self.ppu_peek(addr);
            self.ppu_address(addr);
            return val;
        }
        match self.mapper.ppu_read(addr) {
            PpuRead::Memory => self.ppu_peek(addr),
            PpuRead::Byte(val) => val,
            PpuRead::Chr(offset) => {
                let chr = self.chr();
                chr[wrap(offset, chr.len())]
            }
        }
    }

    /// A PPU write on a board that sees the PPU's bus: whether the board took it (else it goes
    /// to the memory the bank table shows).
    #[cold]
    fn board_took_ppu_write(&mut self, addr: u16, val: u8) -> bool {
        if self.needs.ppu_reads && self.mapper.ppu_write(addr, val) {
            return true;
        }
        self.ppu_address(addr);
        false
    }

    /// A read of the PPU's rendering fetches: [`Self::ppu_read`], except that a board
    /// [`Self::follows_a12`] hears of A12's changes from the PPU's timing part instead.
    #[inline]
    pub fn ppu_fetch(&mut self, addr: u16) -> u8 {
        if self.banks.follows_a12 {
            return self.ppu_peek(addr);
        }
        self.ppu_read(addr)
    }

    /// The PPU drove an address (a fetch, or e.g. a $2006 write setting v).
    #[inline]
    pub fn ppu_address(&mut self, addr: u16) {
        if !self.needs.ppu_bus {
            return;
        }
        self.tell_owed_m2();
        if self.mapper.ppu_address(addr) {
            self.refresh_banks();
        }
    }

    /// Whether a cycle with no PPU dot the board must see can pass without it: then
    /// [`Self::pass_quiet_cycles`] stands for [`Self::cpu_clock`].
    #[inline]
    pub fn quiet_cycles(&self) -> bool {
        self.banks.quiet_cycles
    }

    /// `n` CPU cycles that [`Self::quiet_cycles`] lets pass (counted for every board: one
    /// add, no test).
    #[inline]
    pub fn pass_quiet_cycles(&mut self, n: u64) {
        self.m2_owed += n;
    }

    /// A board that follows A12 hears of the cycles it is owed (255: that many or more).
    fn tell_owed_m2(&mut self) {
        let owed = std::mem::take(&mut self.m2_owed);
        if owed > 0 && self.banks.follows_a12 {
            self.mapper.cpu_clocks(owed.min(255) as u8);
        }
    }

    /// Whether the mapper sees the PPU's address bus dot by dot (see [`Self::ppu_address`]).
    #[inline]
    pub fn watches_ppu_bus(&self) -> bool {
        self.banks.watches_ppu_bus
    }

    /// Whether the mapper watches the PPU's bus for every fetch's address (not only A12's
    /// changes): then the PPU renders in lockstep with its timing part.
    #[inline]
    pub fn watches_every_fetch(&self) -> bool {
        self.banks.watches_ppu_bus && !self.banks.follows_a12
    }

    /// Whether the mapper watches the PPU's bus for A12's changes alone, which the PPU's
    /// timing part tells it at the dots its fetch pattern makes them.
    #[inline]
    pub fn follows_a12(&self) -> bool {
        self.banks.follows_a12
    }

    /// Whether the board [`Self::follows_a12`] and counts CPU cycles only for its A12 filter
    /// (MMC3's): then only a rise of A12 after it stayed low for a while can move its IRQ,
    /// and it must hear of the cycles before each of A12's changes first.
    #[inline]
    pub fn a12_filtered(&self) -> bool {
        self.banks.a12_filtered
    }

    /// Whether the board counts CPU cycles or watches the PPU's bus now: then every cycle
    /// must reach [`Self::cpu_clock`] and every dot the PPU, as they happen.
    #[inline]
    pub fn sees_every_cycle(&self) -> bool {
        self.banks.sees_every_cycle
    }

    /// One CPU cycle passed; true if the level of the board's sound ([`Self::audio`]) moved.
    #[inline]
    pub fn cpu_clock(&mut self) -> bool {
        // No test of `needs` first: the dispatch already passes over boards without a clock.
        self.mapper.cpu_clock_sound()
    }

    /// The board's sound, in the units of the 2A03's mix; 0 on boards without.
    pub fn audio(&self) -> f32 {
        if self.needs.audio {
            self.mapper.audio()
        } else {
            0.0
        }
    }

    /// The CPU wrote PPU register `addr` ($2000-$3FFF): boards with [`Needs::ppu_registers`]
    /// see it.
    #[inline]
    pub fn ppu_register_written(&mut self, addr: u16, val: u8) {
        if self.needs.ppu_registers {
            self.mapper.ppu_register_written(addr, val);
        }
    }

    #[inline]
    pub fn ppu_peek(&self, addr: u16) -> u8 {
        self.ppu_window(addr)[usize::from(addr & 0x3FF)]
    }

    /// The 1 KiB window of pattern-table or nametable memory holding `addr`: the bytes
    /// [`Self::ppu_peek`] reads at `addr & !0x3FF` on, for reads in bulk.
    #[inline]
    pub fn ppu_window(&self, addr: u16) -> &[u8; 0x400] {
        &self.ppu_memory[self.banks.ppu[usize::from(addr >> 10) & 15]]
    }

    pub fn ppu_write(&mut self, addr: u16, val: u8) {
        if self.needs.ppu_bus && self.board_took_ppu_write(addr, val) {
            return;
        }
        let window = usize::from(addr >> 10) & 15;
        if self.banks.ppu_writable & 1 << window != 0 {
            self.ppu_memory[self.banks.ppu[window]][usize::from(addr & 0x3FF)] = val;
        }
    }

    /// CHR-ROM then CHR-RAM (each padded to whole KiB).
    pub fn chr(&self) -> &[u8] {
        self.ppu_memory[..self.ciram_start / 0x400].as_flattened()
    }

    pub fn chr_mut(&mut self) -> &mut [u8] {
        self.ppu_memory[..self.ciram_start / 0x400].as_flattened_mut()
    }

    /// The nametable RAM: the console's 2 KiB, plus the board's 2 KiB on four-screen boards.
    pub fn ciram_mut(&mut self) -> &mut [u8] {
        self.ppu_memory[self.ciram_start / 0x400..self.open_bus_start / 0x400].as_flattened_mut()
    }

    /// The battery-backed PRG-RAM, what the cartridge keeps with the power off; `None` without
    /// a battery. NES 2.0 places the non-volatile RAM after the volatile (SOROM's second chip);
    /// iNES 1.0 cannot tell them apart, so all of it counts.
    pub fn battery_ram(&self) -> Option<&[u8]> {
        self.battery_range().map(|range| &self.prg_ram[range])
    }

    /// Restores battery-backed RAM saved from [`Self::battery_ram`]; nothing changes on error.
    pub fn load_battery_ram(&mut self, bytes: &[u8]) -> Result<(), BatteryError> {
        let range = self.battery_range().ok_or(BatteryError::NoBattery)?;
        let ram = &mut self.prg_ram[range];
        if ram.len() != bytes.len() {
            return Err(BatteryError::WrongSize {
                expected: ram.len(),
                actual: bytes.len(),
            });
        }
        ram.copy_from_slice(bytes);
        Ok(())
    }

    fn battery_range(&self) -> Option<std::ops::Range<usize>> {
        if !self.header.battery || self.prg_ram.is_empty() {
            return None;
        }
        let len = self.prg_ram.len();
        let nvram = match self.header.prg_nvram_size {
            0 => len,
            size => size.min(len),
        };
        Some(len - nvram..len)
    }

    /// Identifies the game for save states: FNV-1a of the header's board fields and the ROMs.
    pub fn rom_hash(&self) -> u64 {
        let Header {
            mapper,
            submapper,
            nes2: _,
            prg_rom_size,
            chr_rom_size,
            prg_ram_size,
            prg_nvram_size,
            chr_ram_size,
            battery,
            trainer: _,
            vertical_mirroring,
            four_screen,
            one_screen,
            region: _,
        } = self.header;
        let mut hash = Fnv1a::default();
        for size in [
            prg_rom_size,
            chr_rom_size,
            prg_ram_size,
            prg_nvram_size,
            chr_ram_size,
        ] {
            hash.write(&(size as u64).to_le_bytes());
        }
        hash.write(&mapper.to_le_bytes());
        hash.write(&[
            submapper,
            battery.into(),
            vertical_mirroring.into(),
            // Header bit 3 as before mapper 30's one-screen pad was told apart: old states stay valid.
            (four_screen || one_screen).into(),
        ]);
        hash.write(&self.prg_rom);
        hash.write(&self.chr()[..chr_rom_size]);
        hash.finish()
    }

    /// The cartridge's /IRQ line (true = asserted).
    pub fn irq(&self) -> bool {
        self.needs.irq && self.mapper.irq()
    }
}

/// The open bus of the PPU's data bus, a KiB of it: the bus keeps the low byte of the address
/// the PPU drove on the same pins, so a read with nothing driving returns that.
const OPEN_BUS: [u8; 0x400] = {
    let mut bytes = [0; 0x400];
    let mut i = 0;
    while i < 0x400 {
        bytes[i] = i as u8;
        i += 1;
    }
    bytes
};

/// The bit of the 8 KiB window of $8000-$FFFF that holds `addr`.
fn window_bit(addr: u16) -> u8 {
    1 << ((addr >> 13) & 3)
}

/// Added to a window's PRG-ROM offset in [`Cartridge::prg_reads`]: past the end of any
/// memory (a `Vec` holds at most `isize::MAX` bytes).
const GAME_GENIE_FAR: usize = isize::MAX as usize;

/// `size` rounded up to whole KiB, the PPU's window.
fn whole_kib(size: usize) -> usize {
    size.next_multiple_of(0x400)
}

/// `offset % len`, without the division when the offset is already inside (almost always:
/// this runs on every opcode fetch and pattern fetch).
#[inline]
pub(crate) fn wrap(offset: usize, len: usize) -> usize {
    if offset < len {
        offset
    } else {
        offset % len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::{TestImage, PRG_BANK};

    /// An iNES 1.0 image: mapper number and flags in `flags6`.
    fn image(prg_banks: u8, chr_banks: u8, flags6: u8) -> Vec<u8> {
        TestImage::new((flags6 >> 4).into(), prg_banks, chr_banks)
            .flags(flags6 & 0x0F)
            .image()
    }

    #[test]
    fn a_rom_smaller_than_its_window_repeats_through_it() {
        // NES 2.0's exponent-multiplier size, 2^10 * 3: 3 KiB of PRG-ROM on NROM.
        let mut image = vec![b'N', b'E', b'S', 0x1A, 10 << 2 | 1, 1, 0, 0x08, 0, 0x0F];
        image.resize(16, 0);
        let prg: Vec<u8> = (0..3 * 1024).map(|i| (i % 251) as u8).collect();
        image.extend(&prg);
        image.resize(image.len() + CHR_BANK, 0);
        let mut cart = Cartridge::from_ines(&image).unwrap();
        let code = GameGenie {
            addr: 0x9001,
            value: 0xAB,
            compare: None,
        };
        for codes in [false, true] {
            if codes {
                cart.add_game_genie(code);
            }
            for addr in 0x8000..=0xFFFF {
                let rom = prg[usize::from(addr - 0x8000) % prg.len()];
                let byte = if codes && addr == code.addr {
                    0xAB
                } else {
                    rom
                };
                assert_eq!(cart.prg_rom_byte(addr), byte, "${addr:04X}");
                assert_eq!(cart.cpu_read_prg(addr), Some(byte), "${addr:04X}");
            }
        }
    }

    #[test]
    fn rejects_bad_images_with_a_reason() {
        assert_eq!(Cartridge::from_ines(&[]).err(), Some(RomError::Empty));
        assert_eq!(
            Cartridge::from_ines(b"NES").err(),
            Some(RomError::TruncatedHeader(3))
        );
        assert_eq!(
            Cartridge::from_ines(b"PK\x03\x04xxxxxxxxxxxxxxxx").err(),
            Some(RomError::BadMagic)
        );
        assert_eq!(
            Cartridge::from_ines(&image(0, 1, 0)).err(),
            Some(RomError::NoPrg)
        );
        let mut short = image(2, 1, 0);
        short.truncate(1000);
        assert!(matches!(
            Cartridge::from_ines(&short),
            Err(RomError::Truncated { .. })
        ));
        assert_eq!(
            Cartridge::from_ines(&image(1, 1, 0xF0)).err(),
            Some(RomError::UnsupportedMapper {
                mapper: 15,
                submapper: 0
            })
        );
    }

    #[test]
    fn nrom_128_mirrors_its_bank_and_has_chr_ram_when_no_chr() {
        let mut img = image(1, 0, 0x01);
        img[16] = 0xAA;
        let mut cart = Cartridge::from_ines(&img).unwrap();
        assert_eq!(cart.cpu_read(0x8000), Some(0xAA));
        assert_eq!(cart.cpu_read(0xC000), Some(0xAA));
        cart.ppu_write(0x0010, 0x55);
        assert_eq!(cart.ppu_read(0x0010), 0x55);
        // Vertical mirroring: $2000 and $2800 share a page.
        cart.ppu_write(0x2005, 7);
        assert_eq!(cart.ppu_read(0x2805), 7);
        assert_ne!(cart.ppu_read(0x2405), 7);
    }

    #[test]
    fn discrete_boards_switch_banks() {
        // UxROM 128 KiB: bank 2 at $8000, last bank fixed at $C000.
        let mut img = image(8, 0, 0x20);
        for bank in 0..8 {
            img[16 + bank * PRG_BANK] = bank as u8;
        }
        let mut cart = Cartridge::from_ines(&img).unwrap();
        cart.cpu_write(0x8000, 2, 0);
        assert_eq!(
            (cart.cpu_read(0x8000), cart.cpu_read(0xC000)),
            (Some(2), Some(7))
        );

        // CNROM: 32 KiB CHR in 8 KiB banks.
        let mut img = image(2, 4, 0x30);
        let chr = 16 + 2 * PRG_BANK;
        img[chr + 3 * CHR_BANK] = 0x33;
        let mut cart = Cartridge::from_ines(&img).unwrap();
        cart.cpu_write(0x8000, 3, 0);
        assert_eq!(cart.ppu_read(0x0000), 0x33);

        // AxROM: 32 KiB banks and one-screen mirroring from bit 4.
        let mut img = image(8, 0, 0x70);
        img[16 + 3 * 0x8000 + 0x7FFC] = 0xAB;
        let mut cart = Cartridge::from_ines(&img).unwrap();
        cart.cpu_write(0x8000, 0x13, 0);
        assert_eq!(cart.cpu_read(0xFFFC), Some(0xAB));
        cart.ppu_write(0x2000, 9);
        assert_eq!(cart.ppu_read(0x2C00), 9);
        cart.cpu_write(0x8000, 0x03, 0);
        assert_ne!(cart.ppu_read(0x2C00), 9);
    }

    /// An NES 2.0 image: mapper, submapper, 16 KiB PRG banks, 8 KiB CHR-ROM banks (filled
    /// with their bank number), CHR-RAM byte.
    fn nes2(mapper: u16, submapper: u8, prg: u8, chr: u8, chr_ram: u8) -> Vec<u8> {
        let mut img = TestImage::nes2(mapper, submapper, prg, chr)
            .with(11, chr_ram)
            .image();
        let chr_start = 16 + usize::from(prg) * PRG_BANK;
        for (bank, bytes) in img[chr_start..].chunks_mut(CHR_BANK).enumerate() {
            bytes.fill(bank as u8);
        }
        img
    }

    #[test]
    fn disabled_chr_rom_reads_the_low_byte_of_the_address() {
        let mut img = nes2(185, 5, 2, 1, 0);
        img[16] = 0xFF; // bus conflicts: $8000 holds $FF
        let mut cart = Cartridge::from_ines(&img).unwrap();
        assert_eq!(cart.ppu_read(0x1234), 0x34, "latch 0: disabled");
        cart.cpu_write(0x8000, 0x01, 0);
        assert_eq!(cart.ppu_read(0x1234), 0x00, "CHR-ROM's bank 0");
        cart.ppu_write(0x1234, 0x77);
        assert_eq!(cart.ppu_read(0x1234), 0x00, "ROM");
    }

    #[test]
    fn tqrom_banks_chr_ram_beside_chr_rom() {
        let mut cart = Cartridge::from_ines(&nes2(119, 0, 8, 8, 0x07)).unwrap();
        cart.cpu_write(0x8000, 2, 0); // R2: 1 KiB at $1000
        cart.cpu_write(0x8001, 0x43, 0); // CHR-RAM's KiB 3
        cart.cpu_write(0x8000, 3, 0); // R3: 1 KiB at $1400
        cart.cpu_write(0x8001, 0x08, 0); // CHR-ROM's KiB 8: bank 1
        cart.ppu_write(0x1005, 0x5A);
        cart.ppu_write(0x1405, 0x5A);
        assert_eq!((cart.ppu_read(0x1005), cart.ppu_read(0x1405)), (0x5A, 1));
        assert_eq!(cart.chr()[8 * CHR_BANK + 3 * 0x400 + 5], 0x5A);
        // iNES 1.0 cannot declare the CHR-RAM: TQROM has its 8 KiB anyway.
        let mut img = nes2(119, 0, 8, 8, 0);
        img[7] &= 0xF0;
        let cart = Cartridge::from_ines(&img).unwrap();
        assert_eq!(cart.chr().len(), 9 * CHR_BANK);
    }

    #[test]
    fn sunsoft4_nametables_from_chr_rom() {
        // 256 KiB of CHR-ROM: the nametable banks are in its upper half.
        let mut cart = Cartridge::from_ines(&nes2(68, 0, 8, 32, 0)).unwrap();
        cart.ppu_write(0x2000, 0x11);
        cart.cpu_write(0xC000, 0x08, 0); // KiB $88: CHR bank $11
        cart.cpu_write(0xD000, 0x10, 0); // KiB $90: CHR bank $12
        cart.cpu_write(0xE000, 0x11, 0); // CHR-ROM, horizontal
        let tables =
            |cart: &mut Cartridge| [0x2000, 0x2400, 0x2800, 0x2C00].map(|a| cart.ppu_read(a));
        assert_eq!(tables(&mut cart), [0x11, 0x11, 0x12, 0x12]);
        cart.ppu_write(0x2000, 0x99);
        assert_eq!(cart.ppu_read(0x3000), 0x11, "ROM, mirrored at $3000");
        cart.cpu_write(0xE000, 0x01, 0); // CIRAM again
        assert_eq!(tables(&mut cart), [0x11, 0x11, 0, 0]);
    }

    #[test]
    fn x1005_ram_answers_only_at_7f00_once_enabled() {
        let mut img = image(8, 16, 0x02);
        img[7] = 0x50; // mapper 80
        let mut cart = Cartridge::from_ines(&img).unwrap();
        cart.cpu_write(0x7F05, 0x42, 0);
        assert_eq!(cart.cpu_read(0x7F05), None, "RAM off");
        cart.cpu_write(0x7EF8, 0xA3, 0);
        cart.cpu_write(0x7F05, 0x42, 0);
        assert_eq!(cart.cpu_read(0x7F85), Some(0x42), "128 bytes, mirrored");
        assert_eq!(cart.cpu_read(0x7E00), None);
        assert_eq!(cart.cpu_read(0x6005), None);
    }

    #[test]
    fn bus_conflicts_and_the_values_in_rom() {
        // NES 2.0 UxROM submapper 2: the latch gets value AND ROM byte.
        let mut img = image(8, 0, 0x20);
        img[7] = 0x08;
        img[8] = 0x20;
        for bank in 0..8 {
            img[16 + bank * PRG_BANK] = bank as u8;
        }
        img[16 + 7 * PRG_BANK + 0x100] = 0x01; // $C100 holds 1
        let mut cart = Cartridge::from_ines(&img).unwrap();
        cart.cpu_write(0xC100, 0x03, 0);
        assert_eq!(cart.cpu_read(0x8000), Some(1));
        assert_eq!(cart.cpu_read(0x6000), None, "NES 2.0 declared no PRG-RAM");
    }

    #[test]
    fn nes2_header_fields() {
        let mut img = image(2, 1, 0x12); // mapper 1, battery
        img[7] = 0x08;
        img[8] = 0x50; // submapper 5
        img[10] = 0x70; // 8 KiB NVRAM
        let h = Header::parse(&img).unwrap();
        assert!(h.nes2 && h.battery);
        assert_eq!((h.mapper, h.submapper, h.prg_nvram_size), (1, 5, 8192));
    }

    #[test]
    fn battery_ram_is_the_non_volatile_part() {
        assert_eq!(
            Cartridge::from_ines(&image(1, 1, 0)).unwrap().battery_ram(),
            None
        );
        // iNES 1.0 with a battery: the whole 8 KiB at $6000.
        let mut cart = Cartridge::from_ines(&image(1, 1, 0x02)).unwrap();
        cart.cpu_write(0x6001, 0x5A, 0);
        assert_eq!(
            cart.battery_ram().map(|r| (r.len(), r[1])),
            Some((8192, 0x5A))
        );
        // NES 2.0 SOROM: 8 KiB volatile, then 8 KiB battery-backed.
        let mut img = image(16, 0, 0x12);
        img[7] = 0x08;
        img[10] = 0x77;
        let mut cart = Cartridge::from_ines(&img).unwrap();
        assert_eq!(
            cart.load_battery_ram(&[1; 100]),
            Err(BatteryError::WrongSize {
                expected: 8192,
                actual: 100
            })
        );
        assert!(
            cart.prg_ram.iter().all(|&b| b == 0),
            "a bad save changes nothing"
        );
        cart.load_battery_ram(&[7; 8192]).unwrap();
        assert_eq!((cart.prg_ram[8191], cart.prg_ram[8192]), (0, 7));
        assert_eq!(cart.battery_ram(), Some(&[7; 8192][..]));
    }
}
