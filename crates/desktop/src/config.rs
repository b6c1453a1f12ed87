//! The config file: key and gamepad bindings, video and audio settings, as TOML in the user's
//! config directory. Created with the defaults on first run; a bad file is reported and ignored.

use gilrs::Button;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use winit::keyboard::KeyCode;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub video: VideoConfig,
    pub audio: AudioConfig,
    pub player1: PlayerBindings,
    pub player2: PlayerBindings,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VideoConfig {
    /// Integer scale of the 256x240 picture when the window opens.
    pub scale: u32,
    /// Stretch pixels to the 8:7 shape they have on a TV instead of square.
    pub pixel_aspect_8_7: bool,
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
}

impl<T> Pad<T> {
    /// The controller byte (bit order of `nes::Buttons`) for the inputs `held` says are down.
    pub fn buttons(&self, held: impl Fn(&T) -> bool) -> u8 {
        let lists = [
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
        };
        Config {
            video: VideoConfig::default(),
            audio: AudioConfig::default(),
            player1: PlayerBindings::default(),
            player2: PlayerBindings {
                keyboard: player2_keys,
                gamepad: Pad::default(),
            },
        }
    }
}

impl Default for VideoConfig {
    fn default() -> VideoConfig {
        VideoConfig {
            scale: 3,
            pixel_aspect_8_7: false,
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
        }
    }
}

impl Config {
    /// `<config dir>/nestor/config.toml`.
    pub fn default_path() -> Option<PathBuf> {
        dirs::config_dir().map(|dir| dir.join("nestor").join("config.toml"))
    }

    /// Reads the config at `path`; writes the defaults there if there is none. Problems are
    /// reported on stderr in one line and the defaults are used: a config never stops the game.
    pub fn load_or_create(path: &Path) -> Config {
        match std::fs::read_to_string(path) {
            Ok(text) => Config::parse(&text).unwrap_or_else(|err| {
                eprintln!(
                    "nestor: ignoring config {}: {}; using defaults",
                    path.display(),
                    err.trim()
                );
                Config::default()
            }),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                let config = Config::default();
                if let Err(err) = config.write(path) {
                    eprintln!("nestor: cannot write config {}: {err}", path.display());
                }
                config
            }
            Err(err) => {
                eprintln!(
                    "nestor: cannot read config {}: {err}; using defaults",
                    path.display()
                );
                Config::default()
            }
        }
    }

    pub fn parse(text: &str) -> Result<Config, String> {
        let config: Config = toml::from_str(text).map_err(|e| e.to_string())?;
        if !(1..=16).contains(&config.video.scale) {
            return Err(format!(
                "video.scale is {}; expected 1 to 16",
                config.video.scale
            ));
        }
        if !(0.0..=1.0).contains(&config.audio.volume) {
            return Err(format!(
                "audio.volume is {}; expected 0.0 to 1.0",
                config.audio.volume
            ));
        }
        Ok(config)
    }

    fn write(&self, path: &Path) -> std::io::Result<()> {
        let text = toml::to_string(self).expect("the config serializes");
        let header =
            "# nestor config. Keys are winit KeyCode names (KeyX, ArrowUp, Enter, ShiftRight),\n\
                      # gamepad buttons are gilrs names (South, East, Start, Select, DPadUp).\n\n";
        crate::files::write_atomic(path, format!("{header}{text}").as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_round_trip_through_toml() {
        let text = toml::to_string(&Config::default()).unwrap();
        assert!(text.contains("a = [\"KeyX\"]"), "{text}");
        assert_eq!(Config::parse(&text), Ok(Config::default()));
    }

    #[test]
    fn missing_sections_take_defaults() {
        let config = Config::parse("[video]\nscale = 2\n").unwrap();
        assert_eq!(config.video.scale, 2);
        assert_eq!(config.player1, PlayerBindings::default());
    }

    #[test]
    fn bad_files_are_rejected_with_a_reason() {
        assert!(Config::parse("[video]\nscale = 0\n")
            .unwrap_err()
            .contains("scale"));
        assert!(Config::parse("[player1.keyboard]\na = [\"NoSuchKey\"]\n").is_err());
        assert!(Config::parse("volume = 3").is_err());
        assert!(Config::parse("[[[").is_err());
    }

    #[test]
    fn first_run_writes_defaults_and_a_bad_file_is_ignored() {
        let dir = std::env::temp_dir().join(format!("nestor-config-{}", std::process::id()));
        let path = dir.join("nestor").join("config.toml");
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(Config::load_or_create(&path), Config::default());
        let written = std::fs::read_to_string(&path).unwrap();
        assert_eq!(Config::parse(&written), Ok(Config::default()));

        std::fs::write(&path, "[video]\nscale = \"big\"\n").unwrap();
        assert_eq!(Config::load_or_create(&path), Config::default());
        // The user's file is left alone for them to fix.
        assert!(std::fs::read_to_string(&path).unwrap().contains("big"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pad_bits_follow_the_controller_order() {
        let pad = PlayerBindings::default().keyboard;
        let held = [KeyCode::KeyX, KeyCode::ArrowLeft, KeyCode::Enter];
        let bits = pad.buttons(|k| held.contains(k));
        assert_eq!(
            bits,
            nes::Buttons::A | nes::Buttons::LEFT | nes::Buttons::START
        );
    }
}
