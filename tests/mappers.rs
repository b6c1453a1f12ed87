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
        let window = console.cartridge().ppu_window(0x0400);
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

/// An image whose program sounds a pulse through the registers at page `page` ($40: the
/// 2A03's first pulse, $50: MMC5's): 50% duty, constant volume 15, 440 Hz, then loops.
fn pulse_program(mapper: u8, page: u8) -> Vec<u8> {
    let mut image = vec![b'N', b'E', b'S', 0x1A, 2, 1, mapper << 4, mapper & 0xF0];
    image.resize(16, 0);
    let code = [
        0x78, 0xD8, // SEI, CLD
        0xA9, 0x01, 0x8D, 0x15, page, // $xx15 = 1: pulse 1 on
        0xA9, 0xBF, 0x8D, 0x00, page, // $xx00: duty 2, constant volume 15
        0xA9, 0xFD, 0x8D, 0x02, page, // $xx02: period $0FD
        0xA9, 0x08, 0x8D, 0x03, page, // $xx03: length index 1
        0x4C, 0x16, 0xE0, // JMP to itself
    ];
    // 32 KiB of PRG whose every 8 KiB is the same bank (MMC5 powers up in 8 KiB mode with
    // $E000 fixed to the last).
    let mut bank = vec![0xEAu8; 0x2000];
    bank[..code.len()].copy_from_slice(&code);
    bank[0x1FFA..].copy_from_slice(&[0x00, 0xE0, 0x00, 0xE0, 0x00, 0xE0]);
    for _ in 0..4 {
        image.extend_from_slice(&bank);
    }
    image.resize(image.len() + 0x2000, 0);
    image
}

/// MMC5's pulse reaches the console's sound through the expansion-audio input, as loud as
/// the 2A03's pulse with the same settings; the same program on NROM (no audio) is silent.
#[test]
fn mmc5_pulse_is_mixed_into_the_sound() {
    let loudness = |mapper: u8, page: u8| {
        let mut console = nes::Console::from_ines(&pulse_program(mapper, page)).unwrap();
        let mut samples = Vec::new();
        for _ in 0..20 {
            console.run_frame();
            samples.clear();
            console.take_samples(&mut samples);
        }
        let peak = samples.iter().map(|s| i32::from(*s).abs()).max().unwrap();
        // Swings from below a quarter of the peak under zero to a quarter above and back: the tone's
        // frequency over the last frame's samples, blind to the resampler's ringing at edges.
        let half = peak / 4;
        let mut high = None;
        let mut crossings = 0;
        for &sample in &samples {
            let now = match i32::from(sample) {
                s if s > half => Some(true),
                s if s < -half => Some(false),
                _ => high,
            };
            crossings += usize::from(high.is_some() && now != high);
            high = now;
        }
        (peak, crossings)
    };
    let (nrom_peak, _) = loudness(0, 0x50);
    let (apu_peak, apu_crossings) = loudness(0, 0x40);
    let (mmc5_peak, crossings) = loudness(5, 0x50);
    assert!(nrom_peak < 50, "NROM: {nrom_peak}");
    assert!(apu_peak > 1000, "the 2A03's pulse: {apu_peak}");
    let ratio = f64::from(mmc5_peak) / f64::from(apu_peak);
    assert!(
        (0.95..1.05).contains(&ratio),
        "MMC5 {mmc5_peak}, 2A03 {apu_peak}"
    );
    // 1.79 MHz / (16 * 254) = 440 Hz: about 7.3 periods, 14.7 swings in a 60th of a second.
    assert!((13..17).contains(&crossings), "{crossings} swings");
    assert!(
        crossings.abs_diff(apu_crossings) <= 2,
        "{crossings} against {apu_crossings}"
    );
}

/// The frames of an MMC5 test ROM from power-on, one per entry of `frames` (ascending frame
/// numbers). With `NESTOR_DUMP_DIR` set, each is also written there as a PPM picture, to be
/// looked at.
fn mmc5_frames(rom: &str, frames: &[u64]) -> Vec<Vec<u16>> {
    let image = std::fs::read(testrom::location::path(rom)).expect("test ROM present");
    let mut console = nes::Console::from_ines(&image).unwrap();
    let palette = nes::ppu::palette::Palette::default();
    let mut out = Vec::new();
    for &frame in frames {
        while console.frame_number() < frame {
            console.run_frame();
        }
        let pixels = console.frame_buffer().to_vec();
        if let Some(dir) = std::env::var_os("NESTOR_DUMP_DIR") {
            let mut rgb = Vec::new();
            palette.to_rgb(&pixels, &mut rgb);
            let name = format!("{}-{frame}.ppm", rom.replace('/', "_"));
            let mut ppm = b"P6\n256 240\n255\n".to_vec();
            ppm.extend(rgb);
            std::fs::write(std::path::Path::new(&dir).join(name), ppm).unwrap();
        }
        out.push(pixels);
    }
    out
}

/// FNV-1a of lines `lines` of a frame.
fn lines_hash(frame: &[u16], lines: std::ops::Range<usize>) -> u64 {
    frame[lines.start * 256..lines.end * 256]
        .iter()
        .fold(0xCBF2_9CE4_8422_2325, |h: u64, &p| {
            (h ^ u64::from(p)).wrapping_mul(0x100_0000_01B3)
        })
}

/// mmc5test: its scanline IRQ ($5203 = $9F) splits the screen; above, nametable $2000 bobs
/// up and down over a 256-frame cycle, below, nametable $2800 stays still (MANIFEST.tsv).
/// The pictures at frames 120 and 160 were looked at and match that description.
#[test]
fn mmc5test_splits_the_screen_at_its_irq() {
    let frames = mmc5_frames("mmc5test/mmc5test.nes", &[120, 160]);
    let (top, bottom) = (0..150, 170..240);
    assert_ne!(
        lines_hash(&frames[0], top.clone()),
        lines_hash(&frames[1], top),
        "the top bobs"
    );
    assert_eq!(
        lines_hash(&frames[0], bottom.clone()),
        lines_hash(&frames[1], bottom),
        "the bottom stays"
    );
    assert_eq!(
        lines_hash(&frames[0], 0..240),
        MMC5TEST_120,
        "the picture looked at"
    );
}
const MMC5TEST_120: u64 = 973425541248789373;

/// exram (Quietust): code copied into ExRAM ($5104 = 2) runs every NMI and moves raster bars
/// over the text; frozen bars mean it did not run. The picture at frame 120 was looked at: the
/// text and the bars.
#[test]
fn mmc5_exram_code_moves_the_bars() {
    let frames = mmc5_frames("exram/mmc5exram.nes", &[120, 121, 122]);
    assert_ne!(frames[0], frames[1], "the bars move every frame");
    assert_ne!(frames[1], frames[2], "the bars move every frame");
    assert_eq!(
        lines_hash(&frames[0], 0..240),
        EXRAM_120,
        "the picture looked at"
    );
}
const EXRAM_120: u64 = 2483273325939852049;

/// mmc5test_v2's first screen: the CHR banks seen by sprites, background and $2007 reads in
/// its power-on setting (PPUCTRL $30: 8x16 sprites, background at $1000, the banks written
/// $5120 to $512B in 1 KiB mode). The picture at frame 60 was looked at: sprites show banks
/// 0-7 (the sprite set), the background 8-B (the background set), $2007 reads 89AB89AB (the
/// set written last, outside rendering).
#[test]
fn mmc5test_v2_first_screen() {
    let frames = mmc5_frames("mmc5test_v2/mmc5test.nes", &[60]);
    assert_eq!(
        lines_hash(&frames[0], 0..240),
        MMC5TEST_V2_60,
        "the picture looked at"
    );
}
const MMC5TEST_V2_60: u64 = 8006154397653415368;
