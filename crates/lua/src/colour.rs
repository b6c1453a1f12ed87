//! FCEUX's colour arguments: 0xRRGGBBAA numbers, "#hex" strings, names, "Pxx" palette entries,
//! {r,g,b,a} tables. Colours are kept as 0xRRGGBBAA.

use mlua::{Result, Value};
use nes::ppu::palette::Palette;
use std::sync::LazyLock;

pub type Rgba = u32;

pub const WHITE: Rgba = 0xFFFF_FFFF;

const NAMES: [(&str, Rgba); 16] = [
    ("white", 0xFFFFFFFF),
    ("black", 0x000000FF),
    ("clear", 0x00000000),
    ("gray", 0x7F7F7FFF),
    ("grey", 0x7F7F7FFF),
    ("red", 0xFF0000FF),
    ("orange", 0xFF7F00FF),
    ("yellow", 0xFFFF00FF),
    ("chartreuse", 0x7FFF00FF),
    ("green", 0x00FF00FF),
    ("teal", 0x00FF7FFF),
    ("cyan", 0x00FFFFFF),
    ("blue", 0x0000FFFF),
    ("purple", 0x7F00FFFF),
    ("magenta", 0xFF00FFFF),
    ("transparent", 0x00000000),
];

/// The machine's built-in 2C02 palette, for `getscreenpixel`, screenshots and "Pxx" colours.
static PALETTE: LazyLock<Palette> = LazyLock::new(Palette::default);

/// RGB of a 9-bit PPU pixel (colour index plus emphasis).
pub fn nes_rgb(pixel: u16) -> [u8; 3] {
    PALETTE.rgb(pixel)
}

pub fn alpha(c: Rgba) -> u8 {
    c as u8
}

pub fn with_alpha(c: Rgba, a: u8) -> Rgba {
    (c & 0xFFFF_FF00) | Rgba::from(a)
}

/// Parses a colour; `Ok(None)` for nil and for strings no rule knows (FCEUX's callers then
/// either fall back to a default or raise their own error).
pub fn parse(v: &Value) -> Result<Option<Rgba>> {
    Ok(match v {
        Value::Nil => None,
        Value::Integer(i) => Some(*i as u32),
        Value::Number(n) => Some(*n as i64 as u32),
        Value::String(s) => parse_str(&s.to_string_lossy(), nes_rgb),
        Value::Table(t) => {
            let channel = |index: i64, name: &str, default: i64| -> Result<u32> {
                let v: Option<f64> = match t.get::<Option<f64>>(name)? {
                    Some(v) => Some(v),
                    None => t.get::<Option<f64>>(index)?,
                };
                Ok(v.map_or(default, |v| v as i64).clamp(0, 255) as u32)
            };
            Some(
                channel(1, "r", 0)? << 24
                    | channel(2, "g", 0)? << 16
                    | channel(3, "b", 0)? << 8
                    | channel(4, "a", 255)?,
            )
        }
        _ => None,
    })
}

fn parse_str(s: &str, nes_rgb: impl Fn(u16) -> [u8; 3]) -> Option<Rgba> {
    if let Some(hex) = s.strip_prefix('#') {
        let digits = hex.len().min(8);
        let value = u32::from_str_radix(&hex[..digits], 16).ok()?;
        let missing = 8 - digits;
        let shifted = if missing == 8 {
            0
        } else {
            value << (4 * missing)
        };
        return Some(if missing >= 2 {
            shifted | 0xFF
        } else {
            shifted
        });
    }
    let lower = s.to_ascii_lowercase();
    if lower.starts_with("rand") {
        return Some(random_rgb() << 8 | 0xFF);
    }
    if let Some(index) = s
        .strip_prefix('P')
        .and_then(|h| u8::from_str_radix(h, 16).ok())
    {
        let [r, g, b] = nes_rgb(u16::from(index & 0x3F));
        return Some(u32::from_be_bytes([r, g, b, 0xFF]));
    }
    NAMES
        .iter()
        .find(|(name, _)| *name == lower)
        .map(|&(_, c)| c)
}

/// A cheap random colour for "rand..." names (scripts only want variety).
fn random_rgb() -> u32 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::time::Instant::now()) as u32 & 0xFF_FFFF
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Option<Rgba> {
        parse_str(s, |_| [1, 2, 3])
    }

    #[test]
    fn fceux_colour_strings() {
        assert_eq!(p("#FF0000"), Some(0xFF0000FF));
        assert_eq!(p("#11223344"), Some(0x11223344));
        assert_eq!(p("#F00"), Some(0xF00000FF));
        assert_eq!(p("Red"), Some(0xFF0000FF));
        assert_eq!(p("P0F"), Some(0x010203FF));
        assert_eq!(p("nope"), None);
    }
}
