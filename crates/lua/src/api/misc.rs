//! `rom`, `debugger`, the Windows-only stubs (`cdlog`, `taseditor`), helper globals
//! and `os.exit`.

use super::{add, int, range_len};
use crate::script::ExitRequest;
use crate::state::{machine, shared};
use mlua::{Lua, MultiValue, Result, Table, Value};

/// CRC-32 (IEEE), as FCEUX's `gethash` computes it.
fn crc32(bytes: &[u8]) -> u32 {
    !bytes.iter().fold(!0u32, |crc, &b| {
        (0..8).fold(crc ^ u32::from(b), |c, _| {
            if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            }
        })
    })
}

pub fn install(
    lua: &Lua,
    globals: &Table,
    library: &mut impl FnMut(&str) -> Result<Table>,
) -> Result<()> {
    let rom = library("rom")?;
    let rom_byte = |lua: &Lua, offset: f64| {
        shared(lua, |s| {
            s.rom.get(int(offset) as usize).copied().unwrap_or(0)
        })
    };
    add(
        lua,
        &rom,
        &["readbyte", "readbyteunsigned"],
        move |lua, offset: f64| Ok(rom_byte(lua, offset)),
    )?;
    add(lua, &rom, &["readbytesigned"], move |lua, offset: f64| {
        Ok(rom_byte(lua, offset) as i8)
    })?;
    add(
        lua,
        &rom,
        &["readbyterange"],
        move |lua, (offset, len): (f64, f64)| {
            let size = shared(lua, |s| s.rom.len());
            let bytes: Vec<u8> = (0..range_len(lua, len, size)?)
                .map(|i| rom_byte(lua, offset + i as f64))
                .collect();
            lua.create_string(&bytes)
        },
    )?;
    // FCEUX gives the file's name without its folder and extension.
    add(lua, &rom, &["getfilename"], |lua, ()| {
        Ok(shared(lua, |s| {
            let path = std::path::Path::new(&s.rom_name);
            path.file_stem()
                .map_or_else(|| s.rom_name.clone(), |stem| stem.to_string_lossy().into())
        }))
    })?;
    add(
        lua,
        &rom,
        &["writebyte"],
        |lua, (offset, value): (f64, f64)| {
            let (offset, value) = (int(offset), int(value) as u8);
            if offset < 16 {
                return Err(mlua::Error::runtime(
                    "rom.writebyte() can't edit the ROM header.",
                ));
            }
            // Live patch of the loaded PRG-ROM or CHR-ROM (offsets past the header, as in the file).
            let at = offset as usize - 16;
            machine(|c| c.patch_rom(at, value));
            shared(lua, |s| {
                if let Some(b) = s.rom.get_mut(offset as usize) {
                    *b = value;
                }
            });
            Ok(())
        },
    )?;

    add(lua, &rom, &["gethash"], |lua, kind: String| {
        // The hash covers the ROM data after the 16-byte header.
        let digest = shared(lua, |s| {
            movie::md5::digest(s.rom.get(16..).unwrap_or_default())
        });
        Ok(match kind.as_str() {
            "md5" => digest.iter().map(|b| format!("{b:02x}")).collect(),
            // As in FCEUX and in .fm2 files' romChecksum.
            "base64" => format!("base64:{}", movie::md5::base64(&digest)),
            _ => String::new(),
        })
    })?;

    let ppu = library("ppu")?;
    let ppu_byte = |addr: i64| machine(|c| c.ppu_peek(addr as u16)).unwrap_or(0);
    add(lua, &ppu, &["readbyte"], move |_, addr: f64| {
        Ok(ppu_byte(int(addr)))
    })?;
    add(
        lua,
        &ppu,
        &["readbyterange"],
        move |lua, (addr, len): (f64, f64)| {
            let bytes: Vec<u8> = (0..range_len(lua, len, 0x4000)? as i64)
                .map(|i| ppu_byte(int(addr).wrapping_add(i)))
                .collect();
            lua.create_string(&bytes)
        },
    )?;

    let debugger = library("debugger")?;
    add(lua, &debugger, &["getcyclescount"], |lua, ()| {
        let cycles = machine(|c| c.cycles()).unwrap_or(0);
        Ok(cycles.saturating_sub(shared(lua, |s| s.cycles_base)))
    })?;
    add(lua, &debugger, &["resetcyclescount"], |lua, ()| {
        let cycles = machine(|c| c.cycles()).unwrap_or(0);
        shared(lua, |s| s.cycles_base = cycles);
        Ok(())
    })?;
    add(lua, &debugger, &["getinstructionscount"], |lua, ()| {
        Ok(shared(lua, |s| s.instructions - s.instructions_base))
    })?;
    add(lua, &debugger, &["resetinstructionscount"], |lua, ()| {
        shared(lua, |s| s.instructions_base = s.instructions);
        Ok(())
    })?;
    add(lua, &debugger, &["hitbreakpoint"], |lua, ()| {
        shared(lua, |s| s.paused = true);
        Ok(())
    })?;
    add(lua, &debugger, &["getsymboloffset"], |_, _: MultiValue| {
        Ok(-1)
    })?;

    // Windows-only in FCEUX: the values its other builds return.
    let cdlog = library("cdlog")?;
    for name in [
        "docdlogger",
        "loadcdlog",
        "loadfile",
        "savecdlogfile",
        "savecdlogfileas",
        "startcdlogging",
        "pausecdlogging",
        "resetcdlog",
    ] {
        add(lua, &cdlog, &[name], |_, _: MultiValue| Ok(0))?;
    }
    // What FCEUX's TAS Editor functions return when it is not engaged (the Qt build returns 0
    // instead of -1 until its TAS Editor window has been opened once).
    let taseditor = library("taseditor")?;
    for (names, value) in [
        (&["engaged", "markedframe"][..], Value::Boolean(false)),
        (
            &[
                "getmarker",
                "setmarker",
                "getcurrentbranch",
                "getsuperimpose",
                "getlostplayback",
                "getplaybacktarget",
                "getinput",
                "applyinputchanges",
            ][..],
            Value::Integer(-1),
        ),
        (
            &["getnote", "getrecordermode"][..],
            Value::String(lua.create_string("")?),
        ),
        (
            &[
                "registerauto",
                "registermanual",
                "removemarker",
                "setnote",
                "setplayback",
                "stopseeking",
                "getselection",
                "setselection",
                "submitinputchange",
                "submitinsertframes",
                "submitdeleteframes",
                "clearinputchanges",
            ][..],
            Value::Nil,
        ),
    ] {
        add(lua, &taseditor, names, move |_, _: MultiValue| {
            Ok(value.clone())
        })?;
    }

    add(lua, globals, &["tobitstring"], |_, n: f64| {
        let bits = format!("{:08b}", int(n) as u8);
        Ok(format!("{} {}", &bits[..4], &bits[4..]))
    })?;
    add(
        lua,
        globals,
        &["gethash"],
        |_, (s, len): (mlua::String, f64)| {
            let bytes = s.as_bytes();
            let len = (int(len).max(0) as usize).min(bytes.len());
            Ok(crc32(&bytes[..len]) as i32)
        },
    )?;
    add(lua, globals, &["addressof"], |_, v: Value| {
        Ok(v.to_pointer() as usize as i64)
    })?;
    add(lua, globals, &["copytable"], |lua, t: Option<Table>| {
        let Some(t) = t else { return Ok(None) };
        let copy = lua.create_table()?;
        for pair in t.clone().pairs::<Value, Value>() {
            let (k, v) = pair?;
            copy.raw_set(k, v)?;
        }
        copy.set_metatable(t.metatable());
        Ok(Some(copy))
    })?;

    // os.exit ends the program; the host does it after unwinding the script.
    let os: Table = globals.get("os")?;
    add(lua, &os, &["exit"], |lua, code: Value| {
        let code = match code {
            Value::Boolean(ok) => i32::from(!ok),
            v => super::number(&v).map_or(0, |n| int(n) as i32),
        };
        shared(lua, |s| s.exit = Some(code));
        Err::<(), _>(mlua::Error::external(ExitRequest))
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn crc32_check_value() {
        assert_eq!(super::crc32(b"123456789"), 0xCBF4_3926);
    }
}
