//! Input scripts for headless runs: one `frame buttons` line per change of controller 1, e.g.
//!
//! ```text
//! # comments and blank lines are ignored
//! 120 start
//! 125 none
//! 200 right+a
//! ```
//!
//! From the given frame on (frames count from 0 at power-on), exactly those buttons are held
//! until the next line. Button names: a b select start up down left right; `none` lets go.

use anyhow::{anyhow, bail, Context};
use nes::Buttons;

/// Button changes sorted by frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputScript {
    changes: Vec<(u64, Buttons)>,
}

impl InputScript {
    pub fn parse(text: &str) -> anyhow::Result<InputScript> {
        let mut changes: Vec<(u64, Buttons)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let parse_line = || -> anyhow::Result<(u64, Buttons)> {
                let (frame, buttons) = line
                    .split_once(char::is_whitespace)
                    .ok_or_else(|| anyhow!("expected `frame buttons`"))?;
                let frame = frame
                    .parse()
                    .map_err(|_| anyhow!("{frame:?} is not a frame number"))?;
                Ok((frame, parse_buttons(buttons.trim())?))
            };
            let (frame, buttons) = parse_line().with_context(|| format!("input line {}", i + 1))?;
            if changes.last().is_some_and(|&(last, _)| frame <= last) {
                bail!(
                    "input line {}: frame {frame} is not after the line before",
                    i + 1
                );
            }
            changes.push((frame, buttons));
        }
        Ok(InputScript { changes })
    }

    /// The buttons to set at the start of `frame`, if they change there.
    pub fn change_at(&self, frame: u64) -> Option<Buttons> {
        self.changes
            .binary_search_by_key(&frame, |&(f, _)| f)
            .ok()
            .map(|i| self.changes[i].1)
    }
}

fn parse_buttons(text: &str) -> anyhow::Result<Buttons> {
    if text == "none" {
        return Ok(Buttons(0));
    }
    let mut bits = 0;
    for name in text.split('+') {
        bits |= match name.trim().to_ascii_lowercase().as_str() {
            "a" => Buttons::A,
            "b" => Buttons::B,
            "select" => Buttons::SELECT,
            "start" => Buttons::START,
            "up" => Buttons::UP,
            "down" => Buttons::DOWN,
            "left" => Buttons::LEFT,
            "right" => Buttons::RIGHT,
            other => bail!("unknown button {other:?} (a b select start up down left right none)"),
        };
    }
    Ok(Buttons(bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_changes() {
        let script =
            InputScript::parse("# menu\n120 start\n125 none\n\n200 right+A  # shift\n").unwrap();
        assert_eq!(script.change_at(120), Some(Buttons(Buttons::START)));
        assert_eq!(script.change_at(125), Some(Buttons(0)));
        assert_eq!(
            script.change_at(200),
            Some(Buttons(Buttons::RIGHT | Buttons::A))
        );
        assert_eq!(script.change_at(121), None);
    }

    #[test]
    fn errors_name_the_line() {
        let err = |text| format!("{:#}", InputScript::parse(text).unwrap_err());
        assert_eq!(
            err("10 a\nx start"),
            "input line 2: \"x\" is not a frame number"
        );
        assert!(err("10 jump").contains("unknown button \"jump\""));
        assert!(err("10 a\n5 b").contains("not after"));
        assert!(err("10").contains("expected `frame buttons`"));
    }
}
