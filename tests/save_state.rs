//! Save states and determinism (issue 10): a state restores the machine exactly, the same
//! input gives the same run, and a bad state file is refused with the console left alone.
//!
//! The recorded session: the AI plays Quadfall (controller mode, level 18) and its buttons are
//! recorded with the CPU cycle at which they were set, so a replay presses them at the same
//! instruction boundaries. After each game frame a checkpoint holds the frame-and-RAM hash and
//! a hash of the sound since the last one. Random points come from SplitMix64 with fixed seeds
//! (the constants below), so every run checks the same points.

use ai::driver::{Driver, Mode};
use ai::eval::Profile;
use nes::state::{crc32, Fnv1a, VERSION};
use nes::{Buttons, Cartridge, Console, StateError};

const QUADFALL: &[u8] = include_bytes!("../roms/quadfall.nes");
/// Game frames in the recorded session.
const SESSION_FRAMES: usize = 2_500;
/// Frames each restored point must reproduce.
const FOLLOW_FRAMES: usize = 600;
const ROUND_TRIPS: usize = 1_000;

struct SplitMix64(u64);

impl SplitMix64 {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

/// The machine as the test compares it at one instruction boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Checkpoint {
    cycles: u64,
    /// Console::hash: frame buffer and RAM.
    hash: u64,
    /// The samples produced since the last checkpoint, and the loudest of them.
    sound: u64,
    peak: u16,
}

fn checkpoint(console: &mut Console) -> Checkpoint {
    let mut samples = Vec::new();
    console.take_samples(&mut samples);
    let mut sound = Fnv1a::default();
    for sample in &samples {
        sound.write(&sample.to_le_bytes());
    }
    Checkpoint {
        cycles: console.cycles(),
        hash: console.hash(),
        sound: sound.finish(),
        peak: samples.iter().map(|s| s.unsigned_abs()).max().unwrap_or(0),
    }
}

struct Session {
    /// (CPU cycle, controller 1 buttons) in order.
    buttons: Vec<(u64, u8)>,
    checkpoints: Vec<Checkpoint>,
    final_state: Vec<u8>,
    lines: u32,
}

fn quadfall() -> Console {
    Console::from_ines(QUADFALL).expect("roms/quadfall.nes loads")
}

fn record(frames: usize) -> Session {
    let mut console = quadfall();
    let mut driver = Driver::new(Profile::Classic, Mode::Controller { tap_hz: 30 }, 18)
        .expect("30 Hz is a supported tap rate");
    let mut session = Session {
        buttons: Vec::new(),
        checkpoints: Vec::new(),
        final_state: Vec::new(),
        lines: 0,
    };
    for _ in 0..frames {
        let at = console.cycles();
        driver.step(&mut console);
        session.buttons.push((at, console.buttons(0).0));
        session.checkpoints.push(checkpoint(&mut console));
    }
    session.lines = driver.stats.lines;
    session.final_state = console.save_state();
    session
}

/// Replays a session's buttons one instruction at a time and checks every checkpoint.
struct Replay<'a> {
    session: &'a Session,
    next_button: usize,
    next_checkpoint: usize,
}

impl<'a> Replay<'a> {
    /// Picks the session up at the console's current cycle.
    fn from(session: &'a Session, console: &Console) -> Replay<'a> {
        let now = console.cycles();
        Replay {
            session,
            next_button: session.buttons.partition_point(|&(at, _)| at < now),
            next_checkpoint: session.checkpoints.partition_point(|c| c.cycles <= now),
        }
    }

    fn done(&self, until: usize) -> bool {
        self.next_checkpoint >= until
    }

    fn step(&mut self, console: &mut Console) {
        if let Some(&(at, buttons)) = self.session.buttons.get(self.next_button) {
            if at == console.cycles() {
                console.set_buttons(0, Buttons(buttons));
                self.next_button += 1;
            }
        }
        console.step();
        let expected = self.session.checkpoints[self.next_checkpoint];
        let now = console.cycles();
        if now >= expected.cycles {
            let frame = self.next_checkpoint;
            assert_eq!(
                now, expected.cycles,
                "frame {frame}: the run lost cycle sync"
            );
            assert_eq!(checkpoint(console), expected, "frame {frame} differs");
            self.next_checkpoint += 1;
        }
    }
}

/// Saves, then loads into a console fresh from power-on: a field the state forgot would keep
/// its power-on value there.
fn round_trip(console: &Console) -> Console {
    let mut fresh = quadfall();
    fresh
        .load_state(&console.save_state())
        .expect("a state loads into the console of its ROM");
    fresh
}

#[test]
fn states_restore_the_following_frames_exactly() {
    let session = record(SESSION_FRAMES);
    assert!(session.lines > 0, "the AI cleared no line: a dull session");
    // 1,000 points at random cycles of all but the last 600 frames; each becomes a round trip
    // at the first instruction boundary from there (seed 0x5A7E).
    let last_point = session.checkpoints[SESSION_FRAMES - FOLLOW_FRAMES].cycles;
    let mut rng = SplitMix64(0x5A7E);
    let mut points: Vec<u64> = (0..ROUND_TRIPS).map(|_| rng.below(last_point)).collect();
    points.sort_unstable();

    // One run through all points: every checkpoint after a round trip must match, so each
    // point's next 600 frames are compared (up to the next point, through the states after it).
    let mut console = quadfall();
    let mut replay = Replay::from(&session, &console);
    let mut saved = Vec::new();
    let mut pending = points.iter().peekable();
    while !replay.done(SESSION_FRAMES) {
        if pending.next_if(|&&p| p <= console.cycles()).is_some() {
            while pending.next_if(|&&p| p <= console.cycles()).is_some() {}
            console = round_trip(&console);
            saved.push(console.save_state());
        }
        replay.step(&mut console);
    }
    assert!(
        saved.len() > ROUND_TRIPS * 9 / 10,
        "{} distinct points",
        saved.len()
    );
    assert!(
        console.save_state() == session.final_state,
        "the final states differ"
    );

    // A few of the points replayed on their own for 600 frames each (seed 0xF00D).
    let mut rng = SplitMix64(0xF00D);
    for _ in 0..3 {
        let state = &saved[rng.below(saved.len() as u64) as usize];
        let mut console = quadfall();
        console.load_state(state).unwrap();
        let mut replay = Replay::from(&session, &console);
        let until = replay.next_checkpoint + FOLLOW_FRAMES;
        while !replay.done(until) {
            replay.step(&mut console);
        }
    }
}

#[test]
fn two_runs_are_identical() {
    let (a, b) = (record(600), record(600));
    assert_eq!(a.buttons, b.buttons);
    assert_eq!(a.checkpoints, b.checkpoints);
    assert!(a.final_state == b.final_state);
    // Not a silent or frozen run.
    assert!(a.checkpoints.iter().any(|c| c.peak > 1000));
    assert!(a.checkpoints.windows(2).any(|w| w[0].hash != w[1].hash));
}

/// Test ROMs for what Quadfall leaves out: DMC DMA and CNROM (read_joy3 plays a DMC sample
/// throughout), MMC3's scanline IRQ, MMC1 with PRG-RAM, and every other board through Holy
/// Diver Batman's bank tests (MMC2's latches, FME-7's cycle IRQ, Action 53's registers...),
/// and MMC5's (its scanline IRQ, ExRAM, fill mode, split).
/// Each runs 240 frames straight and again with round trips at 100 random instruction
/// boundaries (seed 0xA0D10).
#[test]
fn states_cover_test_roms_with_sound_and_mappers() {
    let roms = [
        "read_joy3/count_errors.nes",
        "mmc3_test_2/rom_singles/4-scanline_timing.nes",
        "MMC1_A12/mmc1_a12.nes",
        "holydiverbatman/testroms/M9_P128K_C64K.nes",
        "holydiverbatman/testroms/M10_P128K_C64K_S8K.nes",
        "holydiverbatman/testroms/M28_P512K.nes",
        "holydiverbatman/testroms/M34_P128K_H.nes",
        "holydiverbatman/testroms/M66_P64K_C16K_V.nes",
        "holydiverbatman/testroms/M69_P128K_C64K_S8K.nes",
        "holydiverbatman/testroms/M78.3_P128K_C64K.nes",
        "holydiverbatman/testroms/M118_P128K_C64K.nes",
        "holydiverbatman/testroms/M180_P128K_H.nes",
        "exram/mmc5exram.nes",
        "mmc5test/mmc5test.nes",
        "mmc5test_v2/mmc5test.nes",
    ];
    let mut rng = SplitMix64(0xA0D10);
    for rom in roms {
        let image =
            std::fs::read(testrom::location::path(rom)).unwrap_or_else(|e| panic!("{rom}: {e}"));
        let sound = round_trips_match(rom, &image, 240, &mut rng);
        if rom.starts_with("read_joy3") {
            // Its DMC sample is silence, but the ROM beeps.
            assert!(sound.iter().any(|c| c.peak > 1000), "{rom}: no sound");
        }
    }
}

/// Runs `image` for `frames` frames straight and again with round trips at 100 random
/// instruction boundaries; both must give the same checkpoints and final state. Returns the
/// checkpoints.
fn round_trips_match(
    name: &str,
    image: &[u8],
    frames: usize,
    rng: &mut SplitMix64,
) -> Vec<Checkpoint> {
    let power_on = || Console::from_ines(image).unwrap_or_else(|e| panic!("{name}: {e}"));
    let run = |round_trips: &[u64]| {
        let mut console = power_on();
        let mut checkpoints = Vec::new();
        let mut pending = round_trips.iter().peekable();
        for _ in 0..frames {
            let frame = console.ppu_frames();
            while console.ppu_frames() == frame {
                if pending.next_if(|&&p| p <= console.cycles()).is_some() {
                    let mut fresh = power_on();
                    fresh.load_state(&console.save_state()).unwrap();
                    console = fresh;
                }
                console.step();
            }
            checkpoints.push(checkpoint(&mut console));
        }
        (checkpoints, console.save_state())
    };
    let straight = run(&[]);
    let end = straight.0.last().unwrap().cycles;
    let mut points: Vec<u64> = (0..100).map(|_| rng.below(end)).collect();
    points.sort_unstable();
    let restored = run(&points);
    assert_eq!(straight.0, restored.0, "{name}");
    assert!(straight.1 == restored.1, "{name}: the final states differ");
    straight.0
}

/// A program for any board: every 8 KiB of PRG-ROM holds the same code, so bank switches do
/// not disturb it. With rendering on, it writes ever-changing values to $6000-$60FF,
/// $7E00-$7FFF and the first 256 bytes of each 2 KiB of $8000-$FFFF, reaching every
/// register of the boards without a test ROM. Its IRQ handler acknowledges the APU and writes
/// 0 to $F000-$F0FF, which stops and acknowledges the VRC4 counter whatever the board's
/// register lines, so the counters' state decides the program's path; it reads $5204 too,
/// MMC5's acknowledge, and writes $5800, Namco 163's; on MMC5 the program also writes
/// $5000-$52FF, on Namco 163 $4800-$48FF, $5000-$50FF and $5800-$58FF. CHR-ROM holds
/// pseudo-random bytes, so the picture shows which banks are in.
fn board_exerciser(mapper: u16, submapper: u8, chr_rom: bool) -> Vec<u8> {
    const PRG: usize = 128 * 1024;
    let chr = if chr_rom { 128 * 1024 } else { 0 };
    let mut image = vec![
        b'N',
        b'E',
        b'S',
        0x1A,
        (PRG / 0x4000) as u8,
        (chr / 0x2000) as u8,
    ];
    image.push((mapper as u8) << 4);
    image.push(mapper as u8 & 0xF0 | 0x08);
    image.push(submapper << 4 | (mapper >> 8) as u8);
    // CHR-RAM: 32 KiB without CHR-ROM, 8 KiB beside it (TQROM's).
    let chr_ram = if chr_rom { 0x07 } else { 0x09 };
    image.extend([0, 0x07, chr_ram, 0, 0, 0, 0]);
    let mut code = vec![
        0x78, 0xD8, // SEI, CLD
        0xA9, 0x3F, 0x8D, 0x06, 0x20, 0xA9, 0x00, 0x8D, 0x06, 0x20, // $2006 = $3F00
        0xA0, 0x20, 0x98, 0x8D, 0x07, 0x20, 0x88, 0xD0, 0xF9, // 32 palette entries
        0xA9, 0x1E, 0x8D, 0x01, 0x20, // rendering on
        0x58, // CLI
    ];
    let top = code.len();
    code.extend([0xE8, 0x8A, 0x45, 0x00, 0x85, 0x00]); // INX, TXA, EOR $00, STA $00
                                                       // MMC5's registers are at $5000-$52FF.
    let low_pages: &[u8] = match mapper {
        5 => &[0x50, 0x51, 0x52],
        19 => &[0x48, 0x50, 0x58],
        _ => &[],
    };
    for &page in low_pages.iter().chain(&[
        0x60, 0x7E, 0x7F, 0x80, 0x88, 0x90, 0x98, 0xA0, 0xA8, 0xB0, 0xB8, 0xC0, 0xC8, 0xD0, 0xD8,
        0xE0, 0xE8, 0xF0, 0xF8,
    ]) {
        code.extend([0x9D, 0x00, page]); // STA page*$100,X
    }
    code.push(0xB8); // CLV
    let back = top as isize - (code.len() as isize + 2);
    code.extend([0x50, back as u8]); // BVC top
    let mut bank = vec![0u8; 0x2000];
    bank[0x100..0x100 + code.len()].copy_from_slice(&code);
    let irq = [
        0x48, 0x98, 0x48, // PHA, TYA, PHA
        0xAD, 0x15, 0x40, // LDA $4015
        0xAD, 0x04, 0x52, // LDA $5204 (MMC5's acknowledge; open bus elsewhere)
        0xA9, 0x00, 0xA8, // LDA #0, TAY
        0x8D, 0x00, 0x58, // STA $5800 (Namco 163's acknowledge)
        0x99, 0x00, 0xF0, 0xC8, 0xD0, 0xFA, // STA $F000,Y; INY; BNE
        0x68, 0xA8, 0x68, 0x40, // PLA, TAY, PLA, RTI
    ];
    bank[0x1F00..0x1F00 + irq.len()].copy_from_slice(&irq);
    bank[0x1FF0] = 0x40; // RTI for the NMI, which stays off
    bank[0x1FFA..].copy_from_slice(&[0xF0, 0xFF, 0x00, 0xE1, 0x00, 0xFF]);
    for _ in 0..PRG / 0x2000 {
        image.extend_from_slice(&bank);
    }
    let mut rng = SplitMix64(u64::from(mapper));
    image.extend((0..chr).map(|_| rng.below(256) as u8));
    image
}

/// Every board of the one list in `nes::mapper`, each (mapper, submapper) pair it tells apart,
/// through [`board_exerciser`], with CHR-ROM or, on boards that take none, CHR-RAM: 60 frames,
/// 100 round trips (seed 0xB0A4D).
#[test]
fn states_cover_every_board() {
    let mut rng = SplitMix64(0xB0A4D);
    let variants = nes::mapper::variants();
    for (mapper, submapper) in variants {
        let name = format!("mapper {mapper}.{submapper}");
        let image = [true, false]
            .map(|chr_rom| board_exerciser(mapper, submapper, chr_rom))
            .into_iter()
            .find(|image| Cartridge::from_ines(image).is_ok())
            .unwrap_or_else(|| panic!("{name} loads with neither CHR-ROM nor CHR-RAM"));
        let checkpoints = round_trips_match(&name, &image, 60, &mut rng);
        assert!(
            checkpoints.windows(2).any(|w| w[0].hash != w[1].hash),
            "{name}: the picture never changed"
        );
    }
}

#[test]
fn bad_states_are_refused_and_leave_the_console_alone() {
    let mut console = quadfall();
    for _ in 0..200 {
        console.run_frame();
    }
    let state = console.save_state();
    let before = (console.hash(), console.save_state());
    let mut check = |bytes: &[u8], expected: &dyn Fn(&StateError) -> bool, what: &str| {
        let err = console
            .load_state(bytes)
            .expect_err(&format!("{what} was accepted"));
        assert!(expected(&err), "{what}: {err}");
        assert!(!err.to_string().contains('\n'), "{what}: one line");
        assert!(
            (console.hash(), console.save_state()) == before,
            "{what}: the console changed"
        );
    };

    // Another ROM: Quadfall with one byte of PRG-ROM changed.
    let mut other = QUADFALL.to_vec();
    other[16 + 0x100] ^= 0xFF;
    let mut other = Console::from_ines(&other).unwrap();
    other.run_frame();
    check(
        &other.save_state(),
        &|e| *e == StateError::OtherRom,
        "another ROM's state",
    );

    check(
        &state[..state.len() - 1],
        &|e| matches!(e, StateError::Truncated { .. }),
        "truncated",
    );
    check(
        &state[..10],
        &|e| matches!(e, StateError::Truncated { .. }),
        "cut in the header",
    );

    let mut corrupted = state.clone();
    corrupted[state.len() / 2] ^= 0x10;
    check(
        &corrupted,
        &|e| *e == StateError::Corrupted,
        "a flipped bit",
    );

    // A future and a past version, with a valid checksum as those versions would write it.
    let with_version = |version: u32| {
        let mut other = state.clone();
        other[8..12].copy_from_slice(&version.to_le_bytes());
        let body = other.len() - 4;
        let crc = crc32(&other[..body]);
        other[body..].copy_from_slice(&crc.to_le_bytes());
        other
    };
    check(
        &with_version(VERSION + 1),
        &|e| *e == StateError::NewerVersion(VERSION + 1),
        "a newer version",
    );
    check(
        &with_version(VERSION - 1),
        &|e| *e == StateError::OlderVersion(VERSION - 1),
        "an older version",
    );

    check(b"", &|e| *e == StateError::NotAState, "an empty file");
    let mut rng = SplitMix64(0xBAD);
    let garbage: Vec<u8> = (0..5000).map(|_| rng.below(256) as u8).collect();
    check(&garbage, &|e| *e == StateError::NotAState, "garbage");
    check(
        &QUADFALL[..5000],
        &|e| *e == StateError::NotAState,
        "a ROM image",
    );

    // And the good state still loads after all that.
    console.load_state(&state).unwrap();
}

/// States with impossible contents (bytes changed and the checksum made to match, as a
/// fuzzer would) are refused or run without a panic (seed 0x0DD). Changes land in the first
/// and last few KiB of the payload as often as in the frame buffer between.
#[test]
fn doctored_states_are_refused_or_run() {
    const HEADER: usize = 28;
    let mut console = quadfall();
    for _ in 0..300 {
        console.run_frame();
    }
    let state = console.save_state();
    let payload = HEADER..state.len() - 4;
    let mut rng = SplitMix64(0x0DD);
    let (mut refused, mut ran) = (0, 0);
    for _ in 0..300 {
        let mut doctored = state.clone();
        for _ in 0..1 + rng.below(3) {
            let span = payload.len() as u64;
            let offset = match rng.below(3) {
                0 => rng.below(6000),
                1 => span - 1 - rng.below(12_000),
                _ => rng.below(span),
            };
            doctored[payload.start + offset as usize] = match rng.below(3) {
                0 => 0,
                1 => 0xFF,
                _ => rng.below(256) as u8,
            };
        }
        let body = doctored.len() - 4;
        let crc = crc32(&doctored[..body]);
        doctored[body..].copy_from_slice(&crc.to_le_bytes());
        let mut target = quadfall();
        match target.load_state(&doctored) {
            Ok(()) => {
                target.run_frame();
                ran += 1;
            }
            Err(e) => {
                assert!(matches!(e, StateError::BadField(_)), "{e}");
                refused += 1;
            }
        }
    }
    assert!(refused > 0 && ran > 0, "{refused} refused, {ran} ran");
}
