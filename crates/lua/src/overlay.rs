//! The 256x240 RGBA layer scripts draw on, blended over the emulator picture when a frame is
//! displayed. FCEUX's lifecycle: the first draw after a display clears the layer; a display with
//! nothing drawn since the previous one shows nothing.

use crate::colour::{alpha, Rgba};

pub const WIDTH: usize = 256;
pub const HEIGHT: usize = 240;

/// Our own 3x5 font (rows top to bottom, bit 2 = left column) for ASCII 32-96 and 123-126;
/// lower case is drawn with the capitals. Cells are 4 px wide and 8 px tall like FCEUX's small font's line pitch.
const GLYPHS: [[u8; 5]; 69] = [
    [0, 0, 0, 0, 0],
    [2, 2, 2, 0, 2],
    [5, 5, 0, 0, 0],
    [5, 7, 5, 7, 5],
    [3, 6, 2, 3, 6],
    [5, 1, 2, 4, 5],
    [2, 5, 2, 5, 3],
    [2, 2, 0, 0, 0],
    [1, 2, 2, 2, 1],
    [4, 2, 2, 2, 4],
    [0, 5, 2, 5, 0],
    [0, 2, 7, 2, 0],
    [0, 0, 0, 2, 4],
    [0, 0, 7, 0, 0],
    [0, 0, 0, 0, 2],
    [1, 1, 2, 4, 4],
    [7, 5, 5, 5, 7],
    [2, 6, 2, 2, 7],
    [7, 1, 7, 4, 7],
    [7, 1, 3, 1, 7],
    [5, 5, 7, 1, 1],
    [7, 4, 7, 1, 7],
    [7, 4, 7, 5, 7],
    [7, 1, 1, 2, 2],
    [7, 5, 7, 5, 7],
    [7, 5, 7, 1, 7],
    [0, 2, 0, 2, 0],
    [0, 2, 0, 2, 4],
    [1, 2, 4, 2, 1],
    [0, 7, 0, 7, 0],
    [4, 2, 1, 2, 4],
    [7, 1, 3, 0, 2],
    [7, 5, 7, 4, 7],
    [2, 5, 7, 5, 5],
    [6, 5, 6, 5, 6],
    [3, 4, 4, 4, 3],
    [6, 5, 5, 5, 6],
    [7, 4, 6, 4, 7],
    [7, 4, 6, 4, 4],
    [3, 4, 5, 5, 3],
    [5, 5, 7, 5, 5],
    [7, 2, 2, 2, 7],
    [1, 1, 1, 5, 2],
    [5, 5, 6, 5, 5],
    [4, 4, 4, 4, 7],
    [5, 7, 7, 5, 5],
    [6, 5, 5, 5, 5],
    [2, 5, 5, 5, 2],
    [6, 5, 6, 4, 4],
    [2, 5, 5, 6, 3],
    [6, 5, 6, 5, 5],
    [3, 4, 2, 1, 6],
    [7, 2, 2, 2, 2],
    [5, 5, 5, 5, 7],
    [5, 5, 5, 5, 2],
    [5, 5, 7, 7, 5],
    [5, 5, 2, 5, 5],
    [5, 5, 2, 2, 2],
    [7, 1, 2, 4, 7],
    [3, 2, 2, 2, 3],
    [4, 4, 2, 1, 1],
    [6, 2, 2, 2, 6],
    [2, 5, 0, 0, 0],
    [0, 0, 0, 0, 7],
    [4, 2, 0, 0, 0],
    [3, 2, 6, 2, 3],
    [2, 2, 2, 2, 2],
    [6, 2, 3, 2, 6],
    [0, 3, 6, 0, 0],
];
const CELL_WIDTH: i32 = 4;
const LINE_HEIGHT: i32 = 8;

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
                    let tab = 4 * CELL_WIDTH;
                    let next = x + ((cx - x) / tab + 1) * tab;
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
            self.fill((cx, cy - 1), (CELL_WIDTH, LINE_HEIGHT + 1), bg);
            let glyph = match byte {
                32..=126 => {
                    GLYPHS[usize::from(match byte.to_ascii_uppercase() {
                        upper @ 32..=96 => upper - 32,
                        symbol => symbol - 26 - 32,
                    })]
                }
                _ => [0; 5],
            };
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..3 {
                    if bits & (4 >> col) != 0 {
                        self.blend(cx + col, cy + 1 + row as i32, fg);
                    }
                }
            }
            cx += CELL_WIDTH;
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
