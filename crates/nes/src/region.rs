//! The console's region: which CPU and PPU pair the machine has, and the timing that follows.
//!
//! | | NTSC (2A03/2C02) | PAL (2A07/2C07) | Dendy (UA6527P/UA6538) |
//! |---|---|---|---|
//! | master clock | 21.477272 MHz | 26.601712 MHz | 26.601712 MHz |
//! | CPU clock | master / 12 | master / 16 | master / 15 |
//! | PPU dots per CPU cycle | 3 | 3.2 | 3 |
//! | lines per frame | 262 | 312 | 312 |
//! | VBlank (flag and NMI) | lines 241-260 | lines 241-310 | lines 291-310 |
//! | pre-render line's last dot skipped on odd frames | yes | no | no |
//! | frame rate | 60.0988 Hz | 50.0070 Hz | 50.0070 Hz |
//! | APU noise and DMC periods, frame counter | NTSC | PAL | NTSC |
//! | PPUMASK bit 5 / bit 6 emphasise | red / green | green / red | green / red |
//! | colour output | NTSC | PAL: hues 15 degrees on | PAL: hues 15 degrees on |
//!
//! (nesdev wiki, "Cycle reference chart" and "Clock rate"; the Dendy runs Famicom games'
//! cycle-timed code unchanged, so its CPU and APU count as an NTSC one's; "Colour emphasis"
//! and "PAL video" for the 2C07's and the 6538's colours.)

use std::fmt;

/// The NTSC master clock: 6 x the colour subcarrier, 315/88 MHz.
const NTSC_MASTER_HZ: f64 = 236_250_000.0 / 11.0;
/// The PAL master clock: 6 x the colour subcarrier, 4.43361875 MHz.
const PAL_MASTER_HZ: f64 = 26_601_712.5;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Region {
    #[default]
    Ntsc,
    Pal,
    Dendy,
}

impl Region {
    pub const ALL: [Region; 3] = [Region::Ntsc, Region::Pal, Region::Dendy];

    /// The name on the command line and in config files: `ntsc`, `pal`, `dendy`.
    pub fn key(self) -> &'static str {
        match self {
            Region::Ntsc => "ntsc",
            Region::Pal => "pal",
            Region::Dendy => "dendy",
        }
    }

    /// [`Region::key`] back to the region, in any case.
    pub fn from_key(key: &str) -> Option<Region> {
        Region::ALL
            .into_iter()
            .find(|region| region.key().eq_ignore_ascii_case(key))
    }

    /// The region a NES 2.0 header's CPU/PPU timing field (byte 12, bits 0-1) names; None for
    /// "multiple regions", which runs on any.
    pub fn from_nes2_timing(timing: u8) -> Option<Region> {
        match timing & 3 {
            0 => Some(Region::Ntsc),
            1 => Some(Region::Pal),
            3 => Some(Region::Dendy),
            _ => None,
        }
    }

    /// PAL if a ROM's file name carries a PAL tag as GoodNES and No-Intro names do: "(E)",
    /// "(Europe...)", "(Australia...)", "(PAL)". No tag tells a Dendy release apart.
    pub fn from_file_name(name: &str) -> Option<Region> {
        const PAL_TAGS: [&str; 4] = ["(e)", "(europe", "(australia", "(pal)"];
        let name = name.to_ascii_lowercase();
        PAL_TAGS
            .iter()
            .any(|tag| name.contains(tag))
            .then_some(Region::Pal)
    }

    /// The lines of a frame, the pre-render line the last of them.
    pub fn lines_per_frame(self) -> u16 {
        match self {
            Region::Ntsc => 262,
            Region::Pal | Region::Dendy => 312,
        }
    }

    /// The line at whose dot 1 the VBlank flag (and NMI) comes.
    pub fn vblank_line(self) -> u16 {
        match self {
            Region::Ntsc | Region::Pal => 241,
            Region::Dendy => 291,
        }
    }

    /// Odd frames with rendering on skip the pre-render line's last dot.
    pub fn skips_odd_frame_dot(self) -> bool {
        self == Region::Ntsc
    }

    /// PPU dots in five CPU cycles: 15, or 16 on PAL (3.2 a cycle).
    pub fn dots_per_five_cycles(self) -> u64 {
        match self {
            Region::Pal => 16,
            Region::Ntsc | Region::Dendy => 15,
        }
    }

    /// The CPU's clock in Hz.
    pub const fn cpu_clock_hz(self) -> f64 {
        match self {
            Region::Ntsc => NTSC_MASTER_HZ / 12.0,
            Region::Pal => PAL_MASTER_HZ / 16.0,
            Region::Dendy => PAL_MASTER_HZ / 15.0,
        }
    }

    /// Frames a second: the PPU's clock over a frame's dots (NTSC's average frame, with the
    /// dot odd frames skip, is 89,341.5 dots).
    pub fn frame_rate(self) -> f64 {
        match self {
            Region::Ntsc => NTSC_MASTER_HZ / 4.0 / 89_341.5,
            Region::Pal | Region::Dendy => PAL_MASTER_HZ / 5.0 / (341.0 * 312.0),
        }
    }

    /// The 2A07's APU tables (noise and DMC periods, frame counter) instead of the 2A03's.
    pub fn pal_apu(self) -> bool {
        self == Region::Pal
    }

    /// Whether the PPU makes PAL video: the 2C07 and the 6538 both.
    pub fn pal_video(self) -> bool {
        self != Region::Ntsc
    }

    /// A PPUMASK value with its emphasis bits in the 2C02's order (bit 5 red, 6 green, 7 blue),
    /// the order of the frame buffer's pixels: the PAL PPUs swap red and green.
    pub fn mask_in_2c02_order(self, mask: u8) -> u8 {
        if self.pal_video() {
            mask & !0x60 | (mask & 0x20) << 1 | (mask & 0x40) >> 1
        } else {
            mask
        }
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Region::Ntsc => "NTSC",
            Region::Pal => "PAL",
            Region::Dendy => "Dendy",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_rates_are_the_wiki_figures() {
        assert!((Region::Ntsc.frame_rate() - 60.0988).abs() < 1e-4);
        assert!((Region::Pal.frame_rate() - 50.0070).abs() < 1e-4);
        assert!((Region::Pal.cpu_clock_hz() - 1_662_607.0).abs() < 1.0);
        assert!((Region::Dendy.cpu_clock_hz() - 1_773_447.5).abs() < 1.0);
    }

    #[test]
    fn file_name_tags() {
        for name in [
            "Tetris (E) [!].nes",
            "Super Mario Bros. (Europe).nes",
            "Elite (Europe) (En,Fr,De).nes",
            "Game (PAL).nes",
        ] {
            assert_eq!(Region::from_file_name(name), Some(Region::Pal), "{name}");
        }
        for name in [
            "Tetris (U) [!].nes",
            "Zelda (USA).nes",
            "Eleven.nes",
            "e.nes",
        ] {
            assert_eq!(Region::from_file_name(name), None, "{name}");
        }
    }

    /// PPUMASK bit 5 emphasises red on NTSC and green on PAL and Dendy: a console of each,
    /// showing the backdrop with rendering off, sends pixels with the red or the green bit.
    #[test]
    fn pal_ppus_swap_red_and_green_emphasis() {
        use crate::header::TestImage;
        use crate::{Cartridge, Console};
        for (region, bit5, bit6) in [
            (Region::Ntsc, 1, 2),
            (Region::Pal, 2, 1),
            (Region::Dendy, 2, 1),
        ] {
            let cart = Cartridge::from_ines(&TestImage::new(0, 1, 1).image()).unwrap();
            let mut console = Console::with_region(cart, region);
            let mut emphasis = |mask: u8| {
                console.bus.write_untimed(0x2001, mask);
                console.run_frame();
                console.run_frame();
                console.frame_buffer()[120 * 256 + 128] >> 6
            };
            assert_eq!(emphasis(0x20), bit5, "{region}: bit 5");
            assert_eq!(emphasis(0x40), bit6, "{region}: bit 6");
            assert_eq!(emphasis(0x80), 4, "{region}: bit 7 is blue");
            assert_eq!(emphasis(0xE0), 7, "{region}: all three");
        }
    }

    #[test]
    fn keys_round_trip() {
        for region in Region::ALL {
            assert_eq!(Region::from_key(region.key()), Some(region));
        }
        assert_eq!(Region::from_key("PAL"), Some(Region::Pal));
        assert_eq!(Region::from_key("secam"), None);
    }
}
