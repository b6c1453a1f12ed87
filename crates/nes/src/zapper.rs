//! NES Zapper: a light gun on D3 (light sense, 0 while it sees light) and D4 (trigger, 1 while
//! pulled) of its port's register; it has no shift register and ignores the strobe.
//!
//! Light sense (nesdev wiki, "Zapper"): the photodiode sees the CRT's beam pass the spot it is
//! aimed at and stays on for a while after it, about 26 lines for white, 24 for light gray and
//! 19 for dark gray (Zap Ruder's measurements), and not at all for dark colours. Here the spot
//! is the pixel aimed at: the gun sees light while the beam drew it less than that many lines
//! ago, with the line count in proportion to the pixel's brightness.

use crate::ppu::palette::composite_level;
use crate::ppu::{HEIGHT, WIDTH};
use crate::state::{fields, Field, StateIo};

/// PPU dots in a line.
const DOTS_PER_LINE: u32 = 341;
/// Luma (0 black, 1 white) of dark gray, colour $00: the sensor stays on for 19 lines.
const DARK_GRAY: f32 = 0.3857;
/// The darkest pixel the sensor reacts to (a little under dark gray, above the blues of
/// row 1 and gray $2D).
const THRESHOLD: f32 = 0.35;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Zapper {
    /// The pixel the gun points at (x, y), or None when it points away from the picture.
    pub aim: Option<(u8, u8)>,
    pub trigger: bool,
}

impl Field for Zapper {
    fn visit(&mut self, io: &mut StateIo) {
        let Zapper { aim, trigger } = self;
        fields!(io, aim, trigger);
        io.checked(aim, "Zapper aim", |aim| {
            aim.is_none_or(|(_, y)| usize::from(y) < HEIGHT)
        });
    }
}

impl Zapper {
    /// D3 and D4 of a read, with the beam at `line` and `dot` of a frame of `lines` lines,
    /// and `picture` the pixels as the beam last drew them.
    pub fn read(&self, picture: &[u16], line: u16, dot: u16, lines: u16) -> u8 {
        let dark = !self.sees_light(picture, line, dot, lines);
        u8::from(self.trigger) << 4 | u8::from(dark) << 3
    }

    /// Whether the photodiode is on: the beam drew the aimed pixel recently, and bright.
    pub fn sees_light(&self, picture: &[u16], line: u16, dot: u16, lines: u16) -> bool {
        let Some((x, y)) = self.aim else {
            return false;
        };
        let frame = u32::from(lines) * DOTS_PER_LINE;
        let beam = u32::from(line) * DOTS_PER_LINE + u32::from(dot);
        // Pixel x of a line comes out on dot x + 1.
        let drawn = u32::from(y) * DOTS_PER_LINE + u32::from(x) + 1;
        // Dots since the beam last drew the pixel, this frame or the one before.
        let since = (beam + frame - drawn) % frame;
        let luma = luma(picture[usize::from(y) * WIDTH + usize::from(x)]);
        since > 0 && luma >= THRESHOLD && (since as f32) <= lit_lines(luma) * DOTS_PER_LINE as f32
    }
}

/// A pixel's brightness: its composite signal averaged over a colour cycle, 0 black, 1 white.
fn luma(pixel: u16) -> f32 {
    (0..12)
        .map(|phase| composite_level(pixel, phase))
        .sum::<f32>()
        / 12.0
}

/// How many lines the sensor stays on after the beam drew a pixel of brightness `luma`: 19 for
/// dark gray to 26 for white.
fn lit_lines(luma: f32) -> f32 {
    19.0 + 7.0 * (luma - DARK_GRAY) / (1.0 - DARK_GRAY)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINES: u16 = 262;
    const WHITE: u16 = 0x20;
    const BLACK: u16 = 0x0F;

    /// A black picture with a white 16x16 box whose top left corner is at (100, 50).
    fn target() -> Vec<u16> {
        let mut picture = vec![BLACK; WIDTH * HEIGHT];
        for y in 50..66 {
            picture[y * WIDTH + 100..y * WIDTH + 116].fill(WHITE);
        }
        picture
    }

    fn aimed(x: u8, y: u8) -> Zapper {
        Zapper {
            aim: Some((x, y)),
            trigger: false,
        }
    }

    #[test]
    fn sees_a_white_box_from_when_the_beam_draws_it_for_26_lines() {
        let picture = target();
        let gun = aimed(108, 57);
        let light = |line, dot| gun.sees_light(&picture, line, dot, LINES);
        assert!(!light(20, 0), "the beam is above the box");
        assert!(!light(57, 109), "the beam is on the pixel, not past it");
        assert!(light(57, 110));
        assert!(light(70, 0));
        assert!(light(57 + 25, 200));
        assert!(!light(57 + 26, 110), "the light has drained out");
        assert!(!light(250, 0));
    }

    #[test]
    fn sees_nothing_on_black_or_away_from_the_picture() {
        let picture = target();
        assert!(!aimed(20, 57).sees_light(&picture, 60, 0, LINES));
        let away = Zapper {
            aim: None,
            trigger: true,
        };
        assert!(!away.sees_light(&picture, 60, 0, LINES));
        assert_eq!(away.read(&picture, 60, 0, LINES), 0x18, "dark and pulled");
    }

    #[test]
    fn brightness_sets_how_long_the_light_stays() {
        // Dark gray ($00) 19 lines, light gray ($10) between, white 26.
        let lit = |colour: u16| {
            let picture = vec![colour; WIDTH * HEIGHT];
            (1..40)
                .take_while(|&n| aimed(0, 100).sees_light(&picture, 100 + n, 1, LINES))
                .count()
        };
        assert_eq!((lit(0x00), lit(0x20)), (19, 26));
        assert!((20..26).contains(&lit(0x10)));
        assert_eq!(lit(0x12), 0, "blue is too dark");
    }

    #[test]
    fn a_pixel_near_the_bottom_stays_lit_into_the_next_frame() {
        let picture = vec![WHITE; WIDTH * HEIGHT];
        let gun = aimed(0, 239);
        // 23 lines later: 22 more of this frame, then line 0 of the next.
        assert!(gun.sees_light(&picture, 0, 1, LINES));
        assert!(!gun.sees_light(&picture, 5, 1, LINES));
    }

    #[test]
    fn read_puts_light_on_d3_inverted_and_the_trigger_on_d4() {
        let picture = target();
        let mut gun = aimed(108, 57);
        assert_eq!(gun.read(&picture, 60, 0, LINES), 0x00, "light, released");
        gun.trigger = true;
        assert_eq!(gun.read(&picture, 60, 0, LINES), 0x10, "light, pulled");
        assert_eq!(gun.read(&picture, 200, 0, LINES), 0x18, "dark, pulled");
    }
}
