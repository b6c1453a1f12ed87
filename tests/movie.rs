//! FCEUX movies (.fm2) on the machine: a run recorded while the AI plays Quadfall plays back in
//! sync, through the text format, and two playbacks of one movie are identical.

mod quadfall;

use ai::driver::{Driver, Mode};
use ai::eval::Profile;
use movie::{Movie, Recorder};
use nes::Console;

/// What must match between runs: CPU, RAM, cartridge RAM, frame buffer and the clock.
fn fingerprint(console: &Console) -> [u8; 16] {
    let mut bytes: Vec<u8> = (0..0x800).map(|a| console.peek(a)).collect();
    bytes.extend_from_slice(&console.bus.cart.prg_ram);
    bytes.extend(
        console
            .bus
            .ppu
            .frame_buffer
            .iter()
            .flat_map(|p| p.to_le_bytes()),
    );
    bytes.extend_from_slice(&console.bus.cycles.to_le_bytes());
    let cpu = &console.cpu;
    bytes.extend_from_slice(&[cpu.a, cpu.x, cpu.y, cpu.s, cpu.p]);
    bytes.extend_from_slice(&cpu.pc.to_le_bytes());
    movie::md5::digest(&bytes)
}

/// The AI plays from power-on for `frames` frames; returns the movie and the console at the
/// end of its last frame.
fn record_ai(frames: u32) -> (Movie, Console, u32) {
    let mut console = Console::from_ines(quadfall::ROM).unwrap();
    let mut driver = Driver::new(Profile::Classic, Mode::Controller { tap_hz: 30 }, 18).unwrap();
    let mut recorder = Recorder::default();
    for _ in 0..frames {
        driver.step(&mut console);
        recorder.log(&console);
    }
    let checksum = movie::rom_checksum(&console.bus.cart);
    let movie = recorder.movie(&Movie::new("quadfall", checksum, movie::guid(b"test")));
    (movie, console, driver.stats.lines)
}

fn play(movie: &Movie) -> Console {
    let mut console = Console::from_ines(quadfall::ROM).unwrap();
    assert_eq!(movie.rom_checksum, movie::rom_checksum(&console.bus.cart));
    for frame in &movie.frames {
        frame.apply(&mut console);
        console.run_frame();
    }
    console
}

#[test]
fn recorded_ai_game_plays_back_in_sync() {
    let (movie, recorded, lines) = record_ai(1800);
    assert!(lines > 0, "the AI cleared no lines");
    assert_eq!(movie.frames.len(), 1800);
    let presses = movie.frames.iter().filter(|f| f.pads[0] != 0).count();
    assert!(presses > 100, "only {presses} frames with buttons pressed");
    let text = movie.to_fm2();
    let read = Movie::parse(&text).unwrap();
    assert_eq!(read, movie);
    let first = play(&read);
    assert_eq!(
        first.peek(quadfall::LINES),
        recorded.peek(quadfall::LINES),
        "lines differ"
    );
    assert_eq!(fingerprint(&first), fingerprint(&recorded));
    assert_eq!(fingerprint(&play(&read)), fingerprint(&first));
}

#[test]
fn reset_and_power_commands_take_effect() {
    let (mut movie, _, _) = record_ai(300);
    let n = movie.frames.len();
    let unchanged = play(&movie);
    movie.frames[n - 1].commands = movie::POWER;
    let powered = play(&movie);
    // Powered on one frame before the end: the game is back at its first frame.
    let mut fresh = Console::from_ines(quadfall::ROM).unwrap();
    fresh.run_frame();
    assert_eq!(powered.bus.cycles, fresh.bus.cycles);
    assert_ne!(fingerprint(&powered), fingerprint(&unchanged));
    movie.frames[n - 1].commands = movie::SOFT_RESET;
    let reset = play(&movie);
    assert_ne!(fingerprint(&reset), fingerprint(&unchanged));
    assert_ne!(fingerprint(&reset), fingerprint(&powered));
}
