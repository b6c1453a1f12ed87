//! Turning the PPU's 9-bit pixels into RGB.
//!
//! The 2C02 has no RGB palette: it emits a composite signal. Each colour $xy is a square wave
//! between two measured voltages (luma row x), at one of twelve phases of the 3.58 MHz colour
//! clock (hue column y). The three emphasis bits of PPUMASK attenuate the signal during the
//! halves of the colour cycle that belong to red, green and blue. The built-in palette samples
//! that wave at the twelve phases and decodes it the way a TV does (YUV, then RGB), for all 512
//! combinations of colour and emphasis. The PAL PPUs (2C07, 6538) make the same wave, decoded
//! by a PAL TV 15 degrees further on in hue (nesdev wiki, "PAL video": blues move toward green,
//! greens toward red, reds toward blue).

use crate::region::Region;
use std::fmt;

/// Terminated output voltages from the nesdev wiki's "NTSC video" measurements, per luma row:
/// the low and high levels of the square wave, then the same with emphasis attenuation.
const LOW: [f32; 4] = [0.228, 0.312, 0.552, 0.880];
const HIGH: [f32; 4] = [0.616, 0.840, 1.100, 1.100];
const LOW_EMPHASIZED: [f32; 4] = [0.192, 0.256, 0.448, 0.712];
const HIGH_EMPHASIZED: [f32; 4] = [0.500, 0.676, 0.896, 0.896];
/// Colour $1D is black, $20 is white.
const BLACK: f32 = 0.312;
const WHITE: f32 = 1.100;
/// The hue columns whose wave gates the attenuator for PPUMASK bits 5 (red), 6 (green), 7 (blue).
const EMPHASIS_HUES: [u16; 3] = [0xC, 0x4, 0x8];
/// Emphasis as a plain RGB attenuation, for 64-entry palette files: the ratio of the attenuated
/// to the normal voltage (about 0.816 on every level).
const CHANNEL_ATTENUATION: f32 = 0.816;

/// How far a PAL TV's hues sit from an NTSC TV's, in degrees (toward -U from +V).
const PAL_HUE_SHIFT: f32 = -15.0;

/// Number of palette entries: 64 colours times 8 emphasis combinations.
pub const ENTRIES: usize = 512;

/// An RGB colour for each 9-bit pixel value (`colour | emphasis << 6`).
#[derive(Clone, PartialEq, Eq)]
pub struct Palette {
    rgb: Box<[[u8; 3]; ENTRIES]>,
}

/// Why bytes could not be used as a .pal file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PaletteError {
    /// A .pal file holds 64 or 512 RGB triples: 192 or 1536 bytes.
    BadSize(usize),
}

impl fmt::Display for PaletteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PaletteError::BadSize(n) => write!(
                f,
                "palette file has {n} bytes; expected 192 (64 colours) or 1536 (512 colours)"
            ),
        }
    }
}

impl std::error::Error for PaletteError {}

impl Default for Palette {
    /// The built-in 2C02 palette, decoded from the composite signal model.
    fn default() -> Self {
        Palette::for_region(Region::Ntsc)
    }
}

impl Palette {
    /// The built-in palette of `region`'s PPU: the 2C02's, or the PAL PPUs' with its hue shift.
    pub fn for_region(region: Region) -> Palette {
        let hue_shift = if region.pal_video() {
            PAL_HUE_SHIFT.to_radians()
        } else {
            0.0
        };
        let mut rgb = Box::new([[0; 3]; ENTRIES]);
        for (pixel, entry) in (0u16..).zip(rgb.iter_mut()) {
            *entry = decode_composite(pixel, hue_shift);
        }
        Palette { rgb }
    }

    /// Parses a .pal file: 64 RGB triples (emphasis then attenuates the other channels) or 512
    /// triples (one per colour and emphasis combination, in pixel-value order).
    pub fn from_pal_bytes(bytes: &[u8]) -> Result<Palette, PaletteError> {
        let triples = match bytes.len() {
            192 => 64,
            1536 => ENTRIES,
            n => return Err(PaletteError::BadSize(n)),
        };
        let mut rgb = Box::new([[0; 3]; ENTRIES]);
        for (pixel, entry) in rgb.iter_mut().enumerate() {
            let i = (pixel % triples) * 3;
            let mut colour = [bytes[i], bytes[i + 1], bytes[i + 2]];
            if triples == 64 {
                attenuate_channels(&mut colour, (pixel >> 6) as u8);
            }
            *entry = colour;
        }
        Ok(Palette { rgb })
    }

    /// The colour of one frame-buffer pixel (palette index in bits 0-5, emphasis in 6-8).
    pub fn rgb(&self, pixel: u16) -> [u8; 3] {
        self.rgb[usize::from(pixel) % ENTRIES]
    }

    /// Converts a frame buffer into packed RGB bytes, reusing `out`'s allocation.
    pub fn to_rgb(&self, frame: &[u16], out: &mut Vec<u8>) {
        out.clear();
        out.reserve(frame.len() * 3);
        for &pixel in frame {
            out.extend_from_slice(&self.rgb(pixel));
        }
    }

    /// Converts a frame buffer into packed RGBA bytes (alpha 255), reusing `out`'s allocation.
    pub fn to_rgba(&self, frame: &[u16], out: &mut Vec<u8>) {
        out.clear();
        out.reserve(frame.len() * 4);
        for &pixel in frame {
            let [r, g, b] = self.rgb(pixel);
            out.extend_from_slice(&[r, g, b, 255]);
        }
    }
}

/// Emphasis on a 64-colour palette: each set bit dims the two channels it does not name.
fn attenuate_channels(colour: &mut [u8; 3], emphasis: u8) {
    for (channel, value) in colour.iter_mut().enumerate() {
        let dimmed = (0..3).any(|bit| emphasis & (1 << bit) != 0 && bit != channel);
        if dimmed {
            *value = (f32::from(*value) * CHANNEL_ATTENUATION).round() as u8;
        }
    }
}

/// Whether the square wave of hue column `hue` is high at colour-clock phase `phase` (0-11).
fn in_colour_phase(hue: u16, phase: u16) -> bool {
    (hue + phase) % 12 < 6
}

/// The composite voltage of `pixel` at one of the twelve phases of a colour cycle.
fn signal(pixel: u16, phase: u16) -> f32 {
    let hue = pixel & 0x0F;
    // $xE and $xF output black, the low level of row 1.
    let row = if hue >= 0xE {
        1
    } else {
        usize::from((pixel >> 4) & 3)
    };
    let emphasis = pixel >> 6;
    let attenuated = EMPHASIS_HUES
        .iter()
        .enumerate()
        .any(|(bit, &h)| emphasis & (1 << bit) != 0 && in_colour_phase(h, phase));
    let (low, high) = if attenuated {
        (LOW_EMPHASIZED[row], HIGH_EMPHASIZED[row])
    } else {
        (LOW[row], HIGH[row])
    };
    let high_now = match hue {
        0 => true,
        0xD..=0xF => false,
        _ => in_colour_phase(hue, phase),
    };
    if high_now {
        high
    } else {
        low
    }
}

/// The composite level of `pixel` (`colour | emphasis << 6`) at colour-clock phase `phase`
/// (0-11), from 0 (black, $1D) to 1 (white, $20): what an NTSC filter samples.
pub fn composite_level(pixel: u16, phase: u16) -> f32 {
    (signal(pixel % ENTRIES as u16, phase % 12) - BLACK) / (WHITE - BLACK)
}

/// Where phase `phase` (0-11) of the colour clock sits in the UV plane, in radians: hue column
/// n's wave is centred on phase 14.5 - n and sits at 30n - 60 degrees (column 2 on +U, column 8
/// on the colour burst's -U).
pub fn phase_angle(phase: u16) -> f32 {
    (15.0 - 30.0 * f32::from(phase % 12)).to_radians()
}

/// A TV's YUV to RGB, each channel clamped to 0-255.
pub fn yuv_to_rgb(y: f32, u: f32, v: f32) -> [u8; 3] {
    let r = y + 1.140 * v;
    let g = y - 0.395 * u - 0.581 * v;
    let b = y + 2.032 * u;
    [r, g, b].map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8)
}

/// Decodes one colour as a TV would: luma is the average level over a colour cycle; chroma is
/// demodulated against the colour burst, `hue_shift` radians on from NTSC's.
fn decode_composite(pixel: u16, hue_shift: f32) -> [u8; 3] {
    let (mut y, mut u, mut v) = (0.0f32, 0.0f32, 0.0f32);
    for phase in 0..12u16 {
        let level = composite_level(pixel, phase);
        let angle = phase_angle(phase) + hue_shift;
        y += level / 12.0;
        u += level * angle.cos() / 6.0;
        v += level * angle.sin() / 6.0;
    }
    yuv_to_rgb(y, u, v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_palette_has_black_white_and_hues_in_order() {
        let p = Palette::default();
        assert_eq!(p.rgb(0x0F), [0, 0, 0]);
        assert_eq!(p.rgb(0x1D), [0, 0, 0]);
        assert_eq!(p.rgb(0x20), [255, 255, 255]);
        assert_eq!(p.rgb(0x30), p.rgb(0x20));
        // Greys rise with the luma row.
        let grey = |c: u16| p.rgb(c)[1];
        assert!(grey(0x2D) < grey(0x00) && grey(0x00) < grey(0x10) && grey(0x10) < grey(0x20));
        // $x2 is blue, $x6 red, $xA green.
        let [r, g, b] = p.rgb(0x12);
        assert!(b > r && b > g, "$12 = {:?}", p.rgb(0x12));
        let [r, g, b] = p.rgb(0x16);
        assert!(r > g && r > b, "$16 = {:?}", p.rgb(0x16));
        let [r, g, b] = p.rgb(0x1A);
        assert!(g > r && g > b, "$1A = {:?}", p.rgb(0x1A));
    }

    #[test]
    fn emphasis_darkens_the_other_colours() {
        let p = Palette::default();
        // Red emphasis (bit 6 of the pixel) on white: red stays on top, blue and green drop.
        let [r, g, b] = p.rgb(0x20 | 1 << 6);
        assert!(r > g && r > b && g < 255, "{:?}", [r, g, b]);
        let [r, g, b] = p.rgb(0x20 | 4 << 6);
        assert!(b > r && b > g, "{:?}", [r, g, b]);
        // All three: a uniformly darker grey.
        let [r, g, b] = p.rgb(0x20 | 7 << 6);
        assert!(
            r < 255 && r.abs_diff(g) < 3 && g.abs_diff(b) < 3,
            "{:?}",
            [r, g, b]
        );
    }

    /// The PAL palette: same greys, hues turned 15 degrees (blue toward green, red toward
    /// blue), and PAL for the Dendy too.
    #[test]
    fn pal_ppus_turn_the_hues() {
        let (ntsc, pal) = (Palette::default(), Palette::for_region(Region::Pal));
        assert!(pal == Palette::for_region(Region::Dendy));
        for grey in [0x00, 0x0F, 0x10, 0x20, 0x2D] {
            assert_eq!(pal.rgb(grey), ntsc.rgb(grey), "${grey:02X}");
        }
        // $12 (blue): more green in PAL. $16 (red): more blue.
        assert!(pal.rgb(0x12)[1] > ntsc.rgb(0x12)[1]);
        assert!(pal.rgb(0x16)[2] > ntsc.rgb(0x16)[2]);
        // PAL's $12 sits between NTSC's $12 and its neighbour toward green, $11.
        let hue = |[r, g, b]: [u8; 3]| {
            let (r, g, b) = (f32::from(r), f32::from(g), f32::from(b));
            (3f32.sqrt() * (g - b)).atan2(2.0 * r - g - b).to_degrees()
        };
        let (from, to, turned) = (hue(ntsc.rgb(0x12)), hue(ntsc.rgb(0x11)), hue(pal.rgb(0x12)));
        assert!(
            (from.min(to)..from.max(to)).contains(&turned),
            "{from} {turned} {to}"
        );
    }

    #[test]
    fn pal_files_of_64_and_512_entries_load_and_other_sizes_fail() {
        let mut bytes = vec![0u8; 192];
        bytes[3..6].copy_from_slice(&[200, 100, 50]);
        let p = Palette::from_pal_bytes(&bytes).unwrap();
        assert_eq!(p.rgb(1), [200, 100, 50]);
        // Green emphasis dims red and blue.
        assert_eq!(p.rgb(1 | 2 << 6), [163, 100, 41]);

        let full: Vec<u8> = (0..1536).map(|i| (i % 251) as u8).collect();
        let p = Palette::from_pal_bytes(&full).unwrap();
        assert_eq!(p.rgb(511), [full[1533], full[1534], full[1535]]);

        for n in [0, 191, 193, 1535, 4096] {
            assert_eq!(
                Palette::from_pal_bytes(&vec![0; n]).err(),
                Some(PaletteError::BadSize(n))
            );
        }
    }

    #[test]
    fn frame_conversion_packs_pixels() {
        let p = Palette::default();
        let mut out = Vec::new();
        p.to_rgba(&[0x20, 0x0F], &mut out);
        assert_eq!(out, [255, 255, 255, 255, 0, 0, 0, 255]);
        p.to_rgb(&[0x0F], &mut out);
        assert_eq!(out, [0, 0, 0]);
    }
}
