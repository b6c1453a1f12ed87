//! Piece choice, game over, pause and the demo, driven by controller input from power-on.

mod quadfall;
use quadfall::*;

fn step_rng(value: u16) -> u16 {
    let feedback = ((value >> 9) ^ (value >> 1)) & 1;
    (feedback << 15) | (value >> 1)
}

fn rng(game: &Game) -> u16 {
    u16::from_be_bytes([game.peek(RNG), game.peek(RNG + 1)])
}

/// The documented picker: returns (spawn ID, RNG, spawnCount) after one pick.
fn pick(mut rng: u16, count: u8, spawn_id: u8) -> (u8, u16, u8) {
    let count = count.wrapping_add(1);
    let index = usize::from(((rng >> 8) as u8).wrapping_add(count) & 7);
    if index != 7 && SPAWN[index] != spawn_id {
        return (SPAWN[index], rng, count);
    }
    rng = step_rng(rng);
    let index = (usize::from((rng >> 8) as u8 & 7) + usize::from(spawn_id)) % 7;
    (SPAWN[index], rng, count)
}

#[test]
fn each_spawn_picks_from_the_rng_as_documented() {
    let mut game = Game::start(9);
    let mut spawns = 0;
    let mut counted = [0u32; 7];
    counted[usize::from(piece_type(game.peek(PIECE)))] += 1;
    for column in 0..200 {
        let target = [0, 3, 6, 9][column % 4];
        for _ in 0..6 {
            let x = game.peek(X);
            let button = match x.cmp(&target) {
                std::cmp::Ordering::Greater => LEFT,
                std::cmp::Ordering::Less => RIGHT,
                std::cmp::Ordering::Equal => 0,
            };
            game.tap(button);
        }
        game.soft_drop_to_lock();
        // Watch frame by frame for the spawn: state 8 -> 1.
        let mut before = (
            game.peek(PLAY_STATE),
            rng(&game),
            game.peek(SPAWN_COUNT),
            game.peek(SPAWN_ID),
            game.peek(NEXT_PIECE),
        );
        for _ in 0..100 {
            game.frame(0);
            if before.0 == 8 && game.peek(PLAY_STATE) == 1 {
                break;
            }
            before = (
                game.peek(PLAY_STATE),
                rng(&game),
                game.peek(SPAWN_COUNT),
                game.peek(SPAWN_ID),
                game.peek(NEXT_PIECE),
            );
        }
        let (_, rng_before, count, spawn_id, next) = before;
        let (expected, rng_after, count_after) = pick(step_rng(rng_before), count, spawn_id);
        assert_eq!(game.peek(PIECE), next, "the preview piece comes into play");
        assert_eq!(game.peek(NEXT_PIECE), expected, "spawn {spawns}");
        assert_eq!(
            (rng(&game), game.peek(SPAWN_COUNT), game.peek(SPAWN_ID)),
            (rng_after, count_after, expected)
        );
        counted[usize::from(piece_type(next))] += 1;
        spawns += 1;
        if spawns == 60 {
            break;
        }
        // Keep the stack low.
        if (60..100).any(|i| game.peek(PLAYFIELD + i) != EMPTY) {
            game.clear_playfield();
        }
    }
    assert_eq!(spawns, 60);
    let bcd = |i: u16| {
        u32::from(game.peek(0x03F1 + 2 * i)) * 100
            + u32::from(game.peek(0x03F0 + 2 * i) >> 4) * 10
            + u32::from(game.peek(0x03F0 + 2 * i) & 15)
    };
    let stats: Vec<u32> = (0..7).map(bcd).collect();
    assert_eq!(stats, counted, "statistics per piece type");
}

#[test]
fn game_over_when_the_spawned_piece_is_blocked() {
    let mut game = Game::start(19);
    for _ in 0..30 {
        if game.peek(PLAY_STATE) == 0x0A {
            break;
        }
        game.soft_drop_to_lock();
        game.until(300, "the next piece or the curtain", |g| {
            matches!(g.peek(PLAY_STATE), 1 | 0x0A)
        });
    }
    assert_eq!(game.peek(PLAY_STATE), 0x0A, "curtain state");
    assert_eq!((game.peek(X), game.peek(Y)), (5, 0), "at the spawn point");
    assert!(!game.piece_fits(), "the spawned piece overlaps the stack");
    assert_eq!(game.peek(0x58), 0xF0, "curtainRow starts at -16");
    game.until(200, "the curtain", |g| g.peek(0x58) == 20);
    assert!(
        (0..200).all(|i| game.peek(PLAYFIELD + i) == 0x4F),
        "curtain over every row"
    );
    game.frames_with(30, 0);
    assert_eq!(game.peek(GAME_MODE), MODE_PLAY, "waits for Start");
    game.tap(START);
    game.frames_with(2, 0);
    assert_eq!(
        game.peek(GAME_MODE),
        MODE_LEVEL_MENU,
        "back to the level menu"
    );
}

#[test]
fn start_pauses_and_resumes() {
    let mut game = Game::start(5);
    game.frames_with(10, DOWN);
    game.tap(START);
    let frozen: Vec<u8> = (0x40..0x60).map(|a| game.peek(a)).collect();
    let (frame, rng_before) = (game.peek16(0xB1), rng(&game));
    game.frames_with(100, 0);
    assert_eq!(
        (0x40..0x60).map(|a| game.peek(a)).collect::<Vec<_>>(),
        frozen,
        "paused"
    );
    assert_eq!(
        game.peek16(0xB1),
        frame.wrapping_add(100),
        "frames still counted"
    );
    assert_ne!(rng(&game), rng_before, "the RNG still steps");
    game.tap(START);
    game.until(60, "the piece to fall again", |g| g.peek(Y) != frozen[1]);
}

/// B twice: level menu, game-type menu, title (a menu ignores the pad while it draws).
fn back_to_title(game: &mut Game) {
    for _ in 0..2 {
        game.tap(B);
        game.frames_with(3, 0);
    }
    assert_eq!(game.peek(GAME_MODE), MODE_TITLE);
}

#[test]
fn idle_title_plays_the_demo_from_the_tables() {
    let mut game = Game::at_level_menu();
    back_to_title(&mut game);
    game.until(700, "the demo", |g| g.peek(GAME_MODE) == 5);
    game.frames_with(2, 0);
    // Pieces come from $DF00: bits 6-4 are the type, 7 reads the $02 after the spawn table.
    let table = |i: usize| ROM[16 + 0x5F00 + i] >> 4 & 7;
    let spawn = |t: u8| if t == 7 { 0x02 } else { SPAWN[usize::from(t)] };
    assert_eq!(game.peek(PIECE), spawn(table(0)));
    assert_eq!(game.peek(NEXT_PIECE), spawn(table(1)));
    let mut seen = vec![game.peek(PIECE)];
    for _ in 0..3000 {
        let state = game.peek(PLAY_STATE);
        game.frame(0);
        if state == 8 && game.peek(PLAY_STATE) == 1 {
            seen.push(game.peek(PIECE));
            if seen.len() == 8 {
                break;
            }
        }
        assert_eq!(game.peek(GAME_MODE), 5, "demo still running");
    }
    let expected: Vec<u8> = (0..8).map(|i| spawn(table(i))).collect();
    assert_eq!(seen, expected, "demo pieces");
    game.frame(START);
    game.frames_with(2, 0);
    assert_eq!(game.peek(GAME_MODE), MODE_TITLE, "Start leaves the demo");
}

#[test]
fn demo_recording_writes_button_pairs() {
    let mut game = Game::at_level_menu();
    back_to_title(&mut game);
    game.poke(0xD0, 0xFF);
    game.until(700, "the demo", |g| g.peek(GAME_MODE) == 5);
    game.frames_with(3, 0);
    let start = game.peek16(0xD1);
    game.frames_with(5, LEFT);
    assert_eq!(
        game.peek16(0xD1),
        start + 2,
        "one pair written when the buttons changed"
    );
    assert_eq!(game.peek(0xCE), LEFT);
    assert_eq!(game.peek(0xCF), 4, "frames the buttons stayed the same");
    game.frames_with(4, LEFT);
    assert_eq!(game.peek(0xCF), 8);
    game.frame(0);
    assert_eq!(game.peek16(0xD1), start + 4);
    assert_eq!((game.peek(0xCE), game.peek(0xCF)), (0, 0));
}

/// Peak-to-peak amplitude of the audio produced during `frames` frames of `buttons`.
fn loudness(game: &mut Game, frames: usize, buttons: u8) -> i32 {
    let mut samples = Vec::new();
    game.console.take_samples(&mut samples);
    samples.clear();
    game.frames_with(frames, buttons);
    game.console.take_samples(&mut samples);
    let max = samples.iter().copied().max().unwrap_or(0);
    let min = samples.iter().copied().min().unwrap_or(0);
    i32::from(max) - i32::from(min)
}

#[test]
fn sound_effects_play_through_the_apu() {
    let mut game = Game::start(0);
    game.frames_with(10, 0);
    let quiet = loudness(&mut game, 20, 0);
    let shift = loudness(&mut game, 4, LEFT);
    game.frame(0);
    let rotate = loudness(&mut game, 4, A);
    assert!(
        shift > 4 * quiet.max(50),
        "shift: {shift} against silence {quiet}"
    );
    assert!(
        rotate > 4 * quiet.max(50),
        "rotate: {rotate} against silence {quiet}"
    );
}

#[test]
fn the_recorded_demo_replays_and_returns_to_the_title() {
    let mut game = Game::at_level_menu();
    back_to_title(&mut game);
    game.until(700, "the demo", |g| g.peek(GAME_MODE) == 5);
    let mut lines = 0;
    for _ in 0..20_000 {
        game.frame(0);
        if game.peek(GAME_MODE) != 5 {
            break;
        }
        assert_ne!(game.peek(PLAY_STATE), 0x0A, "the demo topped out");
        lines = game.lines();
    }
    assert_eq!(
        game.peek(GAME_MODE),
        MODE_TITLE,
        "the demo ends at the end of its table"
    );
    assert_eq!(game.peek(0xD2), 0xDD, "table pointer reset");
    assert!(lines > 0, "the demo clears lines");
}
