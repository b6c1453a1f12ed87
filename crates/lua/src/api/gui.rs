//! `gui`: drawing on the script's overlay, colours, opacity, `gui.register`, screenshots.

use super::{add, int, register_slot};
use crate::colour::{self, alpha, with_alpha, Rgba, WHITE};
use crate::script::GUI;
use crate::state::{machine, shared, state};
use mlua::{Lua, Result, Table, Value};

/// gui.text's default background: opaque dark blue.
const TEXT_BACK: Rgba = 0x1B12_69FF;
/// gui.box's default fill: white at alpha 63.
const BOX_FILL: Rgba = 0xFFFF_FF3F;

/// A required colour argument.
fn colour(v: &Value) -> Result<Rgba> {
    match colour::parse(v)? {
        Some(c) => Ok(c),
        None if v.is_nil() => Err(mlua::Error::runtime("invalid colour")),
        None => Err(mlua::Error::runtime(format!(
            "unknown colour {}",
            v.to_string().unwrap_or_default()
        ))),
    }
}

/// An optional colour argument: unknown strings fall back to the default, as in FCEUX.
fn colour_or(v: &Value, default: Rgba) -> Result<Rgba> {
    Ok(colour::parse(v)?.unwrap_or(default))
}

/// Applies gui.opacity to a colour.
fn faded(lua: &Lua, c: Rgba) -> Rgba {
    let opacity = state(lua, |s| s.opacity);
    with_alpha(c, (f64::from(alpha(c)) * opacity).clamp(0.0, 255.0) as u8)
}

/// Far enough off screen that nothing drawn from there shows; coordinates beyond it are pulled
/// in, so the drawing loops stay short and their arithmetic cannot overflow.
const FAR: i32 = 1 << 14;

fn xy(x: f64, y: f64) -> (i32, i32) {
    let clamp = |v: f64| (int(v) as i32).clamp(-FAR, FAR);
    (clamp(x), clamp(y))
}

pub fn install(lua: &Lua, t: &Table) -> Result<()> {
    add(
        lua,
        t,
        &["pixel", "drawpixel", "setpixel", "writepixel"],
        |lua, (x, y, c): (f64, f64, Value)| {
            let c = faded(lua, colour(&c)?);
            let (x, y) = xy(x, y);
            state(lua, |s| s.overlay.pixel(x, y, c));
            Ok(())
        },
    )?;
    add(
        lua,
        t,
        &["line", "drawline"],
        |lua, (x1, y1, x2, y2, c, skip): (f64, f64, f64, f64, Value, Option<bool>)| {
            let c = faded(lua, colour_or(&c, WHITE)?);
            state(lua, |s| {
                s.overlay
                    .line(xy(x1, y1), xy(x2, y2), c, skip.unwrap_or(false))
            });
            Ok(())
        },
    )?;
    add(
        lua,
        t,
        &["box", "drawbox", "rect", "drawrect"],
        |lua, (x1, y1, x2, y2, fill, outline): (f64, f64, f64, f64, Value, Value)| {
            let fill = colour_or(&fill, BOX_FILL)?;
            // FCEUX's default outline is the fill's colour at full alpha.
            let outline = colour_or(&outline, with_alpha(fill, 0xFF))?;
            let (fill, outline) = (faded(lua, fill), faded(lua, outline));
            state(lua, |s| {
                s.overlay.rect(xy(x1, y1), xy(x2, y2), fill, outline)
            });
            Ok(())
        },
    )?;
    add(
        lua,
        t,
        &["text", "drawtext"],
        |lua, (x, y, text, fg, bg): (f64, f64, Value, Value, Value)| {
            let text = match &text {
                Value::String(s) => s.as_bytes().to_vec(),
                other => crate::format::to_string(other)?.into_bytes(),
            };
            let fg = faded(lua, colour_or(&fg, WHITE)?);
            let bg = faded(lua, colour_or(&bg, TEXT_BACK)?);
            let (x, y) = xy(x, y);
            Ok(state(lua, |s| s.overlay.text(x, y, &text, fg, bg)))
        },
    )?;
    add(lua, t, &["getpixel"], |lua, (x, y): (f64, f64)| {
        let (x, y) = (int(x), int(y));
        if !(0..256).contains(&x) || !(0..240).contains(&y) {
            return Err(mlua::Error::runtime("bad coordinates (x 0-255, y 0-239)"));
        }
        let c = state(lua, |s| s.overlay.get(x as usize, y as usize));
        let [r, g, b, a] = c.to_be_bytes();
        Ok((r, g, b, a))
    })?;
    add(lua, t, &["parsecolor"], |lua, c: Value| {
        let [r, g, b, a] = faded(lua, colour(&c)?).to_be_bytes();
        Ok((r, g, b, a))
    })?;
    add(lua, t, &["opacity"], |lua, f: f64| {
        state(lua, |s| s.opacity = f.max(0.0));
        Ok(())
    })?;
    add(lua, t, &["transparency"], |lua, f: f64| {
        state(lua, |s| s.opacity = (1.0 - f / 4.0).max(0.0));
        Ok(())
    })?;
    add(lua, t, &["register"], |lua, f: Value| {
        register_slot(lua, "register", GUI, f)
    })?;
    add(
        lua,
        t,
        &["popup"],
        |_, (_, kind): (Value, Option<String>)| {
            // No one to answer: the default button.
            Ok(match kind.as_deref() {
                Some("yesno") | Some("yesnocancel") => "yes",
                Some("abortretryignore") => "abort",
                _ => "ok",
            })
        },
    )?;
    add(lua, t, &["savescreenshotas"], |lua, path: String| {
        crate::sandbox::check(lua, "gui.savescreenshotas", &path)?;
        shared(lua, |s| s.screenshots.push(path));
        Ok(())
    })?;
    add(lua, t, &["savescreenshot"], |lua, ()| {
        let name = shared(lua, |s| format!("{}-{}.png", s.rom_name, s.framecount));
        shared(lua, |s| s.screenshots.push(name));
        Ok(())
    })?;
    add(lua, t, &["gdscreenshot"], |lua, emu_only: Option<bool>| {
        // gd's truecolor format: FF FE, width, height (big-endian), truecolor flag, no
        // transparent colour, then A,R,G,B per pixel with A = 0 (opaque).
        let mut gd = vec![0xFF, 0xFE, 1, 0, 0, 240, 1, 0xFF, 0xFF, 0xFF, 0xFF];
        let pixels = machine(|c| c.frame_buffer().to_vec()).unwrap_or_else(|| vec![0; 256 * 240]);
        let mut rgb: Vec<u8> = pixels.iter().flat_map(|&p| colour::nes_rgb(p)).collect();
        if !emu_only.unwrap_or(false) {
            state(lua, |s| s.overlay.composite(&mut rgb, 3));
        }
        for px in rgb.chunks_exact(3) {
            gd.extend_from_slice(&[0, px[0], px[1], px[2]]);
        }
        lua.create_string(&gd)
    })?;
    Ok(())
}
