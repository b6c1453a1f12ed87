//! Sprites: per-line evaluation into secondary OAM, pattern fetches, and the line of sprite
//! pixels they produce.
//!
//! On each visible line with rendering on, dots 1-64 fill secondary OAM with $FF, dots 65-256
//! scan OAM for the sprites of the next line (odd dots read OAM, even dots write secondary
//! OAM), and dots 257-320 fetch the eight slots' patterns. The scan uses OAMADDR as its pointer,
//! as the hardware does, including the diagonal walk that makes the overflow flag unreliable.
//!
//! Each fetch loads one of eight output units (slots): a pattern row in two shift registers
//! and an X counter. From dot 340 with rendering on, each counter counts down one per visible
//! dot and its slot then draws, shifting one pixel a dot. The counters keep counting with
//! rendering off (the shifters stop), and a slot left drawing when dot 340 passes in forced
//! blank draws as soon as rendering is back (AccuracyCoin's stale shift register tests). While
//! rendering stays on, which is nearly always, the slots draw exactly what the fetch laid out
//! in a 256-pixel line buffer right away, and that saves eight shifters per dot: the slots
//! only run dot by dot once rendering was switched on or off since the line's fetches.

use super::{ctrl, Ppu};
use crate::cartridge::Cartridge;
use crate::state::{fields, Field, StateIo};

/// Line-buffer byte layout: bits 0-1 pattern colour, 2-3 palette, 4 behind background,
/// 5 drawn by sprite 0.
const BEHIND_BG: u8 = 0x10;
const SPRITE0: u8 = 0x20;

#[derive(Clone)]
pub(super) struct Sprites {
    secondary: [u8; 32],
    /// What $2004 reads during rendering: the byte the sprite circuitry last moved.
    pub(super) oam_bus: u8,
    /// Next free byte of secondary OAM (32 = full: eight sprites found).
    secondary_addr: u8,
    /// Bytes of an in-range sprite still to copy.
    copying: u8,
    /// All 64 sprites were scanned (or overflow was found); the rest of the scan is idle.
    scan_done: bool,
    /// The first sprite the scan looked at was in range: slot 0 is sprite 0.
    sprite0_next: bool,
    pub(super) sprite0_in_line: bool,
    /// Sprites drawn into the next line's buffer (0: it is empty).
    pub(super) count: u8,
    pattern_low: u8,
    pub(super) line: [u8; 256],
    slots: [Slot; 8],
    /// The line buffer draws this line: the slots were loaded by a whole run of fetches and
    /// have counted with rendering on from dot 340 on. Otherwise they run dot by dot.
    pub(super) buffered: bool,
    /// Rendering has stayed on since this line's fetches began at dot 257.
    clean_fetch: bool,
    /// The pre-render line skipped dot 340: the counters start after line 0's first dot.
    late_start: bool,
    /// Rendering stopped mid-line with secondary OAM's address here: when it restarts, this
    /// row of OAM (eight bytes) becomes a copy of row 0.
    pub(super) oam_corruption: Option<u8>,
}

impl Field for Sprites {
    fn visit(&mut self, io: &mut StateIo) {
        let Sprites {
            secondary,
            oam_bus,
            secondary_addr,
            copying,
            scan_done,
            sprite0_next,
            sprite0_in_line,
            count,
            pattern_low,
            line,
            slots,
            buffered,
            clean_fetch,
            late_start,
            oam_corruption,
        } = self;
        fields!(
            io,
            secondary,
            oam_bus,
            copying,
            scan_done,
            sprite0_next,
            sprite0_in_line
        );
        fields!(
            io,
            pattern_low,
            line,
            slots,
            buffered,
            clean_fetch,
            late_start
        );
        io.checked(oam_corruption, "OAM corruption row", |row| {
            row.is_none_or(|r| r < 32)
        });
        io.checked(secondary_addr, "secondary OAM address", |&a| a <= 32);
        io.checked(count, "sprite count", |&n| n <= 8);
    }
}

impl Default for Sprites {
    fn default() -> Self {
        Sprites {
            secondary: [0xFF; 32],
            oam_bus: 0xFF,
            secondary_addr: 0,
            copying: 0,
            scan_done: false,
            sprite0_next: false,
            sprite0_in_line: false,
            count: 0,
            pattern_low: 0,
            line: [0; 256],
            slots: [Slot::default(); 8],
            buffered: false,
            clean_fetch: false,
            late_start: false,
            oam_corruption: None,
        }
    }
}

/// One sprite pixel of the current line.
#[derive(Clone, Copy, Default)]
pub(super) struct Pixel {
    /// Palette address within the sprite palettes (0-15); colour & 3 == 0 is transparent.
    pub colour: u8,
    pub behind_bg: bool,
    pub is_sprite0: bool,
}

impl Pixel {
    /// A byte of the line buffer.
    pub(super) fn from_line(p: u8) -> Pixel {
        Pixel {
            colour: if p & 3 == 0 { 0 } else { p & 0x0F },
            behind_bg: p & BEHIND_BG != 0,
            is_sprite0: p & SPRITE0 != 0,
        }
    }
}

/// One sprite output unit.
#[derive(Clone, Copy, Default)]
struct Slot {
    /// The pattern row, flipped as drawn: bit 7 is the next pixel.
    low: u8,
    high: u8,
    /// Line-buffer layout: palette, behind background, sprite 0.
    flags: u8,
    /// Visible dots left before the slot draws.
    counter: u8,
    /// The counter ran out: the slot draws and shifts.
    drawing: bool,
}

impl Field for Slot {
    fn visit(&mut self, io: &mut StateIo) {
        let Slot {
            low,
            high,
            flags,
            counter,
            drawing,
        } = self;
        fields!(io, low, high, flags, counter, drawing);
    }
}

impl Sprites {
    /// One visible dot of the slots run one by one: each counts down or draws; `shift` with
    /// rendering on. Returns the pixel of the first opaque drawing slot.
    pub(super) fn clock_slots(&mut self, shift: bool) -> Pixel {
        let mut pixel = Pixel::default();
        for slot in &mut self.slots {
            if !slot.drawing {
                if slot.counter > 0 {
                    slot.counter -= 1;
                    continue;
                }
                slot.drawing = true;
            }
            let colour = slot.low >> 7 | (slot.high >> 7) << 1;
            if colour != 0 && pixel.colour == 0 {
                pixel = Pixel {
                    colour: colour | (slot.flags & 0x0C),
                    behind_bg: slot.flags & BEHIND_BG != 0,
                    is_sprite0: slot.flags & SPRITE0 != 0,
                };
            }
            if shift {
                slot.low <<= 1;
                slot.high <<= 1;
            }
        }
        pixel
    }

    /// `dots` visible dots with rendering off: each counter still counting counts down, as
    /// that many calls of [`Self::clock_slots`] leave it (running out: 0 and drawing); nothing
    /// shifts.
    pub(super) fn idle_dots(&mut self, dots: usize) {
        for slot in self.slots.iter_mut().filter(|slot| !slot.drawing) {
            match usize::from(slot.counter).checked_sub(dots) {
                Some(left) => slot.counter = left as u8,
                None => (slot.drawing, slot.counter) = (true, 0),
            }
        }
    }

    /// Dot 340 with rendering on (or after line 0's first dot when the pre-render line skipped
    /// it): every slot counts down again from its X.
    fn start_counting(&mut self) {
        for slot in &mut self.slots {
            slot.drawing = false;
        }
        self.buffered = self.clean_fetch;
    }

    pub(super) fn pixel(&self, x: usize) -> Pixel {
        Pixel::from_line(self.line[x])
    }

    /// Bit n: slot n's tile number in secondary OAM is odd (8x16 sprites: from $1000).
    pub(super) fn tile_tables(&self) -> u8 {
        (0..8).fold(0, |bits, slot| {
            bits | (self.secondary[slot * 4 + 1] & 1) << slot
        })
    }
}

impl Ppu {
    fn sprite_height(&self) -> u16 {
        if self.ppu_ctrl & ctrl::SPRITE_8X16 != 0 {
            16
        } else {
            8
        }
    }

    /// Whether a sprite with OAM Y byte `y` covers the line after the current one. The
    /// comparison sees the line number's low 8 bits: the pre-render line counts as line 5.
    pub(super) fn sprite_in_range(&self, y: u8) -> bool {
        (self.render_line & 0xFF).wrapping_sub(u16::from(y)) < self.sprite_height()
    }

    /// The sprite work of one dot (rendering on, visible or pre-render line).
    pub(super) fn sprite_dot(&mut self, cart: &mut Cartridge) {
        let dot = self.render_dot;
        let visible = self.render_line < 240;
        match dot {
            1..=64 if visible => {
                if dot % 2 == 1 {
                    self.sprites.oam_bus = 0xFF;
                } else {
                    self.sprites.secondary[usize::from(dot / 2 - 1)] = 0xFF;
                }
            }
            65..=256 if visible => self.evaluate_sprites(),
            257..=320 => {
                self.oam_addr = 0;
                if dot == 257 {
                    self.start_fetches();
                }
                self.fetch_sprite(cart);
            }
            321..=340 | 0 => {
                self.sprites.oam_bus = self.sprites.secondary[0];
                if dot == 340 {
                    self.sprites.start_counting();
                }
            }
            _ => {}
        }
    }

    /// Secondary OAM's address (0-31) on this dot: the clear walks it on dots 1-64, the scan
    /// on 65-256 (rounded up to a whole sprite), and each slot's fetch on 257-320 steps it
    /// over the sprite's Y, tile and attribute bytes (AccuracyCoin's OAM corruption notes).
    fn secondary_oam_addr(&self) -> u8 {
        let dot = self.render_dot;
        let addr = match dot {
            1..=64 => (dot - 1) / 2,
            65..=256 => u16::from(self.sprites.secondary_addr + 3) & !3,
            257..=320 => (dot - 257) / 8 * 4 + ((dot - 257) % 8).min(3),
            _ => 0,
        };
        (addr & 0x1F) as u8
    }

    /// Rendering was switched off in the middle of a rendering line.
    pub(super) fn rendering_stopped(&mut self) {
        self.sprites.oam_corruption = Some(self.secondary_oam_addr());
    }

    /// Rendering is switched on or off (the render part is at this dot): from here on the slots
    /// run dot by dot, starting from where the line buffer's drawing has brought them.
    pub(super) fn rendering_switched(&mut self) {
        self.sprites.clean_fetch = false;
        self.unbuffer_slots();
    }

    /// The slots as the line buffer's drawing has left them at this dot, run dot by dot from
    /// here on.
    fn unbuffer_slots(&mut self) {
        let s = &mut self.sprites;
        if !std::mem::take(&mut s.buffered) {
            return;
        }
        let drawn = if self.render_line < 240 {
            self.render_dot.saturating_sub(1).min(256)
        } else {
            0
        };
        for slot in &mut s.slots {
            match drawn.checked_sub(u16::from(slot.counter)) {
                Some(shifts) if shifts > 0 => {
                    slot.drawing = true;
                    slot.counter = 0;
                    slot.low = slot.low.checked_shl(u32::from(shifts)).unwrap_or(0);
                    slot.high = slot.high.checked_shl(u32::from(shifts)).unwrap_or(0);
                }
                _ => slot.counter -= drawn as u8,
            }
        }
    }

    /// Dot 257: the fetches for the next line begin, with a clear line buffer.
    pub(super) fn start_fetches(&mut self) {
        self.unbuffer_slots();
        let s = &mut self.sprites;
        // The buffer is empty already when no sprite was drawn into it.
        if s.count > 0 {
            s.line = [0; 256];
        }
        s.count = 0;
        s.sprite0_in_line = s.sprite0_next;
        s.clean_fetch = true;
    }

    /// The pre-render line skipped dot 340 with rendering on: the counters start after line
    /// 0's first dot, where slots still drawing draw a pixel at x = 0 (AccuracyCoin's "Sprites
    /// On Scanline 0"). With none drawing, that is the same as starting on time.
    pub(super) fn skipped_last_dot(&mut self) {
        if self.sprites.slots.iter().any(|slot| slot.drawing) {
            self.sprites.late_start = true;
            self.sprites.buffered = false;
        } else {
            self.sprites.start_counting();
        }
    }

    /// After a visible dot of the slots: the late start after line 0's first one.
    pub(super) fn after_first_dot(&mut self) {
        if std::mem::take(&mut self.sprites.late_start) {
            let clean = self.sprites.clean_fetch;
            self.sprites.start_counting();
            // Drawn dot by dot to the end of the line all the same.
            self.sprites.buffered = false;
            self.sprites.clean_fetch = clean;
        }
    }

    /// On each rendering dot: the first one after rendering stopped mid-line overwrites the row
    /// of OAM at secondary OAM's address then with row 0, and its secondary OAM byte with byte 0.
    #[inline]
    pub(super) fn corrupt_oam(&mut self) {
        if let Some(addr) = self.sprites.oam_corruption.take() {
            let row = usize::from(addr) * 8;
            self.oam.copy_within(0..8, row);
            self.overflow_counted = None;
            self.sprites.secondary[usize::from(addr)] = self.sprites.secondary[0];
        }
    }

    /// [`Sprites::tile_tables`] as the current line's evaluation will leave them, run ahead
    /// from before its start (dot 65) and undone.
    pub(super) fn predicted_tile_tables(&mut self) -> u8 {
        let kept = (
            self.sprites.clone(),
            self.oam_addr,
            self.sprite_overflow,
            self.render_dot,
        );
        self.evaluate_line();
        let tables = self.sprites.tile_tables();
        (
            self.sprites,
            self.oam_addr,
            self.sprite_overflow,
            self.render_dot,
        ) = kept;
        tables
    }

    /// [`Self::overflow_possible`], counted once for a line and sprite height while OAM stays
    /// the same.
    pub(super) fn overflow_counted(&mut self) -> bool {
        let key = (self.render_line & 0xFF, self.sprite_height());
        match self.overflow_counted {
            Some((line, height, possible)) if (line, height) == key => possible,
            _ => {
                let possible = self.overflow_possible();
                self.overflow_counted = Some((key.0, key.1, possible));
                possible
            }
        }
    }

    /// Whether the render line's scan could set the overflow flag: it reads Y from OAM bytes,
    /// each at most once, and overflows on the ninth one in range.
    pub(super) fn overflow_possible(&self) -> bool {
        // `sprite_in_range` (Y at most the line, and the line less than a sprite's height
        // below it) in bytes, as sums the compiler runs on sixteen bytes at once; each half of
        // OAM counts at most 128, which a byte holds.
        let line = (self.render_line & 0xFF) as u8;
        let height = self.sprite_height() as u8;
        let in_range = |&y: &u8| u8::from((y <= line) & (line.wrapping_sub(y) < height));
        let count = |half: &[u8]| u16::from(half.iter().map(in_range).sum::<u8>());
        let (low, high) = self.oam.split_at(128);
        count(low) + count(high) >= 9
    }

    /// Dots 1-256 of a visible line at once: secondary OAM cleared, then the scan.
    pub(super) fn evaluate_line(&mut self) {
        self.sprites.secondary = [0xFF; 32];
        self.sprites.oam_bus = 0xFF;
        // Every sprite's Y compared, without stopping at the first in range (that runs faster).
        let found = self.oam.chunks_exact(4).fold(false, |found, sprite| {
            found | self.sprite_in_range(sprite[0])
        });
        if self.oam_addr == 0 && !found {
            // No sprite on the next line: 64 pairs of dots each copy a Y byte into slot 0 and
            // move on; the scan wraps, and the last 32 pairs read Y bytes 0-31 and step past
            // them, each pair's second dot reading slot 0 back.
            let s = &mut self.sprites;
            s.secondary[0] = self.oam[252];
            s.secondary_addr = 0;
            s.copying = 0;
            s.scan_done = true;
            s.sprite0_next = false;
            s.oam_bus = s.secondary[0];
            self.oam_addr = 128;
            return;
        }
        self.scan_dots(65, 257);
    }

    /// Dots `from` to `to - 1` of a visible line's secondary OAM clear (dots 1-64) and OAM
    /// scan (65-256), as [`Self::sprite_dot`] runs them one by one, with the scan's pairs of
    /// dots that find nothing in range at once.
    pub(super) fn scan_dots(&mut self, from: u16, to: u16) {
        let mut dot = from;
        while dot < to.min(65) {
            if dot % 2 == 1 {
                self.sprites.oam_bus = 0xFF;
            } else {
                self.sprites.secondary[usize::from(dot / 2 - 1)] = 0xFF;
            }
            dot += 1;
        }
        while dot < to {
            let pairs = (to - dot) / 2;
            if dot > 65 && dot % 2 == 1 && pairs > 0 {
                if self.sprites.scan_done {
                    // The idle rest of the scan: each pair of dots reads a Y byte, moves on
                    // to the next sprite and reads secondary OAM.
                    let s = &mut self.sprites;
                    s.oam_bus = s.secondary[usize::from(s.secondary_addr & 0x1F)];
                    self.oam_addr = self.oam_addr.wrapping_add((4 * pairs) as u8);
                    dot += 2 * pairs;
                    continue;
                }
                let missed = self.scan_misses(pairs);
                if missed > 0 {
                    dot += 2 * missed;
                    continue;
                }
            }
            self.render_dot = dot;
            self.evaluate_sprites();
            dot += 1;
        }
    }

    /// Up to `pairs` pairs of the scan's dots (from a Y byte's read) at once while each reads
    /// a Y byte out of range with secondary OAM not full: each copies the byte into the next
    /// free one and moves on to the next sprite, the last one past OAM's end ending the scan.
    /// Returns the pairs run.
    fn scan_misses(&mut self, pairs: u16) -> u16 {
        let s = &self.sprites;
        if s.copying > 0 || s.secondary_addr >= 32 {
            return 0;
        }
        let mut run = 0;
        while run < pairs {
            let y = self.oam[usize::from(self.oam_addr)];
            if self.sprite_in_range(y) {
                break;
            }
            let s = &mut self.sprites;
            s.secondary[usize::from(s.secondary_addr)] = y;
            s.oam_bus = y;
            run += 1;
            let before = self.oam_addr;
            self.oam_addr = self.oam_addr.wrapping_add(4);
            if self.oam_addr & 0xFC < before & 0xFC {
                self.sprites.scan_done = true;
                break;
            }
        }
        run
    }

    /// Dots 257-340 at once: the eight slots' fetches, then the idle reads of slot 0. The
    /// unused nametable fetches are left out and the addresses do not go to the mapper: only
    /// a mapper watching the bus could see them.
    pub(super) fn fetch_line(&mut self, cart: &Cartridge) {
        self.oam_addr = 0;
        self.start_fetches();
        for slot in 0..8 {
            // An empty slot's pattern is not drawn; only the last one stays in a latch.
            self.fetch_slot(slot, cart, slot == 7);
        }
    }

    /// Dots 321-340 of the sprites at once: the idle reads of slot 0, then the counters'
    /// start (late after the pre-render line's skipped dot).
    #[inline(always)]
    pub(super) fn slots_idle(&mut self) {
        self.sprites.oam_bus = self.sprites.secondary[0];
        if self.render_line == self.pre_render_line && self.skip_last_dot {
            self.skipped_last_dot();
        } else {
            self.sprites.start_counting();
        }
    }

    /// Slot `slot`'s eight dots of dots 257-320 at once, as [`Self::fetch_sprite`] runs them
    /// (the unused nametable fetches left out): its pattern row read (for an empty slot only
    /// if `latched`: its low plane stays in the latch) and loaded.
    #[inline(always)]
    pub(super) fn fetch_slot(&mut self, slot: usize, cart: &Cartridge, latched: bool) {
        let entry = &self.sprites.secondary[slot * 4..slot * 4 + 4];
        let (y, attr, x) = (entry[0], entry[2], entry[3]);
        let in_range = self.sprite_in_range(y);
        let (low, high) = if in_range || latched {
            let addr = self.slot_pattern_addr(slot);
            (cart.ppu_peek(addr), cart.ppu_peek(addr | 8))
        } else {
            (0, 0)
        };
        self.sprites.pattern_low = low;
        // The slot's last dots read its X byte.
        self.sprites.oam_bus = x;
        self.load_slot(slot, in_range, low, high, attr, x);
    }

    /// The low plane's address of slot `slot`'s pattern row, from its secondary OAM bytes.
    pub(super) fn slot_pattern_addr(&self, slot: usize) -> u16 {
        let entry = &self.sprites.secondary[slot * 4..slot * 4 + 3];
        self.sprite_pattern_addr(entry[0], entry[1], entry[2])
    }

    /// One dot of the OAM scan (dots 65-256).
    fn evaluate_sprites(&mut self) {
        if self.render_dot == 65 {
            let s = &mut self.sprites;
            s.secondary_addr = 0;
            s.copying = 0;
            s.scan_done = false;
            s.sprite0_next = false;
        }
        if self.render_dot % 2 == 1 {
            self.sprites.oam_bus = self.oam[usize::from(self.oam_addr)];
            return;
        }
        let val = self.sprites.oam_bus;
        let before = self.oam_addr;
        if self.sprites.scan_done || self.sprites.secondary_addr == 32 {
            // No write: secondary OAM is read instead, and that is on the OAM bus.
            let s = &mut self.sprites;
            s.oam_bus = s.secondary[usize::from(s.secondary_addr & 0x1F)];
        }
        if self.sprites.scan_done {
            // The scan keeps stepping through sprites, copying nothing.
            self.oam_addr = self.oam_addr.wrapping_add(4);
            return;
        }
        if self.sprites.secondary_addr < 32 {
            let s = &mut self.sprites;
            s.secondary[usize::from(s.secondary_addr)] = val;
            if s.copying > 0 {
                s.copying -= 1;
                s.secondary_addr += 1;
                self.oam_addr = self.oam_addr.wrapping_add(1);
            } else if self.sprite_in_range(val) {
                let s = &mut self.sprites;
                s.sprite0_next |= self.render_dot == 66;
                s.copying = 3;
                s.secondary_addr += 1;
                self.oam_addr = self.oam_addr.wrapping_add(1);
            } else {
                self.oam_addr = self.oam_addr.wrapping_add(4);
            }
        } else if self.sprites.copying > 0 {
            // The overflowing sprite's next three bytes are read and dropped; then the scan
            // goes on from byte 0 of the sprite it has reached (the next one if that was the
            // last byte), and only reads from here on (AccuracyCoin's $2004 stress test).
            self.sprites.copying -= 1;
            if self.sprites.copying > 0 {
                self.oam_addr = self.oam_addr.wrapping_add(1);
            } else {
                let next = if self.oam_addr & 3 == 3 { 4 } else { 0 };
                self.oam_addr = (self.oam_addr & 0xFC).wrapping_add(next);
                self.sprites.scan_done = true;
            }
        } else if self.sprite_in_range(val) {
            self.sprite_overflow = true;
            self.sprites.copying = 3;
            self.oam_addr = self.oam_addr.wrapping_add(1);
        } else {
            // The hardware bug: with eight sprites found, a miss advances both the sprite
            // index and the byte index, so later "Y" bytes come from the wrong field.
            self.oam_addr =
                (self.oam_addr.wrapping_add(4) & 0xFC) | self.oam_addr.wrapping_add(1) & 3;
        }
        if self.oam_addr & 0xFC < before & 0xFC && self.sprites.copying == 0 {
            self.sprites.scan_done = true;
        }
    }

    /// Dots 257-320: slot (dot-257)/8 reads its secondary OAM bytes, makes two garbage
    /// nametable fetches, then fetches its pattern row (tile $FF for empty slots).
    fn fetch_sprite(&mut self, cart: &mut Cartridge) {
        let slot = usize::from((self.render_dot - 257) / 8);
        let step = (self.render_dot - 257) % 8;
        let entry = &self.sprites.secondary[slot * 4..slot * 4 + 4];
        let (y, tile, attr, x) = (entry[0], entry[1], entry[2], entry[3]);
        self.sprites.oam_bus = entry[usize::from(step.min(3))];
        match step {
            0 | 2 => {
                self.fetch(cart, 0x2000 | (self.v & 0x0FFF));
            }
            4 => {
                self.sprites.pattern_low = self.fetch(cart, self.sprite_pattern_addr(y, tile, attr))
            }
            6 => {
                let high = self.fetch(cart, self.sprite_pattern_addr(y, tile, attr) | 8);
                let low = self.sprites.pattern_low;
                self.load_slot(slot, self.sprite_in_range(y), low, high, attr, x);
            }
            _ => {}
        }
    }

    fn sprite_pattern_addr(&self, y: u8, tile: u8, attr: u8) -> u16 {
        let height = self.sprite_height();
        let mut row = self.render_line.wrapping_sub(u16::from(y)) & (height - 1);
        if attr & 0x80 != 0 {
            row = height - 1 - row;
        }
        let (table, tile) = if height == 16 {
            (u16::from(tile & 1) << 12, u16::from(tile & 0xFE) + row / 8)
        } else {
            (
                u16::from(self.ppu_ctrl & ctrl::SPRITE_TABLE) << 9,
                u16::from(tile),
            )
        };
        table | tile << 4 | (row & 7)
    }

    /// Loads a slot with a fetched sprite row, transparent unless the sprite's Y is in range
    /// (`in_range`: checked again, as the hardware does: the secondary OAM of an empty slot or
    /// a stale one on the pre-render line may hold anything), and lays it into the line buffer.
    #[inline(always)]
    fn load_slot(&mut self, slot: usize, in_range: bool, low: u8, high: u8, attr: u8, x: u8) {
        let (low, high) = match (in_range, attr & 0x40 != 0) {
            (false, _) => (0, 0),
            (true, false) => (low, high),
            (true, true) => (low.reverse_bits(), high.reverse_bits()),
        };
        let mut flags = (attr & 3) << 2;
        if attr & 0x20 != 0 {
            flags |= BEHIND_BG;
        }
        if slot == 0 && self.sprites.sprite0_in_line {
            flags |= SPRITE0;
        }
        let s = &mut self.sprites;
        s.slots[slot] = Slot {
            low,
            high,
            flags,
            counter: x,
            drawing: s.slots[slot].drawing,
        };
        if low | high != 0 {
            s.count += 1;
            self.draw_sprite_row(low, high, flags, x);
        }
    }

    /// Lays one sprite row into the line buffer; earlier slots win where both are opaque
    /// (whatever their background priority).
    fn draw_sprite_row(&mut self, low: u8, high: u8, flags: u8, x: u8) {
        for px in 0..8 {
            let Some(cell) = self.sprites.line.get_mut(usize::from(x) + px) else {
                break;
            };
            let bit = 7 - px;
            let colour = (low >> bit) & 1 | ((high >> bit) & 1) << 1;
            if colour != 0 && *cell & 3 == 0 {
                *cell = colour | flags;
            }
        }
    }
}
