//! Mappers: the bank-switching logic of each board. A board only translates addresses and
//! keeps its registers; the memories themselves live in [`crate::Cartridge`]. Each board
//! implements [`Board`], writing only what it has, and states what else it needs from the
//! machine in [`Needs`]. Adding a board means its file and one line in the `boards!` list at
//! the end.

use crate::header::{Header, RomError};
use crate::state::{Field, StateIo};

/// Where a CPU access in $4020-$FFFF lands, as offsets into the cartridge's memories.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuTarget {
    PrgRom(usize),
    /// PRG-RAM; open bus if the board has none.
    PrgRam(usize),
    /// Nothing answers: the CPU sees open bus.
    None,
}

/// Which CIRAM page each of the four nametables uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mirroring {
    /// $2000=$2800, $2400=$2C00 (horizontal arrangement).
    Vertical,
    /// $2000=$2400, $2800=$2C00.
    Horizontal,
    SingleLow,
    SingleHigh,
}

impl Mirroring {
    /// The CIRAM page (0 or 1) of nametable `table` (0-3, for $2000, $2400, $2800, $2C00).
    pub fn page(self, table: usize) -> usize {
        match self {
            Mirroring::Vertical => table & 1,
            Mirroring::Horizontal => table >> 1,
            Mirroring::SingleLow => 0,
            Mirroring::SingleHigh => 1,
        }
    }
}

impl Field for Mirroring {
    fn visit(&mut self, io: &mut StateIo) {
        const ALL: [Mirroring; 4] = [
            Mirroring::Vertical,
            Mirroring::Horizontal,
            Mirroring::SingleLow,
            Mirroring::SingleHigh,
        ];
        let mut index = ALL.iter().position(|m| m == self).unwrap_or(0) as u8;
        io.checked(&mut index, "mirroring", |&i| usize::from(i) < ALL.len());
        *self = ALL[usize::from(index) % ALL.len()];
    }
}

impl Mirroring {
    /// One-screen mirroring on CIRAM page 1 if `high`, else page 0.
    pub fn one_screen(high: bool) -> Mirroring {
        if high {
            Mirroring::SingleHigh
        } else {
            Mirroring::SingleLow
        }
    }

    /// The two-bit mirroring register of FME-7, VRC4 and others: vertical, horizontal, then
    /// one screen on page 0 or 1.
    pub fn from_two_bits(val: u8) -> Mirroring {
        match val & 3 {
            0 => Mirroring::Vertical,
            1 => Mirroring::Horizontal,
            2 => Mirroring::SingleLow,
            _ => Mirroring::SingleHigh,
        }
    }

    /// The solder-pad setting of boards without mirroring control.
    pub fn hardwired(header: &Header) -> Mirroring {
        if header.vertical_mirroring {
            Mirroring::Vertical
        } else {
            Mirroring::Horizontal
        }
    }
}

/// The offset of `addr` in bank `bank` of `size` bytes (a power of two).
fn banked(bank: usize, size: usize, addr: u16) -> usize {
    bank * size + (usize::from(addr) & (size - 1))
}

/// UxROM's PRG layout: a switchable 16 KiB bank at $8000, the last bank fixed at $C000, nothing
/// at $6000-$7FFF.
fn prg_16k_last_fixed(addr: u16, bank: usize, last: usize) -> CpuTarget {
    match addr {
        0x8000..=0xBFFF => CpuTarget::PrgRom(banked(bank, 0x4000, addr)),
        0xC000..=0xFFFF => CpuTarget::PrgRom(banked(last, 0x4000, addr)),
        _ => CpuTarget::None,
    }
}

/// The PRG layout of VRC4, G-101, H3001 and their kind: two switchable 8 KiB banks at $8000
/// and $A000, the second-last bank at $C000 and the last at $E000; `swapped` trades the places
/// of $8000 and $C000. PRG-RAM at $6000.
fn prg_8k_swappable(addr: u16, banks: [u8; 2], swapped: bool, second_last: usize) -> CpuTarget {
    let bank = match addr {
        0x6000..=0x7FFF => return CpuTarget::PrgRam(usize::from(addr - 0x6000)),
        0x8000..=0x9FFF if swapped => second_last,
        0xC000..=0xDFFF if swapped => usize::from(banks[0]),
        0x8000..=0x9FFF => usize::from(banks[0]),
        0xA000..=0xBFFF => usize::from(banks[1]),
        0xC000..=0xDFFF => second_last,
        0xE000..=0xFFFF => second_last + 1,
        _ => return CpuTarget::None,
    };
    CpuTarget::PrgRom(banked(bank, 0x2000, addr))
}

pub(crate) use mmc3::A12_UNCOUNTED_DOTS;

/// The CHR layout of Namco 108, MMC3 and Taito's X1 chips: two 2 KiB banks at $0000 and $0800
/// then four 1 KiB ones at $1000-$1C00, or the other way round if `inverted`. Bank numbers count
/// 1 KiB; a 2 KiB bank ignores its bit 0.
fn chr_two_2k_four_1k(addr: u16, banks: [u8; 6], inverted: bool) -> usize {
    let slot = (usize::from(addr >> 10) & 7) ^ if inverted { 4 } else { 0 };
    let bank = match slot {
        0..=3 => banks[slot / 2] & !1 | (slot as u8 & 1),
        _ => banks[slot - 2],
    };
    banked(usize::from(bank), 0x400, addr)
}

/// The number of the last PRG-ROM bank of `size` bytes.
fn last_bank(header: &Header, size: usize) -> usize {
    (header.prg_rom_size / size).max(1) - 1
}

/// Keeps a sound chip's channel outputs `now` as what the mix last took (`heard`); true if they
/// moved since, when the mix must take the board's level again.
fn outputs_moved<const N: usize>(heard: &mut [u8; N], now: [u8; N]) -> bool {
    let moved = *heard != now;
    *heard = now;
    moved
}

/// The error for a submapper the board does not know.
fn unknown_submapper<T>(header: &Header) -> Result<T, RomError> {
    Err(RomError::UnsupportedMapper {
        mapper: header.mapper,
        submapper: header.submapper,
    })
}

/// What a board needs from the machine besides address translation. The bus and the PPU leave
/// out whatever no board asks for (see [`crate::bus::Bus::idle_cycles`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// Counts CPU cycles (M2): every cycle reaches [`Board::cpu_clock`] as it happens, none
    /// is skipped in bulk.
    pub cpu_clock: bool,
    /// Drives the /IRQ line: [`Board::irq`] is asked.
    pub irq: bool,
    /// Has registers in $4020-$7FFF: [`Board::write_low`] sees the writes there, and reads of
    /// $6000-$7FFF ask [`Board::map_cpu`] address by address.
    pub low_registers: bool,
    /// May follow the PPU's address bus: [`Board::ppu_address`] sees the PPU's addresses, every
    /// dot as it happens while [`Board::watches_ppu_bus`].
    pub ppu_bus: bool,
    /// With [`Self::ppu_bus`]: [`Board::ppu_address`] looks at A12 alone and changes no PPU
    /// window, so the PPU may show it only A12's changes, at the dots its fetch pattern makes
    /// them, instead of every fetch as it happens (see `Ppu::fetch_a12`). With
    /// [`Self::cpu_clock`] too, the board counts cycles only for an A12 filter as MMC3's (a
    /// rise counts after four M2 edges with A12 low, see [`A12_UNCOUNTED_DOTS`]), so it may
    /// hear of them late, before A12's next change ([`Board::cpu_clocks`]), and only the rises
    /// the filter can count may move its IRQ.
    pub ppu_a12_only: bool,
    /// Answers the PPU's reads itself ([`Board::ppu_read`]) and may take its writes
    /// ([`Board::ppu_write`]): memory of its own in the nametables, or a bank chosen per fetch.
    /// Goes with `ppu_bus`.
    pub ppu_reads: bool,
    /// Sees the CPU's writes to the PPU's registers at $2000-$2007 ([`Board::ppu_register_written`]),
    /// as MMC5 listens for the sprite size in PPUCTRL.
    pub ppu_registers: bool,
    /// Has a sound output that the console mixes with the 2A03's ([`Board::audio`]). Goes with
    /// `cpu_clock`: the board's [`Board::cpu_clock`] returns whether its level moved.
    pub audio: bool,
    /// Sees the CPU's reads of $8000-$FFFF ([`Board::prg_read`]) in the windows
    /// [`Board::prg_read_windows`] names, as MMC5's PCM channel takes its bytes. Goes with
    /// `cpu_clock`: no read then passes the board in bulk.
    pub prg_reads: bool,
}

/// What answers a PPU read on a board with [`Needs::ppu_reads`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PpuRead {
    /// The memory the bank table shows at the address.
    Memory,
    /// The board drives this byte.
    Byte(u8),
    /// The byte at this offset into CHR (reduced to its size).
    Chr(usize),
}

/// One board's registers and wiring. The defaults are those of a discrete board: PRG-ROM and
/// PRG-RAM at fixed places, CHR unbanked, no clock, no IRQ.
pub trait Board: Sized {
    /// The (mapper, submapper) pairs the board tells apart, if it tells any: else submapper
    /// 0 of each of its numbers in the list. Tests run a program on each.
    const VARIANTS: &'static [(u16, u8)] = &[];

    /// The header as the board reads it, before [`Self::new`]: what iNES 1.0 cannot state
    /// (CHR-RAM, submappers), or bits the board gives a meaning of its own.
    fn read_header(_header: &mut Header) {}

    /// The board at power-on; an error for a submapper it does not know.
    fn new(header: &Header) -> Result<Self, RomError>;

    /// What it needs beyond address translation.
    fn needs(&self) -> Needs {
        Needs::default()
    }

    /// Where a CPU access in $6000-$FFFF lands; every board puts PRG-ROM at $8000-$FFFF, in
    /// whole 8 KiB windows of ROM or RAM.
    fn map_cpu(&self, addr: u16) -> CpuTarget {
        match addr {
            0x8000..=0xFFFF => CpuTarget::PrgRom(usize::from(addr - 0x8000)),
            0x6000..=0x7FFF => CpuTarget::PrgRam(usize::from(addr - 0x6000)),
            _ => CpuTarget::None,
        }
    }

    /// Offset into CHR for a PPU pattern-table address ($0000-$1FFF).
    fn map_chr(&self, addr: u16) -> usize {
        usize::from(addr & 0x1FFF)
    }

    fn mirroring(&self) -> Mirroring;

    /// The CIRAM page of nametable `table` (0-3).
    fn nametable_page(&self, table: usize) -> usize {
        self.mirroring().page(table)
    }

    /// An offset into CHR that nametable `table` shows instead of CIRAM, on boards that can
    /// put ROM there.
    fn nametable_chr(&self, _table: usize) -> Option<usize> {
        None
    }

    /// Whether the CHR chip answers: if not, the pattern tables read as open bus.
    fn chr_enabled(&self) -> bool {
        true
    }

    /// A CPU write to $8000-$FFFF; `cpu_cycle` lets serial boards see back-to-back writes.
    fn write_register(&mut self, _addr: u16, _val: u8, _cpu_cycle: u64) {}

    /// A CPU write to $4020-$7FFF (after PRG-RAM took it, if it is there), if
    /// [`Needs::low_registers`].
    fn write_low(&mut self, _addr: u16, _val: u8) {}

    /// The ROM drives the data bus during register writes: the register latches the AND of
    /// the CPU's value and the ROM's byte.
    fn bus_conflicts(&self) -> bool {
        false
    }

    /// Whether a CPU write to `addr` reaches PRG-RAM where [`Self::map_cpu`] puts it.
    fn prg_ram_writable(&self, _addr: u16) -> bool {
        true
    }

    /// One CPU cycle (M2). Only boards with [`Needs::cpu_clock`] are sure to see them all:
    /// otherwise the bus may run idle cycles in bulk.
    fn cpu_clock(&mut self) {}

    /// `n` CPU cycles at once (255: that many or more), as `n` calls of [`Self::cpu_clock`].
    fn cpu_clocks(&mut self, n: u8) {
        for _ in 0..n {
            self.cpu_clock();
        }
    }

    /// [`Self::cpu_clock`], then whether the level of the board's sound ([`Self::audio`])
    /// moved: what the bus calls. Boards with [`Needs::audio`] write this one instead.
    #[inline]
    fn cpu_clock_sound(&mut self) -> bool {
        self.cpu_clock();
        false
    }

    /// The board's sound now, if [`Needs::audio`], in the units of the 2A03's mix (whose full
    /// scale is about 1.0): the board weighs its channels at their level against the 2A03's.
    fn audio(&self) -> f32 {
        0.0
    }

    /// A CPU read of $4020-$5FFF, if [`Needs::low_registers`]; `None` is open bus.
    fn read_low(&mut self, addr: u16) -> Option<u8> {
        self.peek_low(addr)
    }

    /// [`Self::read_low`] without side effects.
    fn peek_low(&self, _addr: u16) -> Option<u8> {
        None
    }

    /// A CPU write to $2000-$2007 (the PPU took it already), if [`Needs::ppu_registers`].
    fn ppu_register_written(&mut self, _addr: u16, _val: u8) {}

    /// What the PPU reads at `addr` ($0000-$3EFF), if [`Needs::ppu_reads`]; the board sees the
    /// address as [`Self::ppu_address`] would.
    fn ppu_read(&mut self, _addr: u16) -> PpuRead {
        PpuRead::Memory
    }

    /// A PPU write to `addr`, if [`Needs::ppu_reads`]: true if the board took it, else it goes
    /// to the memory the bank table shows.
    fn ppu_write(&mut self, _addr: u16, _val: u8) -> bool {
        false
    }

    /// Bit n: the board sees reads of the 8 KiB window at $8000 + n * $2000 now, if
    /// [`Needs::prg_reads`].
    fn prg_read_windows(&self) -> u8 {
        0
    }

    /// The CPU read `val` at `addr` in a window of [`Self::prg_read_windows`].
    fn prg_read(&mut self, _addr: u16, _val: u8) {}

    /// The /IRQ output (true = asserted), if [`Needs::irq`].
    fn irq(&self) -> bool {
        false
    }

    /// The PPU drove `addr` onto its address bus (fetches, $2006/$2007 accesses), if
    /// [`Needs::ppu_bus`]; for a read, after the byte was read. Returns whether the banks
    /// changed with it.
    fn ppu_address(&mut self, _addr: u16) -> bool {
        false
    }

    /// Whether [`Self::ppu_address`] matters now: the PPU then shows the board every dot as it
    /// happens. Only asked if [`Needs::ppu_bus`].
    fn watches_ppu_bus(&self) -> bool {
        self.needs().ppu_bus
    }
}

/// Something done with the cartridge's board as its own type ([`Mapper::with`]): every call
/// to the board inside is direct, after one dispatch on the type.
pub trait WithBoard {
    type Output;
    fn with<B: Board>(self, board: &B) -> Self::Output;
}

/// The one list of boards: `file::Type: iNES mapper number "common name" | ...;`. The modules,
/// the loader, save states, the dispatch in [`Mapper`] and the names in messages all come from
/// it.
macro_rules! boards {
    ($($module:ident::$board:ident: $($number:literal $name:literal)|+;)+) => {
        $(
            mod $module;
            pub use $module::$board;
        )+

        /// Whether some board answers to iNES mapper number `mapper`.
        pub fn supported(mapper: u16) -> bool {
            matches!(mapper, $($($number)|+)|+)
        }

        /// The header as the board of its mapper number reads it ([`Board::read_header`]).
        pub(crate) fn read_header(header: &mut Header) {
            match header.mapper {
                $($($number)|+ => $board::read_header(header),)+
                _ => {}
            }
        }

        /// The common name of the board behind iNES mapper number `mapper`, if it is in the list.
        pub fn board_name(mapper: u16) -> Option<&'static str> {
            match mapper {
                $($($number => Some($name),)+)+
                _ => None,
            }
        }

        /// Every (mapper, submapper) pair some board tells apart ([`Board::VARIANTS`]), in the
        /// list's order.
        pub fn variants() -> Vec<(u16, u8)> {
            let mut all = Vec::new();
            $(
                if $board::VARIANTS.is_empty() {
                    all.extend([$($number),+].map(|number| (number, 0)));
                } else {
                    all.extend_from_slice($board::VARIANTS);
                }
            )+
            all
        }

        /// The cartridge's board, one variant per type in the list. A plain tag byte (no
        /// niche in a board's fields) keeps the dispatch on every cycle to a load and a test.
        #[derive(Clone, Debug)]
        #[repr(u8)]
        pub enum Mapper {
            $($board($board),)+
        }

        impl Mapper {
            /// `f` done with the board as its own type.
            pub fn with<F: WithBoard>(&self, f: F) -> F::Output {
                match self { $(Mapper::$board(m) => f.with(m),)+ }
            }
        }

        /// The board type comes from the ROM's header; only its registers are stored.
        impl Field for Mapper {
            fn visit(&mut self, io: &mut StateIo) {
                match self {
                    $(Mapper::$board(m) => m.visit(io),)+
                }
            }
        }

        impl Board for Mapper {
            fn new(header: &Header) -> Result<Mapper, RomError> {
                match header.mapper {
                    $($($number)|+ => $board::new(header).map(Mapper::$board),)+
                    _ => Err(RomError::UnsupportedMapper {
                        mapper: header.mapper,
                        submapper: header.submapper,
                    }),
                }
            }
            fn needs(&self) -> Needs {
                match self { $(Mapper::$board(m) => m.needs(),)+ }
            }
            #[inline]
            fn map_cpu(&self, addr: u16) -> CpuTarget {
                match self { $(Mapper::$board(m) => m.map_cpu(addr),)+ }
            }
            fn map_chr(&self, addr: u16) -> usize {
                match self { $(Mapper::$board(m) => m.map_chr(addr),)+ }
            }
            fn mirroring(&self) -> Mirroring {
                match self { $(Mapper::$board(m) => m.mirroring(),)+ }
            }
            fn nametable_page(&self, table: usize) -> usize {
                match self { $(Mapper::$board(m) => m.nametable_page(table),)+ }
            }
            fn nametable_chr(&self, table: usize) -> Option<usize> {
                match self { $(Mapper::$board(m) => m.nametable_chr(table),)+ }
            }
            fn chr_enabled(&self) -> bool {
                match self { $(Mapper::$board(m) => m.chr_enabled(),)+ }
            }
            fn write_register(&mut self, addr: u16, val: u8, cpu_cycle: u64) {
                match self { $(Mapper::$board(m) => m.write_register(addr, val, cpu_cycle),)+ }
            }
            fn write_low(&mut self, addr: u16, val: u8) {
                match self { $(Mapper::$board(m) => m.write_low(addr, val),)+ }
            }
            fn bus_conflicts(&self) -> bool {
                match self { $(Mapper::$board(m) => m.bus_conflicts(),)+ }
            }
            fn prg_ram_writable(&self, addr: u16) -> bool {
                match self { $(Mapper::$board(m) => m.prg_ram_writable(addr),)+ }
            }
            #[inline]
            fn cpu_clock(&mut self) {
                match self { $(Mapper::$board(m) => m.cpu_clock(),)+ }
            }
            fn cpu_clocks(&mut self, n: u8) {
                match self { $(Mapper::$board(m) => m.cpu_clocks(n),)+ }
            }
            #[inline]
            fn cpu_clock_sound(&mut self) -> bool {
                match self { $(Mapper::$board(m) => m.cpu_clock_sound(),)+ }
            }
            fn audio(&self) -> f32 {
                match self { $(Mapper::$board(m) => m.audio(),)+ }
            }
            fn read_low(&mut self, addr: u16) -> Option<u8> {
                match self { $(Mapper::$board(m) => m.read_low(addr),)+ }
            }
            fn peek_low(&self, addr: u16) -> Option<u8> {
                match self { $(Mapper::$board(m) => m.peek_low(addr),)+ }
            }
            fn ppu_register_written(&mut self, addr: u16, val: u8) {
                match self { $(Mapper::$board(m) => m.ppu_register_written(addr, val),)+ }
            }
            fn ppu_read(&mut self, addr: u16) -> PpuRead {
                match self { $(Mapper::$board(m) => m.ppu_read(addr),)+ }
            }
            fn ppu_write(&mut self, addr: u16, val: u8) -> bool {
                match self { $(Mapper::$board(m) => m.ppu_write(addr, val),)+ }
            }
            fn prg_read_windows(&self) -> u8 {
                match self { $(Mapper::$board(m) => m.prg_read_windows(),)+ }
            }
            fn prg_read(&mut self, addr: u16, val: u8) {
                match self { $(Mapper::$board(m) => m.prg_read(addr, val),)+ }
            }
            fn irq(&self) -> bool {
                match self { $(Mapper::$board(m) => m.irq(),)+ }
            }
            #[inline]
            fn ppu_address(&mut self, addr: u16) -> bool {
                match self { $(Mapper::$board(m) => m.ppu_address(addr),)+ }
            }
            fn watches_ppu_bus(&self) -> bool {
                match self { $(Mapper::$board(m) => m.watches_ppu_bus(),)+ }
            }
        }
    };
}

boards! {
    nrom::Nrom: 0 "NROM";
    mmc1::Mmc1: 1 "MMC1";
    uxrom::Uxrom: 2 "UxROM" | 180 "UNROM with a 74HC08";
    cnrom::Cnrom: 3 "CNROM" | 185 "CNROM with CHR protection";
    mmc3::Mmc3: 4 "MMC3" | 118 "TxSROM" | 119 "TQROM";
    mmc5::Mmc5: 5 "MMC5";
    axrom::Axrom: 7 "AxROM";
    mmc2::Mmc2: 9 "MMC2" | 10 "MMC4";
    gxrom::Gxrom: 11 "Color Dreams" | 66 "GxROM" | 87 "Jaleco J87" | 140 "Jaleco JF-11/JF-14"
        | 184 "Sunsoft-1";
    cprom::Cprom: 13 "CPROM";
    bandai_fcg::BandaiFcg: 16 "Bandai FCG" | 159 "Bandai LZ93D50";
    ss88006::Ss88006: 18 "Jaleco SS88006";
    namco163::Namco163: 19 "Namco 163" | 210 "Namco 175/340";
    vrc4::Vrc4: 21 "VRC4" | 22 "VRC2" | 23 "VRC2/VRC4" | 25 "VRC2/VRC4";
    vrc6::Vrc6: 24 "VRC6" | 26 "VRC6";
    action53::Action53: 28 "Action 53";
    unrom512::Unrom512: 30 "UNROM 512";
    g101::G101: 32 "Irem G-101";
    tc0190::Tc0190: 33 "Taito TC0190" | 48 "Taito TC0690";
    bnrom::Bnrom: 34 "BNROM/NINA-001";
    rambo1::Rambo1: 64 "Tengen RAMBO-1" | 158 "Tengen 800037";
    h3001::H3001: 65 "Irem H3001";
    sunsoft3::Sunsoft3: 67 "Sunsoft-3";
    sunsoft4::Sunsoft4: 68 "Sunsoft-4";
    fme7::Fme7: 69 "Sunsoft FME-7";
    bandai152::Bandai152: 70 "Bandai 74161" | 152 "Bandai 74161";
    camerica::Camerica: 71 "Camerica";
    namco108::Namco108: 76 "Namco 108" | 88 "Namco 108" | 95 "Namco 108" | 154 "Namco 108"
        | 206 "Namco 108";
    irem78::Irem78: 78 "Irem 74HC161";
    x1005::X1005: 80 "Taito X1-005";
    x1017::X1017: 82 "Taito X1-017";
    vrc7::Vrc7: 85 "VRC7";
    gtrom::Gtrom: 111 "GTROM";
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    /// Every variant a board lists is one it accepts, and every number of the list is among
    /// the variants, with a name.
    #[test]
    fn every_variant_is_a_board() {
        let variants = variants();
        for &(mapper, submapper) in &variants {
            let header = TestImage::nes2(mapper, submapper, 8, 0)
                .with(11, 0x09)
                .header();
            assert!(Mapper::new(&header).is_ok(), "{mapper}.{submapper}");
            assert!(
                supported(mapper) && board_name(mapper).is_some(),
                "{mapper}"
            );
        }
        for mapper in 0..4096 {
            assert_eq!(
                supported(mapper),
                variants.iter().any(|&(m, _)| m == mapper),
                "{mapper}"
            );
        }
    }
}
