//! `emu` (and its old name `FCEU`): frame control, counters, callbacks, speed, screen pixels.

use super::{add, int, register_slot};
use crate::script::{AFTER, BEFORE, EXIT};
use crate::state::{machine, shared, MovieMode, Snapshot, SpeedMode, Stream};
use mlua::{Function, Lua, Result, Table, Value};

/// FCEUX's words for a code it cannot read.
fn not_a_code() -> mlua::Error {
    mlua::Error::runtime("Failed to decode game genie code")
}

pub fn install(lua: &Lua, t: &Table) -> Result<()> {
    add(lua, t, &["speedmode"], |lua, mode: String| {
        let speed = match mode.to_ascii_lowercase().as_str() {
            "normal" => SpeedMode::Normal,
            "nothrottle" => SpeedMode::NoThrottle,
            "turbo" => SpeedMode::Turbo,
            "maximum" => SpeedMode::Maximum,
            _ => {
                return Err(mlua::Error::runtime(format!(
                    "Invalid mode {mode} to emu.speedmode"
                )))
            }
        };
        shared(lua, |s| s.speed = speed);
        Ok(())
    })?;
    add(lua, t, &["poweron"], |lua, ()| {
        if !record_command(lua, ::movie::POWER) && machine(|c| c.power_cycle()).is_some() {
            shared(lua, |s| {
                s.lagcount = 0;
                s.restarted();
            });
        }
        Ok(())
    })?;
    // FCEUX: true when the code is in afterwards (added or already there). FCEUX also lets a
    // code in while a movie records, which then desyncs on replay without it: refused here, as
    // nestor refuses to record with codes in (an FM2 file has no place for them).
    add(lua, t, &["addgamegenie"], |lua, code: String| {
        let decoded = nes::GameGenie::decode(&code).ok_or_else(not_a_code)?;
        let recording = shared(lua, |s| {
            s.movie
                .as_ref()
                .is_some_and(|m| m.mode == MovieMode::Record)
                || s.script_movie.as_ref().is_some_and(|m| m.recording())
        });
        if recording {
            return Err(mlua::Error::runtime(format!(
                "emu.addgamegenie: {code}: a movie is being recorded, and a movie cannot hold Game Genie codes"
            )));
        }
        Ok(machine(|c| c.add_game_genie(decoded)).is_some())
    })?;
    add(lua, t, &["delgamegenie"], |_, code: String| {
        let decoded = nes::GameGenie::decode(&code).ok_or_else(not_a_code)?;
        Ok(machine(|c| c.remove_game_genie(decoded)).unwrap_or(false))
    })?;
    add(lua, t, &["softreset"], |lua, ()| {
        if !record_command(lua, ::movie::SOFT_RESET) && machine(|c| c.reset()).is_some() {
            shared(lua, |s| s.restarted());
        }
        Ok(())
    })?;
    add(lua, t, &["pause"], |lua, ()| {
        shared(lua, |s| {
            if s.headless && !s.paused {
                s.print(
                    Stream::Err,
                    "emu.pause(): no window to pause in a headless run; continuing",
                );
            }
            s.paused = true;
        });
        Ok(())
    })?;
    add(lua, t, &["unpause"], |lua, ()| {
        shared(lua, |s| s.paused = false);
        Ok(())
    })?;
    add(lua, t, &["paused"], |lua, ()| Ok(shared(lua, |s| s.paused)))?;
    add(lua, t, &["framecount"], |lua, ()| {
        Ok(shared(lua, |s| s.framecount))
    })?;
    add(lua, t, &["lagcount"], |lua, ()| {
        Ok(shared(lua, |s| s.lagcount))
    })?;
    add(lua, t, &["lagged"], |lua, ()| Ok(shared(lua, |s| s.lagged)))?;
    add(lua, t, &["setlagflag"], |lua, lagged: bool| {
        shared(lua, |s| s.lagged = lagged);
        Ok(())
    })?;
    add(
        lua,
        t,
        &["emulating"],
        |_, ()| Ok(machine(|_| ()).is_some()),
    )?;
    add(lua, t, &["registerbefore"], |lua, f: Value| {
        register_slot(lua, "registerbefore", BEFORE, f)
    })?;
    add(lua, t, &["registerafter"], |lua, f: Value| {
        register_slot(lua, "registerafter", AFTER, f)
    })?;
    add(lua, t, &["registerexit"], |lua, f: Value| {
        register_slot(lua, "registerexit", EXIT, f)
    })?;
    add(lua, t, &["message"], |lua, text: Value| {
        let text = crate::format::to_string(&text)?;
        shared(lua, |s| s.messages.push(text));
        Ok(())
    })?;
    add(
        lua,
        t,
        &["getscreenpixel"],
        |lua, (x, y, emu_only): (f64, f64, Option<bool>)| {
            let (x, y) = (int(x), int(y));
            if !(0..256).contains(&x) || !(0..240).contains(&y) {
                return Err(mlua::Error::runtime("bad coordinates (x 0-255, y 0-239)"));
            }
            let (x, y) = (x as usize, y as usize);
            let index = machine(|c| c.frame_buffer()[y * 256 + x]);
            let Some(index) = index else {
                return Ok((0, 0, 0, 254));
            };
            let [mut r, mut g, mut b] = crate::colour::nes_rgb(index);
            if !emu_only.unwrap_or(false) {
                let over = crate::state::state(lua, |s| s.overlay.get(x, y));
                let a = u32::from(crate::colour::alpha(over));
                let mix = |d: u8, shift: u32| {
                    ((((over >> shift) & 0xFF) * a + u32::from(d) * (255 - a)) / 255) as u8
                };
                (r, g, b) = (mix(r, 24), mix(g, 16), mix(b, 8));
            }
            Ok((r, g, b, index & 0x3F))
        },
    )?;
    add(
        lua,
        t,
        &["setrenderplanes"],
        |lua, (sprites, background): (bool, bool)| {
            shared(lua, |s| s.render_planes = (sprites, background));
            Ok(())
        },
    )?;
    super::movie::add_readonly(lua, t, &["readonly"])?;
    add(lua, t, &["getdir"], |_, ()| {
        Ok(std::env::current_exe()
            .ok()
            .and_then(|p| p.parent().map(|d| d.display().to_string()))
            .unwrap_or_default())
    })?;
    add(lua, t, &["exit"], |lua, ()| {
        shared(lua, |s| s.exit = Some(0));
        Ok(())
    })?;
    add(
        lua,
        t,
        &["exec_count"],
        |lua, (count, f): (f64, Function)| {
            // 0 when f completed within `count` Lua instructions.
            let count = int(count).clamp(0, i64::from(i32::MAX)) as u32;
            let completed =
                crate::watchdog::with_instruction_limit(lua, count, || f.call::<()>(()).is_ok());
            Ok(if completed { 0 } else { 1 })
        },
    )?;
    add(lua, t, &["exec_time"], |_, _: mlua::MultiValue| Ok(()))?;
    Ok(())
}

/// While a script records a movie, a power-on or reset waits for the next frame's start,
/// where the movie logs it and its playback applies it (as in FCEUX). False when not recording.
fn record_command(lua: &Lua, command: u8) -> bool {
    shared(lua, |s| {
        match s.script_movie.as_mut().filter(|m| m.recording()) {
            Some(movie) => {
                movie.commands |= command;
                true
            }
            None => false,
        }
    })
}

/// The machine state a savestate keeps.
pub fn snapshot(lua: &Lua) -> Option<Snapshot> {
    let console = machine(|c| Box::new(c.clone()))?;
    let counters = shared(lua, |s| s.counters());
    Some(Snapshot {
        console,
        counters: Some(counters),
    })
}

pub fn restore(lua: &Lua, snap: &Snapshot) {
    let Some(moved) = machine(|c| {
        let before = c.ppu_frames();
        *c = (*snap.console).clone();
        c.ppu_frames().wrapping_sub(before)
    }) else {
        return;
    };
    shared(lua, |s| match snap.counters {
        Some(counters) => s.set_counters(counters),
        None => s.follow_machine_frames(moved),
    });
}
