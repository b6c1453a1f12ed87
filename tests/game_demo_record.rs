//! Records Quadfall's demo: the title's demo started in recording mode ($D0 = $FF, as the
//! original's developers could), played by the simple greedy player, and the held buttons of
//! every frame written out as the (buttons, frames - 1) pairs the demo replays from $DD00.
//!
//! A generator, not a check: `cargo test -p nestor-tests --test game_demo_record -- --ignored`
//! rewrites roms/demo_buttons.s; then rebuild the ROM with scripts/build-rom.sh.
//! game_flow.rs checks that the committed demo replays.

mod quadfall;
use quadfall::player::Player;
use quadfall::*;

const PAIRS: usize = 256;

#[test]
#[ignore = "rewrites roms/demo_buttons.s"]
fn record_demo() {
    let mut game = Game::at_level_menu();
    for _ in 0..2 {
        game.tap(B);
        game.frames_with(3, 0);
    }
    game.poke(0xD0, 0xFF);
    game.until(700, "the demo", |g| g.peek(GAME_MODE) == 5);
    let mut player = Player::new(0x5EED, false);
    let mut pairs: Vec<(u8, u16)> = Vec::new();
    let mut state = game.peek(PLAY_STATE);
    while pairs.len() <= PAIRS && game.peek(GAME_MODE) == 5 {
        if state != 1 && game.peek(PLAY_STATE) == 1 {
            player.new_piece(&game.board(), &game.piece());
        }
        state = game.peek(PLAY_STATE);
        let buttons = player.next(&game.piece());
        game.frame(buttons);
        match pairs.last_mut() {
            Some((held, frames)) if *held == buttons && *frames < 256 => *frames += 1,
            _ => pairs.push((buttons, 1)),
        }
    }
    // A game over ends the demo early; the table still fills $DD00-$DEFF.
    pairs.resize(PAIRS, (0, 256));
    let mut text = String::from(
        "; Recorded by tests/game_demo_record.rs (the demo's player 1 pad). Do not edit by hand.\n\
         demo_button_table:        ; $DD00: (buttons, frames - 1) pairs\n",
    );
    for chunk in pairs.chunks(8) {
        let bytes: Vec<String> = chunk
            .iter()
            .map(|&(held, frames)| format!("${held:02X}, ${:02X}", frames - 1))
            .collect();
        text += &format!("  .byte {}\n", bytes.join(", "));
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../roms/demo_buttons.s");
    std::fs::write(path, text).expect("write roms/demo_buttons.s");
    eprintln!("recorded {} pairs, {} lines", pairs.len(), game.lines());
}
