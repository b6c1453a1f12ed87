//! The picture: the NES frame scaled by a whole number into the window, centred, aspect kept.
//!
//! Scaling is done here on the CPU (nearest neighbour) into a buffer the size of the picture, so
//! the GPU only copies it: that keeps square pixels exact and lets the 8:7 mode stretch columns
//! without a custom shader. pixels centres the buffer in the window with black bars around it.
//! The UI (egui) is drawn over it in the same frame.

use crate::ui::Painted;
use egui_wgpu::{Renderer, ScreenDescriptor};
use nes::ppu::{HEIGHT, WIDTH};
use pixels::{wgpu, Pixels, PixelsBuilder, SurfaceTexture};
use std::sync::Arc;
use winit::dpi::PhysicalSize;
use winit::window::Window;

/// Width over height of one NES pixel on a TV.
const TV_PIXEL_ASPECT: f64 = 8.0 / 7.0;

/// Size of the picture at a whole-number `scale`.
pub fn picture_size(scale: u32, aspect_8_7: bool) -> (u32, u32) {
    let width = WIDTH as f64 * f64::from(scale);
    let width = if aspect_8_7 {
        (width * TV_PIXEL_ASPECT).round()
    } else {
        width
    };
    (width as u32, HEIGHT as u32 * scale)
}

/// The largest scale whose picture fits in `window` (at least 1).
pub fn fitting_scale(window: PhysicalSize<u32>, aspect_8_7: bool) -> u32 {
    (1..=64)
        .take_while(|&scale| {
            let (w, h) = picture_size(scale, aspect_8_7);
            w <= window.width && h <= window.height
        })
        .last()
        .unwrap_or(1)
}

/// Nearest-neighbour scaling of packed RGB (`WIDTH` x `HEIGHT`) into RGBA of `width` x `height`.
/// With `scanlines`, the last window row of each NES line is drawn at half brightness, as the
/// dark gap between a CRT's lines (at 2x and more: at 1x a line has no row to spare).
pub fn scale_into(rgb: &[u8], width: u32, height: u32, scanlines: bool, rgba: &mut [u8]) {
    let (width, height) = (width as usize, height as usize);
    let columns: Vec<usize> = (0..width).map(|x| x * WIDTH / width).collect();
    for (y, row) in rgba.chunks_exact_mut(width * 4).enumerate() {
        let line = y * HEIGHT / height;
        let source = &rgb[line * WIDTH * 3..][..WIDTH * 3];
        let gap = scanlines && height >= 2 * HEIGHT && (y + 1) * HEIGHT / height != line;
        let shift = u8::from(gap);
        for (out, &x) in row.chunks_exact_mut(4).zip(&columns) {
            for (channel, &value) in out[..3].iter_mut().zip(&source[x * 3..x * 3 + 3]) {
                *channel = value >> shift;
            }
            out[3] = 255;
        }
    }
}

pub struct Video {
    pixels: Pixels<'static>,
    ui: Renderer,
    aspect_8_7: bool,
    picture: (u32, u32),
    /// The window's size in pixels.
    surface: (u32, u32),
}

impl Video {
    pub fn new(window: Arc<Window>, aspect_8_7: bool) -> Result<Video, String> {
        let size = window.inner_size();
        let surface = SurfaceTexture::new(size.width.max(1), size.height.max(1), window);
        let scale = fitting_scale(size, aspect_8_7);
        let picture = picture_size(scale, aspect_8_7);
        // The emulator paces frames itself; presenting must never wait for a vertical blank.
        let pixels = PixelsBuilder::new(picture.0, picture.1, surface)
            .enable_vsync(false)
            .build()
            .map_err(|e| format!("cannot start the renderer: {e}"))?;
        let ui = Renderer::new(
            &pixels.context().device,
            pixels.render_texture_format(),
            None,
            1,
        );
        Ok(Video {
            pixels,
            ui,
            aspect_8_7,
            picture,
            surface: (size.width.max(1), size.height.max(1)),
        })
    }

    pub fn aspect_8_7(&self) -> bool {
        self.aspect_8_7
    }

    /// Follows a window resize: the picture takes the largest whole scale that fits.
    pub fn resize(&mut self, window: PhysicalSize<u32>) -> Result<(), String> {
        if window.width == 0 || window.height == 0 {
            return Ok(()); // minimised
        }
        self.pixels
            .resize_surface(window.width, window.height)
            .map_err(|e| e.to_string())?;
        self.surface = (window.width, window.height);
        self.fit(window)
    }

    pub fn set_aspect_8_7(&mut self, on: bool, window: PhysicalSize<u32>) -> Result<(), String> {
        self.aspect_8_7 = on;
        self.fit(window)
    }

    fn fit(&mut self, window: PhysicalSize<u32>) -> Result<(), String> {
        let picture = picture_size(fitting_scale(window, self.aspect_8_7), self.aspect_8_7);
        if picture != self.picture {
            self.picture = picture;
            self.pixels
                .resize_buffer(picture.0, picture.1)
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// The NES pixel under window position (`x`, `y`), None off the picture.
    pub fn nes_pixel(&self, x: f64, y: f64) -> Option<(u8, u8)> {
        let (px, py) = self.pixels.window_pos_to_pixel((x as f32, y as f32)).ok()?;
        let (w, h) = self.picture;
        let x = u8::try_from(px * WIDTH / w as usize).ok()?;
        let y = u8::try_from(py * HEIGHT / h as usize).ok()?;
        Some((x, y))
    }

    /// The NES pixel under a window position (outside the picture: clamped to its edge).
    pub fn nes_position(&self, x: f64, y: f64) -> (i32, i32) {
        let (px, py) = self
            .pixels
            .window_pos_to_pixel((x as f32, y as f32))
            .unwrap_or_else(|outside| {
                let (w, h) = self.picture;
                let clamp = |v: isize, n: u32| v.clamp(0, n as isize - 1) as usize;
                (clamp(outside.0, w), clamp(outside.1, h))
            });
        let (w, h) = self.picture;
        (
            (px * WIDTH / w as usize) as i32,
            (py * HEIGHT / h as usize) as i32,
        )
    }

    /// Shows one frame given as packed RGB at the NES's resolution, with the UI over it.
    pub fn draw(&mut self, rgb: &[u8], scanlines: bool, ui: &Painted) -> Result<(), String> {
        let (width, height) = self.picture;
        scale_into(rgb, width, height, scanlines, self.pixels.frame_mut());
        let context = self.pixels.context();
        for (id, delta) in &ui.textures.set {
            self.ui
                .update_texture(&context.device, &context.queue, *id, delta);
        }
        let screen = ScreenDescriptor {
            size_in_pixels: [self.surface.0, self.surface.1],
            pixels_per_point: ui.pixels_per_point,
        };
        let renderer = &mut self.ui;
        let drawn = self.pixels.render_with(|encoder, target, context| {
            context.scaling_renderer.render(encoder, target);
            if ui.jobs.is_empty() {
                return Ok(()); // nothing over the picture: no second pass
            }
            let (device, queue) = (&context.device, &context.queue);
            renderer.update_buffers(device, queue, encoder, &ui.jobs, &screen);
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("ui"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    resolve_target: None,
                    // Over the picture, not instead of it.
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
            });
            renderer.render(&mut pass, &ui.jobs, &screen);
            Ok(())
        });
        for id in &ui.textures.free {
            self.ui.free_texture(id);
        }
        drawn.map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_scale_fits_exactly_and_8_7_widens() {
        assert_eq!(picture_size(3, false), (768, 720));
        assert_eq!(picture_size(3, true), (878, 720));
        assert_eq!(fitting_scale(PhysicalSize::new(768, 720), false), 3);
        assert_eq!(fitting_scale(PhysicalSize::new(877, 720), true), 2);
        assert_eq!(fitting_scale(PhysicalSize::new(1920, 1080), false), 4);
        assert_eq!(fitting_scale(PhysicalSize::new(100, 100), false), 1);
    }

    #[test]
    fn scaling_repeats_each_pixel_scale_times() {
        let mut rgb = vec![0u8; WIDTH * HEIGHT * 3];
        // One red pixel at (1, 2).
        rgb[(2 * WIDTH + 1) * 3] = 255;
        let (w, h) = picture_size(2, false);
        let mut rgba = vec![0u8; (w * h * 4) as usize];
        scale_into(&rgb, w, h, false, &mut rgba);
        let red = |rgba: &[u8], x: usize, y: usize| rgba[(y * w as usize + x) * 4];
        for (x, y) in [(2, 4), (3, 4), (2, 5), (3, 5)] {
            assert_eq!(red(&rgba, x, y), 255, "({x}, {y})");
        }
        for (x, y) in [(1, 4), (4, 4), (2, 3), (2, 6)] {
            assert_eq!(red(&rgba, x, y), 0, "({x}, {y})");
        }
        assert!(rgba.chunks_exact(4).all(|p| p[3] == 255));

        // Scanlines: the NES line's second row at half brightness, the first as it was.
        scale_into(&rgb, w, h, true, &mut rgba);
        assert_eq!((red(&rgba, 2, 4), red(&rgba, 2, 5)), (255, 127));
        assert!(rgba.chunks_exact(4).all(|p| p[3] == 255));
    }

    #[test]
    fn scanlines_darken_one_row_in_three_at_3x_and_none_at_1x() {
        let rgb = vec![200u8; WIDTH * HEIGHT * 3];
        for scale in [1, 3] {
            let (w, h) = picture_size(scale, false);
            let mut rgba = vec![0u8; (w * h * 4) as usize];
            scale_into(&rgb, w, h, true, &mut rgba);
            let rows: Vec<u8> = (0..6).map(|y| rgba[y * w as usize * 4]).collect();
            let want = if scale == 3 {
                [200, 200, 100, 200, 200, 100]
            } else {
                [200; 6]
            };
            assert_eq!(rows, want, "{scale}x");
        }
    }
}
