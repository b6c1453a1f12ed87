//! PAL and Dendy consoles: their frame's length in CPU cycles, where VBlank begins, the region
//! a NES 2.0 header names, and save states that stay on their region.

use nes::{Cartridge, Console, Region, StateError};

const QUADFALL: &[u8] = include_bytes!("../../../roms/quadfall.nes");

/// Quadfall's image with a NES 2.0 header whose timing field is `timing`.
fn nes2_quadfall(timing: u8) -> Vec<u8> {
    let mut image = QUADFALL.to_vec();
    image[7] = (image[7] & 0xF3) | 0x08;
    image[8..16].fill(0);
    image[12] = timing;
    image
}

fn console(region: Region) -> Console {
    Console::with_region(Cartridge::from_ines(QUADFALL).unwrap(), region)
}

#[test]
fn frames_take_the_regions_cycles() {
    // Dots per frame over dots per CPU cycle: NTSC 89,341.5 / 3 (rendering on, so odd frames
    // skip a dot), PAL 106,392 / 3.2, Dendy 106,392 / 3.
    for (region, cycles_per_100_frames) in [
        (Region::Ntsc, 2_978_050),
        (Region::Pal, 3_324_750),
        (Region::Dendy, 3_546_400),
    ] {
        let mut console = console(region);
        for _ in 0..60 {
            console.run_frame();
        }
        let start = console.cycles();
        for _ in 0..100 {
            console.run_frame();
        }
        let cycles = console.cycles() - start;
        // Frames end at an instruction boundary: a few cycles either way.
        assert!(
            cycles.abs_diff(cycles_per_100_frames) < 8,
            "{region}: {cycles} cycles in 100 frames"
        );
        assert_eq!(console.ppu_frames(), 160, "{region}");
    }
}

#[test]
fn vblank_begins_on_the_regions_line() {
    for (region, line) in [
        (Region::Ntsc, 241),
        (Region::Pal, 241),
        (Region::Dendy, 291),
    ] {
        let mut console = console(region);
        let bus = &mut console.bus;
        let mut seen = None;
        // Two frames of dots, enough for 312 lines.
        for _ in 0..2 * 312 * 341 {
            bus.ppu.step(&mut bus.cart);
            if bus.ppu.peek_register(2, &bus.cart) & 0x80 != 0 {
                seen = Some((bus.ppu.scanline, bus.ppu.dot));
                break;
            }
        }
        // The flag is up after dot 1 of the line has run.
        assert_eq!(seen, Some((line, 2)), "{region}");
    }
}

#[test]
fn the_nes2_header_names_the_region() {
    for (timing, region) in [
        (0, Region::Ntsc),
        (1, Region::Pal),
        (2, Region::Ntsc),
        (3, Region::Dendy),
    ] {
        let console = Console::from_ines(&nes2_quadfall(timing)).unwrap();
        assert_eq!(console.region(), region, "timing {timing}");
    }
    assert_eq!(
        Cartridge::from_ines(&nes2_quadfall(2))
            .unwrap()
            .header
            .region,
        None,
        "multiple-region games run on any console"
    );
    assert_eq!(Cartridge::from_ines(QUADFALL).unwrap().header.region, None);
}

#[test]
fn states_stay_on_their_region() {
    let mut pal = console(Region::Pal);
    for _ in 0..30 {
        pal.run_frame();
    }
    let state = pal.save_state();
    let mut ntsc = console(Region::Ntsc);
    let before = ntsc.save_state();
    let error = ntsc.load_state(&state).unwrap_err();
    assert_eq!(
        error,
        StateError::OtherRegion {
            state: Region::Pal,
            console: Region::Ntsc
        }
    );
    assert_eq!(
        error.to_string(),
        "the save state was made for PAL consoles, this one is NTSC"
    );
    assert!(ntsc.save_state() == before, "the console is untouched");

    // On its own region it goes on exactly as the original.
    let mut copy = console(Region::Pal);
    copy.load_state(&state).unwrap();
    for _ in 0..30 {
        pal.run_frame();
        copy.run_frame();
    }
    assert_eq!(pal.hash(), copy.hash());
    assert_eq!(pal.cycles(), copy.cycles());
}

#[test]
fn a_power_cycle_keeps_the_region() {
    let mut console = console(Region::Dendy);
    console.run_frame();
    console.power_cycle();
    assert_eq!(console.region(), Region::Dendy);
}
