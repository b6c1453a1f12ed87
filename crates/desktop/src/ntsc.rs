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

pub struct Ntsc {
    /// The level of each 9-bit pixel at each phase.
    levels: Vec<[f32; CYCLE]>,
    /// cos and sin of each phase's angle, times 2/12 (chroma's demodulation gain).
    carrier: [(f32, f32); CYCLE],
    /// One scanline's samples, with 6 of padding at each end.
    line: Vec<(f32, usize)>,
}

impl Ntsc {
    pub fn new() -> Ntsc {
        let levels = (0..ENTRIES as u16)
            .map(|pixel| std::array::from_fn(|phase| composite_level(pixel, phase as u16)))
            .collect();
        let carrier = std::array::from_fn(|phase| {
            let angle = phase_angle(phase as u16);
            (angle.cos() / 6.0, angle.sin() / 6.0)
        });
        Ntsc {
            levels,
            carrier,
            line: Vec::with_capacity(WIDTH * SAMPLES + CYCLE),
        }
    }

    /// Decodes a frame buffer (9-bit pixels) into packed RGB, reusing `out`'s allocation.
    /// `frame` is the frame's number (its parity moves the colour phase).
    pub fn filter(&mut self, pixels: &[u16], frame: u64, out: &mut Vec<u8>) {
        out.clear();
        out.reserve(pixels.len() * 3);
        let half = CYCLE / 2;
        for (y, row) in pixels.chunks_exact(WIDTH).take(HEIGHT).enumerate() {
            let start = (4 * y + 4 * (frame as usize % 2)) % CYCLE;
            // The samples of the line (from sample -6), each with its phase; the edges repeat
            // the edge pixels.
            self.line.clear();
            for i in 0..WIDTH * SAMPLES + 2 * half {
                let sample = i as isize - half as isize;
                let inside = sample.clamp(0, (WIDTH * SAMPLES - 1) as isize) as usize;
                let pixel = usize::from(row[inside / SAMPLES]) % ENTRIES;
                let phase = (start as isize + sample).rem_euclid(CYCLE as isize) as usize;
                self.line.push((self.levels[pixel][phase], phase));
            }
            for x in 0..WIDTH {
                // The 12 samples centred on the pixel's centre (sample 8x + 4 of the line).
                let centre = x * SAMPLES + SAMPLES / 2 + half;
                let (mut luma, mut u, mut v) = (0.0, 0.0, 0.0);
                for &(level, phase) in &self.line[centre - half..centre + half] {
                    let (cos, sin) = self.carrier[phase];
                    luma += level;
                    u += level * cos;
                    v += level * sin;
                }
                out.extend_from_slice(&yuv_to_rgb(luma / CYCLE as f32, u, v));
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
        let mut ntsc = Ntsc::new();
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
        let mut ntsc = Ntsc::new();
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
