//! What the Lua tests share: a script run for one frame of Quadfall.

use lua::{HostInput, Scripts};
use nes::Console;

pub const ROM: &[u8] = include_bytes!("../../../../roms/quadfall.nes");

/// Runs `source` (saved as a file named after `name`) on Quadfall for one frame, with the host
/// window's `input`, and returns what it printed (stderr lines marked).
pub fn run_frame(name: &str, source: &str, input: HostInput) -> String {
    let (sink, output) = lua::captured_output();
    let mut scripts = Scripts::with_output(ROM.to_vec(), "quadfall.nes", sink);
    let mut console = Console::from_ines(ROM).expect("roms/quadfall.nes loads");
    let path =
        std::env::temp_dir().join(format!("nestor-lua-test-{}-{name}.lua", std::process::id()));
    std::fs::write(&path, source).expect("write the script");
    scripts.set_input(input);
    let loaded = scripts.load(&mut console, &path);
    let _ = std::fs::remove_file(&path);
    loaded.expect("script loads");
    scripts.run_frame(&mut console);
    let text = output.borrow().clone();
    text
}
