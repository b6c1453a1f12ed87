//! `zapper.read()`: FCEUX's table {x, y, fire} of the mouse in NES pixels, as the window gives
//! it (the left button is the trigger; the right one is not reported).

mod common;

use lua::HostInput;

/// What a script printing `zapper.read()` over one frame prints, with the host's `input`.
fn read(input: HostInput) -> String {
    let source = "local z = zapper.read() print(z.x, z.y, z.fire)";
    common::run_frame("zapper", source, input)
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
