//! The project's own game ROM: cartridge format, the NES Tetris table addresses, and the way
//! from power-on to a falling piece with controller input only.

mod quadfall;
use quadfall::*;

fn prg(addr: u16, len: usize) -> &'static [u8] {
    let start = 16 + usize::from(addr - 0x8000);
    &ROM[start..start + len]
}

#[test]
fn cartridge_is_mmc1_with_32k_prg_and_16k_chr() {
    assert_eq!(ROM.len(), 16 + 32 * 1024 + 16 * 1024);
    assert_eq!(&ROM[0..4], b"NES\x1A");
    assert_eq!(ROM[4], 2, "PRG-ROM in 16 KiB units");
    assert_eq!(ROM[5], 2, "CHR-ROM in 8 KiB units");
    assert_eq!((ROM[6] >> 4) | (ROM[7] & 0xF0), 1, "mapper number");
    // The reset code's INC $8000 resets the MMC1 only if the byte there has bit 7 set.
    assert!(prg(0x8000, 1)[0] & 0x80 != 0);
}

#[test]
fn tables_sit_at_the_original_addresses() {
    // Orientation table: T up, then I horizontal and the unused row $13.
    assert_eq!(
        prg(0x8A9C, 12),
        [0x00, 0x7B, 0xFF, 0x00, 0x7B, 0x00, 0x00, 0x7B, 0x01, 0xFF, 0x7B, 0x00]
    );
    assert_eq!(
        prg(0x8A9C + 12 * 0x12, 12),
        [0x00, 0x7B, 0xFE, 0x00, 0x7B, 0xFF, 0x00, 0x7B, 0x00, 0x00, 0x7B, 0x01]
    );
    assert_eq!(
        prg(0x8A9C + 12 * 0x13, 12),
        [0, 0xFF, 0, 0, 0xFF, 0, 0, 0xFF, 0, 0, 0xFF, 0]
    );
    assert_eq!(prg(0x88EE, 6), [0x03, 0x01, 0x00, 0x02, 0x01, 0x03]);
    assert_eq!(prg(0x88EE + 2 * 0x12, 2), [0x11, 0x11]);
    assert_eq!(
        prg(0x898E, 30),
        [
            48, 43, 38, 33, 28, 23, 18, 13, 8, 6, 5, 5, 5, 4, 4, 4, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2,
            2, 2, 2, 1
        ]
    );
    let rows: Vec<u8> = (0..20).map(|y| y * 10).collect();
    assert_eq!(prg(0x96D6, 20), &rows[..]);
    assert_eq!(
        prg(0x993B, 19),
        [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 4, 4, 5, 5, 5, 5, 6, 6]
    );
    assert_eq!(
        prg(0x994E, 8),
        [0x02, 0x07, 0x08, 0x0A, 0x0B, 0x0E, 0x12, 0x02]
    );
    assert_eq!(
        prg(0x9956, 19),
        [2, 2, 2, 2, 7, 7, 7, 7, 8, 8, 0xA, 0xB, 0xB, 0xE, 0xE, 0xE, 0xE, 0x12, 0x12]
    );
    assert_eq!(
        prg(0x9CA5, 10),
        [0x00, 0x00, 0x40, 0x00, 0x00, 0x01, 0x00, 0x03, 0x00, 0x12]
    );
    assert_eq!(
        prg(0x984C, 8),
        [0x0F, 0x30, 0x21, 0x12, 0x0F, 0x30, 0x29, 0x1A]
    );
    // Demo pieces: the table opens T J T S Z J (types in bits 6-4).
    let types: Vec<u8> = prg(0xDF00, 6).iter().map(|b| b >> 4 & 7).collect();
    assert_eq!(types, [0, 1, 0, 4, 2, 1]);
}

#[test]
fn power_on_state_matches_the_ram_map() {
    let mut game = Game::power_on();
    game.frames_with(3, 0);
    assert_eq!(game.peek(GAME_MODE), 0, "legal screen first");
    assert_eq!(game.peek(PIECE), NO_PIECE);
    assert!(
        (0x0400..0x0500).all(|a| game.peek(a) == EMPTY),
        "$0400-$04FF filled with $EF"
    );
    assert_eq!(
        (game.peek(0xB8), game.peek(0xB9)),
        (0x00, 0x04),
        "playfield pointer"
    );
    // Seeded $8988 and stepped once per NMI.
    let mut rng = 0x8988u16;
    let frames_since = game.peek16(0xB1);
    for _ in 0..frames_since {
        rng = step_rng(rng);
    }
    assert_eq!(
        u16::from_be_bytes([game.peek(RNG), game.peek(RNG + 1)]),
        rng
    );
}

#[test]
fn start_is_ignored_until_the_legal_screen_minimum() {
    let mut game = Game::power_on();
    for _ in 0..50 {
        game.tap(START);
        assert_eq!(
            game.peek(GAME_MODE),
            0,
            "Start skipped the legal screen at frame {}",
            game.frames
        );
    }
    game.until(200, "Start to be accepted", |g| g.peek(0xC3) == 0);
    game.tap(START);
    assert_eq!(game.peek(GAME_MODE), MODE_TITLE);
}

#[test]
fn menus_lead_to_a_falling_piece() {
    let mut game = Game::start(0);
    assert_eq!(game.peek(LEVEL), 0);
    assert_eq!((game.peek(X), game.peek(Y)), (5, 0));
    assert!(SPAWN.contains(&game.peek(PIECE)));
    assert!(SPAWN.contains(&game.peek(NEXT_PIECE)));
    for offset in 0..0x20 {
        assert_eq!(
            game.peek(0x40 + offset),
            game.peek(0x60 + offset),
            "copy differs at ${:02X}",
            0x40 + offset
        );
    }
    // The first piece hangs, then falls at level 0's 48 frames a row.
    game.until(200, "the first drop", |g| g.peek(Y) == 1);
    game.until(60, "the second drop", |g| g.peek(Y) == 2);
}

#[test]
fn render_mode_follows_the_screens() {
    let mut game = Game::power_on();
    game.frames_with(5, 0);
    assert_eq!(
        (game.peek(GAME_MODE), game.peek(0xBD)),
        (0, 0),
        "legal screen"
    );
    let game = Game::at_level_menu();
    assert_eq!(
        (game.peek(GAME_MODE), game.peek(0xBD)),
        (MODE_LEVEL_MENU, 1),
        "menus"
    );
    let game = Game::start(0);
    assert_eq!(
        (game.peek(GAME_MODE), game.peek(0xBD)),
        (MODE_PLAY, 3),
        "play"
    );
    assert_eq!(
        (game.peek(0xBE), game.peek(0xC1)),
        (1, 0),
        "one player, A-type"
    );
}

#[test]
fn level_menu_adds_ten_with_a_held() {
    assert_eq!(Game::start(7).peek(LEVEL), 7);
    assert_eq!(Game::start(17).peek(LEVEL), 17);
}

pub fn step_rng(value: u16) -> u16 {
    let feedback = ((value >> 9) ^ (value >> 1)) & 1;
    (feedback << 15) | (value >> 1)
}

/// The committed image is exactly what its sources build to (needs cc65's ca65/ld65, which
/// README lists among the packages the tests need).
#[test]
fn committed_image_matches_its_sources() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let out = std::env::temp_dir().join(format!("quadfall-rebuild-{}.nes", std::process::id()));
    let status = std::process::Command::new("sh")
        .arg(format!("{root}/scripts/build-rom.sh"))
        .arg(&out)
        .status()
        .expect("sh runs");
    assert!(
        status.success(),
        "scripts/build-rom.sh failed (is cc65 installed?)"
    );
    let rebuilt = std::fs::read(&out).expect("rebuilt image");
    let _ = std::fs::remove_file(&out);
    assert!(
        rebuilt == ROM,
        "roms/quadfall.nes differs from what roms/*.s build to: rebuild and commit it"
    );
}
