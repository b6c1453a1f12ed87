//! What the NTSC filter (Video > NTSC filter) costs a frame, against the plain palette lookup
//! it replaces and the emulation of the frame, over 600 frames of Quadfall's title and demo.
//!
//! `cargo bench -p desktop --bench ntsc` prints the wall-clock time of each part a frame; under
//! `valgrind --tool=callgrind` the three parts are the functions `emulate`, `plain` and
//! `filtered`, whose inclusive instruction counts compare in one run (docs/speed.md).

use desktop::ntsc::Ntsc;
use nes::ppu::palette::Palette;
use nes::Console;
use std::hint::black_box;
use std::time::{Duration, Instant};

const FRAMES: u64 = 600;

#[inline(never)]
fn emulate(console: &mut Console) {
    console.run_frame();
}

#[inline(never)]
fn plain(palette: &Palette, pixels: &[u16], rgb: &mut Vec<u8>) {
    palette.to_rgb(pixels, rgb);
}

#[inline(never)]
fn filtered(ntsc: &mut Ntsc, pixels: &[u16], frame: u64, rgb: &mut Vec<u8>) {
    ntsc.filter(pixels, frame, rgb);
}

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../roms/quadfall.nes");
    let rom = std::fs::read(path).expect("roms/quadfall.nes");
    let mut console = Console::from_ines(&rom).expect("Quadfall loads");
    let (palette, mut ntsc, mut rgb) = (Palette::default(), Ntsc::default(), Vec::new());
    let mut times = [Duration::ZERO; 3];
    let mut timed = |part: usize, work: &mut dyn FnMut()| {
        let start = Instant::now();
        work();
        times[part] += start.elapsed();
    };
    for frame in 0..FRAMES {
        timed(0, &mut || emulate(&mut console));
        timed(1, &mut || plain(&palette, console.frame_buffer(), &mut rgb));
        black_box(&rgb);
        timed(2, &mut || {
            filtered(&mut ntsc, console.frame_buffer(), frame, &mut rgb)
        });
        black_box(&rgb);
    }
    for (name, time) in ["emulation", "palette", "NTSC filter"].iter().zip(times) {
        let each = time.as_secs_f64() * 1000.0 / FRAMES as f64;
        println!("{name}: {each:.3} ms a frame");
    }
}
