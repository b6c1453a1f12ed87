//! What the session tests share: Quadfall, a fixed input that gets into a game and plays, and
//! a run that hashes every frame.

use session::Session;

pub const ROM: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../roms/quadfall.nes"
));

/// The pads of frame `n`: Start now and then to get through the menus into a game, then
/// moves and rotations.
pub fn pads(n: u64) -> [u8; 2] {
    let buttons = match n % 40 {
        0 if n < 600 => nes::Buttons::START,
        5 | 6 => nes::Buttons::LEFT,
        17 => nes::Buttons::A,
        25..=27 => nes::Buttons::RIGHT,
        _ => 0,
    };
    [buttons, 0]
}

/// Runs `frames` with the pads `pads` gives each, and the machine's hash after each frame.
pub fn run(
    session: &mut Session,
    frames: std::ops::Range<u64>,
    pads: fn(u64) -> [u8; 2],
) -> Vec<u64> {
    frames
        .map(|n| {
            session.set_pads(pads(n));
            session.frame();
            session.console().hash()
        })
        .collect()
}
