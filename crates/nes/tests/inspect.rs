//! Looking at the machine changes nothing: `Console::inspect` reads PPU registers by drawing
//! the PPU's owed pixels first, `Console::snapshot_into` saves the state in place; the machine
//! must run on exactly as it would have without the look, sound included.

use nes::Console;

const ROM: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../roms/quadfall.nes"
));

#[test]
fn inspecting_ppu_registers_changes_nothing() {
    let mut looked_at = Console::from_ines(ROM).unwrap();
    let mut left_alone = Console::from_ines(ROM).unwrap();
    for step in 0..20_000u32 {
        // Odd stretches, so the looks land on every part of a line and a frame.
        let cycles = 50 + u64::from(step % 97);
        looked_at.run_cycles(cycles);
        left_alone.run_cycles(cycles);
        let (status, copy) = (looked_at.peek(0x2002), looked_at.clone());
        for addr in [0x2002, 0x2004, 0x2007, 0x3FFA] {
            assert_eq!(looked_at.inspect(addr), copy.peek(addr), "step {step}");
        }
        assert_eq!(looked_at.inspect(0x2002), status);
        if step % 1000 == 999 {
            assert_eq!(
                looked_at.save_state(),
                left_alone.save_state(),
                "step {step}"
            );
            assert_eq!(looked_at.hash(), left_alone.hash(), "step {step}");
        }
    }
}

#[test]
fn snapshots_in_place_change_nothing() {
    let mut snapped = Console::from_ines(ROM).unwrap();
    let mut left_alone = Console::from_ines(ROM).unwrap();
    let (mut sound, mut reference) = (Vec::new(), Vec::new());
    let mut buffer = Vec::new();
    for frame in 0..900u32 {
        // Through the menus into a game, with some moves.
        let buttons = match frame % 30 {
            0 => nes::Buttons::START,
            7 => nes::Buttons::LEFT,
            15 => nes::Buttons::A,
            _ => 0,
        };
        for console in [&mut snapped, &mut left_alone] {
            console.set_buttons(0, nes::Buttons(buttons));
            console.run_frame();
        }
        buffer = snapped.snapshot_into(buffer);
        assert_eq!(buffer, left_alone.snapshot(), "frame {frame}");
        snapped.take_samples(&mut sound);
        left_alone.take_samples(&mut reference);
        assert_eq!(sound, reference, "frame {frame}");
    }
    assert_eq!(snapped.save_state(), left_alone.save_state());
}
