//! FCEUX's text movie format (.fm2): `key value` header lines (the first is `version 3`), then
//! one input line per frame from power-on, `|commands|RLDUTSBA|RLDUTSBA||`: the commands
//! (resets) and each port's buttons, a letter for a pressed button and `.` for a released one.
//! This crate parses and writes the text, and records and plays input on a `nes::Console`
//! frame by frame, in the host's frames (`Console::run_frame`). No I/O.
//!
//! FCEUX's frames are not quite the host's: after power-on and after every reset or power
//! command FCEUX runs [`DEAD_FRAMES`] frames in which its PPU raises no VBlank (so the game sees
//! no NMI and reads no input), and a movie has an input line for each. The machine has no such
//! frames (hardware has none either), so the translation is done here, between a movie's lines
//! and the host's frames ([`Movie::host_frames`], [`Movie::set_host_frames`]), and every frame
//! the host runs is a frame the game sees in both emulators.

pub mod md5;
pub mod play;

use std::fmt::{self, Write as _};

pub use nes::PowerOnRam;
pub use play::{apply_commands, rom_checksum, Playback, Recorder};

/// `commands` bits: what happens at the start of a frame, before its input is latched.
pub const SOFT_RESET: u8 = 1;
pub const POWER: u8 = 2;
pub const FDS_INSERT: u8 = 4;
pub const FDS_SELECT: u8 = 8;
pub const VS_COIN: u8 = 16;

/// The file format version this crate reads and writes (the only one FCEUX has).
pub const VERSION: i32 = 3;

/// Frames FCEUX runs with no VBlank after power-on and after each reset or power command
/// (checked against FCEUX 2.6.5: a movie syncs only with them).
pub const DEAD_FRAMES: usize = 2;

/// FCEUX's frame count once the host has run `frames` from power-on (as a movie's lines, or
/// FCEUX's `emu.framecount`): each frame, and the dead frames after the power-on and after each
/// reset or power command among them.
pub fn fceux_frame_count(frames: &[Frame]) -> usize {
    let restarts = frames
        .iter()
        .filter(|f| f.commands & (POWER | SOFT_RESET) != 0)
        .count();
    frames.len() + DEAD_FRAMES * (1 + restarts)
}

/// How a comment of nestor's recordings begins (see [`Movie::fceux_frames`]).
pub const NESTOR_COMMENT: &str = "recorded by nestor";

/// Pad letters as an input line lists them, from bit 7 (Right) down to bit 0 (A): the same bit
/// order as `nes::Buttons`.
const PAD_LETTERS: &[u8; 8] = b"RLDUTSBA";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Movie {
    pub emu_version: i32,
    pub rerecord_count: i32,
    pub pal: bool,
    /// Four pads through the Four Score: input lines then have four pad fields.
    pub fourscore: bool,
    /// What is plugged into controller ports 1 and 2 (without a Four Score).
    pub ports: [Device; 2],
    pub rom_filename: String,
    /// MD5 of the ROM's PRG and CHR data (see `play::rom_checksum`).
    pub rom_checksum: [u8; 16],
    pub guid: String,
    /// FCEUX's `RAMInitOption`: the power-on RAM the movie was recorded with, when it says.
    pub ram_init: Option<PowerOnRam>,
    /// Other keys (`comment`, `subtitle`, `NewPPU`, `FDS`...) in file order, written back as read.
    pub extra: Vec<(String, String)>,
    pub frames: Vec<Frame>,
}

/// A device in a controller port, as the `port0`/`port1` keys number them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    None = 0,
    Gamepad = 1,
}

/// One frame of the input log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    pub commands: u8,
    /// Buttons of pads 1 to 4 in `nes::Buttons` bits; pads 3 and 4 only with a Four Score.
    pub pads: [u8; 4],
}

/// A malformed movie: what is wrong, and on which line (1-based) when one line is at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub line: Option<usize>,
    pub message: String,
}

/// Longest message shown: a field a megabyte long must not be echoed whole.
const MAX_MESSAGE: usize = 200;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        match self.message.char_indices().nth(MAX_MESSAGE) {
            Some((end, _)) => write!(f, "{}...", &self.message[..end]),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

impl Movie {
    /// A movie of no frames yet for the ROM with this checksum, two gamepads plugged in.
    pub fn new(rom_filename: &str, rom_checksum: [u8; 16], guid: String) -> Movie {
        Movie {
            emu_version: 0,
            rerecord_count: 0,
            pal: false,
            fourscore: false,
            ports: [Device::Gamepad; 2],
            rom_filename: rom_filename.to_string(),
            rom_checksum,
            guid,
            ram_init: None,
            extra: Vec::new(),
            frames: Vec::new(),
        }
    }

    /// A movie about to be recorded now, from the machine's power-on (RAM all $00): its GUID
    /// comes from the time and the ROM's checksum, so two recordings differ (all FCEUX asks of
    /// it).
    pub fn recording(rom_filename: &str, rom_checksum: [u8; 16]) -> Movie {
        let time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        let guid = guid(&[&time.to_le_bytes()[..], &rom_checksum].concat());
        Movie {
            ram_init: Some(PowerOnRam::Zero),
            ..Movie::new(rom_filename, rom_checksum, guid)
        }
    }

    /// Whether the input log has FCEUX's dead frames: every movie but those nestor recorded
    /// before it wrote them, known by `emuVersion 0`, a `recorded by nestor` comment and no
    /// `RAMInitOption` (which nestor's recordings have had since).
    pub fn fceux_frames(&self) -> bool {
        let nestor = self
            .extra
            .iter()
            .any(|(key, value)| key == "comment" && value.starts_with(NESTOR_COMMENT));
        !(nestor && self.emu_version == 0 && self.ram_init.is_none())
    }

    /// The RAM the movie's power-ons start with: its `RAMInitOption`, FCEUX's default pattern
    /// when it has none (as FCEUX 2.6 plays it), zeros for nestor's old recordings.
    pub fn power_on_ram(&self) -> PowerOnRam {
        match self.ram_init {
            Some(ram) => ram,
            None if self.fceux_frames() => PowerOnRam::Fceux,
            None => PowerOnRam::Zero,
        }
    }

    /// The input of each frame the host runs: the input log without FCEUX's dead frames, a
    /// reset or power command moved to the first frame after them (where the host applies it,
    /// with the PPU as FCEUX's is then: about to raise its first VBlank).
    pub fn host_frames(&self) -> Vec<Frame> {
        if !self.fceux_frames() {
            return self.frames.clone();
        }
        let mut frames = Vec::with_capacity(self.frames.len());
        let (mut dead, mut commands) = (DEAD_FRAMES, 0);
        for line in &self.frames {
            if line.commands & (POWER | SOFT_RESET) != 0 {
                (dead, commands) = (DEAD_FRAMES, commands | line.commands);
            }
            if dead > 0 {
                dead -= 1;
                continue;
            }
            frames.push(Frame {
                commands: line.commands | commands,
                ..*line
            });
            commands = 0;
        }
        frames
    }

    /// Sets the input log to the host's `frames` from power-on, each reset or power command
    /// followed by FCEUX's dead frames (the inverse of [`Movie::host_frames`]).
    pub fn set_host_frames(&mut self, frames: &[Frame]) {
        let dead = |commands| Frame {
            commands,
            pads: [0; 4],
        };
        self.frames = vec![dead(0); DEAD_FRAMES];
        for frame in frames {
            if frame.commands & (POWER | SOFT_RESET) != 0 {
                self.frames.push(dead(frame.commands));
                self.frames.extend((1..DEAD_FRAMES).map(|_| dead(0)));
            }
            self.frames.push(Frame {
                commands: 0,
                ..*frame
            });
        }
    }

    pub fn parse(text: &str) -> Result<Movie, Error> {
        let mut movie = Movie::new("", [0; 16], String::new());
        let mut seen: Vec<&str> = Vec::new();
        let mut lines = text.lines().enumerate().map(|(i, line)| (i + 1, line));
        for (n, line) in lines.by_ref() {
            let at = |message: String| Error {
                line: Some(n),
                message,
            };
            if line.is_empty() {
                continue;
            }
            if line.starts_with('|') {
                check_header(&movie, &seen)?;
                movie.frames.push(movie.parse_frame(line).map_err(at)?);
                break;
            }
            let (key, value) = line.split_once(' ').unwrap_or((line, ""));
            if seen.is_empty() && key != "version" {
                return Err(at(format!("the first key must be `version`, not {key:?}")));
            }
            if seen.contains(&key) && !matches!(key, "comment" | "subtitle") {
                return Err(at(format!("the key {key:?} appears twice")));
            }
            seen.push(key);
            movie.set_key(key, value).map_err(at)?;
        }
        if seen.is_empty() {
            return Err(Error {
                line: None,
                message: "not an FM2 movie (no `version` line)".into(),
            });
        }
        check_header(&movie, &seen)?;
        for (n, line) in lines {
            if !line.is_empty() {
                movie
                    .frames
                    .push(movie.parse_frame(line).map_err(|message| Error {
                        line: Some(n),
                        message,
                    })?);
            }
        }
        Ok(movie)
    }

    fn set_key(&mut self, key: &str, value: &str) -> Result<(), String> {
        let int = || -> Result<i32, String> {
            value
                .parse()
                .map_err(|_| format!("{key}: {value:?} is not a 32-bit integer"))
        };
        let bool = || match int()? {
            0 => Ok(false),
            1 => Ok(true),
            n => Err(format!("{key}: {n} is not 0 or 1")),
        };
        match key {
            "version" if int()? != VERSION => {
                return Err(format!("version {value} (only version {VERSION} exists)"))
            }
            "version" => {}
            "emuVersion" => self.emu_version = int()?,
            "rerecordCount" => self.rerecord_count = int()?,
            "palFlag" => self.pal = bool()?,
            "fourscore" => self.fourscore = bool()?,
            "binary" if bool()? => return Err("binary input logs are not supported".into()),
            "binary" => {}
            "port0" | "port1" => {
                self.ports[usize::from(key == "port1")] = match int()? {
                    0 => Device::None,
                    1 => Device::Gamepad,
                    2 => return Err(format!("{key}: the Zapper (2) is not supported")),
                    n => return Err(format!("{key}: unknown device {n}")),
                }
            }
            "port2" if int()? != 0 => {
                return Err(format!(
                    "port2: expansion port device {value} is not supported"
                ))
            }
            "port2" => {}
            "romFilename" => self.rom_filename = value.to_string(),
            "romChecksum" => self.rom_checksum = parse_checksum(value)?,
            "guid" => self.guid = value.to_string(),
            "RAMInitOption" => {
                self.ram_init = Some(match int()? {
                    0 => PowerOnRam::Fceux,
                    1 => PowerOnRam::Ff,
                    2 => PowerOnRam::Zero,
                    3 => {
                        return Err("RAMInitOption 3 (random power-on RAM) is not supported".into())
                    }
                    n => return Err(format!("RAMInitOption: unknown power-on RAM {n}")),
                })
            }
            "" => return Err("a header line with no key".into()),
            _ => self.extra.push((key.to_string(), value.to_string())),
        }
        Ok(())
    }

    /// The pad fields an input line has: one per plugged port.
    fn pad_count(&self) -> usize {
        if self.fourscore {
            4
        } else {
            2
        }
    }

    fn parse_frame(&self, line: &str) -> Result<Frame, String> {
        let inner = line
            .strip_prefix('|')
            .and_then(|l| l.strip_suffix('|'))
            .ok_or("an input line must start and end with `|`")?;
        let fields: Vec<&str> = inner.split('|').collect();
        let pads = self.pad_count();
        if fields.len() != pads + 2 {
            return Err(format!(
                "expected {} fields between `|`s (commands, {pads} ports, expansion port), found {}",
                pads + 2,
                fields.len()
            ));
        }
        let commands = fields[0]
            .trim()
            .parse()
            .map_err(|_| format!("commands {:?} is not a number from 0 to 255", fields[0]))?;
        let mut frame = Frame {
            commands,
            pads: [0; 4],
        };
        for (port, field) in fields[1..=pads].iter().enumerate() {
            let plugged = self.fourscore || self.ports[port] == Device::Gamepad;
            frame.pads[port] = match (plugged, field.len()) {
                (false, 0) => 0,
                (false, _) => return Err(format!("port {port} is empty but has input {field:?}")),
                (true, 8) => field
                    .bytes()
                    .fold(0, |bits, c| bits << 1 | u8::from(c != b'.' && c != b' ')),
                (true, _) => {
                    return Err(format!(
                        "pad {} field {field:?} is not 8 buttons (RLDUTSBA)",
                        port + 1
                    ))
                }
            };
        }
        if !fields[pads + 1].is_empty() {
            return Err("the expansion port field must be empty".into());
        }
        Ok(frame)
    }

    /// The movie as FCEUX writes it.
    pub fn to_fm2(&self) -> String {
        let mut out = String::new();
        let flag = u8::from;
        // Writing to a String cannot fail.
        let _ = write!(
            out,
            "version {VERSION}\nemuVersion {}\nrerecordCount {}\npalFlag {}\nromFilename {}\n\
             romChecksum base64:{}\nguid {}\nfourscore {}\n",
            self.emu_version,
            self.rerecord_count,
            flag(self.pal),
            self.rom_filename,
            md5::base64(&self.rom_checksum),
            self.guid,
            flag(self.fourscore),
        );
        if !self.fourscore {
            let _ = write!(
                out,
                "port0 {}\nport1 {}\n",
                self.ports[0] as u8, self.ports[1] as u8
            );
        }
        out.push_str("port2 0\n");
        if let Some(ram) = self.ram_init {
            let option = match ram {
                PowerOnRam::Fceux => 0,
                PowerOnRam::Ff => 1,
                PowerOnRam::Zero => 2,
            };
            let _ = writeln!(out, "RAMInitOption {option}");
        }
        for (key, value) in &self.extra {
            let _ = writeln!(out, "{key} {value}");
        }
        for frame in &self.frames {
            let _ = write!(out, "|{}|", frame.commands);
            for port in 0..self.pad_count() {
                if self.fourscore || self.ports[port] == Device::Gamepad {
                    for (i, &letter) in PAD_LETTERS.iter().enumerate() {
                        let pressed = frame.pads[port] & (0x80 >> i) != 0;
                        out.push(if pressed { letter as char } else { '.' });
                    }
                }
                out.push('|');
            }
            out.push_str("|\n");
        }
        out
    }
}

/// A GUID in FCEUX's form (`452DE2C3-EF43-2FA9-77AC-0677FC51543B`) made from the MD5 of `seed`
/// (the recorder passes the time and the ROM checksum: FCEUX only needs movies to differ).
pub fn guid(seed: &[u8]) -> String {
    let hex: String = md5::digest(seed)
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// The keys FCEUX requires, checked when the input log starts.
fn check_header(movie: &Movie, seen: &[&str]) -> Result<(), Error> {
    let mut required = vec!["emuVersion", "romFilename", "romChecksum", "guid", "port2"];
    if !movie.fourscore {
        required.extend(["port0", "port1"]);
    }
    match required.iter().find(|key| !seen.contains(key)) {
        Some(key) => Err(Error {
            line: None,
            message: format!("the header has no `{key}` key"),
        }),
        None => Ok(()),
    }
}

/// `base64:` and 24 characters, as FCEUX writes it, or 32 hex digits.
fn parse_checksum(value: &str) -> Result<[u8; 16], String> {
    let bytes = match value.strip_prefix("base64:") {
        Some(b64) => md5::from_base64(b64),
        None if value.len() == 32 => (0..16)
            .map(|i| u8::from_str_radix(value.get(2 * i..2 * i + 2)?, 16).ok())
            .collect(),
        None => None,
    };
    bytes
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| format!("romChecksum {value:?} is not an MD5 (base64:... or 32 hex digits)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "version 3\nemuVersion 22020\nrerecordCount 7\npalFlag 0\n\
        romFilename tetris\nromChecksum base64:YW55IGNhcm5hbCBwbGVhcw==\n\
        guid 452DE2C3-EF43-2FA9-77AC-0677FC51543B\nfourscore 0\nport0 1\nport1 1\nport2 0\n";

    fn parse_err(text: &str) -> String {
        Movie::parse(text).unwrap_err().to_string()
    }

    #[test]
    fn reads_header_and_input_log() {
        let text = format!(
            "{HEADER}comment author someone\n|0|R......A|........||\r\n|2|...U.S..|.L......||\n"
        );
        let movie = Movie::parse(&text).unwrap();
        assert_eq!(movie.emu_version, 22020);
        assert_eq!(movie.rerecord_count, 7);
        assert_eq!(movie.rom_filename, "tetris");
        assert_eq!(&movie.rom_checksum, b"any carnal pleas");
        assert_eq!(movie.extra, [("comment".into(), "author someone".into())]);
        assert_eq!(
            movie.frames,
            [
                Frame {
                    commands: 0,
                    pads: [0x81, 0, 0, 0]
                },
                Frame {
                    commands: POWER,
                    pads: [0x14, 0x40, 0, 0]
                },
            ]
        );
    }

    #[test]
    fn writes_what_it_reads() {
        let text = format!("{HEADER}comment author someone\nsubtitle 10 hi\n|1|RLDUTSBA|........||\n|0|....T...|.......A||\n");
        let movie = Movie::parse(&text).unwrap();
        assert_eq!(movie.to_fm2(), text);
        let mut four = movie.clone();
        four.fourscore = true;
        four.frames[0].pads[3] = 0x01;
        assert_eq!(Movie::parse(&four.to_fm2()).unwrap(), four);
    }

    #[test]
    fn any_character_but_dot_and_space_presses() {
        let movie = Movie::parse(&format!("{HEADER}|0|x  x    |########||")).unwrap();
        assert_eq!(movie.frames[0].pads[..2], [0x90, 0xFF]);
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(
            parse_err(&format!(
                "{HEADER}|0|........|........||\n|0|.......|........||"
            )),
            "line 13: pad 1 field \".......\" is not 8 buttons (RLDUTSBA)"
        );
        assert_eq!(
            parse_err(&format!("{HEADER}|0|........|........|")),
            "line 12: expected 4 fields between `|`s (commands, 2 ports, expansion port), found 3"
        );
        assert_eq!(
            parse_err(&format!("{HEADER}|x|........|........||")),
            "line 12: commands \"x\" is not a number from 0 to 255"
        );
        assert_eq!(
            parse_err("emuVersion 1\nversion 3"),
            "line 1: the first key must be `version`, not \"emuVersion\""
        );
        assert_eq!(
            parse_err("version 2"),
            "line 1: version 2 (only version 3 exists)"
        );
        assert_eq!(parse_err(""), "not an FM2 movie (no `version` line)");
        assert_eq!(
            parse_err(&HEADER.replace("romChecksum base64:", "romChecksum base64:!")),
            "line 6: romChecksum \"base64:!YW55IGNhcm5hbCBwbGVhcw==\" is not an MD5 (base64:... or 32 hex digits)"
        );
        assert_eq!(
            parse_err(
                &HEADER
                    .replace("guid", "x")
                    .replace("\nx", "\nguid")
                    .replace("port1 1\n", "")
            ),
            "the header has no `port1` key"
        );
        assert_eq!(
            parse_err(&HEADER.replace("port0 1", "port0 2")),
            "line 9: port0: the Zapper (2) is not supported"
        );
        assert_eq!(
            parse_err(&format!("{HEADER}palFlag 1\n")),
            "line 12: the key \"palFlag\" appears twice"
        );
    }

    #[test]
    fn guids_look_like_fceux_ones() {
        let guid = guid(b"seed");
        assert_eq!(guid.len(), 36);
        assert_eq!(guid.matches('-').count(), 4);
        assert_eq!(guid.find('-'), Some(8));
    }

    fn line(commands: u8, pad: u8) -> Frame {
        Frame {
            commands,
            pads: [pad, 0, 0, 0],
        }
    }

    #[test]
    fn ram_init_option_is_read_and_written() {
        for (option, ram) in [
            (0, PowerOnRam::Fceux),
            (1, PowerOnRam::Ff),
            (2, PowerOnRam::Zero),
        ] {
            let text = format!("{HEADER}RAMInitOption {option}\n|0|........|........||\n");
            let movie = Movie::parse(&text).unwrap();
            assert_eq!(movie.ram_init, Some(ram));
            assert_eq!(movie.power_on_ram(), ram);
            assert_eq!(movie.to_fm2(), text);
        }
        assert_eq!(
            parse_err(&format!("{HEADER}RAMInitOption 3\n")),
            "line 12: RAMInitOption 3 (random power-on RAM) is not supported"
        );
        assert_eq!(
            parse_err(&format!("{HEADER}RAMInitOption 7\n")),
            "line 12: RAMInitOption: unknown power-on RAM 7"
        );
    }

    #[test]
    fn dead_frames_after_power_on_and_resets_are_not_host_frames() {
        let mut movie = Movie::parse(HEADER).unwrap();
        movie.frames = vec![
            line(0, 1),
            line(0, 2),
            line(0, 3),
            line(0, 4),
            line(SOFT_RESET, 5),
            line(0, 6),
            line(0, 7),
            line(POWER, 8),
            line(0, 9),
            line(SOFT_RESET, 10),
            line(0, 11),
            line(0, 12),
        ];
        assert!(movie.fceux_frames());
        assert_eq!(movie.power_on_ram(), PowerOnRam::Fceux);
        // A reset within the dead frames of another starts them again.
        let host = [
            line(0, 3),
            line(0, 4),
            line(SOFT_RESET, 7),
            line(POWER | SOFT_RESET, 12),
        ];
        assert_eq!(movie.host_frames(), host);

        let mut written = Movie::parse(HEADER).unwrap();
        written.set_host_frames(&host);
        assert_eq!(written.frames.len(), host.len() + 3 * DEAD_FRAMES);
        assert_eq!(written.frames[..3], [line(0, 0), line(0, 0), line(0, 3)]);
        assert_eq!(
            written.frames[4..7],
            [line(SOFT_RESET, 0), line(0, 0), line(0, 7)]
        );
        assert_eq!(written.host_frames(), host);
    }

    #[test]
    fn nestor_recordings_without_ram_init_option_have_no_dead_frames() {
        let mut old = Movie::parse(HEADER).unwrap();
        old.emu_version = 0;
        old.extra = vec![("comment".into(), "recorded by nestor 0.1.0".into())];
        old.frames = vec![line(0, 1), line(SOFT_RESET, 2), line(0, 3)];
        assert!(!old.fceux_frames());
        assert_eq!(old.host_frames(), old.frames);
        assert_eq!(old.power_on_ram(), PowerOnRam::Zero);

        let mut new = Movie::recording("quadfall", [0; 16]);
        new.extra = old.extra.clone();
        let new = Movie::parse(&new.to_fm2()).unwrap();
        assert!(new.fceux_frames());
        assert_eq!(new.power_on_ram(), PowerOnRam::Zero);
        // FCEUX's own movies, whatever their comments.
        let fceux = Movie {
            emu_version: 20605,
            ..old
        };
        assert!(fceux.fceux_frames());
    }

    #[test]
    fn hex_checksums_are_read_too() {
        let text = HEADER.replace(
            "base64:YW55IGNhcm5hbCBwbGVhcw==",
            "616e79206361726e616c20706c656173",
        );
        assert_eq!(
            &Movie::parse(&text).unwrap().rom_checksum,
            b"any carnal pleas"
        );
    }
}
