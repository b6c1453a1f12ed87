//! Published NES Tetris scripts hook code addresses: meatfighter's AI the drop-speed check at
//! $8977 and the score loop at $9C35, RecordDemo.lua the demo recording's stores at $9B86 and
//! $9B8D. Quadfall has the same instructions there, with the same registers in use. Each test
//! runs the script's pattern (`lua/hooks/`) on Quadfall through the `lua` crate and checks what
//! the hook does to the game.

mod quadfall;
use lua::Scripts;
use quadfall::*;
use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

/// Quadfall run by the scripts' frame loop, with what the scripts print.
struct Hooked {
    game: Game,
    scripts: Scripts,
    output: Rc<RefCell<String>>,
}

impl Hooked {
    /// Loads `lua/hooks/<name>.lua` for each name into `game` as it is.
    fn new(game: Game, names: &[&str]) -> Hooked {
        let (sink, output) = lua::captured_output();
        let scripts = Scripts::with_output(ROM.to_vec(), "quadfall", sink);
        let mut hooked = Hooked {
            game,
            scripts,
            output,
        };
        for name in names {
            let path = format!("lua/hooks/{name}.lua");
            if let Err(e) = hooked
                .scripts
                .load(&mut hooked.game.console, Path::new(&path))
            {
                panic!("{path}: {e}");
            }
        }
        hooked
    }

    /// One frame with `buttons` (the game's bit order) held on pad 1.
    fn frame(&mut self, buttons: u8) {
        self.scripts.set_pads([buttons.reverse_bits(), 0]);
        self.scripts.run_frame(&mut self.game.console);
        let output = self.output.borrow();
        assert!(
            self.scripts.errors() == 0 && !output.contains("stderr:"),
            "{output}"
        );
    }

    /// Idle frames until `done` holds, at most `max`.
    fn until(&mut self, max: u32, what: &str, done: impl Fn(&Game) -> bool) {
        for _ in 0..max {
            if done(&self.game) {
                return;
            }
            self.frame(0);
        }
        assert!(done(&self.game), "timed out waiting for {what}");
    }

    fn peek(&self, addr: u16) -> u8 {
        self.game.peek(addr)
    }

    /// The printed lines that start with `prefix`, without it.
    fn printed(&self, prefix: &str) -> Vec<String> {
        self.output
            .borrow()
            .lines()
            .filter_map(|line| line.strip_prefix(prefix))
            .map(str::to_string)
            .collect()
    }
}

#[test]
fn hooked_addresses_hold_the_documented_instructions() {
    let prg = |addr: u16, len: usize| &ROM[16 + usize::from(addr - 0x8000)..][..len];
    // $8975 LDX level; $8977 CPX #29; BCS +3; LDA framesPerDrop,X.
    assert_eq!(
        prg(0x8975, 9),
        [0xA6, 0x44, 0xE0, 0x1D, 0xB0, 0x03, 0xBD, 0x8E, 0x89]
    );
    // $9C31 LDA level; STA $A8; $9C35 INC $A8.
    assert_eq!(prg(0x9C31, 6), [0xA5, 0x44, 0x85, 0xA8, 0xE6, 0xA8]);
    // $9B84 LDX #0; $9B86 LDA $CE; STA ($D1,X); JSR; $9B8D LDA $CF; STA ($D1,X).
    assert_eq!(prg(0x9B84, 6), [0xA2, 0x00, 0xA5, 0xCE, 0x81, 0xD1]);
    assert_eq!(prg(0x9B8A, 1), [0x20]);
    assert_eq!(prg(0x9B8D, 4), [0xA5, 0xCF, 0x81, 0xD1]);
}

/// Frames the first piece of a level-0 game takes for `rows` rows once it starts falling, and
/// the $8977 calls the scripts `names` printed in those frames.
fn fall(names: &[&str], rows: u8) -> (u32, Vec<String>) {
    let mut h = Hooked::new(Game::start(0), names);
    let spawn_y = h.peek(Y);
    h.until(200, "the piece to fall", |g| g.peek(Y) != spawn_y);
    let (from, calls) = (h.peek(Y), h.printed("8977 ").len());
    let mut frames = 0;
    while h.peek(Y) < from + rows {
        assert!(frames < 500, "{rows} rows took over {frames} frames");
        assert_eq!(h.peek(PLAY_STATE), 1, "the piece locked");
        h.frame(0);
        frames += 1;
    }
    (frames, h.printed("8977 ").split_off(calls))
}

#[test]
fn drop_speed_hook_at_8977_makes_the_piece_fall_a_row_a_frame() {
    let rows = 4;
    let (frames, _) = fall(&[], rows);
    assert_eq!(frames, u32::from(rows) * gravity(0), "without the hook");

    let (frames, calls) = fall(&["drop_speed"], rows);
    assert_eq!(frames, u32::from(rows), "with X set to 29 at $8977");
    // The check runs once a frame, with the level in X and one frame per row in A.
    assert_eq!(calls, vec!["x 0 a 1 level 0"; rows.into()]);
}

/// Points a single line earns at `level` with the scripts `names` loaded: the first piece
/// falls untouched (no soft-drop points) onto a bottom row that it completes.
fn single_at_level(level: u8, names: &[&str]) -> (u32, Hooked) {
    let mut game = Game::start(0);
    game.poke_player(LEVEL - 0x40, level);
    let cells = squares(game.peek(PIECE));
    let land = 19 - cells.iter().map(|c| c.1).max().unwrap();
    for x in 0..10i8 {
        if !cells.iter().any(|&(dx, dy)| (5 + dx, land + dy) == (x, 19)) {
            game.poke(PLAYFIELD + 190 + x as u16, 0x7B);
        }
    }
    assert_eq!(game.peek(X), 5);
    let mut h = Hooked::new(game, names);
    let score = h.game.score();
    h.until(400, "the lock", |g| g.peek(PLAY_STATE) != 1);
    h.until(400, "the next piece", |g| g.peek(PLAY_STATE) == 1);
    assert_eq!(h.game.lines(), 1, "level {level}");
    (h.game.score() - score, h)
}

#[test]
fn score_hook_at_9c35_caps_the_multiplier_at_30() {
    const SINGLE: u32 = 40;
    let (points, _) = single_at_level(60, &[]);
    assert_eq!(
        points,
        SINGLE * 61,
        "without the hook: points x (level + 1)"
    );

    let (points, h) = single_at_level(60, &["score_cap"]);
    assert_eq!(points, SINGLE * 30, "with the count capped at $9C35");
    // One score update per lock; the loop counter and A held the level.
    assert_eq!(h.printed("9C35 "), ["counter 60 a 60 level 60"]);

    // Below the cap the hook changes nothing.
    let (points, h) = single_at_level(25, &["score_cap"]);
    assert_eq!(points, SINGLE * 26);
    assert_eq!(h.printed("9C35 "), ["counter 25 a 25 level 25"]);
}

/// Runs of (buttons, frames) held on pad 1 while the demo records.
const RUNS: [(u8, u8); 8] = [
    (LEFT, 5),
    (0, 7),
    (RIGHT, 4),
    (A, 1),
    (0, 9),
    (B, 3),
    (DOWN, 2),
    (0, 6),
];

/// From the title screen, the demo in recording mode with the scripts `names` loaded: a few
/// idle frames, then `RUNS`, then one frame of Left, which ends the last run.
fn record_demo(names: &[&str]) -> Hooked {
    let mut game = Game::power_on();
    game.until(1000, "the title screen", |g| {
        g.peek(GAME_MODE) == MODE_TITLE
    });
    let mut h = Hooked::new(game, names);
    h.until(1000, "the demo", |g| g.peek(GAME_MODE) == 5);
    assert_eq!(h.peek(0xD0), 0xFF, "recording mode");
    for _ in 0..3 {
        h.frame(0);
    }
    for (buttons, frames) in RUNS {
        for _ in 0..frames {
            h.frame(buttons);
        }
    }
    h.frame(LEFT);
    assert_eq!(h.peek(GAME_MODE), 5, "the demo went on");
    h
}

#[test]
fn record_demo_hooks_at_9b86_and_9b8d_record_the_pad_and_skip_the_stores() {
    // The first pair (idle before the first run) plus one pair per run.
    let pairs = RUNS.len() + 1;

    // Without hooks the game stores each pair into the demo table, in ROM.
    let h = record_demo(&["demo_table_writes"]);
    let expected: Vec<String> = (0..2 * pairs)
        .map(|i| format!("{:04X}", 0xDD00 + i))
        .collect();
    assert_eq!(h.printed("write "), expected);

    let h = record_demo(&["record_demo", "demo_table_writes"]);
    assert!(h.printed("write ").is_empty(), "a store was not skipped");
    // The pointer still moved past each pair: only the stores were skipped.
    assert_eq!(h.game.peek16(0xD1), 0xDD00 + 2 * pairs as u16);
    let buttons = h.printed("9B86 ");
    let frames = h.printed("9B8D ");
    assert_eq!((buttons.len(), frames.len()), (pairs, pairs));
    // Each run comes out as (buttons, frames - 1) in the game's bit order.
    let recorded: Vec<(String, String)> = buttons.into_iter().zip(frames).skip(1).collect();
    let given: Vec<(String, String)> = RUNS
        .iter()
        .map(|&(b, f)| (format!("{b:02X}"), format!("{:02X}", f - 1)))
        .collect();
    assert_eq!(recorded, given);
}
