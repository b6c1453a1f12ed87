//! FM2 movies carry over between nestor and FCEUX 2.6: a movie FCEUX recorded (with a reset in
//! it) replays in nestor to the RAM FCEUX ended with, and a movie nestor records (with a reset
//! and a power cycle) replays in FCEUX to nestor's RAM. FCEUX runs under `xvfb-run`; without
//! either the test fails and says so.

use nes::{Buttons, Console};
use session::movies::Movies;
use session::Session;
use std::path::{Path, PathBuf};
use std::process::Command;

const ROM: &[u8] = include_bytes!("../../../roms/quadfall.nes");
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fceux");

#[path = "../../../tests/support/scratch.rs"]
mod scratch;
use scratch::Scratch;

fn ram(console: &Console) -> Vec<u8> {
    (0..0x800).map(|addr| console.peek(addr)).collect()
}

/// RAM from a hex dump of `dump_ram.lua` (lines `0000: 00 01 ... 0F`).
fn read_ram(path: &Path) -> Vec<u8> {
    let text = std::fs::read_to_string(path).unwrap();
    let ram: Vec<u8> = text
        .lines()
        .flat_map(|line| line.split_once(": ").unwrap().1.split(' '))
        .map(|byte| u8::from_str_radix(byte, 16).unwrap())
        .collect();
    assert_eq!(ram.len(), 0x800, "{}", path.display());
    ram
}

/// The addresses where two RAMs differ, for a failure message.
fn differences(a: &[u8], b: &[u8]) -> String {
    let diffs: Vec<String> = (0..a.len())
        .filter(|&i| a[i] != b[i])
        .map(|i| format!("${i:04X}: {:02X} vs {:02X}", a[i], b[i]))
        .collect();
    format!("{} bytes differ: {}", diffs.len(), diffs.join(", "))
}

/// Plays `movie` from power-on to its end; returns the RAM.
fn play(movie: &Path) -> Vec<u8> {
    let mut session = Session::new(Console::from_ines(ROM).unwrap());
    let movies = Movies::open(Some(movie), None, "quadfall", session.console()).unwrap();
    let frames = movies.length().unwrap();
    session.set_movies(movies);
    for _ in 0..frames {
        session.frame();
    }
    assert_eq!(
        session.finish(true).unwrap(),
        None,
        "desync (after a change to roms/quadfall.nes, record the fixture again: tests/fceux/record.lua says how)"
    );
    ram(session.console())
}

/// quadfall-reset.fm2 was recorded in FCEUX 2.6.5 by record.lua (700 lines, a soft reset at
/// line 420); quadfall-reset.ram is FCEUX's RAM after its last line.
#[test]
fn an_fceux_movie_replays_to_fceuxs_ram() {
    let path = Path::new(FIXTURES).join("quadfall-reset.fm2");
    let text = std::fs::read_to_string(&path).unwrap();
    let movie = movie::Movie::parse(&text).unwrap();
    assert_eq!(movie.emu_version, 20605);
    assert_eq!(movie.frames.len(), 700);
    assert_eq!(movie.frames[420].commands, movie::SOFT_RESET);
    assert_eq!(movie.host_frames().len(), 700 - 2 * movie::DEAD_FRAMES);
    let fceux = read_ram(&Path::new(FIXTURES).join("quadfall-reset.ram"));
    let played = play(&path);
    assert!(played == fceux, "{}", differences(&played, &fceux));

    // Played one line a frame, as nestor's old recordings are, it ends elsewhere.
    let old = text.replace("emuVersion 20605", "emuVersion 0").replace(
        "RAMInitOption 0\n",
        &format!("comment {} 0.1.0\n", movie::NESTOR_COMMENT),
    );
    let dir = Scratch::new("an_fceux_movie_replays_to_fceuxs_ram");
    let old_path = dir.join("one-line-a-frame.fm2");
    std::fs::write(&old_path, old).unwrap();
    assert_ne!(play(&old_path), fceux);
}

/// FCEUX's own dump script (`dump_ram.lua`, which waits for `emu.framecount()` to reach the
/// movie's 700 lines), run beside the FCEUX movie in nestor, stops where it stops in FCEUX:
/// the scripts' frame counter counts FCEUX's dead frames after the power-on and the reset.
#[test]
fn fceuxs_dump_script_stops_at_fceuxs_frame() {
    let dir = Scratch::new("fceuxs_dump_script_stops_at_fceuxs_frame");
    let out = dir.join("lua-dump.ram");
    let _ = std::fs::remove_file(&out);
    let wrapper = dir.join("dump-wrapper.lua");
    // The script as it is, after a line that gives it its settings (a `dofile` could not
    // yield, in FCEUX neither).
    let dump = std::fs::read_to_string(Path::new(FIXTURES).join("dump_ram.lua")).unwrap();
    let settings = format!(
        "local env = {{NESTOR_FRAME = \"700\", NESTOR_RAM = {out:?}}} \
         os.getenv = function(name) return env[name] end\n"
    );
    std::fs::write(&wrapper, settings + &dump).unwrap();
    let mut session = Session::new(Console::from_ines(ROM).unwrap());
    let movie = Path::new(FIXTURES).join("quadfall-reset.fm2");
    let movies = Movies::open(Some(&movie), None, "quadfall", session.console()).unwrap();
    session.set_movies(movies);
    let mut scripts = lua::Scripts::new(ROM.to_vec(), "quadfall");
    scripts.load(session.console_mut(), &wrapper).unwrap();
    session.set_scripts(scripts);
    while !out.is_file() && session.frames() < 1000 {
        session.frame();
    }
    let fceux = read_ram(&Path::new(FIXTURES).join("quadfall-reset.ram"));
    let dumped = read_ram(&out);
    assert!(dumped == fceux, "{}", differences(&dumped, &fceux));
}

/// `name` on the PATH, or in /usr/games where Debian puts FCEUX.
fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/games")])
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
}

/// Controller 1 in the recording: through the menus, some moves, Start again after the reset.
fn pads(frame: u32) -> u8 {
    match frame {
        100..=103 | 160..=163 | 480..=483 | 540..=543 => Buttons::START,
        220..=239 => Buttons::LEFT,
        240..=243 => Buttons::A,
        300..=379 if frame % 16 < 4 => Buttons::RIGHT | Buttons::DOWN,
        300..=379 if frame % 8 < 4 => Buttons::RIGHT,
        600.. if frame % 12 < 3 => Buttons::B | Buttons::LEFT,
        600.. if frame % 6 < 3 => Buttons::B,
        _ => 0,
    }
}

/// A session records a game with a reset and a power cycle; nestor plays the movie back to the
/// same RAM, and so does FCEUX.
#[test]
fn a_nestor_movie_replays_in_fceux_to_nestors_ram() {
    let dir = Scratch::new("a_nestor_movie_replays_in_fceux_to_nestors_ram");
    let (movie, rom, out) = (
        dir.join("nestor.fm2"),
        dir.join("quadfall.nes"),
        dir.join("nestor.ram"),
    );
    const FRAMES: u32 = 660;
    const RESET: usize = 400;
    const POWER: usize = 560;
    let mut session = Session::new(Console::from_ines(ROM).unwrap());
    let movies = Movies::open(None, Some(&movie), "quadfall", session.console()).unwrap();
    session.set_movies(movies);
    for frame in 0..FRAMES {
        if frame as usize == RESET {
            session.reset();
        }
        if frame as usize == POWER {
            session.power_cycle();
        }
        session.set_pads([pads(frame), 0]);
        session.frame();
    }
    session.finish(true).unwrap();
    let nestor = ram(session.console());
    let recorded = movie::Movie::parse(&std::fs::read_to_string(&movie).unwrap()).unwrap();
    let dead = movie::DEAD_FRAMES;
    let lines = recorded.frames.len();
    assert_eq!(lines, FRAMES as usize + 3 * dead);
    assert_eq!(recorded.frames[dead + RESET].commands, movie::SOFT_RESET);
    assert_eq!(recorded.frames[2 * dead + POWER].commands, movie::POWER);
    assert_eq!(recorded.ram_init, Some(nes::PowerOnRam::Zero));
    assert!(play(&movie) == nestor, "nestor's own replay differs");

    // Needed, as the window test needs Xvfb: a missing program fails the test and says which.
    let (Some(fceux), Some(xvfb_run)) = (find_program("fceux"), find_program("xvfb-run")) else {
        panic!(
            "playing the movie in FCEUX needs `fceux` and `xvfb-run` (Debian: apt-get install \
             fceux xvfb); run with `-- --skip a_nestor_movie_replays_in_fceux` to leave it out"
        );
    };
    // FCEUX plays the movie and dumps its RAM after the last line. HOME is the scratch folder,
    // where FCEUX keeps its settings.
    std::fs::write(&rom, ROM).unwrap();
    let output = Command::new("timeout")
        .arg("60")
        .arg(xvfb_run)
        .arg("-a")
        .arg(fceux)
        .args(["--no-config", "1", "--sound", "0", "--playmov"])
        .arg(&movie)
        .arg("--loadlua")
        .arg(Path::new(FIXTURES).join("dump_ram.lua"))
        .arg(&rom)
        .env("HOME", &*dir)
        .env("NESTOR_FRAME", lines.to_string())
        .env("NESTOR_RAM", &out)
        .current_dir(&*dir)
        .output()
        .expect("xvfb-run runs");
    assert!(
        out.is_file(),
        "FCEUX wrote no RAM ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let fceux = read_ram(&out);
    assert!(nestor == fceux, "{}", differences(&nestor, &fceux));
}
