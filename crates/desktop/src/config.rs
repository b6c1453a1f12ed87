//! The config file: key and gamepad bindings, video and audio settings, as TOML in the user's
//! config directory. Created with the defaults on first run. Each setting is taken on its own:
//! a bad key, value or line is reported in one line naming it, and keeps its default.

use crate::bindings::Hotkeys;
use gilrs::Button;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use winit::keyboard::KeyCode;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub video: VideoConfig,
    pub audio: AudioConfig,
    pub emulation: EmulationConfig,
    pub lua: LuaConfig,
    pub files: FilesConfig,
    pub input: InputConfig,
    pub ai: AiConfig,
    pub player1: PlayerBindings,
    pub player2: PlayerBindings,
    /// Players 3 and 4 play through a Four Score (`input.four_score`); by default only
    /// gamepads 3 and 4 are theirs.
    pub player3: PlayerBindings,
    pub player4: PlayerBindings,
    /// The window's hotkeys: `pause = ["KeyP"]`, `save_state_1 = ["Shift+F1"]`.
    pub hotkeys: Hotkeys,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AiConfig {
    /// Show the AI panel beside the picture: its plan and the game's statistics.
    pub panel: bool,
    /// The AI's evaluation profile, as `--ai` names it ("classic" or "strong").
    pub profile: String,
    /// The AI's maximum tap rate, as `--tap-hz` gives it (30, 20, 15, 12 or 10).
    pub tap_hz: u32,
}

impl Default for AiConfig {
    fn default() -> AiConfig {
        AiConfig {
            panel: false,
            profile: "strong".into(),
            tap_hz: 30,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InputConfig {
    /// Frames a turbo button stays pressed, then let go (1-8): 2 is 15 presses a second.
    pub turbo_frames: u8,
    /// How far a gamepad's stick must lean (0.1-0.9 of its travel) to press the d-pad.
    pub deadzone: f32,
    /// What is plugged into controller ports 1 and 2: "pad", "zapper", "vaus" or "none".
    pub port1: String,
    pub port2: String,
    /// A Four Score in both ports (which then must be "pad"): players 3 and 4 play.
    pub four_score: bool,
}

impl Default for InputConfig {
    fn default() -> InputConfig {
        InputConfig {
            turbo_frames: 2,
            deadzone: 0.5,
            port1: nes::Device::Pad.name().into(),
            port2: nes::Device::Pad.name().into(),
            four_score: false,
        }
    }
}

impl InputConfig {
    /// The devices of ports 1 and 2 (see [`nes::port::choose`]).
    pub fn devices(&self) -> Result<[nes::Device; 2], String> {
        let port1 = self.port1.parse()?;
        let port2 = self.port2.parse()?;
        nes::port::choose(port1, port2, self.four_score)
    }

    /// Turbo presses a second.
    pub fn turbo_hz(&self) -> f64 {
        crate::FRAME_RATE / (2.0 * f64::from(self.turbo_frames))
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VideoConfig {
    /// Integer scale of the 256x240 picture when the window opens.
    pub scale: u32,
    /// Stretch pixels to the 8:7 shape they have on a TV instead of square.
    pub pixel_aspect_8_7: bool,
    /// Show what an action did ("saved state 1") in a corner of the picture for a while.
    pub messages: bool,
    /// Show the frames per second and the frame number in a corner.
    pub frame_counter: bool,
    /// Decode the picture as a TV decodes the NES's composite signal (colour fringes).
    pub ntsc: bool,
    /// Dark gaps between the picture's lines, as on a CRT (at 2x and more).
    pub scanlines: bool,
    /// A 64- or 512-colour `.pal` file for the picture's colours; empty: the built-in 2C02
    /// palette.
    pub palette: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EmulationConfig {
    /// Frames the picture is shown ahead of the machine, 0 to 4 (`--run-ahead` overrides it).
    pub run_ahead: u8,
    /// Memory for the rewind ring (Backspace), in MiB; 0 turns rewind off.
    pub rewind_mib: u32,
    /// The console every ROM runs on: "ntsc", "pal" or "dendy"; empty: the one the ROM's
    /// header or file name names, else NTSC (`--region` overrides it).
    pub region: String,
}

impl EmulationConfig {
    /// The console [`EmulationConfig::region`] asks for, if any.
    pub fn region(&self) -> Option<nes::Region> {
        nes::Region::from_key(&self.region)
    }
}

impl Default for EmulationConfig {
    fn default() -> EmulationConfig {
        EmulationConfig {
            run_ahead: 0,
            rewind_mib: (session::rewind::DEFAULT_BUDGET >> 20) as u32,
            region: String::new(),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LuaConfig {
    /// Run every script in the sandbox, headless too (`--lua-sandbox` for one run).
    pub sandbox: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FilesConfig {
    /// ROMs opened in the window, the latest first (File > Recent ROMs).
    pub recent: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AudioConfig {
    /// 0.0 to 1.0.
    pub volume: f32,
    pub muted: bool,
    /// Output device name as the host lists it (ALSA: "default", "null", ...); empty = default.
    pub device: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlayerBindings {
    /// winit key names: "KeyX", "ArrowUp", "Enter", "ShiftRight", ...
    pub keyboard: Pad<KeyCode>,
    /// gilrs button names: "South", "East", "Start", "Select", "DPadUp", ...
    pub gamepad: Pad<Button>,
}

/// What each NES button is bound to; any of the listed inputs presses it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pad<T> {
    pub a: Vec<T>,
    pub b: Vec<T>,
    pub select: Vec<T>,
    pub start: Vec<T>,
    pub up: Vec<T>,
    pub down: Vec<T>,
    pub left: Vec<T>,
    pub right: Vec<T>,
    /// Held, these press A (or B) for 2 frames and let go for 2: 15 presses a second.
    pub turbo_a: Vec<T>,
    pub turbo_b: Vec<T>,
}

impl<T> Pad<T> {
    /// The controller byte (bit order of `nes::Buttons`) for the inputs `held` says are down,
    /// on frame number `frame`; the turbo buttons press for `turbo_frames` frames, then let go
    /// for as many.
    pub fn buttons(&self, held: impl Fn(&T) -> bool, frame: u64, turbo_frames: u8) -> u8 {
        let turbo = (frame / u64::from(turbo_frames.max(1))).is_multiple_of(2);
        let turbo_bits = |bit| if turbo { bit } else { 0 };
        let lists = [
            (&self.turbo_a, turbo_bits(nes::Buttons::A)),
            (&self.turbo_b, turbo_bits(nes::Buttons::B)),
            (&self.a, nes::Buttons::A),
            (&self.b, nes::Buttons::B),
            (&self.select, nes::Buttons::SELECT),
            (&self.start, nes::Buttons::START),
            (&self.up, nes::Buttons::UP),
            (&self.down, nes::Buttons::DOWN),
            (&self.left, nes::Buttons::LEFT),
            (&self.right, nes::Buttons::RIGHT),
        ];
        lists
            .into_iter()
            .filter(|(inputs, _)| inputs.iter().any(&held))
            .fold(0, |bits, (_, bit)| bits | bit)
    }
}

impl Default for Config {
    fn default() -> Config {
        use KeyCode::*;
        let player2_keys = Pad {
            a: vec![KeyG],
            b: vec![KeyF],
            select: vec![KeyQ],
            start: vec![KeyE],
            up: vec![KeyW],
            down: vec![KeyS],
            left: vec![KeyA],
            right: vec![KeyD],
            turbo_a: Vec::new(),
            turbo_b: Vec::new(),
        };
        Config {
            video: VideoConfig::default(),
            audio: AudioConfig::default(),
            emulation: EmulationConfig::default(),
            lua: LuaConfig::default(),
            files: FilesConfig::default(),
            input: InputConfig::default(),
            ai: AiConfig::default(),
            player1: PlayerBindings::default(),
            player2: PlayerBindings {
                keyboard: player2_keys,
                gamepad: Pad::default(),
            },
            player3: PlayerBindings::gamepad_only(),
            player4: PlayerBindings::gamepad_only(),
            hotkeys: Hotkeys::default(),
        }
    }
}

impl Default for VideoConfig {
    fn default() -> VideoConfig {
        VideoConfig {
            scale: 3,
            pixel_aspect_8_7: false,
            messages: true,
            frame_counter: false,
            ntsc: false,
            scanlines: false,
            palette: String::new(),
        }
    }
}

impl Default for AudioConfig {
    fn default() -> AudioConfig {
        AudioConfig {
            volume: 0.8,
            muted: false,
            device: String::new(),
        }
    }
}

impl Default for PlayerBindings {
    fn default() -> PlayerBindings {
        use KeyCode::*;
        PlayerBindings {
            keyboard: Pad {
                a: vec![KeyX],
                b: vec![KeyZ],
                select: vec![ShiftRight],
                start: vec![Enter],
                up: vec![ArrowUp],
                down: vec![ArrowDown],
                left: vec![ArrowLeft],
                right: vec![ArrowRight],
                turbo_a: vec![KeyV],
                turbo_b: vec![KeyC],
            },
            gamepad: Pad::default(),
        }
    }
}

impl PlayerBindings {
    /// No keys, the gamepad's default buttons.
    fn gamepad_only() -> PlayerBindings {
        PlayerBindings {
            keyboard: Pad {
                a: Vec::new(),
                b: Vec::new(),
                select: Vec::new(),
                start: Vec::new(),
                up: Vec::new(),
                down: Vec::new(),
                left: Vec::new(),
                right: Vec::new(),
                turbo_a: Vec::new(),
                turbo_b: Vec::new(),
            },
            gamepad: Pad::default(),
        }
    }
}

impl Default for Pad<Button> {
    /// The NES pad's layout: A is the right face button, B the bottom one.
    fn default() -> Pad<Button> {
        use Button::*;
        Pad {
            a: vec![East],
            b: vec![South],
            select: vec![Select],
            start: vec![Start],
            up: vec![DPadUp],
            down: vec![DPadDown],
            left: vec![DPadLeft],
            right: vec![DPadRight],
            turbo_a: vec![North],
            turbo_b: vec![West],
        }
    }
}

impl Config {
    /// `<config dir>/nestor/config.toml`.
    pub fn default_path() -> Option<PathBuf> {
        dirs::config_dir().map(|dir| dir.join("nestor").join("config.toml"))
    }

    /// Reads the config at `path`; writes the defaults there if there is none. Each problem is
    /// one line on stderr; whatever else the file says applies: a config never stops the game.
    pub fn load_or_create(path: &Path) -> Config {
        Config::load(path).unwrap_or_else(|| {
            let config = Config::default();
            if let Err(err) = config.write(path) {
                eprintln!("nestor: cannot write config {}: {err}", path.display());
            }
            config
        })
    }

    /// Reads the config at `path` as [`Config::load_or_create`] does; None if there is none
    /// (and none is created).
    pub fn load(path: &Path) -> Option<Config> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let (config, problems) = Config::parse(&text);
                for problem in problems {
                    eprintln!(
                        "nestor: config {}: {problem}; that setting keeps its default",
                        path.display()
                    );
                }
                Some(config)
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(err) => {
                eprintln!(
                    "nestor: cannot read config {}: {err}; using defaults",
                    path.display()
                );
                Some(Config::default())
            }
        }
    }

    /// The settings `text` gives, each on its own over the defaults, and one line (`line N:
    /// ...`) for each line, key or value that could not be used, in the order of the file.
    pub fn parse(text: &str) -> (Config, Vec<String>) {
        let mut problems = Vec::new();
        let mut lines: Vec<&str> = text.lines().collect();
        // A line that breaks the syntax is dropped (and reported), then the rest is read again.
        let (table, doc) = loop {
            let joined = lines.join("\n");
            let err = match toml::from_str::<toml::Table>(&joined) {
                Ok(table) => {
                    let doc = toml_edit::ImDocument::parse(joined).expect("toml accepted it");
                    break (table, doc);
                }
                Err(err) => err,
            };
            let at = err.span().map_or(0, |span| line_index(&joined, span.start));
            let message = err.message().lines().map(str::trim).collect::<Vec<_>>();
            let message = message.join(" ");
            let Some(line) = lines.get(at).filter(|line| !line.is_empty()) else {
                problems.push((at + 1, format!("line {}: {message}", at + 1)));
                return (Config::default(), sorted(problems));
            };
            let shown = shorten(line.trim(), 40);
            problems.push((at + 1, format!("line {} ({shown}): {message}", at + 1)));
            lines[at] = "";
        };
        let mut accepted = toml::Value::try_from(Config::default()).expect("defaults serialize");
        apply(&table, &mut Vec::new(), &doc, &mut accepted, &mut problems);
        let config = accepted
            .try_into()
            .expect("only checked settings were applied");
        (config, sorted(problems))
    }

    /// Writes the settings that differ from `before` into the file at `path` (created if there
    /// is none), keeping everything else in it as it was: comments, unknown keys, other
    /// values. Atomic (temporary file, then rename). A file that does not parse is not touched.
    pub fn save_changes(&self, before: &Config, path: &Path) -> Result<(), String> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(err) => return Err(format!("cannot read config {}: {err}", path.display())),
        };
        let mut doc: toml_edit::DocumentMut = text.parse().map_err(|_| {
            format!(
                "config {} not updated: fix its syntax first",
                path.display()
            )
        })?;
        let old = toml::Value::try_from(before).expect("settings serialize");
        let new = toml::Value::try_from(self).expect("settings serialize");
        let mut changed = Vec::new();
        changed_leaves(&old, &new, &mut Vec::new(), &mut changed);
        for (keys, value) in changed {
            set_in_document(&mut doc, &keys, value);
        }
        crate::files::write_atomic(path, doc.to_string().as_bytes())
            .map_err(|err| format!("cannot write config {}: {err}", path.display()))
    }

    /// Ranges serde cannot express.
    fn check(&self) -> Result<(), String> {
        if !(1..=16).contains(&self.video.scale) {
            return Err(format!("{} is not 1 to 16", self.video.scale));
        }
        if !(0.0..=1.0).contains(&self.audio.volume) {
            return Err(format!("{} is not 0.0 to 1.0", self.audio.volume));
        }
        session::check_run_ahead(self.emulation.run_ahead)?;
        if !(1..=8).contains(&self.input.turbo_frames) {
            return Err(format!("{} frames is not 1 to 8", self.input.turbo_frames));
        }
        if !(0.1..=0.9).contains(&self.input.deadzone) {
            return Err(format!("{} is not 0.1 to 0.9", self.input.deadzone));
        }
        self.input.devices()?;
        if !self.emulation.region.is_empty() && self.emulation.region().is_none() {
            return Err(format!(
                "{:?} is not \"ntsc\", \"pal\", \"dendy\" or \"\"",
                self.emulation.region
            ));
        }
        if self.emulation.rewind_mib > 4096 {
            return Err(format!(
                "{} MiB is more than 4096",
                self.emulation.rewind_mib
            ));
        }
        Ok(())
    }

    fn write(&self, path: &Path) -> std::io::Result<()> {
        let text = toml::to_string(self).expect("the config serializes");
        let header =
            "# nestor config. Keys are winit KeyCode names (KeyX, ArrowUp, Enter, ShiftRight),\n\
                      # gamepad buttons are gilrs names (South, East, Start, Select, DPadUp).\n\n";
        crate::files::write_atomic(path, format!("{header}{text}").as_bytes())
    }
}

/// Puts each setting of `table` (at `path` in the file) into `accepted` if the config stays
/// valid with it; reports the others with their line.
fn apply(
    table: &toml::Table,
    path: &mut Vec<String>,
    doc: &toml_edit::ImDocument<String>,
    accepted: &mut toml::Value,
    problems: &mut Vec<(usize, String)>,
) {
    for (key, value) in table {
        path.push(key.clone());
        let name = path.join(".");
        let line = line_of(doc, path).unwrap_or(0);
        let at = if line > 0 {
            format!("line {line}: ")
        } else {
            String::new()
        };
        match (value, lookup(accepted, path)) {
            (_, None) => problems.push((line, format!("{at}unknown key `{name}`"))),
            (toml::Value::Table(inner), Some(toml::Value::Table(_))) => {
                apply(inner, path, doc, accepted, problems)
            }
            (value, Some(_)) => {
                let mut candidate = accepted.clone();
                *lookup_mut(&mut candidate, path) = value.clone();
                let checked = candidate
                    .clone()
                    .try_into::<Config>()
                    .map_err(|e| shorten_serde(e.message()))
                    .and_then(|config| config.check());
                match checked {
                    Ok(()) => *accepted = candidate,
                    Err(why) => problems.push((line, format!("{at}bad value for `{name}`: {why}"))),
                }
            }
        }
        path.pop();
    }
}

/// The settings (key paths and values) that differ between `old` and `new`.
fn changed_leaves<'a>(
    old: &toml::Value,
    new: &'a toml::Value,
    path: &mut Vec<String>,
    changed: &mut Vec<(Vec<String>, &'a toml::Value)>,
) {
    let Some(table) = new.as_table() else { return };
    for (key, value) in table {
        path.push(key.clone());
        match (old.get(key), value) {
            (Some(before @ toml::Value::Table(_)), toml::Value::Table(_)) => {
                changed_leaves(before, value, path, changed)
            }
            (before, _) if before != Some(value) => changed.push((path.clone(), value)),
            _ => {}
        }
        path.pop();
    }
}

/// Puts `value` at `keys` in the document, keeping the comment beside an existing value.
fn set_in_document(doc: &mut toml_edit::DocumentMut, keys: &[String], value: &toml::Value) {
    let (last, parents) = keys.split_last().expect("a setting has a key");
    let mut table: &mut dyn toml_edit::TableLike = doc.as_table_mut();
    for key in parents {
        table = table
            .entry(key)
            .or_insert(toml_edit::table())
            .as_table_like_mut()
            .expect("a settings section is a table");
    }
    let mut new = edit_value(value);
    if let Some(old) = table.get(last).and_then(toml_edit::Item::as_value) {
        *new.decor_mut() = old.decor().clone();
    }
    table.insert(last, toml_edit::Item::Value(new));
}

/// A setting's value for the document (settings are booleans, numbers, strings and lists).
fn edit_value(value: &toml::Value) -> toml_edit::Value {
    match value {
        toml::Value::Boolean(b) => (*b).into(),
        toml::Value::Integer(i) => (*i).into(),
        // f32 settings (volume) printed as they were typed: 0.9, not 0.8999999761581421.
        toml::Value::Float(f) => ((f * 1e6).round() / 1e6).into(),
        toml::Value::String(s) => s.as_str().into(),
        toml::Value::Array(items) => items
            .iter()
            .map(edit_value)
            .collect::<toml_edit::Array>()
            .into(),
        other => other.to_string().into(),
    }
}

/// The problems in the order of their lines.
fn sorted(mut problems: Vec<(usize, String)>) -> Vec<String> {
    problems.sort_by_key(|(line, _)| *line);
    problems.into_iter().map(|(_, problem)| problem).collect()
}

fn lookup<'a>(value: &'a toml::Value, path: &[String]) -> Option<&'a toml::Value> {
    path.iter().try_fold(value, |v, key| v.as_table()?.get(key))
}

/// The setting at `path`, which [`lookup`] found.
fn lookup_mut<'a>(value: &'a mut toml::Value, path: &[String]) -> &'a mut toml::Value {
    path.iter().fold(value, |v, key| {
        v.as_table_mut()
            .and_then(|t| t.get_mut(key))
            .expect("a known key")
    })
}

/// The line (from 1) where the key at `path` is written.
fn line_of(doc: &toml_edit::ImDocument<String>, path: &[String]) -> Option<usize> {
    let (last, parents) = path.split_last()?;
    let mut item = doc.as_item();
    for key in parents {
        item = item.get(key.as_str())?;
    }
    let (key, _) = item.as_table_like()?.get_key_value(last)?;
    Some(line_index(doc.raw(), key.span()?.start) + 1)
}

/// The line (from 0) holding byte `offset`.
fn line_index(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count()
}

fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

/// serde's message without its list of every key name it would have taken.
fn shorten_serde(message: &str) -> String {
    let first = message.lines().next().unwrap_or("");
    match first.split_once(", expected one of") {
        Some((head, _)) => format!("{head} (names: docs/desktop.md)"),
        None => first.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str) -> Config {
        let (config, problems) = Config::parse(text);
        assert_eq!(problems, Vec::<String>::new());
        config
    }

    #[test]
    fn defaults_round_trip_through_toml() {
        let text = toml::to_string(&Config::default()).unwrap();
        assert!(text.contains("a = [\"KeyX\"]"), "{text}");
        assert_eq!(parse_ok(&text), Config::default());
    }

    #[test]
    fn missing_sections_take_defaults() {
        let config = parse_ok("[video]\nscale = 2\n");
        assert_eq!(config.video.scale, 2);
        assert_eq!(config.player1, PlayerBindings::default());
    }

    #[test]
    fn run_ahead_and_rewind_are_settings() {
        let config = parse_ok("[emulation]\nrun_ahead = 2\nrewind_mib = 0\n");
        assert_eq!(
            (config.emulation.run_ahead, config.emulation.rewind_mib),
            (2, 0)
        );
        let (config, problems) = Config::parse("[emulation]\nrun_ahead = 9\n");
        assert_eq!(config.emulation.run_ahead, 0);
        assert_eq!(
            problems,
            ["line 2: bad value for `emulation.run_ahead`: run-ahead of 9 frames: at most 4"]
        );
    }

    #[test]
    fn the_ai_profile_and_tap_rate_are_settings() {
        let ai = Config::default().ai;
        assert_eq!((ai.profile.as_str(), ai.tap_hz), ("strong", 30));
        let config = parse_ok("[ai]\nprofile = \"classic\"\ntap_hz = 15\n");
        assert_eq!(
            (config.ai.profile.as_str(), config.ai.tap_hz),
            ("classic", 15)
        );
    }

    #[test]
    fn the_ports_are_settings_that_must_fit_together() {
        use nes::Device::*;
        assert_eq!(Config::default().input.devices(), Ok([Pad, Pad]));
        let config = parse_ok("[input]\nport1 = \"none\"\nport2 = \"zapper\"\n");
        assert_eq!(config.input.devices(), Ok([None, Zapper]));
        let config = parse_ok("[input]\nfour_score = true\n");
        assert_eq!(config.input.devices(), Ok([FourScore, FourScore]));
        let (config, problems) =
            Config::parse("[input]\nfour_score = true\nport2 = \"vaus\"\nport1 = \"gun\"\n");
        assert_eq!(config.input.devices(), Ok([FourScore, FourScore]));
        assert_eq!(
            problems,
            [
                "line 3: bad value for `input.port2`: a Four Score takes both ports: no vaus beside it (its ports carry pads only)",
                "line 4: bad value for `input.port1`: unknown controller \"gun\": pad, zapper, vaus or none",
            ]
        );
    }

    #[test]
    fn the_lua_sandbox_is_a_setting() {
        assert!(!Config::default().lua.sandbox);
        assert!(parse_ok("[lua]\nsandbox = true\n").lua.sandbox);
    }

    /// Each bad setting is one short line naming its key and line; the rest of the file applies.
    #[test]
    fn a_bad_key_or_value_costs_only_itself() {
        let text = "# mine\n\
                    [video]\n\
                    scale = 0\n\
                    pixel_aspect_8_7 = true\n\
                    [audio]\n\
                    volume = 0.5\n\
                    loudness = 11\n\
                    muted = \"yes\"\n\
                    [player1.keyboard]\n\
                    a = [\"NoSuchKey\"]\n\
                    b = [\"KeyB\"]\n\
                    [player5]\n";
        let (config, problems) = Config::parse(text);
        assert_eq!(config.video.scale, 3);
        assert!(config.video.pixel_aspect_8_7);
        assert_eq!(config.audio.volume, 0.5);
        assert!(!config.audio.muted);
        assert_eq!(config.player1.keyboard.a, vec![KeyCode::KeyX]);
        assert_eq!(config.player1.keyboard.b, vec![KeyCode::KeyB]);
        assert_eq!(
            problems,
            [
                "line 3: bad value for `video.scale`: 0 is not 1 to 16",
                "line 7: unknown key `audio.loudness`",
                "line 8: bad value for `audio.muted`: invalid type: string \"yes\", expected a boolean",
                "line 10: bad value for `player1.keyboard.a`: unknown variant `NoSuchKey` (names: docs/desktop.md)",
                "line 12: unknown key `player5`",
            ]
        );
    }

    #[test]
    fn a_line_that_breaks_the_syntax_is_dropped_alone() {
        let (config, problems) = Config::parse("[video]\nscale = big\npixel_aspect_8_7 = true\n");
        assert!(config.video.pixel_aspect_8_7);
        assert_eq!(config.video.scale, 3);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("line 2 (scale = big): "),
            "{problems:?}"
        );
        assert!(!problems[0].contains('\n'), "{problems:?}");

        let (config, problems) = Config::parse("[[[\n");
        assert_eq!(config, Config::default());
        assert_eq!(problems.len(), 1, "{problems:?}");
    }

    #[test]
    fn first_run_writes_defaults_and_a_bad_file_is_left_alone() {
        let dir = std::env::temp_dir().join(format!("nestor-config-{}", std::process::id()));
        let path = dir.join("nestor").join("config.toml");
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(Config::load_or_create(&path), Config::default());
        let written = std::fs::read_to_string(&path).unwrap();
        assert_eq!(parse_ok(&written), Config::default());

        std::fs::write(&path, "[video]\nscale = \"big\"\n[audio]\nmuted = true\n").unwrap();
        let config = Config::load_or_create(&path);
        assert_eq!(config.video.scale, 3);
        assert!(config.audio.muted);
        // The user's file is left alone for them to fix.
        assert!(std::fs::read_to_string(&path).unwrap().contains("big"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn changed_settings_are_saved_with_the_rest_of_the_file_kept() {
        let dir = std::env::temp_dir().join(format!("nestor-config-save-{}", std::process::id()));
        let path = dir.join("config.toml");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let text = "# my settings\n\
                    [audio]\n\
                    volume = 0.5 # not too loud\n\
                    surround = true\n\
                    [player1.keyboard]\n\
                    a = [\"KeyK\"]\n";
        std::fs::write(&path, text).unwrap();
        let (before, _) = Config::parse(text);
        let mut after = before.clone();
        after.audio.volume = 0.9;
        after.audio.muted = true;
        after.video.pixel_aspect_8_7 = true;
        after.save_changes(&before, &path).unwrap();

        let saved = std::fs::read_to_string(&path).unwrap();
        for kept in ["# my settings", "surround = true", "a = [\"KeyK\"]"] {
            assert!(saved.contains(kept), "{kept} lost:\n{saved}");
        }
        assert!(saved.contains("volume = 0.9 # not too loud"), "{saved}");
        // Only the changed settings are written: no defaults spelled out.
        assert!(!saved.contains("scale"), "{saved}");
        let (reread, problems) = Config::parse(&saved);
        assert_eq!(reread, after);
        assert_eq!(problems, ["line 4: unknown key `audio.surround`"]);

        // A file that does not parse is left for the user to fix.
        std::fs::write(&path, "[audio\nvolume = 0.5\n").unwrap();
        assert!(before.save_changes(&after, &path).is_err());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "[audio\nvolume = 0.5\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pad_bits_follow_the_controller_order() {
        let pad = PlayerBindings::default().keyboard;
        let held = [KeyCode::KeyX, KeyCode::ArrowLeft, KeyCode::Enter];
        let bits = pad.buttons(|k| held.contains(k), 0, 2);
        assert_eq!(
            bits,
            nes::Buttons::A | nes::Buttons::LEFT | nes::Buttons::START
        );
    }

    #[test]
    fn turbo_presses_two_frames_in_four() {
        let pad = PlayerBindings::default().keyboard;
        let turbo_a = pad.turbo_a[0];
        let a: Vec<u8> = (0..8)
            .map(|frame| pad.buttons(|k| *k == turbo_a, frame, 2))
            .collect();
        let (on, off) = (nes::Buttons::A, 0);
        assert_eq!(a, [on, on, off, off, on, on, off, off]);
        // At the fastest rate, every other frame.
        let a: Vec<u8> = (0..4)
            .map(|frame| pad.buttons(|k| *k == turbo_a, frame, 1))
            .collect();
        assert_eq!(a, [on, off, on, off]);
        let (config, problems) = Config::parse("[input]\nturbo_frames = 3\ndeadzone = 0.95\n");
        assert_eq!(config.input.turbo_frames, 3);
        assert_eq!(config.input.deadzone, 0.5);
        assert_eq!(
            problems,
            ["line 3: bad value for `input.deadzone`: 0.95 is not 0.1 to 0.9"]
        );
        // A config from before turbo existed still reads, and gets the default turbo keys.
        let (config, problems) = Config::parse("[player1.keyboard]\na = [\"KeyX\"]\nb = [\"KeyZ\"]\nselect = []\nstart = []\nup = []\ndown = []\nleft = []\nright = []\n");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(config.player1.keyboard.turbo_a, [KeyCode::KeyV]);
    }
}
