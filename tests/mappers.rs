//! Mapper behaviour that the conformance manifest cannot express: the same test ROM under
//! another NES 2.0 header (submapper, PRG-RAM size).

use testrom::{run_rom, Protocol, Verdict};

/// mmc3_test_2's 6-MMC3_alt checks the old MMC3A IRQ behaviour (a counter reloaded with 0 by
/// itself raises no IRQ). Its iNES 1.0 header cannot ask for that chip, so it fails under the
/// default MMC3B/C behaviour (as the conformance suite records) and must pass when the header
/// names NES 2.0 submapper 4.
#[test]
fn mmc3_alt_passes_as_mmc3a_submapper() {
    let path = testrom::location::path("mmc3_test_2/rom_singles/6-MMC3_alt.nes");
    let mut rom = std::fs::read(path).expect("test ROM present");
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

/// Holy Diver Batman's MMC1 ROMs under the NES 2.0 headers of boards the shared set lacks: its
/// driver banks PRG-RAM through the CHR register and checks that SNROM (CHR-RAM, at most
/// 256 KiB PRG, 8 KiB PRG-RAM) disables the RAM with CHR bit 4 and that other boards do not.
#[test]
fn holy_diver_batman_on_snrom_and_sxrom() {
    let dir = testrom::location::path("holydiverbatman/testroms");
    // (ROM, header byte 10: PRG-RAM and PRG-NVRAM sizes as 64 << n)
    for (file, ram_sizes, board) in [
        ("M1_P128K.nes", 0x07, "SNROM, 8 KiB PRG-RAM"),
        ("M1_P512K_S8K.nes", 0x09, "SXROM, 32 KiB PRG-RAM"),
        (
            "M1_P512K_S8K.nes",
            0x90,
            "SXROM, 32 KiB battery-backed PRG-RAM",
        ),
    ] {
        let mut rom = std::fs::read(dir.join(file)).expect("test ROM present");
        rom[10] = ram_sizes;
        let result = run_rom(&rom, &Protocol::BoardReport { mapper: 1 }, 1200).unwrap();
        assert_eq!(result.verdict, Verdict::Passed, "{board}: {result:?}");
    }
}

/// m22chrbankingtest steps the register of CHR bank 1 ($0400) through 0-255 every 8 frames,
/// written through VRC2a's swapped lines ($B001 low nibble, $B003 high). VRC2a ignores the
/// value's bit 0, so each 1 KiB bank must stay 16 frames, in order; the ROM draws the bank's
/// number, which then shows twice as its readme asks.
#[test]
fn vrc2a_halves_the_chr_bank_number() {
    let rom = std::fs::read(testrom::location::path("m22chrbankingtest/0-127.nes"))
        .expect("test ROM present");
    let chr = &rom[16 + 16 * 1024..];
    let mut console = nes::Console::from_ines(&rom).unwrap();
    // (bank, frames it stayed)
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for _ in 0..600 {
        console.run_frame();
        let window = console.bus.cart.ppu_window(0x0400);
        let bank = chr
            .chunks_exact(0x400)
            .position(|b| b == window)
            .expect("a CHR-ROM bank at $0400");
        match runs.last_mut() {
            Some((last, frames)) if *last == bank => *frames += 1,
            _ => runs.push((bank, 1)),
        }
    }
    assert!(runs.len() > 30, "{runs:?}");
    for (i, pair) in runs.windows(2).enumerate() {
        assert_eq!(pair[1].0, pair[0].0 + 1, "banks in order: {runs:?}");
        if i > 0 {
            assert_eq!(pair[0].1, 16, "16 frames per bank: {runs:?}");
        }
    }
}
