//! Background: the tile fetch pipeline, its shift registers, and the scroll counter in v.
//!
//! Each tile takes 8 dots: nametable byte, attribute byte, pattern low, pattern high, each
//! read on the first dot of a two-dot access. Dots 1-256 fetch tiles 3-34 of the line, 321-336
//! prefetch the next line's first two, 337-340 make two unused nametable reads.

use super::{ctrl, Ppu};
use crate::cartridge::Cartridge;
use crate::state::{fields, Field, StateIo};
use std::ops::Range;

/// Nibble i of `SPREAD[b]` is bit 7 - i of `b`: a row of eight pixels' bits, 4 bits a pixel.
const SPREAD: [u32; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        let mut i = 0;
        while i < 8 {
            table[b] |= ((b as u32 >> (7 - i)) & 1) << (4 * i);
            i += 1;
        }
        b += 1;
    }
    table
};

/// A byte of each pattern shift register (bit 7 first), spread out for [`row`].
#[derive(Clone, Copy)]
struct Pattern {
    /// The pixels' colour bits: bits 0-1 of each nibble, the first pixel in the low one.
    colour: u32,
    /// 0xF in the nibbles of opaque pixels.
    opaque: u32,
}

impl Pattern {
    fn new(low: u8, high: u8) -> Pattern {
        let spread = |b: u8| SPREAD[usize::from(b)];
        Pattern {
            colour: spread(low) | spread(high) << 1,
            opaque: (spread(low) | spread(high)) * 0xF,
        }
    }
}

/// Eight pixels' 4-bit palette addresses, the first in the low nibble, from their pattern and
/// the attribute bits already in place (bits 2-3 of each nibble); transparent pixels are 0.
fn row(pattern: Pattern, attribute: u32) -> u32 {
    (pattern.colour | attribute) & pattern.opaque
}

/// A tile's attribute bits as [`row`] takes them.
fn attribute_bits(attribute: u8) -> u32 {
    u32::from(attribute) * 0x4444_4444
}

/// What an attribute shift register takes in for palette bit `bit` (1 or 2): eight copies.
fn attribute_byte(attribute: u8, bit: u8) -> u8 {
    if attribute & bit != 0 {
        0xFF
    } else {
        0
    }
}

/// A tile's four fetches: nametable byte, its 2-bit attribute, the pattern row's two planes.
#[derive(Clone, Copy)]
pub(super) struct Fetch {
    tile: u8,
    attribute: u8,
    low: u8,
    high: u8,
}

/// What a line run as a whole reads: the background pattern table and the four nametables, a
/// 1 KiB window of the cartridge's memory each (nothing changes them during the line).
pub(super) struct LineMemory<'a> {
    patterns: [&'a [u8; 0x400]; 4],
    nametables: [&'a [u8; 0x400]; 4],
}

impl<'a> LineMemory<'a> {
    pub(super) fn new(cart: &'a Cartridge, ppu_ctrl: u8) -> LineMemory<'a> {
        let table = u16::from(ppu_ctrl & ctrl::BG_TABLE) << 8;
        let windows = |base: u16| std::array::from_fn(|i| cart.ppu_window(base + i as u16 * 0x400));
        LineMemory {
            patterns: windows(table),
            nametables: windows(0x2000),
        }
    }

    /// The byte at `addr`, $0000-$1FFF in the background table or $2000-$2FFF.
    fn read(&self, addr: u16) -> u8 {
        let windows = if addr & 0x2000 == 0 {
            &self.patterns
        } else {
            &self.nametables
        };
        windows[usize::from(addr >> 10) & 3][usize::from(addr & 0x3FF)]
    }
}

/// Fetch latches and the 16-bit shift registers (high byte: the tile being drawn).
#[derive(Clone, Default)]
pub(super) struct Pipeline {
    pub(super) tile: u8,
    attribute: u8,
    pattern_low: u8,
    pattern_high: u8,
    shift_low: u16,
    shift_high: u16,
    attr_low: u16,
    attr_high: u16,
}

impl Field for Pipeline {
    fn visit(&mut self, io: &mut StateIo) {
        let Pipeline {
            tile,
            attribute,
            pattern_low,
            pattern_high,
            shift_low,
            shift_high,
            attr_low,
            attr_high,
        } = self;
        fields!(
            io,
            tile,
            attribute,
            pattern_low,
            pattern_high,
            shift_low,
            shift_high
        );
        fields!(io, attr_low, attr_high);
    }
}

impl Pipeline {
    /// `dots` dots' worth of shifting.
    pub(super) fn shift(&mut self, dots: u16) {
        self.shift_low <<= dots;
        // The high plane's serial input is wired to 1 (drawn only when a reload is skipped).
        self.shift_high = self.shift_high << dots | ((1 << dots) - 1);
        self.attr_low <<= dots;
        self.attr_high <<= dots;
    }

    /// Loads the fetched tile into the low bytes of the shift registers.
    pub(super) fn reload(&mut self) {
        self.shift_low = (self.shift_low & 0xFF00) | u16::from(self.pattern_low);
        self.shift_high = (self.shift_high & 0xFF00) | u16::from(self.pattern_high);
        self.attr_low = (self.attr_low & 0xFF00) | u16::from(attribute_byte(self.attribute, 1));
        self.attr_high = (self.attr_high & 0xFF00) | u16::from(attribute_byte(self.attribute, 2));
    }

    /// The sixteen pixels in the shift registers, as [`Self::pixel`] gives them over sixteen
    /// dots with fine X 0 (a line drawn as a whole starts with these).
    pub(super) fn queued_rows(&self) -> [u32; 2] {
        let byte = |reg: u16, half: u16| (reg >> (8 * half)) as u8;
        let spread = |reg: u16, half: u16| SPREAD[usize::from(byte(reg, half))];
        [1, 0].map(|half| {
            let attribute = spread(self.attr_low, half) << 2 | spread(self.attr_high, half) << 3;
            let pattern = Pattern::new(byte(self.shift_low, half), byte(self.shift_high, half));
            row(pattern, attribute)
        })
    }

    /// Dots 321-336 run as a whole: the next line's first two tiles, `first` and `second`, end
    /// up in the shift registers (whatever they held before) and `second` in the latches.
    pub(super) fn load_prefetched(&mut self, first: Fetch, second: Fetch) {
        let pair = |a: u8, b: u8| u16::from(a) << 8 | u16::from(b);
        self.shift_low = pair(first.low, second.low);
        self.shift_high = pair(first.high, second.high);
        let attribute = |fetch: Fetch, bit: u8| attribute_byte(fetch.attribute, bit);
        self.attr_low = pair(attribute(first, 1), attribute(second, 1));
        self.attr_high = pair(attribute(first, 2), attribute(second, 2));
        self.tile = second.tile;
        self.attribute = second.attribute;
        self.pattern_low = second.low;
        self.pattern_high = second.high;
    }

    /// The 4-bit background palette address of the current pixel (0 = transparent).
    pub(super) fn pixel(&self, fine_x: u8) -> u8 {
        let bit = 15 - u16::from(fine_x);
        let take = |reg: u16, shift: u8| (((reg >> bit) & 1) as u8) << shift;
        let colour = take(self.shift_low, 0) | take(self.shift_high, 1);
        if colour == 0 {
            0
        } else {
            colour | take(self.attr_low, 2) | take(self.attr_high, 3)
        }
    }
}

impl Ppu {
    /// The background fetches and scroll updates of one dot (rendering on).
    pub(super) fn background_dot(&mut self, cart: &mut Cartridge) {
        let dot = self.render_dot;
        match dot {
            1..=256 | 321..=336 => match dot % 8 {
                1 => self.fetch_tile(cart),
                3 => self.fetch_attribute(cart),
                5 => self.fetch_pattern_low(cart),
                7 => self.fetch_pattern_high(cart),
                0 => {
                    self.increment_coarse_x();
                    if dot == 256 {
                        self.increment_y();
                    }
                }
                _ => {}
            },
            257 => self.copy_horizontal(),
            280..=304 if self.render_line == self.pre_render_line => self.copy_vertical(),
            337 | 339 => {
                self.fetch(cart, self.nametable_addr());
            }
            _ => {}
        }
    }

    /// A tile's four fetches at v for a line run as a whole, then the step to the next column.
    /// The addresses do not go to the mapper: nothing watches the bus then, and the line's
    /// last address is passed on at its end ([`Ppu::render_line`]). `previous` is the tile
    /// fetched just before on this line: an odd column shares its attribute bits.
    pub(super) fn fetch_quiet(&mut self, memory: &LineMemory, previous: Option<Fetch>) -> Fetch {
        let fetch = self.fetch_at(memory, self.v, previous);
        self.increment_coarse_x();
        fetch
    }

    /// Steps `steps` (0-7) of the tile whose dots start at `first` at once, as
    /// [`Self::background_dot`] runs them: the fetches at v into the latches (step 0 the
    /// nametable byte, 2 the attribute, 4 and 6 the pattern planes), then the step to the next
    /// column (7; and row, on dot 256). Returns the last fetch's address, if any.
    pub(super) fn fetch_tile_dots(
        &mut self,
        memory: &LineMemory,
        first: u16,
        steps: Range<u16>,
    ) -> Option<u16> {
        let v = self.v;
        let mut last = None;
        if steps.contains(&0) {
            let addr = nametable_addr(v);
            self.bg.tile = memory.read(addr);
            last = Some(addr);
        }
        if steps.contains(&2) {
            let (addr, shift) = attribute_addr(v);
            self.bg.attribute = (memory.read(addr) >> shift) & 3;
            last = Some(addr);
        }
        let pattern = bg_pattern_addr(self.ppu_ctrl, self.bg.tile, v);
        if steps.contains(&4) {
            self.bg.pattern_low = memory.read(pattern);
            last = Some(pattern);
        }
        if steps.contains(&6) {
            self.bg.pattern_high = memory.read(pattern | 8);
            last = Some(pattern | 8);
        }
        if steps.contains(&7) {
            self.increment_coarse_x();
            if first == 249 {
                self.increment_y();
            }
        }
        last
    }

    /// The rows of the tiles fetched on dots 1-248 of a line run as a whole (as
    /// [`Self::fetch_quiet`] makes them) from v on. The tile of dots 249-256 only reaches the
    /// latches, which dots 321-336 overwrite; after its column v's coarse X has stepped 32
    /// times: round to where it was, in the other nametable.
    pub(super) fn fetch_line_rows(&mut self, memory: &LineMemory, rows: &mut [u32; 31]) {
        let v = self.v;
        // A run of the same tile (a plain area) reads its pattern row once.
        let mut previous: Option<(u8, u8, Pattern)> = None;
        for (tile_row, column) in rows.iter_mut().zip(v & 0x1F..) {
            let nametable = if column < 32 { 0 } else { 0x0400 };
            let v = (v & !0x001F) ^ nametable | (column & 0x1F);
            let (tile, attribute) = self.tile_at(memory, v, previous.map(|(_, a, _)| a));
            let pattern = match previous {
                Some((last, _, pattern)) if last == tile => pattern,
                _ => {
                    let (low, high) = self.pattern_at(memory, tile, v);
                    Pattern::new(low, high)
                }
            };
            *tile_row = row(pattern, attribute_bits(attribute));
            previous = Some((tile, attribute, pattern));
        }
        self.v ^= 0x0400;
    }

    /// A tile's four fetches at `v`, from `memory` (see [`Self::fetch_quiet`]).
    #[inline(always)]
    fn fetch_at(&self, memory: &LineMemory, v: u16, previous: Option<Fetch>) -> Fetch {
        let (tile, attribute) = self.tile_at(memory, v, previous.map(|fetch| fetch.attribute));
        let (low, high) = self.pattern_at(memory, tile, v);
        Fetch {
            tile,
            attribute,
            low,
            high,
        }
    }

    /// The nametable byte and the attribute bits at `v`; `previous` is the attribute of the
    /// tile fetched just before on this line, which an odd column shares.
    #[inline(always)]
    fn tile_at(&self, memory: &LineMemory, v: u16, previous: Option<u8>) -> (u8, u8) {
        let tile = memory.read(nametable_addr(v));
        let attribute = match previous {
            Some(previous) if v & 1 == 1 => previous,
            _ => {
                let (addr, shift) = attribute_addr(v);
                (memory.read(addr) >> shift) & 3
            }
        };
        (tile, attribute)
    }

    /// The two planes of `tile`'s row at `v`'s fine Y.
    #[inline(always)]
    fn pattern_at(&self, memory: &LineMemory, tile: u8, v: u16) -> (u8, u8) {
        let addr = bg_pattern_addr(self.ppu_ctrl, tile, v);
        (memory.read(addr), memory.read(addr | 8))
    }

    /// The nametable byte's address for v.
    pub(super) fn nametable_addr(&self) -> u16 {
        nametable_addr(self.v)
    }

    fn fetch_tile(&mut self, cart: &mut Cartridge) {
        self.bg.tile = self.fetch(cart, self.nametable_addr());
    }

    fn fetch_attribute(&mut self, cart: &mut Cartridge) {
        let (addr, shift) = attribute_addr(self.v);
        self.bg.attribute = (self.fetch(cart, addr) >> shift) & 3;
    }

    fn fetch_pattern_low(&mut self, cart: &mut Cartridge) {
        let addr = bg_pattern_addr(self.ppu_ctrl, self.bg.tile, self.v);
        self.bg.pattern_low = self.fetch(cart, addr);
    }

    fn fetch_pattern_high(&mut self, cart: &mut Cartridge) {
        let addr = bg_pattern_addr(self.ppu_ctrl, self.bg.tile, self.v);
        self.bg.pattern_high = self.fetch(cart, addr | 8);
    }

    /// A second $2006 write's copy of t into v (`address`), landing before the render part's
    /// dot. Between a nametable or attribute fetch's address dot and its read dot, the read
    /// goes to the new v's high byte with the low byte already in the address latch: nestor
    /// made the fetch on its address dot, so it is made again from there.
    pub(super) fn copy_address(&mut self, address: u16, cart: &mut Cartridge) {
        let old = self.v;
        self.v = address;
        let fetching = self.rendering_enabled()
            && (self.render_line < 240 || self.render_line == self.pre_render_line)
            && matches!(self.render_dot, 2..=257 | 322..=337);
        let hybrid = |old_addr: u16, new_addr: u16| new_addr & 0xFF00 | old_addr & 0x00FF;
        match self.render_dot % 8 {
            2 if fetching => {
                let addr = hybrid(nametable_addr(old), nametable_addr(address));
                self.fetched = cart.ppu_read(addr);
                self.bg.tile = self.fetched;
            }
            4 if fetching => {
                let (old_addr, shift) = attribute_addr(old);
                let addr = hybrid(old_addr, attribute_addr(address).0);
                self.fetched = cart.ppu_read(addr);
                self.bg.attribute = (self.fetched >> shift) & 3;
            }
            _ => {}
        }
        // The new address appears on the PPU bus, where mappers watching A12 see it; a board
        // that follows A12 hears of the next fetch's from the timing part whatever it was.
        cart.ppu_address(self.v);
        self.a12_seen = None;
    }

    /// Next tile column, wrapping into the horizontally adjacent nametable.
    pub(super) fn increment_coarse_x(&mut self) {
        if self.v & 0x001F == 31 {
            self.v = (self.v & !0x001F) ^ 0x0400;
        } else {
            self.v += 1;
        }
    }

    /// Next pixel row: fine Y, then coarse Y, wrapping after row 29 into the vertically
    /// adjacent nametable (rows 30 and 31 wrap to 0 without switching).
    pub(super) fn increment_y(&mut self) {
        if self.v & 0x7000 != 0x7000 {
            self.v += 0x1000;
            return;
        }
        self.v &= !0x7000;
        let coarse_y = match (self.v >> 5) & 31 {
            29 => {
                self.v ^= 0x0800;
                0
            }
            31 => 0,
            y => y + 1,
        };
        self.v = (self.v & !0x03E0) | coarse_y << 5;
    }

    pub(super) fn copy_horizontal(&mut self) {
        self.v = (self.v & !0x041F) | (self.t & 0x041F);
    }

    pub(super) fn copy_vertical(&mut self) {
        self.v = (self.v & !0x7BE0) | (self.t & 0x7BE0);
    }
}

/// The nametable byte's address for `v`.
fn nametable_addr(v: u16) -> u16 {
    0x2000 | (v & 0x0FFF)
}

/// The attribute byte's address for `v`, and the shift that brings the tile's two bits down.
fn attribute_addr(v: u16) -> (u16, u16) {
    let addr = 0x23C0 | (v & 0x0C00) | ((v >> 4) & 0x38) | ((v >> 2) & 0x07);
    (addr, ((v >> 4) & 4) | (v & 2))
}

/// The low plane's address of `tile`'s row at v's fine Y, in the table PPUCTRL picks.
fn bg_pattern_addr(ppu_ctrl: u8, tile: u8, v: u16) -> u16 {
    let table = u16::from(ppu_ctrl & ctrl::BG_TABLE) << 8;
    table | u16::from(tile) << 4 | (v >> 12) & 7
}
