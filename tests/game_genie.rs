//! Game Genie codes on Quadfall: the gravity table keeps NES Tetris's address ($898E, frames
//! per row by level), so a code there changes how fast pieces fall.

mod quadfall;
use nes::GameGenie;
use quadfall::*;

/// Frames the active piece takes to fall `rows` rows, with nothing pressed, counted from its
/// next drop (after the first piece's entry delay).
fn frames_to_fall(game: &mut Game, rows: u8) -> u32 {
    let fall = |game: &mut Game, rows: u8| {
        let start = game.peek(Y);
        let mut frames = 0;
        while game.peek(Y) < start + rows {
            game.frame(0);
            frames += 1;
            assert!(frames < 1000, "the piece stopped falling");
        }
        frames
    };
    fall(game, 1);
    fall(game, rows)
}

/// Level 0's entry in the gravity table, 48 frames a row, read as 1.
const ONE_FRAME_A_ROW: GameGenie = GameGenie {
    addr: 0x898E,
    value: 1,
    compare: Some(48),
};

#[test]
fn a_code_on_the_gravity_table_makes_level_0_fall_a_row_a_frame() {
    let mut plain = Game::start(0);
    assert_eq!(frames_to_fall(&mut plain, 4), 4 * 48);
    let mut cheated = Game::start(0);
    let code = ONE_FRAME_A_ROW;
    assert!(cheated.console.add_game_genie(code));
    assert!(!cheated.console.add_game_genie(code), "already in");
    assert_eq!(frames_to_fall(&mut cheated, 4), 4);
    // Taken out, the game reads its own table again.
    assert!(cheated.console.remove_game_genie(code));
    assert!(!cheated.console.remove_game_genie(code));
    let frames = frames_to_fall(&mut cheated, 2);
    assert!(frames > 48, "{frames} frames for two rows");
}

#[test]
fn an_eight_letter_code_whose_compare_value_differs_changes_nothing() {
    let mut game = Game::start(0);
    let other = GameGenie {
        compare: Some(47),
        ..ONE_FRAME_A_ROW
    };
    assert!(game.console.add_game_genie(other));
    assert_eq!(frames_to_fall(&mut game, 2), 2 * 48);
}

#[test]
fn codes_stay_through_a_reset_and_out_of_save_states() {
    let mut game = Game::start(0);
    let state = game.console.save_state();
    game.console.add_game_genie(ONE_FRAME_A_ROW);
    // A state saved before the code loads with the code still in: codes are the cartridge's
    // wiring, not the machine's state.
    game.console.load_state(&state).unwrap();
    assert_eq!(frames_to_fall(&mut game, 2), 2);
    game.console.reset();
    game.console.power_cycle();
    assert_eq!(game.console.cartridge().game_genie(), [ONE_FRAME_A_ROW]);
    let mut game = Game::start(0);
    game.console.add_game_genie(ONE_FRAME_A_ROW);
    let saved = game.console.save_state();
    let mut fresh = Game::start(0);
    fresh.console.load_state(&saved).unwrap();
    assert_eq!(
        frames_to_fall(&mut fresh, 2),
        2 * 48,
        "no code came with the state"
    );
}

#[test]
fn codes_are_written_and_read_back_in_their_letters() {
    let code = ONE_FRAME_A_ROW.to_string();
    assert_eq!(code.len(), 8);
    assert_eq!(GameGenie::parse(&code), Ok(ONE_FRAME_A_ROW));
}

#[test]
fn text_that_is_not_a_code_is_one_line() {
    let err = GameGenie::parse("SXIOP").unwrap_err();
    assert!(err.contains("'SXIOP' is not a Game Genie code"), "{err}");
    assert!(!err.contains('\n'));
}

/// FCEUX's `emu.addgamegenie` and `emu.delgamegenie` reach the same codes.
#[test]
fn lua_adds_and_removes_codes_as_fceux_does() {
    let script = std::env::temp_dir().join(format!("nestor-genie-{}.lua", std::process::id()));
    let code = ONE_FRAME_A_ROW.to_string();
    std::fs::write(
        &script,
        format!(
            r#"
            assert(emu.addgamegenie("{code}") == true)
            assert(emu.addgamegenie("{code}") == true, "already in is true too")
            local ok, err = pcall(emu.addgamegenie, "SXIOP")
            assert(not ok and string.find(tostring(err), "Failed to decode game genie code"), tostring(err))
            assert(emu.delgamegenie("{code}") == true)
            assert(emu.delgamegenie("{code}") == false)
            assert(emu.addgamegenie("{code}") == true)
            print("codes ok")
            "#
        ),
    )
    .unwrap();
    let output = std::rc::Rc::new(std::cell::RefCell::new(String::new()));
    let sink = output.clone();
    let mut scripts = lua::Scripts::with_output(
        ROM.to_vec(),
        "quadfall",
        std::rc::Rc::new(move |_, text: &str| sink.borrow_mut().push_str(text)),
    );
    let mut game = Game::start(0);
    scripts.load(&mut game.console, &script).unwrap();
    scripts.run_frame(&mut game.console);
    std::fs::remove_file(&script).unwrap();
    assert_eq!(*output.borrow(), "codes ok");
    assert_eq!(game.console.cartridge().game_genie(), [ONE_FRAME_A_ROW]);
    assert_eq!(frames_to_fall(&mut game, 2), 2);
}
