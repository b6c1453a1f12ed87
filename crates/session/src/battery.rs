//! Battery-backed PRG-RAM ("SRAM" saves) kept in `<data dir>/<rom stem>.sav`.
//!
//! The file is read when the game starts, and written when it ends and every few seconds while
//! the RAM differs from what was last written. Every write replaces the file whole
//! ([`files::write_atomic`]), so a crash leaves the previous save intact.
//!
//! A `.sav` of the wrong size (another emulator's layout, a damaged file) is reported in one
//! line and never touched: the game starts with fresh RAM and this session's RAM is saved beside
//! it, in `<rom stem>.sav.new`, for the user to keep or delete.

use crate::files;
use nes::Console;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How often changed RAM is written while the game runs.
pub const SAVE_INTERVAL: Duration = Duration::from_secs(3);

/// The save file of one running game; inert for cartridges without a battery.
pub struct BatterySave {
    /// Where the RAM goes; `None` when nothing is saved (no battery, no data directory).
    path: Option<PathBuf>,
    /// The RAM as last read or written, to write only changes.
    written: Vec<u8>,
    last_check: Instant,
    /// A failed write is reported once, not every few seconds.
    write_failed: bool,
}

impl BatterySave {
    /// Loads the ROM's save from the data directory into the console (no file: a new game).
    pub fn open(rom_name: &str, console: &mut Console) -> BatterySave {
        let dir = files::data_dir();
        if dir.is_none() && console.battery_ram().is_some() {
            eprintln!(
                "nestor: no data directory (set NESTOR_DATA_DIR); the game will not be saved"
            );
        }
        BatterySave::open_in(dir.as_deref(), rom_name, console)
    }

    /// Saves nothing (benchmarks, and runs that must not touch the user's saves).
    pub fn none() -> BatterySave {
        BatterySave {
            path: None,
            written: Vec::new(),
            last_check: Instant::now(),
            write_failed: false,
        }
    }

    fn open_in(dir: Option<&Path>, rom_name: &str, console: &mut Console) -> BatterySave {
        let mut save = BatterySave::none();
        let (Some(dir), Some(ram)) = (dir, console.battery_ram()) else {
            return save;
        };
        save.written = ram.to_vec();
        let path = dir.join(format!("{}.sav", files::safe_stem(rom_name)));
        let problem = match std::fs::read(&path) {
            Ok(bytes) => match console.load_battery_ram(&bytes) {
                // The user made it read-only: play from it, save beside it.
                Ok(()) if read_only(&path) => {
                    save.written = bytes;
                    Some("read-only".to_string())
                }
                Ok(()) => {
                    save.written = bytes;
                    None
                }
                Err(err) => Some(err.to_string()),
            },
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(err) => Some(err.to_string()),
        };
        save.path = Some(match problem {
            None => path,
            Some(problem) => {
                let ram = if problem == "read-only" {
                    "its RAM"
                } else {
                    "fresh RAM"
                };
                let aside = match set_aside(&path, &save.written) {
                    Ok(aside) => aside,
                    Err(err) => {
                        let aside = path.with_extension("sav.new");
                        eprintln!("nestor: cannot save to {}: {err}", aside.display());
                        save.write_failed = true;
                        aside
                    }
                };
                eprintln!(
                    "nestor: {}: {problem}; left untouched, starting with {ram} saved to {}",
                    path.display(),
                    aside.display()
                );
                aside
            }
        });
        save
    }

    /// Writes the RAM if a save interval has passed and it changed; call once a frame.
    pub fn tick(&mut self, console: &Console) {
        if self.last_check.elapsed() >= SAVE_INTERVAL {
            self.last_check = Instant::now();
            self.flush(console);
        }
    }

    /// Writes the RAM now if it changed (on exit, before another ROM replaces this one).
    pub fn flush(&mut self, console: &Console) {
        let (Some(path), Some(ram)) = (&self.path, console.battery_ram()) else {
            return;
        };
        if ram == self.written.as_slice() {
            return;
        }
        match files::write_atomic(path, ram) {
            Ok(()) => {
                self.written = ram.to_vec();
                self.write_failed = false;
            }
            Err(err) if !self.write_failed => {
                eprintln!("nestor: cannot save to {}: {err}", path.display());
                self.write_failed = true;
            }
            Err(_) => {}
        }
    }
}

fn read_only(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.permissions().readonly())
}

/// Creates `<name>.sav.new`, or the first of `<name>.sav.new.2`, `.3`, ... that does not exist
/// yet, holding `ram`: a save set aside by an earlier run, or by another nestor running now, is
/// never overwritten (the name is taken when the file is created, not when it is first saved).
fn set_aside(sav: &Path, ram: &[u8]) -> std::io::Result<PathBuf> {
    let named = |suffix: &str| {
        let mut name = sav.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    for n in 1.. {
        let path = match n {
            1 => named(".new"),
            n => named(&format!(".new.{n}")),
        };
        let created = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path);
        match created {
            Ok(mut file) => {
                std::io::Write::write_all(&mut file, ram)?;
                return Ok(path);
            }
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(err) => return Err(err),
        }
    }
    unreachable!("an unused name")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NROM with a battery; its code counts power-ons in $6000.
    fn counter_rom() -> Vec<u8> {
        let code = [0xEE, 0x00, 0x60, 0x4C, 0x03, 0x80]; // INC $6000; JMP $8003
        testrom::image::nrom(&code, [0x8003, 0x8000, 0x8003], 0x02)
    }

    fn play(dir: &Path) -> (Console, BatterySave) {
        let mut console = Console::from_ines(&counter_rom()).unwrap();
        let mut save = BatterySave::open_in(Some(dir), "My Game (U).nes", &mut console);
        console.run_frame();
        save.flush(&console);
        (console, save)
    }

    #[test]
    fn saves_load_back_and_bad_files_stay_untouched() {
        let dir = std::env::temp_dir().join(format!("nestor-battery-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let sav = dir.join("My_Game__U_.sav");
        play(&dir);
        assert_eq!(std::fs::read(&sav).unwrap()[0], 1);
        let (console, _) = play(&dir);
        assert_eq!(console.peek(0x6000), 2, "the save was loaded");
        assert_eq!(std::fs::read(&sav).unwrap()[0], 2);

        std::fs::write(&sav, b"not a save").unwrap();
        let (console, _) = play(&dir);
        assert_eq!(console.peek(0x6000), 1, "fresh RAM");
        assert_eq!(std::fs::read(&sav).unwrap(), b"not a save");
        assert_eq!(
            std::fs::read(dir.join("My_Game__U_.sav.new")).unwrap()[0],
            1
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn saves_set_aside_are_numbered_and_read_only_saves_kept() {
        let dir = std::env::temp_dir().join(format!("nestor-aside-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let sav = dir.join("My_Game__U_.sav");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&sav, b"not a save").unwrap();
        play(&dir);
        play(&dir);
        let first = dir.join("My_Game__U_.sav.new");
        let second = dir.join("My_Game__U_.sav.new.2");
        assert_eq!(std::fs::read(&first).unwrap()[0], 1);
        assert_eq!(std::fs::read(&second).unwrap()[0], 1, "the first was kept");

        // Two sessions at once: the second takes the next name before the first has saved.
        let mut first_console = Console::from_ines(&counter_rom()).unwrap();
        let mut first_save =
            BatterySave::open_in(Some(&dir), "My Game (U).nes", &mut first_console);
        let (_, save) = play(&dir);
        assert_eq!(save.path, Some(dir.join("My_Game__U_.sav.new.4")));
        assert_eq!(first_save.path, Some(dir.join("My_Game__U_.sav.new.3")));
        first_console.run_frame();
        first_console.write(0x6001, 0x77);
        first_save.flush(&first_console);
        let third = std::fs::read(dir.join("My_Game__U_.sav.new.3")).unwrap();
        let fourth = std::fs::read(dir.join("My_Game__U_.sav.new.4")).unwrap();
        assert_eq!(
            (third[0], third[1], fourth[0], fourth[1]),
            (1, 0x77, 1, 0),
            "each session kept its own file"
        );

        // A good save made read-only: loaded, never written.
        std::fs::remove_dir_all(&dir).unwrap();
        play(&dir);
        let mut permissions = std::fs::metadata(&sav).unwrap().permissions();
        permissions.set_readonly(true);
        std::fs::set_permissions(&sav, permissions).unwrap();
        let (console, _) = play(&dir);
        assert_eq!(console.peek(0x6000), 2, "the read-only save was loaded");
        assert_eq!(std::fs::read(&sav).unwrap()[0], 1, "and left as it was");
        assert_eq!(
            std::fs::read(&first).unwrap()[0],
            2,
            "this run's RAM went beside it"
        );
        let mut permissions = std::fs::metadata(&sav).unwrap().permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        permissions.set_readonly(false);
        std::fs::set_permissions(&sav, permissions).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn cartridges_without_a_battery_write_nothing() {
        let mut rom = counter_rom();
        rom[6] = 0;
        let dir = std::env::temp_dir().join(format!("nestor-nobattery-{}", std::process::id()));
        let mut console = Console::from_ines(&rom).unwrap();
        let mut save = BatterySave::open_in(Some(&dir), "x.nes", &mut console);
        console.run_frame();
        save.flush(&console);
        assert!(!dir.exists());
    }
}
