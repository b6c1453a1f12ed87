//! LuaBitOp's `bit` table and the older FCEU globals AND/OR/XOR/SHIFT/BIT.
//! Inputs are numbers reduced modulo 2^32; results are signed 32-bit, as LuaBitOp returns them.

use crate::api::{function, Numbers};
use mlua::{Lua, Result, Table};

/// LuaBitOp's normalisation: round to an integer, keep the low 32 bits, read as signed.
pub fn tobit(x: f64) -> i32 {
    x.round_ties_even().rem_euclid(4_294_967_296.0) as u32 as i32
}

fn fold(args: &[f64], init: i32, op: fn(i32, i32) -> i32) -> i32 {
    args.iter().fold(init, |acc, &x| op(acc, tobit(x)))
}

fn hex(x: f64, digits: Option<f64>) -> String {
    let n = digits.map_or(8, |d| d as i32);
    let upper = n < 0;
    let n = n.unsigned_abs().min(8) as usize;
    let value = tobit(x) as u32 as u64 & ((1u64 << (4 * n)) - 1);
    if upper {
        format!("{value:0n$X}")
    } else {
        format!("{value:0n$x}")
    }
}

/// Fills `bit` and defines the global helpers.
pub fn install(lua: &Lua, globals: &Table) -> Result<Table> {
    let bit = lua.create_table()?;
    bit.set("tobit", function(lua, "tobit", |_, x: f64| Ok(tobit(x)))?)?;
    bit.set("bnot", function(lua, "bnot", |_, x: f64| Ok(!tobit(x)))?)?;
    let band = function(lua, "band", |_, (a, rest): (f64, Numbers)| {
        Ok(fold(&rest.0, tobit(a), |x, y| x & y))
    })?;
    let bor = function(lua, "bor", |_, (a, rest): (f64, Numbers)| {
        Ok(fold(&rest.0, tobit(a), |x, y| x | y))
    })?;
    let bxor = function(lua, "bxor", |_, (a, rest): (f64, Numbers)| {
        Ok(fold(&rest.0, tobit(a), |x, y| x ^ y))
    })?;
    bit.set("band", band.clone())?;
    bit.set("bor", bor.clone())?;
    bit.set("bxor", bxor.clone())?;
    let shift = |op: fn(i32, u32) -> i32| {
        move |_: &Lua, (x, n): (f64, f64)| Ok(op(tobit(x), tobit(n) as u32 & 31))
    };
    bit.set(
        "lshift",
        function(lua, "lshift", shift(|x, n| x.wrapping_shl(n)))?,
    )?;
    bit.set(
        "rshift",
        function(lua, "rshift", shift(|x, n| ((x as u32) >> n) as i32))?,
    )?;
    bit.set("arshift", function(lua, "arshift", shift(|x, n| x >> n))?)?;
    bit.set(
        "rol",
        function(lua, "rol", shift(|x, n| (x as u32).rotate_left(n) as i32))?,
    )?;
    bit.set(
        "ror",
        function(lua, "ror", shift(|x, n| (x as u32).rotate_right(n) as i32))?,
    )?;
    bit.set(
        "bswap",
        function(lua, "bswap", |_, x: f64| Ok(tobit(x).swap_bytes()))?,
    )?;
    bit.set(
        "tohex",
        function(lua, "tohex", |_, (x, n): (f64, Option<f64>)| Ok(hex(x, n)))?,
    )?;

    globals.set("AND", band)?;
    globals.set("OR", bor)?;
    globals.set("XOR", bxor)?;
    globals.set(
        "SHIFT",
        function(lua, "SHIFT", |_, (x, n): (f64, f64)| {
            let (x, n) = (tobit(x) as u32, n as i64);
            Ok(if n >= 0 {
                x.checked_shr(n as u32).unwrap_or(0)
            } else {
                x.checked_shl((-n) as u32).unwrap_or(0)
            } as i32)
        })?,
    )?;
    globals.set(
        "BIT",
        function(lua, "BIT", |_, bits: Numbers| {
            Ok(bits
                .0
                .iter()
                .map(|&b| b as i64)
                .filter(|b| (0..32).contains(b))
                .fold(0u32, |acc, b| acc | 1 << b) as i32)
        })?,
    )?;
    Ok(bit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_to_signed_32_bits() {
        assert_eq!(tobit(2_147_483_648.0), -2_147_483_648);
        assert_eq!(tobit(-1.0), -1);
        assert_eq!(tobit(4_294_967_297.0), 1);
        assert_eq!(hex(255.0, None), "000000ff");
        assert_eq!(hex(-1.0, Some(-4.0)), "FFFF");
    }
}
