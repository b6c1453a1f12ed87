//! What the keys and buttons do, and changing it: the window's hotkeys (a key with its
//! modifiers, `Shift+F1`), the NES buttons of each player's pad, and the rules of binding a key
//! from the Input window (a key does one thing: bound somewhere, it leaves where it was).

use crate::config::{Config, Pad};
use gilrs::Button;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use winit::keyboard::KeyCode;

/// A key with the modifiers held with it, written `Ctrl+Shift+KeyQ` in the config.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Shortcut {
    pub key: KeyCode,
    pub ctrl: bool,
    pub shift: bool,
    pub alt: bool,
}

impl Shortcut {
    pub const fn plain(key: KeyCode) -> Shortcut {
        Shortcut {
            key,
            ctrl: false,
            shift: false,
            alt: false,
        }
    }

    const fn shift(key: KeyCode) -> Shortcut {
        Shortcut {
            shift: true,
            ..Shortcut::plain(key)
        }
    }

    fn is_plain(&self) -> bool {
        !(self.ctrl || self.shift || self.alt)
    }
}

/// A key's name as the config spells it (`KeyX`, `ArrowUp`).
pub fn key_name(key: KeyCode) -> String {
    match toml::Value::try_from(key) {
        Ok(toml::Value::String(name)) => name,
        _ => format!("{key:?}"),
    }
}

/// A key's name as a person reads it: `X`, `7`, `ArrowUp`.
pub fn key_label(key: KeyCode) -> String {
    let name = key_name(key);
    let short = name
        .strip_prefix("Key")
        .or_else(|| name.strip_prefix("Digit"))
        .unwrap_or(&name);
    short.to_string()
}

/// Whether a key is a modifier (a hotkey waits for the key pressed with it).
pub fn is_modifier(key: KeyCode) -> bool {
    use KeyCode::*;
    matches!(
        key,
        ShiftLeft
            | ShiftRight
            | ControlLeft
            | ControlRight
            | AltLeft
            | AltRight
            | SuperLeft
            | SuperRight
    )
}

impl Shortcut {
    /// `Ctrl+`, `Shift+`, `Alt+` for the modifiers held, in that order.
    fn modifiers(&self) -> String {
        [
            (self.ctrl, "Ctrl+"),
            (self.shift, "Shift+"),
            (self.alt, "Alt+"),
        ]
        .iter()
        .filter(|(held, _)| *held)
        .map(|(_, name)| *name)
        .collect()
    }
}

impl fmt::Display for Shortcut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.modifiers(), key_label(self.key))
    }
}

impl From<Shortcut> for String {
    fn from(shortcut: Shortcut) -> String {
        shortcut.modifiers() + &key_name(shortcut.key)
    }
}

impl TryFrom<String> for Shortcut {
    type Error = String;

    fn try_from(text: String) -> Result<Shortcut, String> {
        let mut parts: Vec<&str> = text.split('+').collect();
        let key = parts.pop().unwrap_or_default();
        let key: KeyCode = toml::Value::String(key.into())
            .try_into()
            .map_err(|_| format!("unknown key `{key}` in `{text}` (names: docs/desktop.md)"))?;
        let mut shortcut = Shortcut::plain(key);
        for modifier in parts {
            match modifier {
                "Ctrl" => shortcut.ctrl = true,
                "Shift" => shortcut.shift = true,
                "Alt" => shortcut.alt = true,
                other => return Err(format!("`{other}` is not Ctrl, Shift or Alt in `{text}`")),
            }
        }
        Ok(shortcut)
    }
}

/// The window's hotkeys (Esc is the menus' and cannot be bound).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Hotkey {
    Pause,
    FrameAdvance,
    /// Held: fast-forward.
    FastForward,
    /// Held: rewind.
    Rewind,
    Speed,
    Reset,
    PowerCycle,
    Ai,
    Overlay,
    AiPanel,
    FrameCounter,
    Mute,
    VolumeDown,
    VolumeUp,
    Aspect,
    Fullscreen,
    Screenshot,
    /// Starts or stops a video recording.
    RecordVideo,
    OpenRom,
    Quit,
    /// Slots 1-9.
    SaveState(u8),
    LoadState(u8),
}

const PLAIN_HOTKEYS: [(Hotkey, &str, &str); 20] = [
    (Hotkey::Pause, "pause", "Pause"),
    (Hotkey::FrameAdvance, "frame_advance", "Next frame"),
    (Hotkey::FastForward, "fast_forward", "Fast-forward (hold)"),
    (Hotkey::Rewind, "rewind", "Rewind (hold)"),
    (Hotkey::Speed, "speed", "Speed"),
    (Hotkey::Reset, "reset", "Reset"),
    (Hotkey::PowerCycle, "power_cycle", "Power cycle"),
    (Hotkey::Ai, "ai", "AI on / off"),
    (Hotkey::Overlay, "overlay", "AI outline"),
    (Hotkey::AiPanel, "ai_panel", "AI panel"),
    (Hotkey::FrameCounter, "frame_counter", "Frame counter"),
    (Hotkey::Mute, "mute", "Mute"),
    (Hotkey::VolumeDown, "volume_down", "Volume down"),
    (Hotkey::VolumeUp, "volume_up", "Volume up"),
    (Hotkey::Aspect, "aspect", "8:7 pixels"),
    (Hotkey::Fullscreen, "fullscreen", "Fullscreen"),
    (Hotkey::Screenshot, "screenshot", "Screenshot"),
    (Hotkey::RecordVideo, "record_video", "Record video"),
    (Hotkey::OpenRom, "open_rom", "Open ROM"),
    (Hotkey::Quit, "quit", "Quit"),
];

impl Hotkey {
    /// Every hotkey, in the order the Input window lists them.
    pub fn all() -> Vec<Hotkey> {
        let plain = PLAIN_HOTKEYS.iter().map(|(hotkey, _, _)| *hotkey);
        let saves = (1..=9).map(Hotkey::SaveState);
        let loads = (1..=9).map(Hotkey::LoadState);
        plain.chain(saves).chain(loads).collect()
    }

    /// The name in the config's `[hotkeys]`.
    pub fn name(self) -> String {
        match self {
            Hotkey::SaveState(slot) => format!("save_state_{slot}"),
            Hotkey::LoadState(slot) => format!("load_state_{slot}"),
            _ => self.plain().0.into(),
        }
    }

    /// What the Input window calls it.
    pub fn label(self) -> String {
        match self {
            Hotkey::SaveState(slot) => format!("Save state {slot}"),
            Hotkey::LoadState(slot) => format!("Load state {slot}"),
            _ => self.plain().1.into(),
        }
    }

    /// The config's name and the window's label of a hotkey without a slot.
    fn plain(self) -> (&'static str, &'static str) {
        PLAIN_HOTKEYS
            .iter()
            .find(|(hotkey, _, _)| *hotkey == self)
            .map_or(("", ""), |&(_, name, label)| (name, label))
    }

    fn defaults(self) -> Vec<Shortcut> {
        use KeyCode::*;
        let key = |key| vec![Shortcut::plain(key)];
        let ctrl = |key| {
            vec![Shortcut {
                ctrl: true,
                ..Shortcut::plain(key)
            }]
        };
        let function_key = |slot: u8| [F1, F2, F3, F4, F5, F6, F7, F8, F9][usize::from(slot) - 1];
        match self {
            Hotkey::Pause => key(KeyP),
            Hotkey::FrameAdvance => key(KeyN),
            Hotkey::FastForward => key(Tab),
            Hotkey::Rewind => key(Backspace),
            Hotkey::Speed => key(KeyT),
            Hotkey::Reset => key(KeyR),
            Hotkey::PowerCycle => vec![Shortcut::shift(KeyR)],
            Hotkey::Ai => key(KeyI),
            Hotkey::Overlay => key(KeyO),
            Hotkey::AiPanel => key(KeyL),
            Hotkey::FrameCounter => key(KeyK),
            Hotkey::Mute => key(KeyM),
            Hotkey::VolumeDown => key(Minus),
            Hotkey::VolumeUp => key(Equal),
            Hotkey::Aspect => key(F10),
            Hotkey::Fullscreen => vec![
                Shortcut::plain(F11),
                Shortcut {
                    alt: true,
                    ..Shortcut::plain(Enter)
                },
            ],
            Hotkey::Screenshot => key(F12),
            Hotkey::RecordVideo => vec![Shortcut::shift(F12)],
            Hotkey::OpenRom => ctrl(KeyO),
            Hotkey::Quit => ctrl(KeyQ),
            Hotkey::SaveState(slot) => vec![Shortcut::shift(function_key(slot))],
            Hotkey::LoadState(slot) => key(function_key(slot)),
        }
    }
}

impl From<Hotkey> for String {
    fn from(hotkey: Hotkey) -> String {
        hotkey.name()
    }
}

impl TryFrom<String> for Hotkey {
    type Error = String;

    fn try_from(name: String) -> Result<Hotkey, String> {
        Hotkey::all()
            .into_iter()
            .find(|hotkey| hotkey.name() == name)
            .ok_or_else(|| format!("no hotkey `{name}`"))
    }
}

/// Each hotkey's shortcuts (any of them does it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Hotkeys(pub BTreeMap<Hotkey, Vec<Shortcut>>);

impl Default for Hotkeys {
    fn default() -> Hotkeys {
        Hotkeys(
            Hotkey::all()
                .into_iter()
                .map(|hotkey| (hotkey, hotkey.defaults()))
                .collect(),
        )
    }
}

impl Hotkeys {
    /// The hotkey a key pressed with these modifiers stands for (the modifiers must match).
    pub fn find(&self, pressed: Shortcut) -> Option<Hotkey> {
        self.0
            .iter()
            .find(|(_, shortcuts)| shortcuts.contains(&pressed))
            .map(|(hotkey, _)| *hotkey)
    }

    /// Whether `key` is one of `hotkey`'s keys, whatever the modifiers (a held hotkey ends
    /// when its key is let go).
    pub fn uses_key(&self, hotkey: Hotkey, key: KeyCode) -> bool {
        self.get(hotkey).iter().any(|s| s.key == key)
    }

    pub fn get(&self, hotkey: Hotkey) -> &[Shortcut] {
        self.0.get(&hotkey).map_or(&[], Vec::as_slice)
    }
}

/// An NES button of a player's pad, as the Input window lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadButton {
    A,
    B,
    Select,
    Start,
    Up,
    Down,
    Left,
    Right,
    TurboA,
    TurboB,
}

impl PadButton {
    pub const ALL: [PadButton; 10] = [
        PadButton::A,
        PadButton::B,
        PadButton::Select,
        PadButton::Start,
        PadButton::Up,
        PadButton::Down,
        PadButton::Left,
        PadButton::Right,
        PadButton::TurboA,
        PadButton::TurboB,
    ];

    pub fn label(self) -> &'static str {
        match self {
            PadButton::A => "A",
            PadButton::B => "B",
            PadButton::Select => "Select",
            PadButton::Start => "Start",
            PadButton::Up => "Up",
            PadButton::Down => "Down",
            PadButton::Left => "Left",
            PadButton::Right => "Right",
            PadButton::TurboA => "Turbo A",
            PadButton::TurboB => "Turbo B",
        }
    }
}

impl<T> Pad<T> {
    pub fn list(&self, button: PadButton) -> &Vec<T> {
        match button {
            PadButton::A => &self.a,
            PadButton::B => &self.b,
            PadButton::Select => &self.select,
            PadButton::Start => &self.start,
            PadButton::Up => &self.up,
            PadButton::Down => &self.down,
            PadButton::Left => &self.left,
            PadButton::Right => &self.right,
            PadButton::TurboA => &self.turbo_a,
            PadButton::TurboB => &self.turbo_b,
        }
    }

    pub fn list_mut(&mut self, button: PadButton) -> &mut Vec<T> {
        match button {
            PadButton::A => &mut self.a,
            PadButton::B => &mut self.b,
            PadButton::Select => &mut self.select,
            PadButton::Start => &mut self.start,
            PadButton::Up => &mut self.up,
            PadButton::Down => &mut self.down,
            PadButton::Left => &mut self.left,
            PadButton::Right => &mut self.right,
            PadButton::TurboA => &mut self.turbo_a,
            PadButton::TurboB => &mut self.turbo_b,
        }
    }
}

/// What the Input window binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindTarget {
    /// A key for a player's (0 or 1) NES button.
    Key(usize, PadButton),
    /// A gamepad button for a player's NES button.
    Button(usize, PadButton),
    Hotkey(Hotkey),
}

impl BindTarget {
    pub fn wants_button(self) -> bool {
        matches!(self, BindTarget::Button(..))
    }
}

/// A key or gamepad button pressed to bind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Key(Shortcut),
    Button(Button),
}

impl Config {
    /// Binds what was pressed to `target` in place of what it had. A key does one thing:
    /// bound to a player's button it leaves the other buttons and the hotkeys it was on
    /// (hotkeys pressed with modifiers keep it); bound to a hotkey it leaves the other hotkeys
    /// and, without modifiers, the pads. A gamepad button leaves the player's other buttons.
    /// Esc stays the menus'.
    pub fn bind(&mut self, target: BindTarget, bound: Bound) -> Result<String, String> {
        match (target, bound) {
            (_, Bound::Key(shortcut)) if shortcut.key == KeyCode::Escape => {
                Err("Esc belongs to the menus".into())
            }
            (BindTarget::Key(player, button), Bound::Key(shortcut)) => {
                let key = shortcut.key;
                self.forget_key(Shortcut::plain(key));
                *self.player_mut(player).keyboard.list_mut(button) = vec![key];
                Ok(format!(
                    "player {} {}: {}",
                    player + 1,
                    button.label(),
                    key_label(key)
                ))
            }
            (BindTarget::Hotkey(hotkey), Bound::Key(shortcut)) => {
                self.forget_key(shortcut);
                self.hotkeys.0.insert(hotkey, vec![shortcut]);
                Ok(format!("{}: {shortcut}", hotkey.label()))
            }
            (BindTarget::Button(player, button), Bound::Button(pressed)) => {
                let pad = &mut self.player_mut(player).gamepad;
                for other in PadButton::ALL {
                    pad.list_mut(other).retain(|b| *b != pressed);
                }
                *pad.list_mut(button) = vec![pressed];
                Ok(format!(
                    "player {} {}: gamepad {pressed:?}",
                    player + 1,
                    button.label()
                ))
            }
            _ => Err("press a key for a key, a gamepad button for a gamepad".into()),
        }
    }

    /// Takes everything off `target`.
    pub fn unbind(&mut self, target: BindTarget) {
        match target {
            BindTarget::Key(player, button) => {
                self.player_mut(player).keyboard.list_mut(button).clear()
            }
            BindTarget::Button(player, button) => {
                self.player_mut(player).gamepad.list_mut(button).clear()
            }
            BindTarget::Hotkey(hotkey) => {
                self.hotkeys.0.insert(hotkey, Vec::new());
            }
        }
    }

    /// What `target` is bound to, for the Input window.
    pub fn bound_to(&self, target: BindTarget) -> String {
        let names: Vec<String> = match target {
            BindTarget::Key(player, button) => self
                .player(player)
                .keyboard
                .list(button)
                .iter()
                .map(|&key| key_label(key))
                .collect(),
            BindTarget::Button(player, button) => self
                .player(player)
                .gamepad
                .list(button)
                .iter()
                .map(|b| format!("{b:?}"))
                .collect(),
            BindTarget::Hotkey(hotkey) => self
                .hotkeys
                .get(hotkey)
                .iter()
                .map(Shortcut::to_string)
                .collect(),
        };
        if names.is_empty() {
            "-".into()
        } else {
            names.join(", ")
        }
    }

    /// Takes a key off the hotkeys with this shortcut, and off the pads when it has no
    /// modifiers (the pads see a key whatever the modifiers).
    fn forget_key(&mut self, shortcut: Shortcut) {
        for shortcuts in self.hotkeys.0.values_mut() {
            shortcuts.retain(|s| *s != shortcut);
        }
        if shortcut.is_plain() {
            for player in [&mut self.player1, &mut self.player2] {
                for button in PadButton::ALL {
                    player
                        .keyboard
                        .list_mut(button)
                        .retain(|&k| k != shortcut.key);
                }
            }
        }
    }

    fn player(&self, player: usize) -> &crate::config::PlayerBindings {
        if player == 0 {
            &self.player1
        } else {
            &self.player2
        }
    }

    fn player_mut(&mut self, player: usize) -> &mut crate::config::PlayerBindings {
        if player == 0 {
            &mut self.player1
        } else {
            &mut self.player2
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortcuts_read_and_write_as_text() {
        let shortcut = Shortcut::try_from("Ctrl+Shift+KeyQ".to_string()).unwrap();
        assert!(shortcut.ctrl && shortcut.shift && !shortcut.alt);
        assert_eq!(shortcut.key, KeyCode::KeyQ);
        assert_eq!(String::from(shortcut), "Ctrl+Shift+KeyQ");
        assert_eq!(shortcut.to_string(), "Ctrl+Shift+Q");
        assert!(Shortcut::try_from("Hyper+KeyQ".to_string()).is_err());
        assert!(Shortcut::try_from("Ctrl+Nope".to_string()).is_err());
    }

    #[test]
    fn default_hotkeys_are_the_documented_keys() {
        let hotkeys = Hotkeys::default();
        let find = |key, shift| {
            hotkeys.find(Shortcut {
                shift,
                ..Shortcut::plain(key)
            })
        };
        assert_eq!(find(KeyCode::KeyP, false), Some(Hotkey::Pause));
        assert_eq!(find(KeyCode::KeyR, true), Some(Hotkey::PowerCycle));
        assert_eq!(find(KeyCode::F3, true), Some(Hotkey::SaveState(3)));
        assert_eq!(find(KeyCode::F3, false), Some(Hotkey::LoadState(3)));
        assert_eq!(find(KeyCode::KeyX, false), None);
        assert_eq!(
            Hotkey::try_from("save_state_9".to_string()),
            Ok(Hotkey::SaveState(9))
        );
        assert!(Hotkey::try_from("save_state_10".to_string()).is_err());
    }

    #[test]
    fn a_key_bound_leaves_where_it_was() {
        let mut config = Config::default();
        // P, the pause hotkey, becomes player 1's Up: no longer a hotkey, ArrowUp unbound.
        let p = Shortcut::plain(KeyCode::KeyP);
        config
            .bind(BindTarget::Key(0, PadButton::Up), Bound::Key(p))
            .unwrap();
        assert_eq!(config.player1.keyboard.up, [KeyCode::KeyP]);
        assert_eq!(config.hotkeys.get(Hotkey::Pause), []);
        // Player 2's A key (G) taken by player 1's B.
        let g = Shortcut::plain(KeyCode::KeyG);
        config
            .bind(BindTarget::Key(0, PadButton::B), Bound::Key(g))
            .unwrap();
        assert!(config.player2.keyboard.a.is_empty());
        // Shift+F1 to pause: save state 1 loses it, the plain F1 (load 1) stays.
        let shift_f1 = Shortcut::shift(KeyCode::F1);
        config
            .bind(BindTarget::Hotkey(Hotkey::Pause), Bound::Key(shift_f1))
            .unwrap();
        assert_eq!(config.hotkeys.find(shift_f1), Some(Hotkey::Pause));
        assert_eq!(config.hotkeys.get(Hotkey::SaveState(1)), []);
        assert_eq!(
            config.hotkeys.get(Hotkey::LoadState(1)),
            [Shortcut::plain(KeyCode::F1)]
        );
        // Esc is refused; a gamepad button moves within the player's pad.
        let esc = Shortcut::plain(KeyCode::Escape);
        assert!(config
            .bind(BindTarget::Hotkey(Hotkey::Quit), Bound::Key(esc))
            .is_err());
        config
            .bind(
                BindTarget::Button(1, PadButton::A),
                Bound::Button(Button::South),
            )
            .unwrap();
        assert_eq!(config.player2.gamepad.a, [Button::South]);
        assert!(config.player2.gamepad.b.is_empty());
        assert_eq!(config.player1.gamepad.b, [Button::South]);
        assert!(config
            .bind(BindTarget::Button(0, PadButton::A), Bound::Key(g))
            .is_err());
        config.unbind(BindTarget::Hotkey(Hotkey::Quit));
        assert_eq!(config.bound_to(BindTarget::Hotkey(Hotkey::Quit)), "-");
        assert_eq!(
            config.bound_to(BindTarget::Hotkey(Hotkey::Fullscreen)),
            "F11, Alt+Enter"
        );
    }

    #[test]
    fn rebound_hotkeys_are_saved_and_read_back() {
        let mut config = Config::default();
        let y = Shortcut {
            ctrl: true,
            ..Shortcut::plain(KeyCode::KeyY)
        };
        config
            .bind(BindTarget::Hotkey(Hotkey::Screenshot), Bound::Key(y))
            .unwrap();
        let text = toml::to_string(&config).unwrap();
        assert!(text.contains("screenshot = [\"Ctrl+KeyY\"]"), "{text}");
        let (reread, problems) = Config::parse(&text);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(reread, config);
        let (reread, problems) =
            Config::parse("[hotkeys]\npause = [\"KeyJ\"]\nwarp = [\"KeyW\"]\n");
        assert_eq!(
            reread.hotkeys.get(Hotkey::Pause),
            [Shortcut::plain(KeyCode::KeyJ)]
        );
        assert_eq!(problems, ["line 3: unknown key `hotkeys.warp`"]);
    }
}
