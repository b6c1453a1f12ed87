//! `nestor run`: runs a ROM headless for a number of frames, with scripted input, and saves
//! the last frame as a PNG.

use crate::input_script::InputScript;
use crate::{load_console, RomArg};
use anyhow::{bail, Context};
use nes::ppu::palette::Palette;
use nes::ppu::{HEIGHT, WIDTH};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    rom: RomArg,
    /// Run without a window (the only mode of this command for now).
    #[arg(long)]
    headless: bool,
    /// Frames to run.
    #[arg(long)]
    frames: u64,
    /// Save the last frame here as a PNG.
    #[arg(long, value_name = "FILE")]
    screenshot: Option<PathBuf>,
    /// Scale the screenshot by this whole factor.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    scale: u32,
    /// Controller 1 input script (`frame buttons` lines, see README).
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// A 64- or 512-colour .pal file instead of the built-in 2C02 palette.
    #[arg(long, value_name = "FILE")]
    palette: Option<PathBuf>,
    /// FCEUX Lua script to run alongside (repeatable; see scripts/README.md).
    #[arg(long = "lua", value_name = "SCRIPT")]
    lua: Vec<PathBuf>,
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if !args.headless {
        bail!("`nestor run` needs --headless (the window front end is not wired into it yet)");
    }
    let script = match &args.input {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            InputScript::parse(&text).with_context(|| path.display().to_string())?
        }
        None => InputScript::default(),
    };
    let palette = match &args.palette {
        Some(path) => {
            let bytes =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            Palette::from_pal_bytes(&bytes).with_context(|| path.display().to_string())?
        }
        None => Palette::default(),
    };
    let (name, mut console) = load_console(&args.rom)?;
    let mut scripts = if args.lua.is_empty() {
        None
    } else {
        let mut scripts = lua::Scripts::new(crate::rom_bytes(&args.rom)?.1, &name);
        for path in &args.lua {
            scripts
                .load(&mut console, path)
                .map_err(anyhow::Error::msg)?;
        }
        Some(scripts)
    };
    let frames = testrom::contain_panics(|| {
        let mut pad = nes::Buttons::default();
        for frame in 0..args.frames {
            if let Some(buttons) = script.change_at(frame) {
                pad = buttons;
                console.set_buttons(0, buttons);
            }
            match &mut scripts {
                // Scripts run the frame in FCEUX's order, the pad going through joypad.set.
                Some(scripts) => {
                    scripts.set_pads([pad.0, 0]);
                    scripts.run_frame(&mut console);
                    if scripts.exit_code().is_some() {
                        return frame + 1;
                    }
                }
                None => console.run_frame(),
            }
        }
        args.frames
    })
    .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    println!("{name}: ran {frames} frames");
    if let Some(path) = &args.screenshot {
        let mut rgb = Vec::new();
        palette.to_rgb(&console.bus.ppu.frame_buffer, &mut rgb);
        if let Some(scripts) = &scripts {
            scripts.composite(&mut rgb, 3);
        }
        write_png(path, &rgb, args.scale)?;
        println!("screenshot: {}", path.display());
    }
    let Some(mut scripts) = scripts else {
        return Ok(ExitCode::SUCCESS);
    };
    let exit = scripts.exit_code();
    scripts.stop_all(&mut console);
    // os.exit(n) ends nestor with n, as it ends FCEUX.
    Ok(ExitCode::from(exit.unwrap_or(0) as u8))
}

/// Writes a 256x240 RGB picture, each pixel repeated `scale` times in both directions.
fn write_png(path: &Path, rgb: &[u8], scale: u32) -> anyhow::Result<()> {
    let k = scale as usize;
    let mut scaled = Vec::with_capacity(rgb.len() * k * k);
    for row in rgb.chunks_exact(WIDTH * 3) {
        let mut line = Vec::with_capacity(row.len() * k);
        for pixel in row.chunks_exact(3) {
            for _ in 0..k {
                line.extend_from_slice(pixel);
            }
        }
        for _ in 0..k {
            scaled.extend_from_slice(&line);
        }
    }
    let file =
        std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    let mut encoder = png::Encoder::new(
        std::io::BufWriter::new(file),
        WIDTH as u32 * scale,
        HEIGHT as u32 * scale,
    );
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder
        .write_header()
        .with_context(|| format!("cannot write {}", path.display()))?;
    writer
        .write_image_data(&scaled)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
