//! Cheats as FCEUX keeps them: raw cheats (an address, a value, maybe a compare byte) and Game
//! Genie codes, each with a name and on or off, read from and written to FCEUX's `.cht` files.
//!
//! A `.cht` line is `[S][C][:]AAAA:VV[:CC]:name`: `S` marks a substitute cheat (reads of the
//! address answer the value, as a Game Genie does), `C` a compare byte `CC` (the substitution
//! happens only while the real byte is `CC`), a `:` before the address a cheat that is off;
//! numbers are hexadecimal. Without `S` the value is written into RAM every frame.
//!
//! How they act here: a substitute cheat on $8000-$FFFF is a Game Genie code in the cartridge
//! (compare included); a cheat on RAM ($0000-$1FFF, $6000-$7FFF) is written at the start of
//! every frame, for a substitute one only while the byte there is its compare byte (a read
//! substitution seen at frame starts); other addresses do nothing, as in FCEUX.

use nes::{Console, GameGenie};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cheat {
    pub name: String,
    pub addr: u16,
    pub value: u8,
    pub compare: Option<u8>,
    /// A read substitution (`S`), else a RAM write.
    pub substitute: bool,
    pub enabled: bool,
}

impl Cheat {
    /// A Game Genie code (6 or 8 letters) as the substitute cheat it stands for, named after
    /// the code.
    pub fn game_genie(code: &str) -> Result<Cheat, String> {
        let decoded = GameGenie::parse(code)?;
        Ok(Cheat {
            name: code.to_ascii_uppercase(),
            addr: decoded.addr,
            value: decoded.value,
            compare: decoded.compare,
            substitute: true,
            enabled: true,
        })
    }

    /// What a person types in the Cheats window: a Game Genie code, or `AAAA:VV` or
    /// `AAAA:VV:CC` in hexadecimal (a RAM write; with a compare byte, a substitution).
    pub fn parse(text: &str, name: &str) -> Result<Cheat, String> {
        let text = text.trim();
        if !text.contains(':') {
            let mut cheat = Cheat::game_genie(text)?;
            if !name.trim().is_empty() {
                cheat.name = name.trim().into();
            }
            return Ok(cheat);
        }
        let parts: Vec<&str> = text.split(':').collect();
        let hex = |part: &str, digits: usize, what: &str| {
            let part = part.trim();
            if part.is_empty() || part.len() > digits {
                return Err(format!("`{text}`: {what} is 1 to {digits} hex digits"));
            }
            u16::from_str_radix(part, 16).map_err(|_| format!("`{text}`: {what} is not hex"))
        };
        let (addr, value, compare) = match parts[..] {
            [a, v] => (hex(a, 4, "the address")?, hex(v, 2, "the value")?, None),
            [a, v, c] => (
                hex(a, 4, "the address")?,
                hex(v, 2, "the value")?,
                Some(hex(c, 2, "the compare byte")? as u8),
            ),
            _ => return Err(format!("`{text}` is not AAAA:VV or AAAA:VV:CC")),
        };
        Ok(Cheat {
            name: name.trim().into(),
            addr,
            value: value as u8,
            compare,
            substitute: compare.is_some(),
            enabled: true,
        })
    }

    /// The Game Genie code it is, when it acts in the cartridge's ROM.
    fn cartridge_code(&self) -> Option<GameGenie> {
        (self.substitute && self.addr >= 0x8000).then_some(GameGenie {
            addr: self.addr,
            value: self.value,
            compare: self.compare,
        })
    }

    /// Whether it writes RAM at frame starts.
    fn writes_ram(&self) -> bool {
        self.addr < 0x2000 || (0x6000..0x8000).contains(&self.addr)
    }

    /// Whether it does anything at all.
    pub fn acts(&self) -> bool {
        self.cartridge_code().is_some() || self.writes_ram()
    }

    /// `AAAA:VV` or `AAAA:VV:CC`, as typed.
    pub fn code(&self) -> String {
        match self.compare {
            Some(compare) => format!("{:04X}:{:02X}:{compare:02X}", self.addr, self.value),
            None => format!("{:04X}:{:02X}", self.addr, self.value),
        }
    }
}

/// A game's cheats, and the lines of its `.cht` file that were not cheats (kept, so saving
/// never loses what another program wrote there).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheatList {
    pub cheats: Vec<Cheat>,
    pub other_lines: Vec<String>,
}

impl CheatList {
    /// Reads a `.cht` file's text.
    pub fn parse(text: &str) -> CheatList {
        let mut list = CheatList::default();
        for line in text.lines() {
            match parse_line(line) {
                Some(cheat) => list.cheats.push(cheat),
                None if line.trim().is_empty() => {}
                None => list.other_lines.push(line.to_string()),
            }
        }
        list
    }

    /// The `.cht` file's text (FCEUX writes hex in lower case).
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        for cheat in &self.cheats {
            if cheat.substitute {
                text.push('S');
            }
            if cheat.compare.is_some() {
                text.push('C');
            }
            if !cheat.enabled {
                text.push(':');
            }
            text += &format!("{:04x}:{:02x}:", cheat.addr, cheat.value);
            if let Some(compare) = cheat.compare {
                text += &format!("{compare:02x}:");
            }
            text += &cheat.name.replace(['\n', '\r'], " ");
            text.push('\n');
        }
        for line in &self.other_lines {
            text += line;
            text.push('\n');
        }
        text
    }

    /// Reads a `.cht` file; an empty list when there is none.
    pub fn load(path: &std::path::Path) -> Result<CheatList, String> {
        match std::fs::read(path) {
            Ok(bytes) => Ok(CheatList::parse(&String::from_utf8_lossy(&bytes))),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(CheatList::default()),
            Err(err) => Err(format!("{}: {err}", path.display())),
        }
    }

    /// Writes the `.cht` file whole (temporary file, then rename).
    pub fn save(&self, path: &std::path::Path) -> Result<(), String> {
        crate::files::write_atomic(path, self.to_text().as_bytes())
            .map_err(|err| format!("{}: {err}", path.display()))
    }

    /// Puts the cheats that are on into the console: its Game Genie codes become the list's
    /// (those plugged in before, from here, are taken out first).
    pub fn plug_into(&self, console: &mut Console) {
        for code in console.cartridge().game_genie().to_vec() {
            console.remove_game_genie(code);
        }
        for cheat in self.cheats.iter().filter(|c| c.enabled) {
            if let Some(code) = cheat.cartridge_code() {
                console.add_game_genie(code);
            }
        }
    }

    /// Writes the RAM cheats that are on, at a frame's start.
    pub fn write_ram(&self, console: &mut Console) {
        for cheat in self.cheats.iter().filter(|c| c.enabled && c.writes_ram()) {
            let wanted =
                !cheat.substitute || cheat.compare.is_none_or(|c| console.peek(cheat.addr) == c);
            if wanted {
                console.write(cheat.addr, cheat.value);
            }
        }
    }

    /// Whether any cheat on writes RAM each frame.
    pub fn writes_ram_each_frame(&self) -> bool {
        self.cheats.iter().any(|c| c.enabled && c.writes_ram())
    }
}

/// One `.cht` line, as FCEUX reads it (see the module's description).
fn parse_line(line: &str) -> Option<Cheat> {
    let mut rest = line.trim_end_matches(['\r', '\n']);
    let substitute = rest.starts_with('S');
    if substitute {
        rest = &rest[1..];
    }
    let has_compare = rest.starts_with('C');
    if has_compare {
        rest = &rest[1..];
    }
    let enabled = !rest.starts_with(':');
    if !enabled {
        rest = &rest[1..];
    }
    let fields = if has_compare { 4 } else { 3 };
    let parts: Vec<&str> = rest.splitn(fields, ':').collect();
    if parts.len() != fields {
        return None;
    }
    let hex = |s: &str, digits: usize| {
        (!s.is_empty() && s.len() <= digits)
            .then(|| u16::from_str_radix(s, 16).ok())
            .flatten()
    };
    Some(Cheat {
        addr: hex(parts[0], 4)?,
        value: hex(parts[1], 2)? as u8,
        compare: if has_compare {
            Some(hex(parts[2], 2)? as u8)
        } else {
            None
        },
        name: parts[fields - 1].to_string(),
        substitute,
        enabled,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "S0075:09:Infinite lives\n\
                        SC:d5a2:ad:bd:Off with compare\n\
                        0069:ff:RAM write\n\
                        # a note of mine\n\
                        \n";

    #[test]
    fn cht_lines_read_as_fceux_reads_them() {
        let list = CheatList::parse(FILE);
        assert_eq!(list.cheats.len(), 3);
        let lives = &list.cheats[0];
        assert_eq!(
            (
                lives.addr,
                lives.value,
                lives.compare,
                lives.substitute,
                lives.enabled
            ),
            (0x75, 9, None, true, true)
        );
        assert_eq!(lives.name, "Infinite lives");
        let off = &list.cheats[1];
        assert_eq!(
            (
                off.addr,
                off.value,
                off.compare,
                off.substitute,
                off.enabled
            ),
            (0xD5A2, 0xAD, Some(0xBD), true, false)
        );
        assert!(!list.cheats[2].substitute);
        assert_eq!(list.other_lines, ["# a note of mine"]);
        // Written back the same, the line that was no cheat kept.
        assert_eq!(list.to_text(), FILE.trim_end().to_string() + "\n");
        assert_eq!(CheatList::parse(&list.to_text()), list);
    }

    #[test]
    fn typed_cheats_are_codes_or_hex() {
        let genie = Cheat::parse("sxiopo", "").unwrap();
        assert_eq!((genie.name.as_str(), genie.substitute), ("SXIOPO", true));
        let ram = Cheat::parse("0044:1d", "level").unwrap();
        assert_eq!(
            (ram.addr, ram.value, ram.compare, ram.substitute),
            (0x44, 0x1D, None, false)
        );
        assert_eq!(ram.code(), "0044:1D");
        let compare = Cheat::parse("8123:05:0A", "").unwrap();
        assert_eq!((compare.compare, compare.substitute), (Some(0x0A), true));
        for bad in [
            "0044",
            "12345:01",
            "0044:100",
            "xyz:01",
            "0044:01:02:03",
            "QQQQQQ",
        ] {
            assert!(Cheat::parse(bad, "").is_err(), "{bad}");
        }
    }

    #[test]
    fn cheats_act_on_the_console() {
        let rom = testrom::image::nrom(&[0xA9], [0x8000; 3], 0);
        let mut console = Console::from_ines(&rom).unwrap();
        let mut list = CheatList::default();
        list.cheats.push(Cheat::parse("0010:42", "").unwrap());
        list.cheats.push(Cheat::parse("0011:07:03", "").unwrap());
        let mut rom_cheat = Cheat::parse("8000:42", "").unwrap();
        rom_cheat.substitute = true;
        list.cheats.push(rom_cheat);
        list.plug_into(&mut console);
        assert_eq!(console.peek(0x8000), 0x42);
        console.write(0x11, 0x01);
        list.write_ram(&mut console);
        // The compare byte is not there: the substitution waits.
        assert_eq!((console.peek(0x10), console.peek(0x11)), (0x42, 0x01));
        console.write(0x11, 0x03);
        list.write_ram(&mut console);
        assert_eq!(console.peek(0x11), 0x07);
        // Off: the ROM reads as it is.
        list.cheats[2].enabled = false;
        list.plug_into(&mut console);
        assert_eq!(console.peek(0x8000), 0xA9);
        assert!(list.writes_ram_each_frame());
    }

    #[test]
    fn saving_replaces_the_file_whole() {
        let dir = std::env::temp_dir().join(format!("nestor-cht-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.cht");
        assert_eq!(CheatList::load(&path).unwrap(), CheatList::default());
        std::fs::write(&path, FILE).unwrap();
        let mut list = CheatList::load(&path).unwrap();
        list.cheats.remove(0);
        list.save(&path).unwrap();
        let saved = std::fs::read_to_string(&path).unwrap();
        assert!(!saved.contains("Infinite lives") && saved.contains("# a note of mine"));
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["game.cht"], "no temporary file left");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
