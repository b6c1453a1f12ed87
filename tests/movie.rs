//! FCEUX movies (.fm2) on the machine: a run recorded while the AI plays Quadfall plays back in
//! sync, through the text format, and two playbacks of one movie are identical; reset and power
//! commands take effect after FCEUX's dead frames.

mod quadfall;

use ai::driver::{Driver, Mode};
use ai::eval::Profile;
use movie::{Movie, Playback, Recorder, DEAD_FRAMES};
use nes::Console;

/// What must match between runs: CPU, RAM, cartridge RAM, frame buffer and the clock.
fn fingerprint(console: &Console) -> [u8; 16] {
    let mut bytes: Vec<u8> = (0..0x800).map(|a| console.peek(a)).collect();
    bytes.extend_from_slice(&console.cartridge().prg_ram);
    bytes.extend(console.frame_buffer().iter().flat_map(|p| p.to_le_bytes()));
    bytes.extend_from_slice(&console.cycles().to_le_bytes());
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
        recorder.log(&console, 0);
    }
    let checksum = movie::rom_checksum(console.cartridge());
    let movie = recorder.movie(&Movie::recording("quadfall", checksum));
    (movie, console, driver.stats.lines)
}

fn play(movie: &Movie) -> Console {
    let mut console = Console::from_ines(quadfall::ROM).unwrap();
    assert_eq!(movie.rom_checksum, movie::rom_checksum(console.cartridge()));
    let playback = Playback::new(movie);
    for frame in 0..playback.frames() {
        playback.start_frame(frame, &mut console);
        console.run_frame();
    }
    console
}

#[test]
fn recorded_ai_game_plays_back_in_sync() {
    let (movie, recorded, lines) = record_ai(1800);
    assert!(lines > 0, "the AI cleared no lines");
    assert_eq!(movie.frames.len(), DEAD_FRAMES + 1800);
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

/// Movies nestor recorded before it wrote FCEUX's dead frames (one line a frame from
/// power-on, no `RAMInitOption`) still play in sync.
#[test]
fn nestor_recordings_without_dead_frames_still_play() {
    let (movie, recorded, _) = record_ai(600);
    let mut old = Movie::new("quadfall", movie.rom_checksum, movie::guid(b"old"));
    old.extra = vec![("comment".into(), "recorded by nestor 0.1.0".into())];
    old.frames = movie.host_frames();
    let old = Movie::parse(&old.to_fm2()).unwrap();
    assert_eq!(old.frames.len(), 600);
    assert_eq!(fingerprint(&play(&old)), fingerprint(&recorded));
}

#[test]
fn reset_and_power_commands_take_effect() {
    let (mut movie, _, _) = record_ai(300);
    let mut frames = movie.host_frames();
    let n = frames.len();
    let unchanged = play(&movie);
    frames[n - 1].commands = movie::POWER;
    movie.set_host_frames(&frames);
    assert_eq!(movie.frames.len(), 2 * DEAD_FRAMES + n);
    let powered = play(&movie);
    // Powered on one frame before the end: the game is back at its first frame.
    let mut fresh = Console::from_ines(quadfall::ROM).unwrap();
    fresh.run_frame();
    assert_eq!(powered.cycles(), fresh.cycles());
    assert_ne!(fingerprint(&powered), fingerprint(&unchanged));
    frames[n - 1].commands = movie::SOFT_RESET;
    movie.set_host_frames(&frames);
    let reset = play(&movie);
    assert_ne!(fingerprint(&reset), fingerprint(&unchanged));
    assert_ne!(fingerprint(&reset), fingerprint(&powered));
}
