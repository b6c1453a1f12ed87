//! `sound.get`: what the 2A03's channels are sounding, as FCEUX reports it.

use super::add;
use crate::state::machine;
use mlua::{Lua, Result, Table};
use nes::apu::Voice;

/// A4 = MIDI key 69 = 440 Hz, twelve keys an octave.
fn midikey(frequency: f64) -> f64 {
    69.0 + 12.0 * (frequency / 440.0).log2()
}

/// The fields every channel has: volume 0-1, frequency, midikey, regs.frequency.
fn channel(lua: &Lua, voice: &Voice) -> Result<Table> {
    let t = lua.create_table()?;
    t.set("volume", f64::from(voice.volume) / 15.0)?;
    t.set("frequency", voice.frequency)?;
    t.set("midikey", midikey(voice.frequency))?;
    let regs = lua.create_table()?;
    regs.set("frequency", voice.period)?;
    t.set("regs", regs)?;
    Ok(t)
}

pub fn install(lua: &Lua, t: &Table) -> Result<()> {
    add(lua, t, &["get"], |lua, ()| {
        let Some((voices, sample)) = machine(|c| (c.apu().voices(), c.apu().dmc_sample())) else {
            return Ok(None);
        };
        let [square1, square2, triangle, noise, dpcm] = voices;
        let chip = lua.create_table()?;
        for (name, voice) in [("square1", square1), ("square2", square2)] {
            let square = channel(lua, &voice)?;
            square.set("duty", voice.mode)?;
            chip.set(name, square)?;
        }
        chip.set("triangle", channel(lua, &triangle)?)?;
        let noise_table = channel(lua, &noise)?;
        noise_table.set("short", noise.mode == 1)?;
        chip.set("noise", noise_table)?;
        let dpcm_table = channel(lua, &dpcm)?;
        dpcm_table.set("dmcaddress", sample.address)?;
        dpcm_table.set("dmcsize", sample.length)?;
        dpcm_table.set("dmcloop", sample.looping)?;
        dpcm_table.set("dmcseed", sample.level)?;
        chip.set("dpcm", dpcm_table)?;
        let sound = lua.create_table()?;
        sound.set("rp2a03", chip)?;
        Ok(Some(sound))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn midikey_of_a4_and_an_octave_up() {
        assert_eq!(super::midikey(440.0), 69.0);
        assert_eq!(super::midikey(880.0), 81.0);
    }
}
