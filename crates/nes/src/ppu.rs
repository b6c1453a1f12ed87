//! Ricoh 2C02 PPU: 341 dots x 262 scanlines (NTSC), registers $2000-$2007, rendering.
//!
//! [`Ppu::step`] runs one dot. Scanlines 0-239 draw, 240 is idle, 241-260 are VBlank and 261
//! is the pre-render line. The PAL 2C07 and the Dendy's PPU have 312 lines, VBlank from 241 or
//! 291 to 310 and the pre-render line 311, and no odd-frame skip ([`Ppu::set_region`]). Register accesses happen between dots: the bus runs two dots of a
//! CPU cycle, the access, then the third, and the CPU samples [`Ppu::nmi_line`] at the end
//! (bus.rs). The VBlank races below are tuned to that order. The background pipeline lives in
//! `background.rs`, sprite evaluation and fetches in `sprites.rs`, the RGB conversion in
//! `palette.rs`.
//!
//! Speed: the PPU runs in two parts. The timing part (position, frame count, VBlank flag, the
//! odd-frame skip) advances with every dot, mostly by a plain add. The render part (fetches,
//! scroll counters, sprite evaluation, pixels, the sprite flags) runs behind it and catches up,
//! a whole line at a time where it can and in runs of a tile's or a sprite slot's dots in the
//! middle of a line ([`Ppu::catch_up`]), whenever something could observe it: a register access,
//! a cartridge write (banks, mirroring), and the end of every line. Between those points
//! nothing outside the render part reads or changes what it works on, so the result is the
//! same as running it dot by dot. Mappers that watch only A12 of the PPU's address bus (MMC3's
//! counter, MMC1's PRG side) hear of its changes from the timing part, which knows the fetch
//! pattern (see [`Ppu::tell_a12`]); mappers that watch every address (MMC2's latches) see
//! every dot as it happens: with them the render part never lags.

mod background;
pub mod palette;
mod sprites;

use crate::cartridge::Cartridge;
use crate::mapper::A12_UNCOUNTED_DOTS;
use crate::region::Region;
use crate::state::{fields, Field, StateIo};
use background::LineMemory;

pub const WIDTH: usize = 256;
pub const HEIGHT: usize = 240;

pub const DOTS_PER_LINE: u16 = 341;
/// The NTSC PPU's lines (see [`Region`] for the others).
pub const LINES_PER_FRAME: u16 = 262;
pub const VBLANK_LINE: u16 = 241;
pub const PRE_RENDER_LINE: u16 = 261;

/// A PPUMASK write reaches the rendering pipeline (fetches, shifters, sprite evaluation) after
/// this many dots have run, from the third dot of the next CPU cycle on: AccuracyCoin's "BG
/// Serial In" needs it 3 or 4 dots after the access with this bus's CPU/PPU alignment (its
/// notes put the delay at 2-5 dots). The output stage takes the bits earlier (see
/// [`Ppu::shown`]). 3 keeps one pending write at a time, as writes come at least a CPU cycle
/// apart.
const MASK_DELAY: u8 = 3;

/// The output stage sends pixel x to the video signal on dot x + 4, three dots after choosing
/// its colour; greyscale and emphasis act there.
const OUTPUT_DELAY: u16 = 3;

/// A $2007 read during rendering fills the read buffer on the fourth dot after the access: the
/// PPU's data state machine puts v's address out (ALE), idles, then reads, while the background
/// and sprite fetches do the same every two dots (AccuracyCoin's "$2007 Stress Test" and "ALE +
/// Read" notes). On a dot where a fetch reads, the buffer takes the fetch's byte; on one where
/// a fetch puts its address out, the address latch keeps the byte on the bus as the address's
/// low half, and the fetch and the buffer read from there.
const READ_DELAY: u8 = 4;

/// A second $2006 write during rendering copies t into v after this many dots have run, from
/// the third dot of the next CPU cycle on, as a PPUMASK write reaches the pipeline (TriCNES
/// counts 4 PPU cycles from the write on most alignments, 2 for PPUMASK's pixel logic). When
/// the copy lands between a nametable or attribute fetch's address dot and its read dot, the
/// read takes its high byte from the new v and its low byte from the address latch
/// (AccuracyCoin's "Hybrid Addresses").
const ADDRESS_DELAY: u8 = 3;

/// A bit of the open-bus latch fades to 0 about 600 ms after it was last driven high.
const DECAY_FRAMES: u64 = 36;

/// PPUCTRL ($2000) bits.
pub mod ctrl {
    pub const INCREMENT_32: u8 = 0x04;
    pub const SPRITE_TABLE: u8 = 0x08;
    pub const BG_TABLE: u8 = 0x10;
    pub const SPRITE_8X16: u8 = 0x20;
    pub const NMI: u8 = 0x80;
}

/// PPUMASK ($2001) bits.
pub mod mask {
    pub const GREYSCALE: u8 = 0x01;
    pub const BG_LEFT: u8 = 0x02;
    pub const SPRITES_LEFT: u8 = 0x04;
    pub const BG: u8 = 0x08;
    pub const SPRITES: u8 = 0x10;
    pub const RENDERING: u8 = BG | SPRITES;
    pub const EMPHASIS_RED: u8 = 0x20;
    pub const EMPHASIS_GREEN: u8 = 0x40;
    /// Colour emphasis: red, green, blue.
    pub const EMPHASIS: u8 = 0xE0;
}

#[derive(Clone)]
pub struct Ppu {
    /// The dot the next [`Ppu::step`] runs: 0-261 and 0-340.
    pub scanline: u16,
    pub dot: u16,
    /// The dot the render part runs next; behind (`scanline`, `dot`) until it catches up.
    render_line: u16,
    render_dot: u16,
    /// Dots of the current line before this one only move the timing part on (a cache of
    /// [`Ppu::quiet_until`]; 0 sends every dot through the careful path).
    quiet_until: u16,
    /// Dots of the current line before this one only count for the bus's quiet cycles
    /// ([`Ppu::bus_quiet_dots`]): `quiet_until`, or with a board whose A12 filter counts M2
    /// edges, past the changes of A12 it cannot count, which the timing part still tells it
    /// on their dots (the bus passes it the edges before them). 0 when not known.
    bus_quiet_until: u16,
    /// Frames started since power-on (incremented when line 0 begins).
    pub frame: u64,
    /// Private: a change must forget `overflow_counted`.
    oam: [u8; 256],
    /// Palette RAM: 6-bit entries; $3F10/$14/$18/$1C are mirrors of $3F00/$04/$08/$0C.
    pub palette: [u8; 32],
    /// 9-bit pixels: palette index (bits 0-5) and emphasis (bits 6-8: red, green, blue, on every
    /// region's PPU). On a line drawn dot by
    /// dot, the last three pixels chosen are still plain palette entries, on their way through
    /// the output stage.
    pub frame_buffer: Vec<u16>,

    pub ppu_ctrl: u8,
    /// PPUMASK as the rendering pipeline sees it (red and green emphasis as written), its
    /// emphasis bits in the 2C02's order ([`Region::mask_in_2c02_order`]).
    pub ppu_mask: u8,
    /// A PPUMASK write on its way in: the value and the dots left before the pipeline has it.
    mask_pending: Option<(u8, u8)>,
    pub oam_addr: u8,
    vblank: bool,
    sprite0_hit: bool,
    sprite_overflow: bool,
    /// Set by a $2002 read on the dot before VBlank begins: the flag stays clear this frame.
    suppress_vblank: bool,
    odd_frame: bool,
    skip_last_dot: bool,
    /// The region's timing ([`Ppu::set_region`]); the console's state records the region.
    region: Region,
    vblank_line: u16,
    pre_render_line: u16,

    /// Loopy registers: current and temporary VRAM address, fine X scroll, write toggle.
    pub v: u16,
    pub t: u16,
    pub fine_x: u8,
    w: bool,
    read_buffer: u8,
    /// Dots left until a $2007 read made during rendering has had its dot (0: none).
    read_pending: u8,
    /// A second $2006 write during rendering on its way to v: the address and the dots left.
    address_pending: Option<(u16, u8)>,
    /// The render part's next dot is the one of that read; never set across an instruction.
    read_now: bool,
    /// The byte the render part's last memory fetch read, dot by dot; not part of the state
    /// (a pending read takes it from fetches made after the access).
    fetched: u8,

    /// The I/O data-bus latch that reads of undriven bits return, and when each bit was last
    /// driven high (in frames) so it can decay.
    io_latch: u8,
    io_refreshed: [u64; 8],
    /// The frame of the latch's last drive, in which it has no faded bit, and the bits
    /// driven high in it since (`u64::MAX`: not known). Not part of the state.
    latch_frame: u64,
    refreshed_now: u8,
    /// Whether nine OAM bytes are in range of a line ([`Ppu::overflow_possible`]) for the
    /// line and sprite height it was counted for, while OAM stays the same. Not part of the
    /// state.
    overflow_counted: Option<(u16, u16, bool)>,

    bg: background::Pipeline,
    sprites: sprites::Sprites,
    /// Made from palette RAM and PPUMASK when they change; not part of the state.
    line_colours: LineColours,
    /// With a board that follows A12 ([`Cartridge::follows_a12`]): the level of A12 it last
    /// heard of, if known (unknown: the next fetch tells it again). Not part of the state.
    a12_seen: Option<bool>,
    /// The line and dot of the last fall of A12 the board heard of. Not part of the state.
    a12_fell: Option<(u16, u16)>,
    /// The pattern tables of the eight sprite slots' fetches on a line with 8x16 sprites
    /// (bit n: slot n fetches from $1000), known before the render part fetches them: the
    /// line and the bits. Not part of the state.
    slot_tables: Option<(u16, u8)>,
    /// A12 of the fetches on a line (the line, the levels) while the fetch pattern stays the
    /// same, as `slot_tables`. Not part of the state.
    a12_fetches: Option<(u16, A12Fetches)>,
}

/// A12 of the fetches of a line with rendering on, on its odd dots, where they read: bit n of
/// `high` for the fetch on dot 2n + 1, n < [`A12Fetches::FETCHES`] (dots 1-339), and which of
/// them are `known` (the sprites' may not be: the tables of 8x16 sprites).
#[derive(Clone, Copy)]
struct A12Fetches {
    high: [u64; 3],
    known: [u64; 3],
}

impl A12Fetches {
    const FETCHES: usize = 170;
    /// The last word's fetches: dots 257-339.
    const LAST_WORD: u64 = (1 << (Self::FETCHES - 128)) - 1;
    /// The sprites' pattern fetches in the last word, on dots 257 + 8n + 4 and + 6.
    const SPRITE_PATTERNS: u64 = 0xCCCC_CCCC;
    /// A background tile's fetches on dots 8k + 1 to 8k + 7: nametable, attribute, then the
    /// pattern table twice.
    const BACKGROUND: u64 = 0xCCCC_CCCC_CCCC_CCCC;

    /// `tables`: bit n, sprite slot n fetches from $1000 (dots 257 + 8n + 4 and + 6), if known.
    fn new(background: bool, tables: Option<u8>) -> A12Fetches {
        let tiles = if background { Self::BACKGROUND } else { 0 };
        // Dots 257-319 (bits 0-31 of the last word) the sprites', 321-335 the next line's
        // first two tiles, 337 and 339 nametable fetches.
        let sprites = (0..8).fold(0, |bits, slot| {
            bits | (u64::from(tables.unwrap_or(0) >> slot & 1) * 0b1100) << (4 * slot)
        });
        let unknown = if tables.is_some() {
            0
        } else {
            Self::SPRITE_PATTERNS
        };
        A12Fetches {
            high: [tiles, tiles, ((tiles & 0xFF) << 32) | sprites],
            known: [!0, !0, Self::LAST_WORD & !unknown],
        }
    }

    fn all_known(&self) -> bool {
        self.known[2] == Self::LAST_WORD
    }

    /// A12 of fetch `n` (on dot 2n + 1), if known.
    fn level(&self, n: usize) -> Option<bool> {
        let (word, bit) = (n / 64, n % 64);
        (self.known[word] >> bit & 1 != 0).then_some(self.high[word] >> bit & 1 != 0)
    }

    /// The first fetch from `from` on whose A12 is not `level` (or not known); `from` itself
    /// if `level` is not known.
    fn next_change(&self, from: usize, level: Option<bool>) -> Option<usize> {
        let Some(level) = level else {
            return (from < Self::FETCHES).then_some(from);
        };
        let flip = if level { !0 } else { 0 };
        (from / 64..3).find_map(|word| {
            let mut differ = (self.high[word] ^ flip) | !self.known[word];
            if word == 2 {
                differ &= Self::LAST_WORD;
            }
            if word == from / 64 {
                differ &= !0 << (from % 64);
            }
            (differ != 0).then(|| word * 64 + differ.trailing_zeros() as usize)
        })
    }
}

/// The dot of fetch `n` in [`A12Fetches`].
fn dot_of_fetch(n: usize) -> u16 {
    2 * n as u16 + 1
}

/// The 9-bit pixels of the palette addresses (greyscale and emphasis applied) as lines drawn
/// as a whole look them up, and of pairs of background palette addresses.
#[derive(Clone)]
struct LineColours {
    /// The palette RAM and PPUMASK colour bits they were made from.
    made_from: Option<([u8; 32], u8)>,
    single: [u16; 32],
    /// Two pixels, the first in the low half, indexed by two palette addresses (background:
    /// 0-15), the first in the low nibble.
    pairs: [u32; 256],
}

impl Default for LineColours {
    fn default() -> Self {
        LineColours {
            made_from: None,
            single: [0; 32],
            pairs: [0; 256],
        }
    }
}

impl Field for Ppu {
    fn visit(&mut self, io: &mut StateIo) {
        let Ppu {
            scanline,
            dot,
            render_line,
            render_dot,
            quiet_until,
            bus_quiet_until,
            frame,
            oam,
            palette,
            frame_buffer,
            ppu_ctrl,
            ppu_mask,
            mask_pending,
            oam_addr,
            vblank,
            sprite0_hit,
            sprite_overflow,
            suppress_vblank,
            odd_frame,
            skip_last_dot,
            region: _,
            vblank_line: _,
            pre_render_line: _,
            v,
            t,
            fine_x,
            w,
            read_buffer,
            read_pending,
            address_pending,
            read_now: _,
            fetched: _,
            io_latch,
            io_refreshed,
            latch_frame,
            refreshed_now,
            overflow_counted,
            bg,
            sprites,
            line_colours: _,
            a12_seen,
            a12_fell,
            slot_tables,
            a12_fetches,
        } = self;
        (*a12_seen, *a12_fell, *slot_tables, *a12_fetches) = (None, None, None, None);
        (*latch_frame, *refreshed_now, *overflow_counted) = (u64::MAX, 0, None);
        let lines = self.region.lines_per_frame();
        io.checked(scanline, "PPU scanline", |&l| l < lines);
        io.checked(dot, "PPU dot", |&d| d < DOTS_PER_LINE);
        // States are taken with the render part caught up (Console::save_state).
        (*render_line, *render_dot, *quiet_until, *bus_quiet_until) = (*scanline, *dot, 0, 0);
        fields!(
            io,
            oam,
            palette,
            ppu_ctrl,
            ppu_mask,
            mask_pending,
            oam_addr,
            vblank,
            sprite0_hit
        );
        fields!(
            io,
            sprite_overflow,
            suppress_vblank,
            odd_frame,
            skip_last_dot,
            w
        );
        io.checked(fine_x, "fine X scroll", |&x| x < 8);
        fields!(
            io,
            read_buffer,
            read_pending,
            address_pending,
            io_latch,
            io_refreshed,
            bg,
            sprites
        );
        io.fixed(frame_buffer);
        io.counter(frame, "frame counter");
        for address in [v, t] {
            io.checked(address, "VRAM address", |&a| a < 0x8000);
        }
    }
}

impl Default for Ppu {
    fn default() -> Self {
        Ppu {
            scanline: 0,
            dot: 0,
            render_line: 0,
            render_dot: 0,
            quiet_until: 0,
            bus_quiet_until: 0,
            frame: 0,
            oam: [0; 256],
            palette: [0; 32],
            frame_buffer: vec![0; WIDTH * HEIGHT],
            ppu_ctrl: 0,
            ppu_mask: 0,
            mask_pending: None,
            oam_addr: 0,
            vblank: false,
            sprite0_hit: false,
            sprite_overflow: false,
            suppress_vblank: false,
            odd_frame: false,
            skip_last_dot: false,
            region: Region::Ntsc,
            vblank_line: VBLANK_LINE,
            pre_render_line: PRE_RENDER_LINE,
            v: 0,
            t: 0,
            fine_x: 0,
            w: false,
            read_buffer: 0,
            read_pending: 0,
            address_pending: None,
            read_now: false,
            fetched: 0,
            io_latch: 0,
            io_refreshed: [0; 8],
            latch_frame: u64::MAX,
            refreshed_now: 0,
            overflow_counted: None,
            bg: background::Pipeline::default(),
            sprites: sprites::Sprites::default(),
            line_colours: LineColours::default(),
            a12_seen: None,
            a12_fell: None,
            slot_tables: None,
            a12_fetches: None,
        }
    }
}

impl Ppu {
    /// The reset button: PPUCTRL, PPUMASK, the write toggle and the read buffer clear; OAM,
    /// palette and VRAM keep their contents.
    pub fn reset(&mut self) {
        // PPUCTRL and PPUMASK change: what the timing part expected of the fetches too.
        self.look_again();
        self.forget_fetch_pattern();
        self.ppu_ctrl = 0;
        self.ppu_mask = 0;
        self.mask_pending = None;
        self.w = false;
        self.read_buffer = 0;
        self.read_pending = 0;
        self.read_now = false;
        self.odd_frame = false;
    }

    /// The PPU of `region`'s consoles, from power-on.
    pub fn set_region(&mut self, region: Region) {
        self.region = region;
        self.vblank_line = region.vblank_line();
        self.pre_render_line = region.lines_per_frame() - 1;
        self.look_again();
    }

    /// The last value written to PPUMASK, whether or not it has taken effect yet.
    pub fn mask_written(&self) -> u8 {
        self.mask_pending.map_or(self.ppu_mask, |(value, _)| value)
    }

    /// Background or sprite rendering is on.
    pub fn rendering_enabled(&self) -> bool {
        self.ppu_mask & mask::RENDERING != 0
    }

    /// On a line where the PPU fetches (visible or pre-render) with rendering on.
    fn rendering_now(&self) -> bool {
        self.rendering_enabled() && (self.scanline < 240 || self.scanline == self.pre_render_line)
    }

    /// Runs one dot, the render part included.
    pub fn step(&mut self, cart: &mut Cartridge) {
        self.step_timing(cart);
        self.catch_up(cart);
    }

    /// Runs `n` dots of the timing part; the render part follows when it must.
    #[inline]
    pub fn run_dots(&mut self, n: u16, cart: &mut Cartridge) {
        if self.quiet_for(n) {
            self.count_dots(n);
        } else {
            self.run_many_dots(u32::from(n), cart);
        }
    }

    /// The next `n` dots of the timing part only count (see [`Ppu::run_dots`]).
    #[inline]
    pub fn quiet_for(&self, n: u16) -> bool {
        self.dot + n <= self.quiet_until
    }

    /// `n` dots [`Ppu::quiet_for`] said only count.
    #[inline]
    pub fn count_dots(&mut self, n: u16) {
        self.dot += n;
    }

    /// The most dots from the current one that [`Ppu::quiet_for`] lets only count.
    #[inline]
    pub fn quiet_dots(&self) -> u16 {
        self.quiet_until.saturating_sub(self.dot)
    }

    /// The most dots from the current one that the bus's quiet cycles may pass (see
    /// `bus_quiet_until`): the timing part runs those of them past [`Ppu::quiet_dots`] when
    /// the bus catches up.
    #[inline]
    pub fn bus_quiet_dots(&self) -> u16 {
        self.bus_quiet_until.saturating_sub(self.dot)
    }

    /// Something changed what the timing part expects of the coming dots: it looks at the
    /// next one again.
    fn look_again(&mut self) {
        self.quiet_until = 0;
        self.bus_quiet_until = 0;
    }

    /// `n` dots of the timing part, the quiet stretches of each line by one add.
    pub fn run_many_dots(&mut self, mut n: u32, cart: &mut Cartridge) {
        while n > 0 {
            let quiet = u32::from(self.quiet_until.saturating_sub(self.dot)).min(n);
            if quiet > 0 {
                self.dot += quiet as u16;
                n -= quiet;
            } else {
                self.step_timing(cart);
                n -= 1;
            }
        }
    }

    /// Dots from the current one to the pre-render line while on the VBlank lines, else 0.
    pub fn vblank_dots_left(&self) -> u32 {
        if (self.vblank_line..self.pre_render_line).contains(&self.scanline) {
            u32::from(self.pre_render_line - self.scanline) * u32::from(DOTS_PER_LINE)
                - u32::from(self.dot)
        } else {
            0
        }
    }

    /// Dots from the current one on that the timing part can run with the /NMI line kept as
    /// it is and no frame begun: up to VBlank's start or end, or the odd-frame decision on
    /// the pre-render line (the next frame begins right after it).
    pub fn dots_before_event(&self) -> u32 {
        let events = [
            (self.vblank_line, 1),
            (self.pre_render_line, 1),
            (self.pre_render_line, 338),
        ];
        let position =
            |(line, dot): (u16, u16)| u32::from(line) * u32::from(DOTS_PER_LINE) + u32::from(dot);
        let now = position((self.scanline, self.dot));
        events
            .into_iter()
            .map(position)
            .find(|&event| event >= now)
            .map_or(0, |event| event - now)
    }

    /// One dot of the timing part.
    fn step_timing(&mut self, cart: &mut Cartridge) {
        let (line, dot) = (self.scanline, self.dot);
        match (line, dot) {
            (_, 1) if line == self.vblank_line => {
                self.vblank = !self.suppress_vblank;
                self.suppress_vblank = false;
            }
            (_, 1) if line == self.pre_render_line => self.vblank = false,
            // Odd frames with rendering on skip the pre-render line's last dot. The PPU decides
            // while dot 338 runs, so a PPUMASK write after that is too late to matter. It reads
            // the register as written, without the delay of the rendering switch (ppu_vbl_nmi's
            // even_odd_timing measures this edge).
            (_, 338) if line == self.pre_render_line => {
                let mask = self.mask_pending.map_or(self.ppu_mask, |(val, _)| val);
                self.skip_last_dot = self.odd_frame
                    && mask & mask::RENDERING != 0
                    && self.region.skips_odd_frame_dot();
            }
            _ => {}
        }
        let skip = dot == 339 && self.skip_last_dot && line == self.pre_render_line;
        self.dot += if skip { 2 } else { 1 };
        if self.dot >= DOTS_PER_LINE {
            self.dot = 0;
            self.scanline += 1;
            self.bus_quiet_until = 0;
            if self.scanline > self.pre_render_line {
                self.scanline = 0;
                self.frame += 1;
                self.odd_frame = !self.odd_frame;
            }
            self.catch_up(cart);
        } else if cart.watches_every_fetch() {
            self.catch_up(cart);
        }
        if cart.follows_a12() {
            self.tell_a12(line, dot, cart);
        }
        if let Some((val, dots)) = self.mask_pending {
            // The output stage and then the pipeline take the bits between two dots.
            self.catch_up(cart);
            if dots > 1 {
                self.mask_pending = Some((val, dots - 1));
            } else {
                self.apply_mask(val);
            }
        }
        if self.read_pending > 0 {
            // Rendered up to the read's dot, then through it.
            self.catch_up(cart);
            self.read_pending -= 1;
            match self.read_pending {
                1 => self.read_now = true,
                0 => {
                    if std::mem::take(&mut self.read_now) {
                        self.read_buffer = self.fetched;
                    }
                    self.increment_v();
                    self.drive_address_after_access(cart);
                }
                _ => {}
            }
        }
        if let Some((address, dots)) = self.address_pending {
            // Rendered up to the copy's dot.
            self.catch_up(cart);
            if dots > 1 {
                self.address_pending = Some((address, dots - 1));
            } else {
                self.address_pending = None;
                self.copy_address(address, cart);
            }
        }
        self.quiet_until = if cart.watches_every_fetch()
            || self.mask_pending.is_some()
            || self.read_pending > 0
            || self.address_pending.is_some()
        {
            0
        } else if cart.follows_a12() {
            self.quiet_until().min(self.next_a12_change(cart))
        } else {
            self.quiet_until()
        };
        self.bus_quiet_until = if self.quiet_until == 0 || !cart.a12_filtered() {
            self.quiet_until
        } else if self.dot < self.bus_quiet_until {
            // Still ahead: the changes in between are ones the filter cannot count.
            self.bus_quiet_until
        } else {
            self.quiet_until().min(self.next_counted_rise(cart))
        };
    }

    /// The board follows A12 and the timing part has run dot `dot` of line `line`: if the
    /// render part fetches on that dot (it may not have yet) with A12 other than the board last
    /// heard of, the board hears of the change now, as it would in lockstep.
    fn tell_a12(&mut self, line: u16, dot: u16, cart: &mut Cartridge) {
        if let Some(high) = self.fetch_a12(line, dot, cart, true) {
            if self.a12_seen != Some(high) {
                // A fall from a level the board heard of resets its filter's count.
                self.a12_fell = (self.a12_seen == Some(true)).then_some((line, dot));
                self.a12_seen = Some(high);
                cart.ppu_address(u16::from(high) << 12);
            }
        }
    }

    /// A12 of the render part's fetch on dot `dot` of `line`, the timing part's line, None if
    /// it fetches nothing there (or, unless `catch_up` lets the render part run up to now to
    /// find out, if that is not known yet: the tables of 8x16 sprites).
    fn fetch_a12(
        &mut self,
        line: u16,
        dot: u16,
        cart: &mut Cartridge,
        catch_up: bool,
    ) -> Option<bool> {
        if dot.is_multiple_of(2) || !self.fetches_on(line) {
            return None;
        }
        let fetch = usize::from(dot / 2);
        match self.a12_fetches(line, cart, false).level(fetch) {
            // A sprite's pattern fetch: the evaluation is done.
            None if catch_up => self.a12_fetches(line, cart, true).level(fetch),
            level => level,
        }
    }

    /// Whether the render part fetches on `line`, the timing part's.
    fn fetches_on(&self, line: u16) -> bool {
        self.rendering_enabled() && !(240..self.pre_render_line).contains(&line)
    }

    /// A12 of the render part's fetches on `line` with rendering on (see [`A12Fetches`]),
    /// with the sprites' tables if known (or, if `catch_up`, after running the render part up
    /// to now, past the sprite evaluation). Nametable and attribute fetches are at $2000-$2FFF; the background's patterns
    /// come from PPUCTRL's table, the sprites' from theirs or, 8x16, from each slot's tile
    /// number.
    fn a12_fetches(&mut self, line: u16, cart: &mut Cartridge, catch_up: bool) -> A12Fetches {
        match self.a12_fetches {
            Some((at, fetches)) if at == line && (fetches.all_known() || !catch_up) => {
                return fetches
            }
            _ => {}
        }
        let fetches = A12Fetches::new(
            self.ppu_ctrl & ctrl::BG_TABLE != 0,
            self.sprite_tables(line, cart, catch_up),
        );
        self.a12_fetches = Some((line, fetches));
        fetches
    }

    /// The first dot from the timing part's on whose fetch the board must hear of (see
    /// [`Self::tell_a12`]), or one whose A12 is not known yet; the end of the line if none.
    fn next_a12_change(&mut self, cart: &mut Cartridge) -> u16 {
        let line = self.scanline;
        if !self.fetches_on(line) {
            return DOTS_PER_LINE;
        }
        let fetches = self.a12_fetches(line, cart, false);
        fetches
            .next_change(usize::from(self.dot / 2), self.a12_seen)
            .map_or(DOTS_PER_LINE, dot_of_fetch)
    }

    /// With a board whose A12 filter counts M2 edges ([`Cartridge::a12_filtered`]): the first
    /// dot from the timing part's on where A12 may rise past the filter, a rise from a level
    /// the board heard of as low or not known, unless A12 fell on this line at most
    /// [`A12_UNCOUNTED_DOTS`] before; or a dot whose A12 is not known yet; the end of the line
    /// if none.
    fn next_counted_rise(&mut self, cart: &mut Cartridge) -> u16 {
        let line = self.scanline;
        if !self.fetches_on(line) {
            return DOTS_PER_LINE;
        }
        let fetches = self.a12_fetches(line, cart, false);
        let mut level = self.a12_seen;
        let mut fell = match self.a12_fell {
            Some((at, dot)) if at == line && level == Some(false) => Some(dot),
            _ => None,
        };
        let mut from = usize::from(self.dot / 2);
        while let Some(fetch) = fetches.next_change(from, level) {
            let dot = dot_of_fetch(fetch);
            match fetches.level(fetch) {
                None => return dot,
                Some(true) => {
                    if level != Some(false) || fell.is_none_or(|at| dot - at > A12_UNCOUNTED_DOTS) {
                        return dot;
                    }
                }
                Some(false) => fell = (level == Some(true)).then_some(dot),
            }
            level = fetches.level(fetch);
            from = fetch + 1;
        }
        DOTS_PER_LINE
    }

    /// PPUCTRL, PPUMASK or OAM may have changed: the sprites' tables and A12 of the fetches
    /// are looked at again.
    fn forget_fetch_pattern(&mut self) {
        self.slot_tables = None;
        self.a12_fetches = None;
    }

    /// The eight slots' pattern tables on `line` (bit n: slot n fetches from $1000), if known
    /// before the render part fetches them. 8x8 sprites take PPUCTRL's table. 8x16 ones take
    /// bit 0 of the tile number each slot has in secondary OAM: from the render part's
    /// evaluation once it is done (or the last visible line's on the pre-render line), or
    /// predicted by running the evaluation ahead when the render part is at the line's start
    /// (with no OAM corruption on its way; rendering stays on and OAM unchanged until the next
    /// access or PPUMASK change, which forget the prediction), or else, if `catch_up`, after
    /// running the render part up to now.
    fn sprite_tables(&mut self, line: u16, cart: &mut Cartridge, catch_up: bool) -> Option<u8> {
        if self.ppu_ctrl & ctrl::SPRITE_8X16 == 0 {
            return Some(if self.ppu_ctrl & ctrl::SPRITE_TABLE != 0 {
                0xFF
            } else {
                0
            });
        }
        match self.slot_tables {
            Some((known, tables)) if known == line => return Some(tables),
            _ => {}
        }
        let here = self.render_line == line && self.sprites.oam_corruption.is_none();
        let tables = if here && (self.render_dot >= 257 || line == self.pre_render_line) {
            self.sprites.tile_tables()
        } else if here && self.render_dot == 0 {
            self.predicted_tile_tables()
        } else if catch_up {
            self.catch_up(cart);
            self.sprites.tile_tables()
        } else {
            return None;
        };
        self.slot_tables = Some((line, tables));
        Some(tables)
    }

    /// The first dot from the current one on where the timing part has more to do than count:
    /// the VBlank flag's set and clear, the odd-frame skip, the end of the line.
    fn quiet_until(&self) -> u16 {
        let line = self.scanline;
        if self.dot <= 1 && (line == self.vblank_line || line == self.pre_render_line) {
            1
        } else if line == self.pre_render_line {
            338
        } else {
            DOTS_PER_LINE - 1
        }
    }

    /// The cartridge's registers may have changed: a mapper that now watches the PPU's address
    /// bus sees every dot from here on.
    pub fn cartridge_changed(&mut self, cart: &Cartridge) {
        if cart.watches_ppu_bus() {
            self.look_again();
        }
        if !cart.follows_a12() {
            // The board hears of every fetch itself until it follows A12 again.
            self.a12_seen = None;
            self.a12_fetches = None;
        }
    }

    /// Runs the render part up to the timing part's dot.
    pub fn catch_up(&mut self, cart: &mut Cartridge) {
        let whole_lines = !cart.watches_every_fetch();
        while self.lags() {
            let line_past = self.render_line != self.scanline;
            if (240..self.pre_render_line).contains(&self.render_line) {
                // The post-render and VBlank lines: nothing to render, straight to the dot.
                if line_past {
                    self.next_render_line();
                } else {
                    self.render_dot = self.dot;
                }
                continue;
            }
            if whole_lines
                && line_past
                && self.render_dot == 0
                && (self.sprites.buffered || !self.rendering_enabled())
            {
                self.render_whole_line(cart);
                continue;
            }
            let line = self.render_line;
            let end = if line_past { DOTS_PER_LINE } else { self.dot };
            if whole_lines && self.idle_at_once(end) {
                self.render_idle_dots(end);
            } else if whole_lines && self.rendering_enabled() {
                self.render_run(end, cart);
            } else {
                while self.render_line == line && self.lags() {
                    self.render_step(cart);
                }
            }
        }
    }

    /// [`Self::catch_up`] for a register access, which changes what the render part works
    /// on.
    fn catch_up_for_access(&mut self, cart: &mut Cartridge) {
        self.catch_up(cart);
        if cart.follows_a12() {
            // The access may change what the fetches read or put an address on the bus: the
            // timing part looks at its fetches again from the next dot on.
            self.look_again();
            self.a12_seen = None;
            self.forget_fetch_pattern();
        }
    }

    /// The render part's dots up to `end` of its line (a visible or the pre-render line) with
    /// rendering on, as [`Self::render_step`] runs them one by one, but in runs where nothing
    /// in between can see them: a tile's dots (or those of it in the stretch) at once on dots
    /// 1-256, a sprite slot's on 257-320, and 321-340 together. The other dots (a slot or dots
    /// 321-340 cut by the stretch's end, dot 0, every dot while a PPUMASK write or $2007 read
    /// is on its way or sprites are drawn dot by dot) run one by one.
    fn render_run(&mut self, end: u16, cart: &mut Cartridge) {
        let line = self.render_line;
        // A $2007 read on its way takes the byte of the fetches (`fetched`) after it, which
        // runs do not keep.
        let runs = self.mask_pending.is_none() && self.read_pending == 0;
        self.corrupt_oam();
        while self.render_line == line && self.render_dot < end {
            let ran = runs
                && match self.render_dot {
                    1..=256 => self.render_tiles(end, cart),
                    257..=320 => self.render_slots(end, cart),
                    321 if end == DOTS_PER_LINE => {
                        let memory = LineMemory::new(cart, self.ppu_ctrl);
                        self.fetch_next_tiles(&memory);
                        self.fetched_last(cart, self.nametable_addr());
                        self.next_render_line();
                        true
                    }
                    _ => false,
                };
            if !ran {
                self.render_step(cart);
            }
        }
    }

    /// A run of the render part's fetches made at once ended on `addr`: a board that hears
    /// of the fetches (and does not follow A12 through the timing part) keeps the last.
    fn fetched_last(&self, cart: &mut Cartridge, addr: u16) {
        if !cart.follows_a12() {
            cart.ppu_address(addr);
        }
    }

    /// Dots 1-256 from the render part's dot up to `end` (see [`Self::render_run`]), a tile's
    /// dots (eight from one with dot % 8 == 1) or the part of them in the stretch at once:
    /// the background's fetches, shifts and scroll steps, and on a visible line the pixels
    /// with the buffered sprites, the secondary OAM clear and the OAM scan. Pixels are drawn
    /// as the output stage sends them three dots later: with colour bits on, only whole tiles
    /// whose three dots after are in the stretch. Returns whether a dot was run (none on a
    /// visible line whose sprites run dot by dot).
    fn render_tiles(&mut self, end: u16, cart: &mut Cartridge) -> bool {
        let visible = self.render_line < 240;
        if visible && !self.sprites.buffered {
            return false;
        }
        let coloured = visible && self.ppu_mask & (mask::GREYSCALE | mask::EMPHASIS) != 0;
        let stop = if coloured {
            let last_first = end.saturating_sub(11).min(249);
            if self.render_dot % 8 != 1 || self.render_dot > last_first {
                return false;
            }
            ((last_first - 1) & !7 | 1) + 8
        } else {
            end.min(257)
        };
        if self.render_dot >= stop {
            return false;
        }
        if visible {
            self.refresh_line_colours();
        }
        let shown = self.layers_shown();
        let memory = LineMemory::new(cart, self.ppu_ctrl);
        let mut last_fetch = None;
        while self.render_dot < stop {
            let dot = self.render_dot;
            let first = (dot - 1) & !7 | 1;
            let to = stop.min(first + 8);
            if dot > 1 {
                self.bg.shift(1);
                if dot == first {
                    self.bg.reload();
                }
            }
            if visible {
                // The pixels of dots `dot` to `to - 1`: nibbles fine X on of what the shift
                // registers hold now (see `Pipeline::queued_rows`).
                let [drawn, next] = self.bg.queued_rows().map(u64::from);
                let bg = (next << 32 | drawn) >> (4 * self.fine_x);
                if coloured {
                    // The output stage sends the three pixels before the tile's on its dots.
                    for x in dot.saturating_sub(4)..dot - 1 {
                        self.send_pixel(x);
                    }
                }
                let x = usize::from(dot - 1);
                self.sprite0_hit |= self.line_pixels(shown).draw(x, bg, usize::from(to - dot));
                self.scan_dots(dot, to);
            }
            self.bg.shift(to - dot - 1);
            last_fetch = self
                .fetch_tile_dots(&memory, first, dot - first..to - first)
                .or(last_fetch);
            self.render_dot = to;
        }
        if let Some(addr) = last_fetch {
            self.fetched_last(cart, addr);
        }
        true
    }

    /// Whole sprite slots of dots 257-320 from the render part's dot (one of a slot's first)
    /// up to `end` (see [`Self::render_run`]), with what else those dots do: the background
    /// shifters' last reload, the last pixels sent, the horizontal copy on dot 257 and the
    /// pre-render line's vertical copies.
    fn render_slots(&mut self, end: u16, cart: &mut Cartridge) -> bool {
        if self.render_dot % 8 != 1 || self.render_dot + 8 > end {
            return false;
        }
        let mut last_fetch = 0;
        while self.render_dot <= 313 && self.render_dot + 8 <= end {
            let dot = self.render_dot;
            if dot == 257 {
                self.bg.shift(1);
                self.bg.reload();
                if self.render_line < 240 {
                    for x in 253..256 {
                        self.send_pixel(x);
                    }
                }
                self.start_fetches();
                self.copy_horizontal();
            }
            if self.render_line == self.pre_render_line && (273..=297).contains(&dot) {
                self.copy_vertical();
            }
            self.oam_addr = 0;
            let slot = usize::from((dot - 257) / 8);
            self.fetch_slot(slot, cart, true);
            last_fetch = self.slot_pattern_addr(slot) | 8;
            self.render_dot = dot + 8;
        }
        self.fetched_last(cart, last_fetch);
        true
    }

    /// Whether the render part's dots up to `end` of its line can run at once: rendering off
    /// and PPUMASK settled, and none of them line 0's dot 1, the pre-render line's dot 0 or
    /// its skipped dot.
    fn idle_at_once(&self, end: u16) -> bool {
        let (line, start) = (self.render_line, self.render_dot);
        !self.rendering_enabled()
            && self.mask_pending.is_none()
            && !(line == 0 && start <= 1 && end > 1)
            && !(line == self.pre_render_line
                && (start == 0 || (self.skip_last_dot && start <= 339 && end > 339)))
    }

    /// What [`Self::render_step`] does over the render part's dots up to `end` of its line
    /// with rendering off ([`Self::idle_at_once`]): the backdrop, the output stage's colour
    /// bits three dots later, the sprite counters counting.
    fn render_idle_dots(&mut self, end: u16) {
        let (line, start) = (self.render_line, self.render_dot);
        if line < 240 {
            let row = usize::from(line) * WIDTH;
            let shown = usize::from(start.max(1) - 1)..usize::from(end.clamp(1, 257) - 1);
            if !shown.is_empty() {
                if !self.sprites.buffered {
                    self.sprites.idle_dots(shown.len());
                }
                let backdrop = u16::from(self.palette[palette_index(self.backdrop_addr())]);
                self.frame_buffer[row + shown.start..row + shown.end].fill(backdrop);
            }
            for dot in start.max(1 + OUTPUT_DELAY)..end.min(257 + OUTPUT_DELAY) {
                self.send_pixel(dot - 1 - OUTPUT_DELAY);
            }
        }
        self.render_dot = end;
        if end == DOTS_PER_LINE {
            self.next_render_line();
        }
    }

    /// Whether the render part is behind the timing part.
    pub fn lags(&self) -> bool {
        (self.render_line, self.render_dot) != (self.scanline, self.dot)
    }

    /// One dot of the render part.
    fn render_step(&mut self, cart: &mut Cartridge) {
        let (line, dot) = (self.render_line, self.render_dot);
        if line < 240 || line == self.pre_render_line {
            if self.rendering_enabled() {
                self.corrupt_oam();
                self.render_dot(cart);
            } else if line < 240 && (1..=256).contains(&dot) {
                if self.shown() & mask::RENDERING != 0 {
                    // Shown before the pipeline restarts: what its stopped shifters hold.
                    let sprite = if self.sprites.buffered {
                        sprites::Pixel::default()
                    } else {
                        self.sprites.clock_slots(false)
                    };
                    self.output_pixel(sprite);
                } else {
                    self.output_backdrop();
                    if !self.sprites.buffered {
                        self.sprites.clock_slots(false);
                    }
                }
            }
            if line < 240 && (1 + OUTPUT_DELAY..=256 + OUTPUT_DELAY).contains(&dot) {
                self.send_pixel(dot - 1 - OUTPUT_DELAY);
            }
            if line == 0 && dot == 1 {
                self.after_first_dot();
            }
            // Both are cleared "at dot 1"; measured against the VBlank flag through this bus
            // (ppu_sprite_hit 09, ppu_sprite_overflow 03), a $2002 read already sees the sprite
            // flags clear one dot before it sees VBlank clear.
            if dot == 0 && line == self.pre_render_line {
                self.sprite0_hit = false;
                self.sprite_overflow = false;
            }
        }
        // The timing part decided the skip when it ran dot 338, before this dot.
        let skip = dot == 339 && self.skip_last_dot && line == self.pre_render_line;
        if skip && self.rendering_enabled() {
            self.skipped_last_dot();
        }
        self.render_dot += if skip { 2 } else { 1 };
        if self.render_dot >= DOTS_PER_LINE {
            self.next_render_line();
        }
    }

    fn next_render_line(&mut self) {
        self.render_dot = 0;
        self.render_line = if self.render_line == self.pre_render_line {
            0
        } else {
            self.render_line + 1
        };
    }

    /// The render part's whole current line, from dot 0.
    fn render_whole_line(&mut self, cart: &mut Cartridge) {
        let line = self.render_line;
        if line < 240 || line == self.pre_render_line {
            if self.rendering_enabled() {
                let memory = LineMemory::new(cart, self.ppu_ctrl);
                self.corrupt_oam();
                self.render_line(&memory, cart);
                // Dot 339's nametable fetch is the line's last address on the bus (MMC1 keeps
                // its A12).
                self.fetched_last(cart, self.nametable_addr());
            } else if line < 240 {
                if !self.sprites.buffered {
                    self.sprites.idle_dots(256);
                }
                let start = usize::from(line) * WIDTH;
                let backdrop = self.colour(self.backdrop_addr());
                self.frame_buffer[start..start + WIDTH].fill(backdrop);
            }
            if line == self.pre_render_line {
                self.sprite0_hit = false;
                self.sprite_overflow = false;
            }
        }
        self.next_render_line();
    }

    /// A visible or pre-render line with rendering on: what [`Ppu::render_dot`] does over dots
    /// 0-339, in bulk, reading the background from `memory`. Background and sprites share
    /// nothing but the mapper, which does not watch the fetches here, so each runs its part
    /// of the line on its own.
    fn render_line(&mut self, memory: &LineMemory, cart: &Cartridge) {
        if self.render_line < 240 {
            self.draw_line(memory);
        } else {
            // The pre-render line's fetches show nothing. Over dots 1-256 coarse X steps 32
            // times: round to where it was, in the other nametable.
            self.v ^= 0x0400;
        }
        self.increment_y();
        // Dot 257; the pre-render line copies the vertical bits over dots 280-304.
        self.copy_horizontal();
        if self.render_line < 240 {
            self.evaluate_line();
        } else {
            self.copy_vertical();
        }
        self.fetch_line(cart);
        self.fetch_next_tiles(memory);
    }

    /// Dots 321-340 of a line with rendering on at once: the next line's first two tiles
    /// (337 and 339 fetch unused nametable bytes, which only a mapper watching the bus could
    /// notice), the sprites' idle reads of slot 0, and their counters' start.
    #[inline(always)]
    fn fetch_next_tiles(&mut self, memory: &LineMemory) {
        let first = self.fetch_quiet(memory, None);
        let second = self.fetch_quiet(memory, Some(first));
        self.bg.load_prefetched(first, second);
        self.slots_idle();
    }

    /// Dots 1-256 of a visible line with rendering on: the background fetches, then the
    /// pixels, background and sprites combined, eight at a time.
    fn draw_line(&mut self, memory: &LineMemory) {
        // The background's pixel stream, a tile's row (see `background::row`) at a time: the
        // two tiles in the shift registers, then the tiles fetched on dots 1-248; pixel x is
        // nibble x + fine X.
        let mut stream = [0u32; 33];
        let (queued, fetched) = stream.split_at_mut(2);
        queued.copy_from_slice(&self.bg.queued_rows());
        self.fetch_line_rows(memory, fetched.try_into().unwrap());

        self.refresh_line_colours();
        let fine_x = 4 * u32::from(self.fine_x);
        let mut pixels = self.line_pixels(self.layers_shown());
        let mut hit = false;
        for tile in 0..32 {
            let bg = (u64::from(stream[tile + 1]) << 32 | u64::from(stream[tile])) >> fine_x;
            hit |= pixels.draw(tile * 8, bg, 8);
        }
        self.sprite0_hit |= hit;
    }

    /// What of the background and the sprites shows (left-edge clipping): each layer's mask,
    /// for the first tile and the others.
    fn layers_shown(&self) -> [[u64; 2]; 2] {
        let mask = self.shown();
        let shown = |on: u8, left: u8| {
            let all = |on: bool| if on { u64::MAX } else { 0 };
            [all(mask & (on | left) == on | left), all(mask & on == on)]
        };
        [
            shown(mask::BG, mask::BG_LEFT),
            shown(mask::SPRITES, mask::SPRITES_LEFT),
        ]
    }

    /// The render line's row of the frame buffer with what its pixels are drawn from, the
    /// layers masked by `shown` (see [`Self::layers_shown`]).
    fn line_pixels(&mut self, shown: [[u64; 2]; 2]) -> LinePixels<'_> {
        let start = usize::from(self.render_line) * WIDTH;
        LinePixels {
            out: (&mut self.frame_buffer[start..start + WIDTH])
                .try_into()
                .unwrap(),
            sprites: &self.sprites.line,
            colours: &self.line_colours,
            shown,
        }
    }

    /// Brings the colours a line is drawn with up to date with palette RAM and PPUMASK.
    fn refresh_line_colours(&mut self) {
        let made_from = (
            self.palette,
            self.ppu_mask & (mask::GREYSCALE | mask::EMPHASIS),
        );
        if self.line_colours.made_from != Some(made_from) {
            let single: [u16; 32] = std::array::from_fn(|i| self.colour(i as u16));
            self.line_colours = LineColours {
                made_from: Some(made_from),
                single,
                pairs: std::array::from_fn(|i| {
                    u32::from(single[i & 0x0F]) | u32::from(single[i >> 4]) << 16
                }),
            };
        }
    }

    /// One dot of a visible or pre-render line with rendering on.
    fn render_dot(&mut self, cart: &mut Cartridge) {
        let dot = self.render_dot;
        if matches!(dot, 2..=257 | 322..=337) {
            self.bg.shift(1);
        }
        if matches!(dot, 9..=257 | 329 | 337) && dot % 8 == 1 {
            self.bg.reload();
        }
        if self.render_line < 240 && (1..=256).contains(&dot) {
            let sprite = if self.sprites.buffered {
                self.sprites.pixel(usize::from(dot - 1))
            } else {
                self.sprites.clock_slots(true)
            };
            self.output_pixel(sprite);
        }
        // The sprite fetches' first nametable read, on dot 257, is at v before the horizontal
        // copy.
        self.sprite_dot(cart);
        self.background_dot(cart);
    }

    /// A memory read of the render part's fetches, on the dot it puts the address out (ALE).
    fn fetch(&mut self, cart: &mut Cartridge, addr: u16) -> u8 {
        let addr = if self.read_now {
            // The $2007 read's Read meets this ALE: the latch keeps the data bus's byte.
            addr & 0xFF00 | u16::from(self.fetched)
        } else {
            addr
        };
        self.fetched = cart.ppu_fetch(addr);
        if std::mem::take(&mut self.read_now) {
            self.read_buffer = self.fetched;
        }
        self.fetched
    }

    /// The 6-bit palette index of a pixel, greyscale applied, with the emphasis bits on top.
    fn colour(&self, palette_addr: u16) -> u16 {
        coloured(self.palette[palette_index(palette_addr)], self.ppu_mask)
    }

    /// The mask with which pixels are chosen and sent out: the pipeline's, or from a pending
    /// write's second dot on, the written one. (Red and green emphasis act from the write on,
    /// see [`Ppu::write_register`].)
    fn shown(&self) -> u8 {
        match self.mask_pending {
            Some((val, dots)) if dots < MASK_DELAY => val,
            _ => self.ppu_mask,
        }
    }

    /// Chooses the colour of the current dot's pixel: its palette entry, for the output stage
    /// to send on (see [`Ppu::send_pixel`]).
    fn put_pixel(&mut self, palette_addr: u16) {
        let x = usize::from(self.render_dot - 1);
        let i = usize::from(self.render_line) * WIDTH + x;
        self.frame_buffer[i] = u16::from(self.palette[palette_index(palette_addr)]);
    }

    /// The output stage sends pixel `x` of the render line, greyscale and emphasis applied.
    #[inline]
    fn send_pixel(&mut self, x: u16) {
        let colour_bits = self.shown() & (mask::GREYSCALE | mask::EMPHASIS);
        // Without them the palette entry is the pixel already.
        if colour_bits != 0 {
            let i = usize::from(self.render_line) * WIDTH + usize::from(x);
            self.frame_buffer[i] = coloured(self.frame_buffer[i] as u8, colour_bits);
        }
    }

    /// The palette address shown with rendering off: the backdrop's, or v when it points into
    /// palette RAM.
    fn backdrop_addr(&self) -> u16 {
        if self.v & 0x3F00 == 0x3F00 {
            self.v
        } else {
            0
        }
    }

    fn output_backdrop(&mut self) {
        self.put_pixel(self.backdrop_addr());
    }

    /// Combines the background pixel of the current dot with `sprite`, and detects sprite 0
    /// hit.
    fn output_pixel(&mut self, sprite: sprites::Pixel) {
        let x = usize::from(self.render_dot - 1);
        let left_edge = x < 8;
        let shown = self.shown();
        let bg = if shown & mask::BG != 0 && !(left_edge && shown & mask::BG_LEFT == 0) {
            self.bg.pixel(self.fine_x)
        } else {
            0
        };
        let sprite =
            if shown & mask::SPRITES != 0 && !(left_edge && shown & mask::SPRITES_LEFT == 0) {
                sprite
            } else {
                sprites::Pixel::default()
            };
        let (addr, sprite0) = combine(x, bg, sprite);
        self.sprite0_hit |= sprite0;
        self.put_pixel(addr);
    }

    /// The /NMI output (true = asserted): VBlank flag and NMI enable both set.
    pub fn nmi_line(&self) -> bool {
        self.vblank && self.ppu_ctrl & ctrl::NMI != 0
    }

    /// The I/O latch with bits that have not been driven high recently faded to 0. Bits fade
    /// between frames: in the frame of its last drive, the latch is as that left it.
    fn decayed_latch(&self) -> u8 {
        if self.frame == self.latch_frame {
            self.io_latch
        } else {
            self.io_latch & self.fresh_bits()
        }
    }

    /// The latch's bits last driven high less than [`DECAY_FRAMES`] ago.
    fn fresh_bits(&self) -> u8 {
        (0..8).fold(0, |acc, bit| {
            let age = self.frame.saturating_sub(self.io_refreshed[bit]);
            acc | u8::from(age < DECAY_FRAMES) << bit
        })
    }

    /// Drives the latch bits in `driven` with `val`; the other bits keep (and decay) as they are.
    fn drive_latch(&mut self, val: u8, driven: u8) {
        self.io_latch = (self.decayed_latch() & !driven) | (val & driven);
        if self.latch_frame != self.frame {
            (self.latch_frame, self.refreshed_now) = (self.frame, 0);
        }
        // Bits driven high already this frame have their time.
        let mut refreshed = driven & val & !self.refreshed_now;
        self.refreshed_now |= refreshed;
        while refreshed != 0 {
            self.io_refreshed[refreshed.trailing_zeros() as usize] = self.frame;
            refreshed &= refreshed - 1;
        }
    }

    /// PPUSTATUS as a read would see it now.
    fn status(&self) -> u8 {
        u8::from(self.vblank) << 7
            | u8::from(self.sprite0_hit) << 6
            | u8::from(self.sprite_overflow) << 5
            | (self.decayed_latch() & 0x1F)
    }

    /// $2004 as seen now: during rendering, whatever the sprite circuitry has on its OAM bus.
    fn oam_data(&self) -> u8 {
        if self.rendering_now() {
            self.sprites.oam_bus
        } else {
            self.oam[usize::from(self.oam_addr)]
        }
    }

    /// Whether the render part's dots up to now, on the timing part's line, can set neither
    /// sprite flag (so a $2002 read need not wait for them): the pre-render line past its
    /// dot 0 (where they clear) and the VBlank lines do nothing to them; with rendering on, a
    /// visible line sets sprite 0 hit only on dots 1-256 while the line buffer holds sprite 0,
    /// and overflow only on dots 65-256, where the scan needs nine OAM bytes in range.
    fn sprite_flags_settled(&mut self) -> bool {
        let (line, from, to) = (self.render_line, self.render_dot, self.dot);
        if line != self.scanline || self.mask_pending.is_some() {
            return false;
        }
        if line >= 240 {
            return line != self.pre_render_line || from > 0;
        }
        if !self.rendering_enabled() || from > 256 {
            return true;
        }
        let hit_settled =
            self.sprite0_hit || (self.sprites.buffered && !self.sprites.sprite0_in_line);
        hit_settled && (self.sprite_overflow || to <= 65 || !self.overflow_counted())
    }

    /// CPU read of $2000-$2007 (`reg` already reduced to 0-7).
    pub fn read_register(&mut self, reg: u16, cart: &mut Cartridge) -> u8 {
        // A $2002 read changes nothing the render part works on and sees only its flags.
        if !(reg == 2 && self.sprite_flags_settled()) {
            self.catch_up_for_access(cart);
        }
        match reg {
            2 => {
                let val = self.status();
                self.vblank = false;
                self.w = false;
                // A read on the dot before VBlank would be set sees it clear and keeps it from
                // being set this frame, so there is no NMI either. (A read on the dot of the
                // set or one later sees it and, clearing it before the CPU samples /NMI at the
                // end of its cycle, cancels the NMI by itself.)
                if (self.scanline, self.dot) == (self.vblank_line, 1) {
                    self.suppress_vblank = true;
                }
                self.drive_latch(val, 0xE0);
                val
            }
            4 => {
                let val = self.oam_data();
                self.drive_latch(val, 0xFF);
                val
            }
            7 if self.v & 0x3F00 != 0x3F00 && self.rendering_now() => {
                // The read's own dot, a few dots on, fills the buffer from the fetches' bus
                // and moves v on (see READ_DELAY).
                self.read_pending = READ_DELAY + 1;
                self.look_again();
                let val = self.read_buffer;
                self.drive_latch(val, 0xFF);
                val
            }
            7 => {
                let addr = self.v & 0x3FFF;
                let val = if addr >= 0x3F00 {
                    // Palette reads are immediate; the buffer takes the nametable byte
                    // "underneath" the palette ($2F00-$2FFF).
                    self.read_buffer = cart.ppu_read(addr - 0x1000);
                    let colour = self.colour_at(addr);
                    self.drive_latch(colour, 0x3F);
                    self.io_latch
                } else {
                    let val = self.read_buffer;
                    self.read_buffer = cart.ppu_read(addr);
                    self.drive_latch(val, 0xFF);
                    val
                };
                self.increment_v();
                self.drive_address_after_access(cart);
                val
            }
            _ => self.decayed_latch(),
        }
    }

    /// The value a read would return, without side effects.
    pub fn peek_register(&self, reg: u16, cart: &Cartridge) -> u8 {
        if self.lags() {
            // A copy catches up, so that peeking changes nothing.
            let mut ppu = self.clone();
            ppu.catch_up(&mut cart.clone());
            return ppu.peek_register(reg, cart);
        }
        match reg {
            2 => self.status(),
            4 => self.oam_data(),
            7 => {
                let addr = self.v & 0x3FFF;
                if addr >= 0x3F00 {
                    self.colour_at(addr) | (self.decayed_latch() & 0xC0)
                } else {
                    self.read_buffer
                }
            }
            _ => self.decayed_latch(),
        }
    }

    /// A palette RAM entry as $2007 reads it (greyscale applies).
    fn colour_at(&self, addr: u16) -> u8 {
        self.colour(addr) as u8 & 0x3F
    }

    pub fn write_register(&mut self, reg: u16, val: u8, cart: &mut Cartridge) {
        self.catch_up_for_access(cart);
        self.drive_latch(val, 0xFF);
        match reg {
            0 => {
                self.ppu_ctrl = val;
                self.t = (self.t & !0x0C00) | (u16::from(val & 3) << 10);
            }
            1 => {
                let val = self.region.mask_in_2c02_order(val);
                // Writes come at least a CPU cycle apart: the last one has landed by now. Red
                // and green emphasis reach the output stage at once, the other bits a dot later.
                let at_once = mask::EMPHASIS_RED | mask::EMPHASIS_GREEN;
                self.ppu_mask = (self.ppu_mask & !at_once) | (val & at_once);
                self.mask_pending = Some((val, MASK_DELAY));
                self.look_again();
            }
            3 => self.oam_addr = val,
            4 => {
                if self.rendering_now() {
                    // No write happens; the glitchy increment bumps the sprite index and
                    // clears the byte index (AccuracyCoin's "Address $2004 behavior" A).
                    self.oam_addr = self.oam_addr.wrapping_add(4) & 0xFC;
                } else {
                    self.write_oam(val);
                }
            }
            5 => {
                if self.w {
                    self.t = (self.t & !0x73E0)
                        | (u16::from(val & 7) << 12)
                        | (u16::from(val >> 3) << 5);
                } else {
                    self.t = (self.t & !0x001F) | u16::from(val >> 3);
                    self.fine_x = val & 7;
                }
                self.w = !self.w;
            }
            6 => {
                if self.w {
                    self.t = (self.t & 0x7F00) | u16::from(val);
                    if self.rendering_now() {
                        self.address_pending = Some((self.t, ADDRESS_DELAY));
                        self.look_again();
                    } else {
                        self.v = self.t;
                        // The new address appears on the PPU bus, where mappers watching A12
                        // see it.
                        cart.ppu_address(self.v);
                    }
                } else {
                    self.t = (self.t & 0x00FF) | (u16::from(val & 0x3F) << 8);
                }
                self.w = !self.w;
            }
            7 => {
                let addr = self.v & 0x3FFF;
                if addr >= 0x3F00 {
                    self.palette[palette_index(addr)] = val & 0x3F;
                } else {
                    cart.ppu_write(addr, val);
                }
                self.increment_v();
                self.drive_address_after_access(cart);
            }
            _ => {}
        }
    }

    /// A $2004 write outside rendering: the byte goes to OAM at OAMADDR, which moves on.
    fn write_oam(&mut self, val: u8) {
        // Bits 2-4 of the attribute byte do not exist.
        let val = if self.oam_addr & 3 == 2 {
            val & 0xE3
        } else {
            val
        };
        self.oam[usize::from(self.oam_addr)] = val;
        self.oam_addr = self.oam_addr.wrapping_add(1);
        self.overflow_counted = None;
    }

    /// An OAM DMA's 256 $2004 writes on the VBlank lines, where each goes to OAM: what as
    /// many `write_register(4, ..)` calls do (the frame, and so the latch's refresh time, is
    /// the same for all of them).
    pub fn write_oam_page(&mut self, bytes: &[u8; 256], cart: &mut Cartridge) {
        debug_assert!(!self.rendering_now());
        self.catch_up_for_access(cart);
        for &val in bytes {
            self.write_oam(val);
        }
        let ones = bytes.iter().fold(0, |acc, &val| acc | val);
        self.drive_latch(ones, 0xFF);
        self.drive_latch(bytes[255], 0xFF);
    }

    /// A PPUMASK write taking effect (the render part caught up to this dot).
    fn apply_mask(&mut self, val: u8) {
        self.forget_fetch_pattern();
        self.mask_pending = None;
        if self.rendering_now() && val & mask::RENDERING == 0 {
            self.rendering_stopped();
        }
        if (self.ppu_mask & mask::RENDERING == 0) != (val & mask::RENDERING == 0) {
            self.rendering_switched();
        }
        self.ppu_mask = val;
    }

    /// Outside rendering the incremented v stays on the PPU address bus after a $2007 access.
    fn drive_address_after_access(&self, cart: &mut Cartridge) {
        if !self.rendering_now() {
            cart.ppu_address(self.v);
        }
    }

    /// After a $2007 access: +1 or +32, except during rendering, where the access collides
    /// with the fetch logic and bumps coarse X and Y at once.
    fn increment_v(&mut self) {
        if self.rendering_now() {
            self.increment_coarse_x();
            self.increment_y();
        } else {
            let step = if self.ppu_ctrl & ctrl::INCREMENT_32 != 0 {
                32
            } else {
                1
            };
            self.v = self.v.wrapping_add(step) & 0x7FFF;
        }
    }
}

/// A line's pixels as [`Ppu::line_pixels`] gives them to draw.
struct LinePixels<'a> {
    out: &'a mut [u16; WIDTH],
    sprites: &'a [u8; WIDTH],
    colours: &'a LineColours,
    shown: [[u64; 2]; 2],
}

impl LinePixels<'_> {
    /// Pixels `x` to `x + count - 1`, all in one tile, as the output stage sends them, from
    /// their background palette addresses (`bg`, a nibble each, the first in the low one) and
    /// the sprite line buffer; returns whether sprite 0 hits among them.
    #[inline(always)]
    fn draw(&mut self, x: usize, bg: u64, count: usize) -> bool {
        let rest = usize::from(x >= 8);
        let bg = bg & self.shown[0][rest];
        // The sprite line buffer is 0 where no sprite pixel is.
        let mut line = [0; 8];
        line[..count].copy_from_slice(&self.sprites[x..x + count]);
        let sprites = u64::from_le_bytes(line) & self.shown[1][rest];
        let pixels = &mut self.out[x..x + count];
        let colours = self.colours;
        if sprites == 0 && count == 8 {
            for (two, i) in pixels.chunks_exact_mut(2).zip((0..).step_by(8)) {
                let pair = colours.pairs[usize::from((bg >> i) as u8)];
                two[0] = pair as u16;
                two[1] = (pair >> 16) as u16;
            }
            return false;
        }
        let mut hit = false;
        for (i, pixel) in pixels.iter_mut().enumerate() {
            let sprite = sprites::Pixel::from_line((sprites >> (8 * i)) as u8);
            let (addr, sprite0) = combine(x + i, (bg >> (4 * i)) as u8 & 0x0F, sprite);
            hit |= sprite0;
            *pixel = colours.single[usize::from(addr & 0x1F)];
        }
        hit
    }
}

/// The palette address of pixel `x` from its background and sprite pixels, and whether sprite 0
/// hits there.
fn combine(x: usize, bg: u8, sprite: sprites::Pixel) -> (u16, bool) {
    let (bg_opaque, sprite_opaque) = (bg & 3 != 0, sprite.colour != 0);
    let addr = match (bg_opaque, sprite_opaque) {
        (false, false) => 0,
        (true, false) => u16::from(bg),
        (true, true) if sprite.behind_bg => u16::from(bg),
        (_, true) => u16::from(0x10 | sprite.colour),
    };
    (
        addr,
        sprite.is_sprite0 && sprite_opaque && bg_opaque && x != 255,
    )
}

/// A palette entry as the output stage sends it with PPUMASK `ppu_mask`: greyscale applied, the
/// emphasis bits on top.
fn coloured(entry: u8, ppu_mask: u8) -> u16 {
    let greyscale = if ppu_mask & mask::GREYSCALE != 0 {
        0x30
    } else {
        0x3F
    };
    u16::from(entry & greyscale) | u16::from(ppu_mask & mask::EMPHASIS) << 1
}

/// Index into palette RAM for a PPU address in $3F00-$3FFF.
fn palette_index(addr: u16) -> usize {
    let i = usize::from(addr & 0x1F);
    // The sprite palettes' colour 0 entries are the background ones.
    if i & 0x13 == 0x10 {
        i & 0x0F
    } else {
        i
    }
}

#[cfg(test)]
mod tests;
