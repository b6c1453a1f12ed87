//! What a person sees of the built-in game, judged from `nestor run --headless --screenshot`
//! pictures alone: the screenshot is cut into 8x8 cells and each cell is matched against the
//! game's own tiles (from the CHR-ROM of roms/quadfall.nes), so text reads back as text and the
//! playfield as filled or empty squares. The game's RAM, printed by a Lua script in the same run,
//! says what the picture must show.

use std::path::{Path, PathBuf};
use std::process::Command;

const ROM: &[u8] = include_bytes!("../../../roms/quadfall.nes");
const CHR_START: usize = 16 + 32 * 1024;
const ORIENTATION_TABLE: usize = 16 + 0x0A9C;
/// The playfield's top-left cell on screen (nametable column, row).
const PLAYFIELD_AT: (usize, usize) = (12, 5);
const EMPTY_CELL: u8 = 0xEF;

struct Screen {
    rgb: Vec<u8>,
}

impl Screen {
    fn load(path: &Path) -> Screen {
        let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
        let mut reader = decoder.read_info().unwrap();
        let mut rgb = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut rgb).unwrap();
        assert_eq!((info.width, info.height), (256, 240));
        assert_eq!(info.color_type, png::ColorType::Rgb);
        Screen { rgb }
    }

    fn pixel(&self, x: usize, y: usize) -> &[u8] {
        let at = (y * 256 + x) * 3;
        &self.rgb[at..at + 3]
    }

    /// The cell's pixels that differ from the backdrop (the top-left pixel, black on every
    /// screen of the game), one bit each, row by row.
    fn cell_mask(&self, column: usize, row: usize) -> u64 {
        let backdrop = self.pixel(0, 0);
        let mut mask = 0;
        for y in 0..8 {
            for x in 0..8 {
                mask <<= 1;
                mask |= u64::from(self.pixel(column * 8 + x, row * 8 + y) != backdrop);
            }
        }
        mask
    }

    /// Row `row` of the screen as text: each cell is the character whose glyph it shows, a
    /// space when blank, `#` for any other picture.
    fn text_row(&self, row: usize) -> String {
        (0..32)
            .map(|column| {
                let mask = self.cell_mask(column, row);
                match mask {
                    0 => ' ',
                    _ => (0..=0x2A)
                        .find(|&tile| tile_mask(tile) == mask)
                        .map_or('#', character),
                }
            })
            .collect()
    }

    fn text(&self) -> Vec<String> {
        (0..30).map(|row| self.text_row(row)).collect()
    }
}

/// The opaque pixels of a tile of the game's pattern table, in `Screen::cell_mask`'s order.
fn tile_mask(tile: u8) -> u64 {
    let pattern = &ROM[CHR_START + usize::from(tile) * 16..][..16];
    (0..8).fold(0, |mask, y| {
        let row = u64::from(pattern[y] | pattern[y + 8]);
        (mask << 8) | row
    })
}

/// The game's character set: digits at tiles 0-9, letters from $0A, then punctuation.
fn character(tile: u8) -> char {
    match tile {
        0..=9 => char::from(b'0' + tile),
        0x0A..=0x23 => char::from(b'A' + tile - 0x0A),
        _ => char::from(b"-.!?:',"[usize::from(tile - 0x24)]),
    }
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("nestor-screens-{}-{name}", std::process::id()))
}

/// Runs the built-in game headless with an input script (and Lua scripts), returning stdout and
/// the last frame.
fn run_game(name: &str, frames: u32, input: &str, lua: Option<&str>) -> (String, Screen) {
    let (input_path, shot) = (temp(&format!("{name}.input")), temp(&format!("{name}.png")));
    std::fs::write(&input_path, input).unwrap();
    let frames = frames.to_string();
    let mut args = vec![
        "run",
        "--headless",
        "--frames",
        &frames,
        "--input",
        input_path.to_str().unwrap(),
        "--screenshot",
        shot.to_str().unwrap(),
    ];
    let lua_path = temp(&format!("{name}.lua"));
    if let Some(script) = lua {
        std::fs::write(&lua_path, script).unwrap();
        args.extend(["--lua", lua_path.to_str().unwrap()]);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .args(&args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let screen = Screen::load(&shot);
    for path in [input_path, shot, lua_path] {
        let _ = std::fs::remove_file(path);
    }
    (String::from_utf8(out.stdout).unwrap(), screen)
}

fn assert_shows(text: &[String], row: usize, expected: &str) {
    assert!(
        text[row].contains(expected),
        "row {row} should show {expected:?}; the screen reads:\n{}",
        text.join("\n")
    );
}

// Start is honoured on the legal screen after its 120 frames; each menu then takes a Start.
const TO_LEVEL_0: &str =
    "130 start\n136 none\n170 start\n176 none\n210 start\n216 none\n250 start\n256 none\n";

#[test]
fn power_on_shows_the_legal_then_the_title_screen() {
    let (_, legal) = run_game("legal", 60, "", None);
    let text = legal.text();
    assert_shows(&text, 5, "QUADFALL");
    assert_shows(&text, 23, "PLEASE WAIT...");

    let (_, title) = run_game("title", 160, "130 start\n136 none\n", None);
    let text = title.text();
    assert_shows(&text, 9, "Q U A D F A L L");
    assert_shows(&text, 17, "PUSH START");
    assert_shows(&text, 25, "NESTOR PROJECT 2026");
}

/// Prints, every frame: game mode, play state, piece x, y, orientation, score bytes, and the
/// 200 playfield cells in hex.
const DUMP_RAM: &str = r#"
while true do
  emu.frameadvance()
  local cells = {}
  for i = 0, 199 do cells[#cells + 1] = string.format("%02X", memory.readbyte(0x400 + i)) end
  print(string.format("ram %d %d %d %d %d %02X%02X%02X %s", memory.readbyte(0xC0),
    memory.readbyte(0x48), memory.readbyte(0x40), memory.readbyte(0x41), memory.readbyte(0x42),
    memory.readbyte(0x55), memory.readbyte(0x54), memory.readbyte(0x53), table.concat(cells)))
end
"#;

#[test]
fn play_screen_shows_the_playfield_the_piece_and_the_score() {
    // Level 0; the first piece is soft-dropped to the floor, the second is falling.
    let input = format!("{TO_LEVEL_0}400 down\n440 none\n");
    let (stdout, screen) = run_game("play", 600, &input, Some(DUMP_RAM));
    let dumps: Vec<&str> = stdout.lines().filter(|l| l.starts_with("ram ")).collect();
    let last = *dumps.last().expect("the Lua script printed the RAM");
    // The game drew the picture from RAM as it was a few frames ago: nothing may have moved.
    assert!(
        dumps[dumps.len() - 5..].iter().all(|d| *d == last),
        "the game state must be still over the last frames"
    );
    let fields: Vec<&str> = last.split(' ').collect();
    let number = |i: usize| fields[i].parse::<usize>().unwrap();
    assert_eq!(
        (number(1), number(2)),
        (4, 1),
        "game mode 4 (play), play state 1 (falling)"
    );
    let (piece_x, piece_y, orientation) = (number(3), number(4), number(5));
    let score = fields[6];
    let cells: Vec<u8> = (0..200)
        .map(|i| u8::from_str_radix(&fields[7][i * 2..i * 2 + 2], 16).unwrap())
        .collect();

    let text = screen.text();
    assert_shows(&text, 1, "QUADFALL");
    for (row, label) in [(5, "SCORE"), (8, "LINES"), (11, "LEVEL"), (14, "NEXT")] {
        assert_shows(&text, row, label);
    }
    assert_shows(&text, 6, score);
    assert_shows(&text, 12, "000");

    // Every playfield cell shows the tile the RAM holds there (locked squares), or the falling
    // piece's square (drawn with sprites from the orientation table), or nothing.
    let mut expected = cells.clone();
    let squares = &ROM[ORIENTATION_TABLE + orientation * 12..][..12];
    for square in squares.chunks(3) {
        let y = piece_y as isize + isize::from(square[0] as i8);
        let x = piece_x as isize + isize::from(square[2] as i8);
        assert!((0..20).contains(&y) && (0..10).contains(&x));
        expected[y as usize * 10 + x as usize] = square[1];
    }
    let locked = cells.iter().filter(|&&c| c != EMPTY_CELL).count();
    assert!(locked >= 4, "the first piece locked ({locked} squares)");
    for row in 0..20 {
        for column in 0..10 {
            let tile = expected[row * 10 + column];
            let shown = screen.cell_mask(PLAYFIELD_AT.0 + column, PLAYFIELD_AT.1 + row);
            let wanted = if tile == EMPTY_CELL {
                0
            } else {
                tile_mask(tile)
            };
            assert_eq!(
                shown, wanted,
                "playfield cell ({column}, {row}) should show tile {tile:02X}"
            );
        }
    }
}
