//! Mapper behaviour that the conformance manifest cannot express: the same test ROM under
//! another NES 2.0 submapper.

use testrom::{run_rom, Protocol, Verdict};

/// mmc3_test_2's 6-MMC3_alt checks the old MMC3A IRQ behaviour (a counter reloaded with 0 by
/// itself raises no IRQ). Its iNES 1.0 header cannot ask for that chip, so it fails under the
/// default MMC3B/C behaviour (as the conformance suite records) and must pass when the header
/// names NES 2.0 submapper 4.
#[test]
fn mmc3_alt_passes_as_mmc3a_submapper() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/test-roms/mmc3_test_2/rom_singles/6-MMC3_alt.nes"
    );
    let mut rom = std::fs::read(path).expect("shared test ROM present");
    let default = run_rom(&rom, &Protocol::Blargg6000, 1200).unwrap();
    assert_ne!(
        default.verdict,
        Verdict::Passed,
        "MMC3B/C must fail it: {default:?}"
    );

    rom[7] = (rom[7] & 0xF0) | 0x08; // NES 2.0
    rom[8] = 0x40; // mapper 4, submapper 4 (MMC3A)
    rom[9] = 0;
    rom[10] = 0x07; // 8 KiB PRG-RAM for the $6000 status
    rom[11] = if rom[5] == 0 { 0x07 } else { 0 };
    let mmc3a = run_rom(&rom, &Protocol::Blargg6000, 1200).unwrap();
    assert_eq!(mmc3a.verdict, Verdict::Passed, "{mmc3a:?}");
}
