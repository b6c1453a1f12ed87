//! The fast paths (idle loops, OAM DMAs at once, boards that follow A12 told only of its
//! changes) change nothing: each ROM runs on two consoles, one with the fast paths and one
//! without, through the same calls of `run_frame`, `run_cycles` and `run_while`, the same
//! buttons and the same resets, and after every call they must agree on the frame buffer,
//! RAM, the cycle count, the sound and the whole save state.

use nes::{Buttons, Cartridge, Console, Region};
use std::path::{Path, PathBuf};
use testrom::location::path as test_rom;

fn rom(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A small deterministic generator for the calls and buttons.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

/// What both consoles do next.
#[derive(Debug)]
enum Call {
    Frame,
    Cycles(u64),
    /// Instructions while the RAM byte is zero (then while it is not), as the AI's driver
    /// waits for the game's NMI flag.
    WhileZero(u16, u64),
    Buttons(u8),
    Reset,
}

fn choose(lcg: &mut Lcg, flag: u16, press: bool) -> Call {
    match lcg.next() % 16 {
        0..=7 => Call::Frame,
        8..=10 => Call::Cycles(1 + lcg.next() % 40_000),
        11..=13 => Call::WhileZero(flag, 1 + lcg.next() % 30_000),
        14 if press => Call::Buttons(lcg.next() as u8),
        15 if lcg.next().is_multiple_of(40) => Call::Reset,
        _ => Call::Frame,
    }
}

/// Makes the call; returns the instructions it reports (0 for the calls that report none).
fn apply(console: &mut Console, call: &Call) -> u64 {
    match *call {
        Call::Frame => return console.run_frame(),
        Call::Cycles(n) => return console.run_cycles(n),
        Call::WhileZero(addr, max) => {
            let n = console.run_while(max, |c| c.peek(addr) == 0);
            return n + console.run_while(max - n, |c| c.peek(addr) != 0);
        }
        Call::Buttons(b) => console.set_buttons(0, Buttons(b)),
        Call::Reset => console.reset(),
    }
    0
}

/// The frame buffer with the pixels the render part still owes drawn (a console in lockstep
/// owes none).
fn picture(console: &Console) -> Vec<u16> {
    console.clone().picture_so_far().to_vec()
}

/// Runs `calls` calls on both consoles; returns the share of cycles the fast path skipped.
fn compare(path: &Path, calls: usize, flag: u16, press: bool) -> f64 {
    compare_on(Region::Ntsc, path, calls, flag, press)
}

/// [`compare`] on consoles of `region`.
fn compare_on(region: Region, path: &Path, calls: usize, flag: u16, press: bool) -> f64 {
    let bytes = rom(path);
    let cart = Cartridge::from_ines(&bytes).expect("ROM loads");
    let mut fast = Console::with_region(cart, region);
    let mut slow = fast.clone();
    slow.set_fast_forward(false);
    let mut lcg = Lcg(bytes.len() as u64);
    let (mut fast_sound, mut slow_sound) = (Vec::new(), Vec::new());
    for n in 0..calls {
        let call = choose(&mut lcg, flag, press);
        let instructions = (apply(&mut fast, &call), apply(&mut slow, &call));
        let at = format!("{}, call {n} ({call:?})", path.display());
        assert_eq!(instructions.0, instructions.1, "instructions, {at}");
        assert_eq!(fast.cycles(), slow.cycles(), "cycles, {at}");
        assert_eq!(fast.ram(), slow.ram(), "RAM, {at}");
        assert!(picture(&fast) == picture(&slow), "frame buffer, {at}");
        fast.take_samples(&mut fast_sound);
        slow.take_samples(&mut slow_sound);
        assert_eq!(fast_sound, slow_sound, "sound, {at}");
        assert!(fast.save_state() == slow.save_state(), "save state, {at}");
    }
    let skipped = fast.idle_cycles_skipped() as f64 / fast.cycles() as f64;
    println!(
        "{}: {:.1}% of the cycles skipped",
        path.display(),
        100.0 * skipped
    );
    skipped
}

#[test]
fn quadfall_demo_and_play() {
    // $33 is the game's NMI flag, which its main loop waits on.
    let skipped = compare(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../roms/quadfall.nes"),
        1_500,
        0x33,
        true,
    );
    assert!(
        skipped > 0.3,
        "the fast path skipped only {skipped:.3} of the cycles"
    );
}

#[test]
fn pal_and_dendy_consoles() {
    // PAL's 3.2 dots a cycle: the fast paths count the fourth dot of every fifth cycle too.
    for region in [Region::Pal, Region::Dendy] {
        let quadfall = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../roms/quadfall.nes");
        let skipped = compare_on(region, &quadfall, 800, 0x33, true);
        assert!(skipped > 0.3, "{region}: skipped only {skipped:.3}");
        for path in [
            "pal_apu_tests/08.irq_timing.nes",
            "sprdma_and_dmc_dma/sprdma_and_dmc_dma.nes",
            "mmc3_test_2/rom_singles/4-scanline_timing.nes",
            "ppu_vbl_nmi/ppu_vbl_nmi.nes",
        ] {
            compare_on(region, &test_rom(path), 200, 0x00, false);
        }
    }
}

#[test]
fn nestest_menu() {
    compare(&test_rom("nestest/nestest.nes"), 600, 0x00, true);
}

#[test]
fn accuracy_coin() {
    compare(
        &test_rom("AccuracyCoin/AccuracyCoin.nes"),
        1_500,
        0x00,
        true,
    );
}

#[test]
fn timing_and_interrupt_roms() {
    for path in [
        "ppu_vbl_nmi/ppu_vbl_nmi.nes",
        "vbl_nmi_timing/1.frame_basics.nes",
        "cpu_interrupts_v2/cpu_interrupts.nes",
        "apu_test/apu_test.nes",
        "blargg_apu_2005.07.30/08.irq_timing.nes",
        "blargg_apu_2005.07.30/09.reset_timing.nes",
        "sprdma_and_dmc_dma/sprdma_and_dmc_dma.nes",
        "dmc_dma_during_read4/dma_4016_read.nes",
        "mmc3_test_2/rom_singles/4-scanline_timing.nes",
        "oam_read/oam_read.nes",
        "oam_stress/oam_stress.nes",
        "ppu_sprite_hit/ppu_sprite_hit.nes",
    ] {
        compare(&test_rom(path), 400, 0x00, false);
    }
}

#[test]
fn boards_that_follow_a12() {
    // MMC3's IRQ and MMC1's PRG side follow A12: the fast consoles tell them its changes from
    // the PPU's fetch pattern, the slow ones show them every fetch in lockstep.
    for path in [
        "mmc3_test_2/rom_singles/1-clocking.nes",
        "mmc3_test_2/rom_singles/2-details.nes",
        "mmc3_test_2/rom_singles/3-A12_clocking.nes",
        "mmc3_test_2/rom_singles/4-scanline_timing.nes",
        "mmc3_test_2/rom_singles/5-MMC3.nes",
        "MMC1_A12/mmc1_a12.nes",
        "holydiverbatman/testroms/M4_P256K_C256K.nes",
    ] {
        compare(&test_rom(path), 300, 0x00, true);
    }
}
