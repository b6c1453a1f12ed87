//! Golden-image test of the PPU: the project's ROM `roms/ppu_golden/golden.nes` (ca65 source
//! beside it) draws a fixed picture; this test computes that picture independently from the
//! scene the ROM sets up and compares the emulator's frame with it, pixel for pixel (9-bit
//! values: palette index and emphasis, so colours are compared exactly). A second test reads
//! nestest.nes's first menu back from the pixels of its frame.
//!
//! What each region checks:
//! - lines 0-101, background: scroll X 13 / Y 21 from nametable 0, so the left 243 columns show
//!   nametable 0 (fine X and fine Y offsets inside tiles, coarse scroll across tiles and
//!   attribute blocks) and the right 13 columns wrap into nametable 1 (horizontal nametable
//!   switch);
//! - every line, the left 8 columns: background clipping (PPUMASK bit 1 clear) shows the
//!   backdrop, while sprites still show there (bit 2 set): sprite 7;
//! - lines 31-52: 8x16 sprites from pattern table 0 with no flip, H flip, V flip and both
//!   (sprites 1-3, one palette each), from table 1 (odd tile number: sprites 4, 5); sprite 5
//!   overlaps sprite 1, which has priority where both are opaque;
//! - lines 61-76: sprites 6 and 7 have background priority: they show only where the
//!   background is transparent (colour 0 of tile 4/5 or the clipped left columns);
//! - line 100: sprite 0's hit, polled by the ROM, times the split; lines 101-239 have blue
//!   emphasis (PPUMASK written during line 100's horizontal blank) and lines 102-239 the new
//!   X scroll 200 from nametable 1 (t is copied to v at dot 257 of line 101), with the vertical
//!   scroll continuing and wrapping after row 29 of the nametable (lines 219+). Line 101 mixes
//!   both: fine X is not part of v, so the $2005 write changes it at once, while coarse X
//!   still comes from the top scroll;
//! - lines 151-166: sprite 8 under emphasis; lines 237-239, columns 248-255: sprite 9 cut by
//!   the bottom and right edges.

use nes::ppu::{HEIGHT, WIDTH};
use nes::Console;

const ROM: &[u8] = include_bytes!("../../roms/ppu_golden/golden.nes");
const CHR_OFFSET: usize = 16 + 16 * 1024;

/// Palette RAM as the ROM writes it (`palettes` in golden.s).
const PALETTES: [u8; 32] = [
    0x0F, 0x01, 0x11, 0x21, 0x00, 0x06, 0x16, 0x26, 0x00, 0x09, 0x19, 0x29, 0x00, 0x0C, 0x1C, 0x2C,
    0x0F, 0x05, 0x15, 0x25, 0x00, 0x08, 0x18, 0x28, 0x00, 0x0A, 0x1A, 0x2A, 0x00, 0x03, 0x13, 0x23,
];

/// OAM as the ROM fills it (`sprites` in golden.s): Y, tile, attributes, X.
const SPRITES: [[u8; 4]; 10] = [
    [99, 0x10, 0x00, 40],
    [30, 0x10, 0x40, 60],
    [30, 0x10, 0x81, 80],
    [30, 0x10, 0xC2, 100],
    [30, 0x21, 0x03, 120],
    [34, 0x21, 0x02, 64],
    [60, 0x21, 0x21, 160],
    [60, 0x10, 0x23, 3],
    [150, 0x10, 0x41, 200],
    [236, 0x21, 0x00, 248],
];

const SCROLL_X_TOP: usize = 13;
const SCROLL_X_BOTTOM: usize = 200;
const SCROLL_Y: usize = 21;
/// First line drawn with blue emphasis and the new fine X; the next one has the whole new scroll.
const EMPHASIS_FROM: usize = 101;
const BLUE_EMPHASIS: u16 = 4 << 6;

/// The 2-bit colour of a pixel of a tile in the ROM's CHR.
fn tile_pixel(table: usize, tile: usize, px: usize, py: usize) -> u8 {
    let base = CHR_OFFSET + table * 0x1000 + tile * 16 + py;
    let bit = |byte: u8| (byte >> (7 - px)) & 1;
    bit(ROM[base]) | bit(ROM[base + 8]) << 1
}

/// Colour (0-3) and palette of the background at a point of the 512x240 world formed by
/// nametables 0 and 1 side by side.
fn background(wx: usize, wy: usize) -> (u8, usize) {
    let (x, column, row) = (wx % 256, (wx % 256) / 8, wy / 8);
    let (tile, palette) = if wx < 256 {
        // Attribute blocks are 4x4 tiles; every quadrant of a block has the same palette.
        (1 + ((column / 4 + row / 2) & 3), (column / 4 + row / 4) & 3)
    } else {
        // $E4 in every attribute byte: quadrant n of each block uses palette n.
        (
            4 + ((column + row) & 1),
            ((row / 2) & 1) * 2 + ((column / 2) & 1),
        )
    };
    (tile_pixel(0, tile, x % 8, wy % 8), palette)
}

/// The front-most opaque sprite pixel at (x, y): colour, palette, behind-background flag.
fn sprite(x: usize, y: usize) -> Option<(u8, usize, bool)> {
    SPRITES.iter().find_map(|&[top, tile, attr, left]| {
        let (top, left) = (usize::from(top) + 1, usize::from(left));
        if !(top..top + 16).contains(&y) || !(left..left + 8).contains(&x) {
            return None;
        }
        let (mut row, mut col) = (y - top, x - left);
        if attr & 0x80 != 0 {
            row = 15 - row;
        }
        if attr & 0x40 != 0 {
            col = 7 - col;
        }
        let tile = usize::from(tile);
        let colour = tile_pixel(tile & 1, (tile & 0xFE) + row / 8, col, row % 8);
        (colour != 0).then_some((colour, usize::from(attr & 3), attr & 0x20 != 0))
    })
}

fn expected_pixel(x: usize, y: usize) -> u16 {
    let (nametable, scroll_x) = match y {
        0..EMPHASIS_FROM => (0, SCROLL_X_TOP),
        // Coarse X of the top scroll, fine X of the bottom one.
        EMPHASIS_FROM => (0, (SCROLL_X_TOP & !7) | (SCROLL_X_BOTTOM & 7)),
        _ => (1, SCROLL_X_BOTTOM),
    };
    let wx = (nametable * 256 + scroll_x + x) % 512;
    let wy = (SCROLL_Y + y) % 240;
    let (bg, bg_palette) = if x < 8 { (0, 0) } else { background(wx, wy) };
    let palette_addr = match sprite(x, y) {
        Some((colour, palette, behind)) if !behind || bg == 0 => {
            0x10 + palette * 4 + usize::from(colour)
        }
        _ if bg != 0 => bg_palette * 4 + usize::from(bg),
        _ => 0,
    };
    let emphasis = if y >= EMPHASIS_FROM { BLUE_EMPHASIS } else { 0 };
    u16::from(PALETTES[palette_addr]) | emphasis
}

#[test]
fn golden_rom_frame_matches_the_scene_pixel_for_pixel() {
    let mut console = Console::from_ines(ROM).expect("golden.nes loads");
    for _ in 0..6 {
        console.run_frame();
    }
    let frame = console.frame_buffer();
    let mut mismatches = Vec::new();
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let (got, want) = (frame[y * WIDTH + x], expected_pixel(x, y));
            if got != want {
                mismatches.push(format!("({x},{y}): got {got:03X}, want {want:03X}"));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} pixels differ, first: {:?}",
        mismatches.len(),
        &mismatches[..mismatches.len().min(12)]
    );
}

#[test]
fn golden_scene_is_not_trivial() {
    // Guards the model itself: the picture has every region the module comment describes.
    let pixels: Vec<u16> = (0..HEIGHT)
        .flat_map(|y| (0..WIDTH).map(move |x| expected_pixel(x, y)))
        .collect();
    let distinct: std::collections::BTreeSet<u16> = pixels.iter().copied().collect();
    assert!(
        distinct.len() > 20,
        "only {} distinct colours",
        distinct.len()
    );
    assert!(pixels.iter().any(|&p| p & BLUE_EMPHASIS != 0));
    assert!(sprite(40, 100).is_some() && background(40 + SCROLL_X_TOP, 100 + SCROLL_Y).0 != 0);
}

/// Reads the text of a frame back from its pixels: each 8x8 cell is matched against the
/// background pattern table's glyphs (pixels that differ from the backdrop against a tile's
/// non-zero pixels); nestest's font puts each character at its ASCII code.
fn screen_text(console: &Console) -> Vec<String> {
    let ppu = console.ppu();
    let table = u16::from(ppu.ppu_ctrl & nes::ppu::ctrl::BG_TABLE) << 8;
    let glyph_mask = |tile: u16| -> u64 {
        (0..64).fold(0, |mask, i| {
            let addr = table | tile << 4 | (i / 8);
            let bit = 7 - (i % 8);
            let lit = (console.ppu_peek(addr) | console.ppu_peek(addr | 8)) >> bit & 1;
            mask | u64::from(lit) << i
        })
    };
    let glyphs: Vec<(u64, char)> = (0x21..0x7F)
        .map(|t| (glyph_mask(t), char::from(t as u8)))
        .collect();
    let backdrop = ppu.frame_buffer[0];
    (0..HEIGHT / 8)
        .map(|row| {
            let line: String = (0..WIDTH / 8)
                .map(|col| {
                    let cell = (0..64).fold(0u64, |mask, i| {
                        let (x, y) = (col * 8 + i % 8, row * 8 + i / 8);
                        mask | u64::from(ppu.frame_buffer[y * WIDTH + x] != backdrop) << i
                    });
                    glyphs
                        .iter()
                        .find(|&&(mask, _)| mask == cell && cell != 0)
                        .map_or(if cell == 0 { ' ' } else { '?' }, |&(_, c)| c)
                })
                .collect();
            line.trim_end().to_string()
        })
        .collect()
}

#[test]
fn nestest_first_menu_shows_its_text() {
    let path = testrom::location::path("nestest/nestest.nes");
    let rom = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut console = Console::from_ines(&rom).expect("nestest.nes loads");
    for _ in 0..30 {
        console.run_frame();
    }
    let text = screen_text(&console);
    for expected in [
        "Run all tests",
        "Branch tests",
        "(Indirect,X) tests",
        "Absolute,X tests",
        "Up/Down: select test",
        "Start: run test",
        "Select: Invalid ops!",
    ] {
        assert!(
            text.iter().any(|line| line.contains(expected)),
            "{expected:?} not on screen:\n{}",
            text.join("\n")
        );
    }
}
