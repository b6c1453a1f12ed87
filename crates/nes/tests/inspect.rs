//! `Console::inspect` reads PPU registers by drawing the PPU's owed pixels first: the machine
//! must run on exactly as it would have without the look.

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
