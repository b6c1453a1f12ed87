//! The 256x240 RGBA layer scripts draw on, blended over the emulator picture when a frame is
//! displayed. FCEUX's lifecycle: the first draw after a display clears the layer; a display with
//! nothing drawn since the previous one shows nothing.

use crate::colour::{alpha, Rgba};
use crate::font;

pub const WIDTH: usize = 256;
pub const HEIGHT: usize = 240;

/// Lines of text are this far apart (FCEUX's pitch; glyphs are 7 rows with a 1-pixel halo).
const LINE_HEIGHT: i32 = 8;
/// A tab moves to the next multiple of this many pixels from the text's start.
const TAB: i32 = 24;

#[derive(Clone)]
pub struct Overlay {
    pixels: Vec<Rgba>,
    /// Something was drawn since the last display.
    drawn: bool,
    /// A frame was displayed since the last draw: the next draw starts from a clear layer.
    shown: bool,
    /// Every pixel is clear (most frames of most scripts: nothing to clear or blend).
    blank: bool,
}

impl Default for Overlay {
    fn default() -> Self {
        Overlay {
            pixels: vec![0; WIDTH * HEIGHT],
            drawn: false,
            shown: false,
            blank: true,
        }
    }
}

/// `src` over `dst`, both 0xRRGGBBAA.
fn over(src: Rgba, dst: Rgba) -> Rgba {
    let sa = u32::from(alpha(src));
    if sa == 255 || alpha(dst) == 0 {
        return src;
    }
    if sa == 0 {
        return dst;
    }
    let da = u32::from(alpha(dst)) * (255 - sa) / 255;
    let out_a = sa + da;
    let channel = |shift: u32| {
        let s = (src >> shift) & 0xFF;
        let d = (dst >> shift) & 0xFF;
        ((s * sa + d * da) / out_a) << shift
    };
    channel(24) | channel(16) | channel(8) | out_a
}

impl Overlay {
    fn begin_draw(&mut self) {
        if self.shown {
            self.clear();
            self.shown = false;
        }
        self.drawn = true;
        self.blank = false;
    }

    pub fn pixel(&mut self, x: i32, y: i32, c: Rgba) {
        self.begin_draw();
        self.blend(x, y, c);
    }

    fn blend(&mut self, x: i32, y: i32, c: Rgba) {
        if (0..WIDTH as i32).contains(&x) && (0..HEIGHT as i32).contains(&y) {
            let p = &mut self.pixels[y as usize * WIDTH + x as usize];
            *p = over(c, *p);
        }
    }

    /// Overlay pixel as drawn so far (0 when nothing is there).
    pub fn get(&self, x: usize, y: usize) -> Rgba {
        self.pixels[y * WIDTH + x]
    }

    /// Bresenham from (x1,y1) to (x2,y2).
    pub fn line(
        &mut self,
        (mut x, mut y): (i32, i32),
        (x2, y2): (i32, i32),
        c: Rgba,
        skip_first: bool,
    ) {
        self.begin_draw();
        let (dx, dy) = ((x2 - x).abs(), -(y2 - y).abs());
        let (sx, sy) = ((x2 - x).signum(), (y2 - y).signum());
        let mut err = dx + dy;
        let mut first = true;
        loop {
            if !(first && skip_first) {
                self.blend(x, y, c);
            }
            first = false;
            if x == x2 && y == y2 {
                break;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x += sx;
            }
            if e2 <= dx {
                err += dx;
                y += sy;
            }
        }
    }

    /// Outline plus interior fill; the interior exists only for boxes at least 3 px each way.
    pub fn rect(&mut self, (x1, y1): (i32, i32), (x2, y2): (i32, i32), fill: Rgba, outline: Rgba) {
        self.begin_draw();
        // Sides beyond the edges are invisible: clipping them one pixel off screen draws the same.
        let (w, h) = (WIDTH as i32, HEIGHT as i32);
        let (left, right) = (x1.min(x2).clamp(-1, w), x1.max(x2).clamp(-1, w));
        let (top, bottom) = (y1.min(y2).clamp(-1, h), y1.max(y2).clamp(-1, h));
        for x in left..=right {
            self.blend(x, top, outline);
            if bottom != top {
                self.blend(x, bottom, outline);
            }
        }
        for y in top + 1..bottom {
            self.blend(left, y, outline);
            if right != left {
                self.blend(right, y, outline);
            }
        }
        for y in top + 1..bottom {
            for x in left + 1..right {
                self.blend(x, y, fill);
            }
        }
    }

    fn fill(&mut self, (x, y): (i32, i32), (w, h): (i32, i32), c: Rgba) {
        for yy in y..y + h {
            for xx in x..x + w {
                self.blend(xx, yy, c);
            }
        }
    }

    /// Draws `text` with its top-left at (x, y); returns the x after the last character.
    pub fn text(&mut self, x: i32, y: i32, text: &[u8], fg: Rgba, bg: Rgba) -> i32 {
        self.begin_draw();
        let (mut cx, mut cy) = (x, y);
        let mut line_start = true;
        for &byte in text {
            match byte {
                b'\n' => {
                    cx = x;
                    cy += LINE_HEIGHT;
                    line_start = true;
                    continue;
                }
                b'\t' => {
                    let next = x + ((cx - x) / TAB + 1) * TAB;
                    self.fill((cx, cy - 1), (next - cx, LINE_HEIGHT + 1), bg);
                    cx = next;
                    continue;
                }
                _ => {}
            }
            if cx >= WIDTH as i32 {
                continue;
            }
            if line_start {
                // The halo column left of the first character.
                self.fill((cx - 1, cy - 1), (1, LINE_HEIGHT + 1), bg);
                line_start = false;
            }
            let glyph = font::of(byte);
            self.fill((cx, cy - 1), (glyph.advance(), LINE_HEIGHT + 1), bg);
            for row in 0..glyph.rows.len() {
                for col in 0..glyph.width {
                    if glyph.ink(row, col) {
                        self.blend(cx + i32::from(col), cy + row as i32, fg);
                    }
                }
            }
            cx += glyph.advance();
        }
        cx
    }

    /// Called when a frame is displayed: it shows what was drawn since the previous display.
    pub fn display(&mut self) {
        if !self.drawn {
            self.clear();
        }
        self.drawn = false;
        self.shown = true;
    }

    fn clear(&mut self) {
        if !self.blank {
            self.pixels.fill(0);
            self.blank = true;
        }
    }

    /// Blends the layer over an RGB(A) picture with `channels` bytes per pixel.
    pub fn composite(&self, frame: &mut [u8], channels: usize) {
        if self.blank {
            return;
        }
        for (dst, &src) in frame.chunks_exact_mut(channels).zip(&self.pixels) {
            let a = u32::from(alpha(src));
            if a == 0 {
                continue;
            }
            for (i, d) in dst.iter_mut().take(3).enumerate() {
                let s = (src >> (24 - 8 * i)) & 0xFF;
                *d = ((s * a + u32::from(*d) * (255 - a)) / 255) as u8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_draw_after_display_clears() {
        let mut o = Overlay::default();
        o.pixel(1, 1, 0xFF0000FF);
        o.display();
        assert_eq!(o.pixels[WIDTH + 1], 0xFF0000FF);
        o.pixel(2, 2, 0x00FF00FF);
        assert_eq!(o.get(1, 1), 0);
        assert_eq!(o.get(2, 2), 0x00FF00FF);
        o.display();
        o.display();
        assert!(o.pixels.iter().all(|&p| p == 0));
    }

    /// FCEUX 2.6.5's metrics, measured from its drawing: the advances of ASCII 32-126 (each
    /// drawn 8 times between two `I`s) add up to 488 pixels, and "Ab" at (4, 212) on a colour
    /// has its box from (3, 211) to (14, 219), the `A`'s top row at y = 212.
    #[test]
    fn text_has_fceuxs_metrics() {
        const WHITE: Rgba = 0xFFFFFFFF;
        const BLUE: Rgba = 0x0000FFFF;
        let mut o = Overlay::default();
        let printable: Vec<u8> = (32..=126).collect();
        let widths = printable
            .chunks(32)
            .map(|chunk| o.text(0, 20, chunk, WHITE, 0));
        assert_eq!(widths.sum::<i32>(), 488);
        assert_eq!(o.text(0, 40, b"iiii mmmm 1111 WWWW", WHITE, 0), 98);
        assert_eq!(o.text(0, 60, b"Score 1234567 Lines 089", WHITE, 0), 127);

        let mut o = Overlay::default();
        o.text(4, 212, b"Ab", WHITE, BLUE);
        let painted = |x, y| o.get(x, y) != 0;
        let boxed = (3..=14).all(|x| (211..=219).all(|y| painted(x, y)));
        assert!(boxed, "the box covers x 3-14, y 211-219");
        assert!((2..=15).all(|x| !painted(x, 210) && !painted(x, 220)));
        assert!((211..=219).all(|y| !painted(2, y) && !painted(15, y)));
        // The A's apex row is its first; nothing of it is drawn above y = 212.
        assert!((4..=8).any(|x| o.get(x, 212) == WHITE));
        assert!((4..=8).all(|x| o.get(x, 211) == BLUE));
    }

    #[test]
    fn half_alpha_blends() {
        let mut frame = vec![0u8; WIDTH * HEIGHT * 3];
        let mut o = Overlay::default();
        o.pixel(0, 0, 0xFFFFFF80);
        o.display();
        o.composite(&mut frame, 3);
        assert_eq!(frame[0], 128);
    }
}
