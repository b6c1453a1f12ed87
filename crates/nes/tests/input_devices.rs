//! Devices in the controller ports, end to end: a game reading the Vaus through $4016/$4017,
//! the Zapper seeing the picture at the beam through the bus, a Four Score's players 3-4.

use nes::cpu::CpuBus;
use nes::port::Plug;
use nes::vaus::Vaus;
use nes::{Buttons, Cartridge, Console, Device};

const QUADFALL: &[u8] = include_bytes!("../../../roms/quadfall.nes");

/// vaus-test's variables (its `main.s` zero page, placed at $10 by its link).
const PLAYER_X: u16 = 0x13;
const CONTROL_TYPE: u16 = 0x19;
const INDICATOR_X: u16 = 0x1C;
/// `control_type` once the game took the NES Vaus in port 2 (CONTROL_ARKANOID_NES).
const ARKANOID_NES: u8 = 3;

fn vaus_test() -> Console {
    let rom = std::fs::read(testrom::location::path("vaus-test/vaus-test.nes"))
        .expect("vaus-test/vaus-test.nes");
    let mut console = Console::new(Cartridge::from_ines(&rom).unwrap());
    console.plug(1, Device::Vaus);
    console
}

fn run(console: &mut Console, frames: usize) {
    for _ in 0..frames {
        console.run_frame();
    }
}

/// vaus-test (MANIFEST.tsv: "press the Vaus button to take control, then the knob moves the
/// character ... a marker sprite follows the knob and the character walks to it").
#[test]
fn vaus_test_takes_the_vaus_and_its_character_follows_the_knob() {
    let mut console = vaus_test();
    run(&mut console, 30);
    assert_eq!(
        console.peek(CONTROL_TYPE),
        0,
        "standard controller until the button"
    );
    console.point(Some((128, 100)), true);
    run(&mut console, 3);
    console.point(Some((128, 100)), false);
    run(&mut console, 3);
    assert_eq!(console.peek(CONTROL_TYPE), ARKANOID_NES);

    // The marker: the game turns the knob's reading into a column (it inverts it).
    for x in [20, 128, 230] {
        console.point(Some((x, 0)), false);
        run(&mut console, 2);
        assert_eq!(
            console.peek(INDICATOR_X),
            !Vaus::knob_at(x),
            "pointer at {x}"
        );
    }

    // The character walks (a third of a pixel a frame) toward the knob's side, and stops.
    console.point(Some((230, 0)), false);
    run(&mut console, 600);
    let right = console.peek(PLAYER_X);
    console.point(Some((20, 0)), false);
    run(&mut console, 600);
    let left = console.peek(PLAYER_X);
    assert!(
        right > 0xB0 && left < 0x50,
        "walked to {right}, then to {left}"
    );
    run(&mut console, 60);
    assert_eq!(console.peek(PLAYER_X), left, "stopped at the marker");
}

#[test]
fn a_vaus_button_press_in_port_1_is_not_taken_for_port_2() {
    let mut console = vaus_test();
    console.plug(0, Device::Vaus);
    console.plug(1, Device::Pad);
    run(&mut console, 30);
    console.point(Some((128, 100)), true);
    run(&mut console, 6);
    assert_ne!(console.peek(CONTROL_TYPE), ARKANOID_NES);
}

/// Runs instructions until the PPU's beam is at `line` or below, in the frame being drawn.
fn run_to_line(console: &mut Console, line: u16) {
    while console.ppu().scanline < line || console.ppu().scanline >= 240 {
        console.step();
    }
}

/// The Zapper's D3 for a read of $4017 now (1: dark).
fn dark(console: &mut Console) -> u8 {
    console.read(0x4017) >> 3 & 1
}

#[test]
fn the_zapper_sees_bright_pixels_the_beam_just_drew_through_4017() {
    let mut console = Console::new(Cartridge::from_ines(QUADFALL).unwrap());
    console.plug(1, Device::Zapper);
    run(&mut console, 120);
    let picture = console.frame_buffer().to_vec();
    let palette = nes::ppu::palette::Palette::default();
    let brightness = |i: usize| {
        palette
            .rgb(picture[i])
            .iter()
            .map(|&c| u32::from(c))
            .sum::<u32>()
    };
    let index = |x: usize, y: usize| y * 256 + x;
    // A white pixel and a black one in the middle of the title (which stands still).
    let find = |wanted: &dyn Fn(u32) -> bool| {
        (40..200)
            .flat_map(|y| (8..248).map(move |x| (x, y)))
            .find(|&(x, y)| wanted(brightness(index(x, y))))
            .expect("the title has white and black")
    };
    let (wx, wy) = find(&|b| b > 600);
    let (bx, by) = find(&|b| b < 60);
    let aim = |console: &mut Console, x: usize, y: usize| {
        console.point(Some((x as u8, y as u8)), false);
    };

    aim(&mut console, wx, wy);
    run_to_line(&mut console, 2);
    assert_eq!(
        dark(&mut console),
        1,
        "the beam has not reached line {wy} yet"
    );
    run_to_line(&mut console, wy as u16 + 3);
    assert_eq!(
        dark(&mut console),
        0,
        "three lines after the beam drew ({wx}, {wy})"
    );
    run_to_line(&mut console, wy as u16 + 30);
    assert_eq!(
        dark(&mut console),
        1,
        "30 lines later the light has drained"
    );

    run(&mut console, 1);
    aim(&mut console, bx, by);
    run_to_line(&mut console, by as u16 + 3);
    assert_eq!(dark(&mut console), 1, "({bx}, {by}) is black");

    console.point(None, true);
    console.read(0);
    assert_eq!(
        console.read(0x4017) & 0x18,
        0x18,
        "off the picture, trigger pulled"
    );
    assert!(matches!(console.port(1), Plug::Zapper(_)));
}

#[test]
fn a_four_score_carries_players_3_and_4_and_save_states_keep_it() {
    let mut console = Console::new(Cartridge::from_ines(QUADFALL).unwrap());
    assert_eq!(console.port(1).device(), Device::Pad);
    console.set_buttons(2, Buttons(Buttons::A));
    assert_eq!(
        console.buttons(2),
        Buttons(0),
        "no player 3 without a Four Score"
    );
    let state_with_pads = console.save_state();

    for port in 0..2 {
        console.plug(port, Device::FourScore);
    }
    for player in 0..4 {
        console.set_buttons(player, Buttons(1 << player));
    }
    // Strobe, then read the 24 bits of each port.
    CpuBus::write(&mut console, 0x4016, 1);
    CpuBus::write(&mut console, 0x4016, 0);
    // A RAM read between two reads of a port: back-to-back reads clock it once.
    let mut report = |addr| {
        (0..24).fold(0u32, |r, bit| {
            console.read(0);
            r | u32::from(console.read(addr) & 1) << bit
        })
    };
    assert_eq!(
        report(0x4016),
        0x01 | 0x04 << 8 | 0x08 << 16,
        "players 1, 3, $10 MSB first"
    );
    assert_eq!(
        report(0x4017),
        0x02 | 0x08 << 8 | 0x04 << 16,
        "players 2, 4, $20 MSB first"
    );

    let state = console.save_state();
    let mut powered = console.clone();
    powered.power_cycle();
    assert_eq!(
        powered.port(0).device(),
        Device::FourScore,
        "a power cycle keeps it"
    );
    console.load_state(&state_with_pads).unwrap();
    assert_eq!(
        console.port(0).device(),
        Device::Pad,
        "the state's devices come back"
    );
    console.load_state(&state).unwrap();
    assert_eq!(console.port(1).device(), Device::FourScore);
    assert_eq!(console.buttons(3), Buttons(1 << 3));
}
