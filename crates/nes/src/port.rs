//! The two controller ports, $4016 and $4017, and what is plugged into each. Every device
//! hears the strobe ($4016 bit 0) and answers reads of its port on D0-D4; D5-D7 are open bus.

use std::fmt;
use std::str::FromStr;

use crate::controller::{Buttons, Controller};
use crate::four_score::FourScore;
use crate::state::{Field, StateIo};
use crate::vaus::Vaus;
use crate::zapper::Zapper;

/// A kind of device, as the user chooses it for a port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Device {
    /// Nothing: reads return 0 on D0-D4.
    None,
    /// The standard controller.
    #[default]
    Pad,
    /// One side of a Four Score: it takes both ports, players 1 and 3 on $4016, 2 and 4 on
    /// $4017.
    FourScore,
    Zapper,
    Vaus,
}

impl Device {
    pub const ALL: [Device; 5] = [
        Device::None,
        Device::Pad,
        Device::FourScore,
        Device::Zapper,
        Device::Vaus,
    ];

    /// The name used by the command line and the config file.
    pub fn name(self) -> &'static str {
        match self {
            Device::None => "none",
            Device::Pad => "pad",
            Device::FourScore => "four-score",
            Device::Zapper => "zapper",
            Device::Vaus => "vaus",
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Device {
    type Err = String;

    /// A device for one port: a Four Score is asked for apart, as it takes both.
    fn from_str(s: &str) -> Result<Device, String> {
        Device::ALL
            .into_iter()
            .filter(|&d| d != Device::FourScore)
            .find(|d| d.name() == s)
            .ok_or_else(|| format!("unknown controller {s:?}: pad, zapper, vaus or none"))
    }
}

/// The devices of ports 1 and 2 as the user chose them: `port1` and `port2` (a pad, a Zapper,
/// a Vaus or nothing), or with `four_score` a Four Score taking both ports, whose sides are
/// pads. The error is one line saying what does not fit.
pub fn choose(port1: Device, port2: Device, four_score: bool) -> Result<[Device; 2], String> {
    let ports = [port1, port2];
    if ports.contains(&Device::FourScore) {
        return Err("a Four Score takes both ports: it is not one port's device".into());
    }
    if !four_score {
        return Ok(ports);
    }
    match ports.iter().find(|&&d| d != Device::Pad) {
        Some(other) => Err(format!(
            "a Four Score takes both ports: no {other} beside it (its ports carry pads only)"
        )),
        None => Ok([Device::FourScore; 2]),
    }
}

/// A device plugged into a port, with its state.
#[derive(Clone, Debug)]
pub enum Plug {
    None,
    Pad(Controller),
    FourScore(FourScore),
    Zapper(Zapper),
    Vaus(Vaus),
}

impl Plug {
    /// A fresh `device` in port `port` (0: $4016, 1: $4017).
    pub fn new(device: Device, port: usize) -> Plug {
        match device {
            Device::None => Plug::None,
            Device::Pad => Plug::Pad(Controller::default()),
            Device::FourScore => Plug::FourScore(FourScore::new(port)),
            Device::Zapper => Plug::Zapper(Zapper::default()),
            Device::Vaus => Plug::Vaus(Vaus::default()),
        }
    }

    pub fn device(&self) -> Device {
        match self {
            Plug::None => Device::None,
            Plug::Pad(_) => Device::Pad,
            Plug::FourScore(_) => Device::FourScore,
            Plug::Zapper(_) => Device::Zapper,
            Plug::Vaus(_) => Device::Vaus,
        }
    }

    pub fn write_strobe(&mut self, high: bool) {
        match self {
            Plug::Pad(pad) => pad.write_strobe(high),
            Plug::FourScore(four) => four.write_strobe(high),
            Plug::Vaus(vaus) => vaus.write_strobe(high),
            Plug::None | Plug::Zapper(_) => {}
        }
    }

    /// D0-D4 of a read, clocking the device's register. The Zapper is read by the bus, which
    /// holds the picture it looks at.
    #[inline]
    pub fn read(&mut self) -> u8 {
        match self {
            Plug::Pad(pad) => pad.read(),
            Plug::FourScore(four) => four.read(),
            Plug::Vaus(vaus) => vaus.read(),
            Plug::None | Plug::Zapper(_) => self.peek(),
        }
    }

    /// What the next read would return, with no side effect (the Zapper's light is not
    /// sensed: D3 reads dark).
    pub fn peek(&self) -> u8 {
        match self {
            Plug::None => 0,
            Plug::Pad(pad) => pad.peek(),
            Plug::FourScore(four) => four.peek(),
            Plug::Zapper(gun) => u8::from(gun.trigger) << 4 | 0x08,
            Plug::Vaus(vaus) => vaus.peek(),
        }
    }

    /// The buttons of the pad in front (`back` false) or behind a Four Score's side, if there
    /// is such a pad.
    pub fn buttons(&self, back: bool) -> Option<Buttons> {
        match self {
            Plug::Pad(pad) if !back => Some(pad.buttons),
            Plug::FourScore(four) => Some(four.buttons[usize::from(back)]),
            _ => None,
        }
    }

    /// [`Plug::buttons`], to change them.
    pub fn buttons_mut(&mut self, back: bool) -> Option<&mut Buttons> {
        match self {
            Plug::Pad(pad) if !back => Some(&mut pad.buttons),
            Plug::FourScore(four) => Some(&mut four.buttons[usize::from(back)]),
            _ => None,
        }
    }

    /// The host's pointer: the Zapper aims at `aim` (None: away from the picture) and pulls
    /// its trigger with `button`; the Vaus's knob follows the pointer's column (and stays put
    /// while it is off the picture) and `button` is its button.
    pub fn point(&mut self, aim: Option<(u8, u8)>, button: bool) {
        match self {
            Plug::Zapper(gun) => {
                *gun = Zapper {
                    aim,
                    trigger: button,
                }
            }
            Plug::Vaus(vaus) => {
                if let Some((x, _)) = aim {
                    vaus.knob = Vaus::knob_at(x);
                }
                vaus.button = button;
            }
            Plug::None | Plug::Pad(_) | Plug::FourScore(_) => {}
        }
    }

    /// Saves or loads the device with its kind; a state's device replaces the one plugged in.
    pub fn visit(&mut self, io: &mut StateIo, port: usize) {
        let mut kind = self.device() as u8;
        io.checked(&mut kind, "controller port device", |&k| {
            usize::from(k) < Device::ALL.len()
        });
        let device = Device::ALL
            .get(usize::from(kind))
            .copied()
            .unwrap_or(Device::None);
        if device != self.device() {
            *self = Plug::new(device, port);
        }
        match self {
            Plug::None => {}
            Plug::Pad(pad) => pad.visit(io),
            Plug::FourScore(four) => four.visit(io),
            Plug::Zapper(gun) => gun.visit(io),
            Plug::Vaus(vaus) => vaus.visit(io),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for device in Device::ALL.into_iter().filter(|&d| d != Device::FourScore) {
            assert_eq!(device.name().parse(), Ok(device));
        }
        let unknown = "joystick".parse::<Device>().unwrap_err();
        assert!(unknown.contains("joystick"), "{unknown}");
        assert!(
            "four-score".parse::<Device>().is_err(),
            "it takes both ports"
        );
    }

    #[test]
    fn a_four_score_takes_both_ports_and_only_pads() {
        use Device::*;
        assert_eq!(choose(Pad, Zapper, false), Ok([Pad, Zapper]));
        assert_eq!(choose(Pad, Pad, true), Ok([FourScore; 2]));
        assert!(choose(Pad, Vaus, true)
            .unwrap_err()
            .contains("no vaus beside it"));
        assert!(choose(FourScore, Pad, false).is_err());
    }

    #[test]
    fn an_empty_port_reads_zero_and_a_pad_only_d0() {
        let mut empty = Plug::new(Device::None, 1);
        empty.write_strobe(true);
        empty.write_strobe(false);
        assert_eq!(empty.read(), 0);
        let mut pad = Plug::new(Device::Pad, 1);
        *pad.buttons_mut(false).unwrap() = Buttons(0xFF);
        assert!(pad.buttons_mut(true).is_none(), "no pad behind");
        pad.write_strobe(true);
        pad.write_strobe(false);
        assert!((0..12).all(|_| pad.read() == 1));
    }

    #[test]
    fn the_pointer_reaches_the_zapper_and_the_vaus() {
        let mut gun = Plug::new(Device::Zapper, 1);
        gun.point(Some((10, 20)), true);
        assert_eq!(gun.peek(), 0x18);
        let mut vaus = Plug::new(Device::Vaus, 1);
        vaus.point(Some((0, 100)), true);
        vaus.point(None, true);
        let Plug::Vaus(v) = &vaus else { unreachable!() };
        assert_eq!(
            (v.knob, v.button),
            (0xF4, true),
            "off the picture the knob stays"
        );
    }
}
