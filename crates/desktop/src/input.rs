//! The players' controllers: keys held on the keyboard and gamepads through gilrs.
//!
//! Gamepads are hot-plugged: the first one connected is player 1's, the next player 2's, then
//! 3's and 4's (who play through a Four Score); when one is unplugged its slot is free for the
//! next one plugged in.

use crate::config::{InputConfig, PlayerBindings};
use gilrs::{Axis, Button, EventType, GamepadId, Gilrs};
use std::collections::HashSet;
use winit::keyboard::KeyCode;

pub struct Input {
    gilrs: Option<Gilrs>,
    /// The gamepads of players 1 to 4.
    pads: [Option<GamepadId>; 4],
    keys_held: HashSet<KeyCode>,
    /// Keys pressed since the last frame took its buttons: a tap shorter than a frame still
    /// reaches the game, for one frame.
    keys_tapped: HashSet<KeyCode>,
}

impl Input {
    pub fn new() -> Input {
        let gilrs = Gilrs::new()
            .map_err(|err| eprintln!("nestor: gamepads unavailable: {err}"))
            .ok();
        let mut input = Input {
            gilrs,
            pads: [None; 4],
            keys_held: HashSet::new(),
            keys_tapped: HashSet::new(),
        };
        let present: Vec<GamepadId> = input
            .gilrs
            .iter()
            .flat_map(|g| g.gamepads().map(|(id, _)| id))
            .collect();
        present.into_iter().for_each(|id| input.plug(id));
        input
    }

    pub fn key(&mut self, key: KeyCode, pressed: bool) {
        if pressed {
            self.keys_held.insert(key);
            self.keys_tapped.insert(key);
        } else {
            self.keys_held.remove(&key);
        }
    }

    /// Forgets held keys, e.g. when the window loses focus and will not see them released.
    pub fn release_keys(&mut self) {
        self.keys_held.clear();
        self.keys_tapped.clear();
    }

    /// The frame has taken its buttons: taps from before it are spent.
    pub fn frame_taken(&mut self) {
        self.keys_tapped.clear();
    }

    /// Takes gamepad events: connections, disconnections (button state is read in `buttons`);
    /// returns the buttons pressed since the last poll (for binding them).
    pub fn poll_gamepads(&mut self) -> Vec<Button> {
        let mut events = Vec::new();
        if let Some(gilrs) = &mut self.gilrs {
            while let Some(event) = gilrs.next_event() {
                events.push(event);
            }
        }
        let mut pressed = Vec::new();
        for event in events {
            match event.event {
                EventType::ButtonPressed(button, _) => pressed.push(button),
                EventType::Connected => self.plug(event.id),
                EventType::Disconnected => {
                    for slot in self.pads.iter_mut().filter(|s| **s == Some(event.id)) {
                        *slot = None;
                    }
                }
                _ => {}
            }
        }
        pressed
    }

    fn plug(&mut self, id: GamepadId) {
        if !self.pads.contains(&Some(id)) {
            if let Some(slot) = self.pads.iter_mut().find(|s| s.is_none()) {
                *slot = Some(id);
            }
        }
    }

    /// The controller byte for `player` (0-3) on frame number `frame`: keyboard and
    /// gamepad together.
    pub fn buttons(
        &self,
        player: usize,
        bindings: &PlayerBindings,
        settings: &InputConfig,
        frame: u64,
    ) -> u8 {
        let turbo = settings.turbo_frames;
        let keys = bindings.keyboard.buttons(
            |key| self.keys_held.contains(key) || self.keys_tapped.contains(key),
            frame,
            turbo,
        );
        let pad = match (&self.gilrs, self.pads[player]) {
            (Some(gilrs), Some(id)) => {
                let gamepad = gilrs.gamepad(id);
                let stick = |axis: Axis, sign: f32| gamepad.value(axis) * sign > settings.deadzone;
                let pressed = |&b: &Button| gamepad.is_pressed(b);
                let mut bits = bindings.gamepad.buttons(pressed, frame, turbo);
                for (axis, sign, bit) in [
                    (Axis::LeftStickY, 1.0, nes::Buttons::UP),
                    (Axis::LeftStickY, -1.0, nes::Buttons::DOWN),
                    (Axis::LeftStickX, -1.0, nes::Buttons::LEFT),
                    (Axis::LeftStickX, 1.0, nes::Buttons::RIGHT),
                ] {
                    if stick(axis, sign) {
                        bits |= bit;
                    }
                }
                bits
            }
            _ => 0,
        };
        keys | pad
    }
}

impl Input {
    /// Held keys by the Windows names FCEUX's `input.get` reports.
    pub fn fceux_key_names(&self) -> impl Iterator<Item = String> + '_ {
        self.keys_held.iter().filter_map(|&key| fceux_key_name(key))
    }
}

/// FCEUX's name for a key (letters and digits as themselves, others lower case).
fn fceux_key_name(key: KeyCode) -> Option<String> {
    use KeyCode::*;
    let debug = format!("{key:?}");
    if let Some(letter) = debug.strip_prefix("Key") {
        return Some(letter.into());
    }
    if let Some(digit) = debug.strip_prefix("Digit") {
        return Some(digit.into());
    }
    if let Some(digit) = debug.strip_prefix("Numpad").filter(|d| d.len() == 1) {
        return Some(format!("numpad{digit}"));
    }
    let function_key = debug.strip_prefix('F').filter(|n| n.parse::<u8>().is_ok());
    if function_key.is_some() {
        return Some(debug);
    }
    let name = match key {
        ShiftLeft | ShiftRight => "shift",
        ControlLeft | ControlRight => "control",
        AltLeft | AltRight => "alt",
        CapsLock => "capslock",
        NumLock => "numlock",
        ScrollLock => "scrolllock",
        Backspace => "backspace",
        Tab => "tab",
        Enter | NumpadEnter => "enter",
        Pause => "pause",
        Escape => "escape",
        Space => "space",
        PageUp => "pageup",
        PageDown => "pagedown",
        End => "end",
        Home => "home",
        ArrowLeft => "left",
        ArrowUp => "up",
        ArrowRight => "right",
        ArrowDown => "down",
        Insert => "insert",
        Delete => "delete",
        NumpadMultiply => "numpad*",
        NumpadAdd => "numpad+",
        NumpadSubtract => "numpad-",
        NumpadDecimal => "numpad.",
        NumpadDivide => "numpad/",
        Semicolon => "semicolon",
        Equal => "plus",
        Comma => "comma",
        Minus => "minus",
        Period => "period",
        Slash => "slash",
        Backquote => "tilde",
        Quote => "quote",
        BracketLeft => "leftbracket",
        Backslash => "backslash",
        BracketRight => "rightbracket",
        _ => return None,
    };
    Some(name.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tap_between_two_frames_is_held_for_one() {
        let mut input = Input {
            gilrs: None,
            pads: [None; 4],
            keys_held: HashSet::new(),
            keys_tapped: HashSet::new(),
        };
        let bindings = PlayerBindings::default();
        let settings = InputConfig::default();
        let key = *bindings.keyboard.a.first().expect("a key for A");
        input.key(key, true);
        input.key(key, false);
        assert_eq!(input.buttons(0, &bindings, &settings, 0), nes::Buttons::A);
        input.frame_taken();
        assert_eq!(input.buttons(0, &bindings, &settings, 0), 0);
        input.key(key, true);
        input.frame_taken();
        assert_eq!(
            input.buttons(0, &bindings, &settings, 0),
            nes::Buttons::A,
            "still held"
        );
    }

    #[test]
    fn keys_have_fceux_windows_names() {
        let name = |k| fceux_key_name(k).unwrap();
        assert_eq!(name(KeyCode::KeyX), "X");
        assert_eq!(name(KeyCode::Digit7), "7");
        assert_eq!(name(KeyCode::Numpad3), "numpad3");
        assert_eq!(name(KeyCode::NumpadAdd), "numpad+");
        assert_eq!(name(KeyCode::F12), "F12");
        assert_eq!(name(KeyCode::ShiftRight), "shift");
        assert_eq!(name(KeyCode::ArrowUp), "up");
        assert_eq!(name(KeyCode::Equal), "plus");
        assert_eq!(fceux_key_name(KeyCode::Fn), None);
    }
}
