//! The NTSC composite filter (Video > NTSC filter): the picture as a TV decodes the signal the
//! 2C02 sends, instead of one flat colour per pixel.
//!
//! The PPU draws each pixel as 8 samples of a square wave whose colour cycle is 12 samples long
//! (the levels, phases and emphasis of nes::ppu::palette, from the nesdev wiki's "NTSC video").
//! So a pixel's colour spills into its neighbours: a TV decodes every output pixel from the 12
//! samples around its centre, luma as their mean and chroma demodulated against the colour
//! burst. Where the picture is flat this gives the palette's own colours; at a vertical edge it
//! gives the colour fringes of a composite picture. A scanline is 341 x 8 samples, 4 more than a
//! whole number of colour cycles, so the phase moves by 4 samples each line (the pattern repeats
//! every 3 lines), and by 4 more every other frame.

use nes::ppu::palette::{composite_level, phase_angle, yuv_to_rgb, ENTRIES};
use nes::ppu::{HEIGHT, WIDTH};

/// Samples the PPU outputs per pixel.
const SAMPLES: usize = 8;
/// Samples in a colour cycle.
const CYCLE: usize = 12;
/// A pixel starts on colour phase 0, 4 or 8 (8 samples a pixel, 12 a cycle).
const STARTS: usize = CYCLE / 4;

/// Luma, U and V.
type Yuv = [f32; 3];

/// A TV decodes each shown pixel from the 12 samples centred on it: the last 2 of the pixel on
/// its left, its own 8 and the first 2 of the one on its right. The sums are linear, so what
/// each pixel adds in each of those three places, at each phase it can start on, is worked out
/// once: a frame is then three lookups and a sum a pixel.
pub struct Ntsc {
    /// Indexed by the 9-bit pixel times [`STARTS`] plus its starting phase / 4: what its last
    /// 2 samples add to the pixel on its right.
    to_right: Vec<Yuv>,
    /// What its 8 samples add to itself.
    to_itself: Vec<Yuv>,
    /// What its first 2 samples add to the pixel on its left.
    to_left: Vec<Yuv>,
}

impl Default for Ntsc {
    fn default() -> Ntsc {
        // What samples `from..to` of a pixel add when it starts on phase `start`.
        let part = |pixel: u16, start: usize, from: usize, to: usize| -> Yuv {
            let mut yuv = [0.0; 3];
            for k in from..to {
                let phase = ((start + k) % CYCLE) as u16;
                let level = composite_level(pixel, phase);
                let angle = phase_angle(phase);
                // Chroma's demodulation gain over a cycle is 2/12.
                yuv[0] += level / CYCLE as f32;
                yuv[1] += level * angle.cos() / 6.0;
                yuv[2] += level * angle.sin() / 6.0;
            }
            yuv
        };
        let table = |from: usize, to: usize| -> Vec<Yuv> {
            (0..ENTRIES as u16)
                .flat_map(|pixel| (0..STARTS).map(move |i| part(pixel, 4 * i, from, to)))
                .collect()
        };
        Ntsc {
            to_right: table(SAMPLES - 2, SAMPLES),
            to_itself: table(0, SAMPLES),
            to_left: table(0, 2),
        }
    }
}

impl Ntsc {
    /// Decodes a frame buffer (9-bit pixels) into packed RGB, reusing `out`'s allocation.
    /// `frame` is the frame's number (its parity moves the colour phase).
    pub fn filter(&mut self, pixels: &[u16], frame: u64, out: &mut Vec<u8>) {
        out.clear();
        out.reserve(pixels.len() * 3);
        let entry = |pixel: u16, start: usize| usize::from(pixel) % ENTRIES * STARTS + start;
        for (y, row) in pixels.chunks_exact(WIDTH).take(HEIGHT).enumerate() {
            // The line's first pixel starts on phase 0, 4 or 8 (in fours: 0-2); each next
            // pixel 8 samples later, 2 fours on. The edges repeat the edge pixels.
            let mut start = (y + frame as usize % 2) % STARTS;
            for x in 0..WIDTH {
                let (left, right) = (row[x.saturating_sub(1)], row[(x + 1).min(WIDTH - 1)]);
                let a = self.to_right[entry(left, (start + 1) % STARTS)];
                let b = self.to_itself[entry(row[x], start)];
                let c = self.to_left[entry(right, (start + 2) % STARTS)];
                out.extend_from_slice(&yuv_to_rgb(
                    a[0] + b[0] + c[0],
                    a[1] + b[1] + c[1],
                    a[2] + b[2] + c[2],
                ));
                start = (start + 2) % STARTS;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nes::ppu::palette::Palette;

    fn frame(colour: impl Fn(usize, usize) -> u16) -> Vec<u16> {
        (0..WIDTH * HEIGHT)
            .map(|i| colour(i % WIDTH, i / WIDTH))
            .collect()
    }

    fn rgb(out: &[u8], x: usize, y: usize) -> [u8; 3] {
        out[(y * WIDTH + x) * 3..][..3].try_into().unwrap()
    }

    /// Flat colours decode to the palette's own, on every line's phase and with emphasis.
    #[test]
    fn flat_colours_are_the_palettes() {
        let palette = Palette::default();
        let mut ntsc = Ntsc::default();
        let mut out = Vec::new();
        for pixel in [
            0x0F,
            0x20,
            0x16,
            0x2A,
            0x12,
            0x00,
            0x16 | 0x40,
            0x30 | 0x1C0,
        ] {
            ntsc.filter(&frame(|_, _| pixel), 1, &mut out);
            for (x, y) in [(0, 0), (128, 1), (200, 2), (255, 239)] {
                let (got, want) = (rgb(&out, x, y), palette.rgb(pixel));
                let close = got.iter().zip(want).all(|(&a, b)| a.abs_diff(b) <= 1);
                assert!(
                    close,
                    "${pixel:03X} at ({x}, {y}): {got:?}, palette {want:?}"
                );
            }
        }
    }

    /// A vertical edge between black and white: grey on a TV would be colourless, but the
    /// composite signal gives colour fringes beside the edge, which change from line to line;
    /// away from the edge the colours are the palette's.
    #[test]
    fn a_vertical_edge_has_colour_fringes() {
        let mut ntsc = Ntsc::default();
        let mut out = Vec::new();
        let edge = 100;
        ntsc.filter(
            &frame(|x, _| if x < edge { 0x0F } else { 0x20 }),
            0,
            &mut out,
        );
        let chroma = |[r, g, b]: [u8; 3]| r.max(g).max(b) - r.min(g).min(b);
        for y in 0..3 {
            let fringe = (edge - 1..=edge)
                .map(|x| chroma(rgb(&out, x, y)))
                .max()
                .unwrap();
            assert!(fringe > 20, "line {y}: no fringe at the edge");
            assert_eq!(rgb(&out, 10, y), [0, 0, 0]);
            assert_eq!(rgb(&out, 200, y), [255, 255, 255]);
        }
        let lines: Vec<[u8; 3]> = (0..3).map(|y| rgb(&out, edge, y)).collect();
        assert!(lines[0] != lines[1] || lines[1] != lines[2], "{lines:?}");
    }
}
