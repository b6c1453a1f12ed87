//! FCEUX's colour arguments: 0xRRGGBBAA numbers, "#hex" strings, names, "Pxx" palette entries,
//! {r,g,b,a} tables. Colours are kept as 0xRRGGBBAA.

use mlua::{Result, Value};

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

/// A common 2C02 palette (RGB per NES colour index), for `getscreenpixel` and "Pxx" colours.
const NES_PALETTE: [[u8; 3]; 64] = [
    [84, 84, 84], [0, 30, 116], [8, 16, 144], [48, 0, 136], [68, 0, 100], [92, 0, 48],
    [84, 4, 0], [60, 24, 0], [32, 42, 0], [8, 58, 0], [0, 64, 0], [0, 60, 0], [0, 50, 60],
    [0, 0, 0], [0, 0, 0], [0, 0, 0],
    [152, 150, 152], [8, 76, 196], [48, 50, 236], [92, 30, 228], [136, 20, 176], [160, 20, 100],
    [152, 34, 32], [120, 60, 0], [84, 90, 0], [40, 114, 0], [8, 124, 0], [0, 118, 40],
    [0, 102, 120], [0, 0, 0], [0, 0, 0], [0, 0, 0],
    [236, 238, 236], [76, 154, 236], [120, 124, 236], [176, 98, 236], [228, 84, 236],
    [236, 88, 180], [236, 106, 100], [212, 136, 32], [160, 170, 0], [116, 196, 0], [76, 208, 32],
    [56, 204, 108], [56, 180, 204], [60, 60, 60], [0, 0, 0], [0, 0, 0],
    [236, 238, 236], [168, 204, 236], [188, 188, 236], [212, 178, 236], [236, 174, 236],
    [236, 174, 212], [236, 180, 176], [228, 196, 144], [204, 210, 120], [180, 222, 120],
    [168, 226, 144], [152, 226, 180], [160, 214, 228], [160, 162, 160], [0, 0, 0], [0, 0, 0],
];

pub fn nes_rgb(index: u8) -> [u8; 3] {
    NES_PALETTE[usize::from(index & 0x3F)]
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
            Some(channel(1, "r", 0)? << 24 | channel(2, "g", 0)? << 16 | channel(3, "b", 0)? << 8 | channel(4, "a", 255)?)
        }
        _ => None,
    })
}

fn parse_str(s: &str, nes_rgb: impl Fn(u8) -> [u8; 3]) -> Option<Rgba> {
    if let Some(hex) = s.strip_prefix('#') {
        let digits = hex.len().min(8);
        let value = u32::from_str_radix(&hex[..digits], 16).ok()?;
        let missing = 8 - digits;
        let shifted = if missing == 8 { 0 } else { value << (4 * missing) };
        return Some(if missing >= 2 { shifted | 0xFF } else { shifted });
    }
    let lower = s.to_ascii_lowercase();
    if lower.starts_with("rand") {
        return Some(random_rgb() << 8 | 0xFF);
    }
    if let Some(index) = s.strip_prefix('P').and_then(|h| u8::from_str_radix(h, 16).ok()) {
        let [r, g, b] = nes_rgb(index & 0x3F);
        return Some(u32::from_be_bytes([r, g, b, 0xFF]));
    }
    NAMES.iter().find(|(name, _)| *name == lower).map(|&(_, c)| c)
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
