//! `zapper.read()`: FCEUX's table {x, y, fire} of the mouse in NES pixels, as the window gives
//! it (the left button is the trigger; the right one is not reported).

use lua::{HostInput, Scripts};
use nes::Console;

const ROM: &[u8] = include_bytes!("../../../roms/quadfall.nes");

/// What a script printing `zapper.read()` over one frame prints, with the host's `input`.
fn read(input: HostInput) -> String {
    let (sink, output) = lua::captured_output();
    let mut scripts = Scripts::with_output(ROM.to_vec(), "quadfall.nes", sink);
    let mut console = Console::from_ines(ROM).expect("roms/quadfall.nes loads");
    let path = std::env::temp_dir().join(format!("nestor-zapper-{}.lua", std::process::id()));
    let source = "local z = zapper.read() print(z.x, z.y, z.fire)";
    std::fs::write(&path, source).expect("write the script");
    scripts.set_input(input);
    let loaded = scripts.load(&mut console, &path);
    let _ = std::fs::remove_file(&path);
    loaded.expect("script loads");
    scripts.run_frame(&mut console);
    let text = output.borrow().clone();
    text
}

#[test]
fn reads_the_mouse_and_its_left_button() {
    let held = |keys: &[&str]| keys.iter().map(|k| k.to_string()).collect();
    let aimed = read(HostInput {
        keys: held(&["leftclick"]),
        mouse: (120, 80),
    });
    assert_eq!(aimed, "120 80 1\n");
    let right = read(HostInput {
        keys: held(&["rightclick"]),
        mouse: (3, 239),
    });
    assert_eq!(right, "3 239 0\n", "the right button is not the trigger");
}
