//! PPUMASK's bits reach the picture at different dots after a write. The project's ROM
//! `roms/mask_timing/mask_timing.nes` (ca65 source beside it) writes $2001 at timed points of
//! every frame, one write a line, over a uniform background. This test runs it instruction by
//! instruction, notes the dot of each write's access, and checks each written line against the
//! picture the hardware facts give (docs/accuracy.md, "PPUMASK timing"). With A the first dot
//! after the access and pixel x chosen on dot x + 1:
//! - background and sprite visibility, the left-column masks included, change from pixel A;
//! - greyscale and blue emphasis act at the video output, three dots after a pixel's colour is
//!   chosen: from pixel A - 3;
//! - red and green emphasis from the write's own dot at the output: from pixel A - 4.
//!
//! The NMI's latency varies from frame to frame, so the writes land at different dots; the
//! writes at the start of a line reach the left columns in some of the frames run.

use nes::ppu::{mask, WIDTH};
use nes::Console;

const ROM: &[u8] = include_bytes!("../roms/mask_timing/mask_timing.nes");

/// Sprite 0 covers x 0-7 on these lines (`SPRITE_TOP` in the ROM).
const SPRITE_LINES: std::ops::Range<usize> = 60..68;
/// Every frame starts with this mask (`MASK_START`).
const MASK_START: u8 = 0x1E;
const BACKDROP: u8 = 0x02;
const BACKGROUND: u8 = 0x16;
const SPRITE: u8 = 0x2A;
const STA_ABSOLUTE: u8 = 0x8D;

/// A PPUMASK write: its line, the first dot after its access, the value and the one before.
#[derive(Debug)]
struct Write {
    line: usize,
    dot: usize,
    val: u8,
    before: u8,
}

/// Runs to the end of the next frame's picture, noting the PPUMASK writes made in it.
fn run_picture(console: &mut Console) -> Vec<Write> {
    let frame = console.ppu_frames();
    while console.ppu_frames() == frame {
        console.step();
    }
    let mut writes = Vec::new();
    let mut before = MASK_START;
    while console.ppu().scanline < 240 {
        let pc = console.cpu.pc;
        let is_mask_write = console.peek(pc) == STA_ABSOLUTE
            && console.peek(pc.wrapping_add(1)) == 0x01
            && console.peek(pc.wrapping_add(2)) == 0x20;
        let (line, dot) = (
            usize::from(console.ppu().scanline),
            usize::from(console.ppu().dot),
        );
        let val = console.cpu.a;
        console.step();
        if is_mask_write && console.cpu.pc == pc.wrapping_add(3) {
            // Three cycles of three dots, then two dots of the write's cycle before the access.
            let access = dot + 11;
            writes.push(Write {
                line: line + access / 341,
                dot: access % 341,
                val,
                before,
            });
            before = val;
        }
    }
    console.picture_so_far();
    writes
}

/// Pixel `x` of a line drawn with `before` in effect and `write` made on it.
fn expected_pixel(x: usize, line: usize, write: &Write) -> u16 {
    let from = |first: usize| if x >= first { write.val } else { write.before };
    let shown = from(write.dot);
    let output = from(write.dot.saturating_sub(3)) & (mask::GREYSCALE | 0x80)
        | from(write.dot.saturating_sub(4)) & (mask::EMPHASIS_RED | mask::EMPHASIS_GREEN);
    let visible = |on: u8, left: u8| shown & on != 0 && (x >= 8 || shown & left != 0);
    let entry =
        if SPRITE_LINES.contains(&line) && x < 8 && visible(mask::SPRITES, mask::SPRITES_LEFT) {
            SPRITE
        } else if visible(mask::BG, mask::BG_LEFT) {
            BACKGROUND
        } else {
            BACKDROP
        };
    let greyscale = if output & mask::GREYSCALE != 0 {
        0x30
    } else {
        0x3F
    };
    u16::from(entry & greyscale) | u16::from(output & mask::EMPHASIS) << 1
}

#[test]
fn each_mask_bit_reaches_the_picture_at_its_own_dot() {
    let mut console = Console::from_ines(ROM).expect("mask_timing.nes loads");
    for _ in 0..4 {
        console.run_frame();
    }
    let left_columns = mask::BG_LEFT | mask::SPRITES_LEFT;
    let mut left_column_writes_inside = 0;
    for _ in 0..12 {
        let writes = run_picture(&mut console);
        assert_eq!(writes.len(), 15, "{writes:?}");
        let frame = &console.frame_buffer();
        for write in &writes {
            let got = &frame[write.line * WIDTH..][..WIDTH];
            let want: Vec<u16> = (0..WIDTH)
                .map(|x| expected_pixel(x, write.line, write))
                .collect();
            assert_eq!(got, want.as_slice(), "{write:?}");
            if (write.val ^ write.before) & left_columns != 0 && (1..8).contains(&write.dot) {
                left_column_writes_inside += 1;
            }
        }
    }
    // The NMI's latency moved the left-column writes inside the left columns often enough.
    assert!(
        left_column_writes_inside >= 12,
        "{left_column_writes_inside}"
    );
}
