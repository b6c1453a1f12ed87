//! Power-on RAM: zeros unless asked for another pattern, over all 2 KiB, whatever RAM held
//! before the power cycle.

use nes::{Console, PowerOnRam};

const ROM: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../roms/quadfall.nes"
));

/// $0000-$07FF as the CPU reads it.
fn ram(console: &Console) -> Vec<u8> {
    (0..0x800).map(|addr| console.peek(addr)).collect()
}

#[test]
fn power_on_ram_follows_the_pattern_asked_for() {
    let mut console = Console::from_ines(ROM).unwrap();
    assert!(ram(&console).iter().all(|&b| b == 0));
    let fresh_pc = console.cpu.pc;
    for _ in 0..30 {
        console.run_frame();
    }
    assert!(
        ram(&console).iter().any(|&b| b != 0),
        "the game wrote no RAM"
    );

    console.power_cycle_with(PowerOnRam::Fceux);
    let fceux = ram(&console);
    assert_eq!(
        fceux[..16],
        [0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]
    );
    assert!(fceux.chunks(8).all(|c| c == &fceux[..8]));
    assert_eq!(console.cpu.pc, fresh_pc);
    assert_eq!(console.frame_number(), 0);

    console.power_cycle_with(PowerOnRam::Ff);
    assert!(ram(&console).iter().all(|&b| b == 0xFF));
    console.power_cycle();
    assert!(ram(&console).iter().all(|&b| b == 0));
}
