//! The fuzz targets' work, one function per target: each takes the fuzzer's bytes and must
//! neither panic nor hang, whatever they are. The cargo-fuzz project in `fuzz/` calls these;
//! `tests/fuzz_regressions.rs` runs every input saved under `regressions/<target>/`, so a
//! crash the fuzzer found stays fixed.

mod lua_programs;

use nes::{Buttons, Cartridge, Console};
use std::sync::OnceLock;

/// A target: the fuzzer's bytes in, no panic out.
pub type Target = fn(&[u8]);

/// Each target by name, as `scripts/fuzz` and the regression test know them.
pub const TARGETS: &[(&str, Target)] = &[
    ("rom_loader", rom_loader),
    ("machine", machine),
    ("lua_api", lua_api),
    ("lua_programs", lua_programs),
    ("save_state", save_state),
];

/// Arbitrary bytes as an iNES file: loading fails with an error or the console powers on and
/// runs.
pub fn rom_loader(data: &[u8]) {
    if let Ok(cart) = Cartridge::from_ines(data) {
        let mut console = Console::new(cart);
        console.run_cycles(2_000);
        console.power_cycle();
        console.run_cycles(100);
    }
}

/// An iNES 1.0 header for `mapper` with `prg` 16 KiB and `chr` 8 KiB banks (0: CHR RAM).
fn ines_header(mapper: u8, prg: u8, chr: u8, flags6: u8) -> Vec<u8> {
    let mut header = nes2_header(mapper.into(), 0, prg, chr, flags6, [0, 0]);
    // Without NES 2.0's mark.
    header[7] &= 0xF0;
    header
}

/// An NES 2.0 header: `mapper` and `submapper`, `prg` 16 KiB and `chr` 8 KiB banks, and the
/// RAM sizes as the header's shift counts (`prg_ram`: volatile | non-volatile << 4;
/// `chr_ram`: volatile).
fn nes2_header(mapper: u16, submapper: u8, prg: u8, chr: u8, flags6: u8, ram: [u8; 2]) -> Vec<u8> {
    let mut header = vec![
        b'N',
        b'E',
        b'S',
        0x1A,
        prg,
        chr,
        (mapper as u8) << 4 | flags6,
        (mapper as u8 & 0xF0) | 0x08,
        submapper << 4 | (mapper >> 8) as u8,
        0,
        ram[0],
        ram[1],
    ];
    header.resize(16, 0);
    header
}

/// Every board the cartridge loader accepts: each mapper number with the submappers it
/// accepts (an NES 2.0 image of 32 KiB PRG-ROM with 8 KiB of CHR-ROM or, failing that, of
/// CHR-RAM). The loader knows no mapper above 255 (`the_generators_reach_every_board` checks).
pub fn boards() -> &'static [(u16, Vec<u8>)] {
    static BOARDS: OnceLock<Vec<(u16, Vec<u8>)>> = OnceLock::new();
    BOARDS.get_or_init(|| {
        (0..256)
            .filter_map(|mapper| {
                // Submappers only of the mappers that load at all: the fuzzer's first input
                // pays for this.
                let submappers: Vec<u8> = match loads(mapper, 0) {
                    false if !(1..16).any(|s| loads(mapper, s)) => return None,
                    _ => (0..16).filter(|&s| loads(mapper, s)).collect(),
                };
                Some((mapper, submappers))
            })
            .collect()
    })
}

/// Whether the loader accepts `mapper`.`submapper` in a small NES 2.0 image.
fn loads(mapper: u16, submapper: u8) -> bool {
    // CHR-ROM, 8 KiB or 32 KiB of CHR-RAM (GTROM's).
    [(1, 0), (0, 0x07), (0, 0x09)]
        .iter()
        .any(|&(chr, chr_ram)| {
            let mut image = nes2_header(mapper, submapper, 2, chr, 0, [0x07, chr_ram]);
            image.resize(16 + 0x8000 + usize::from(chr) * 0x2000, 0);
            Cartridge::from_ines(&image).is_ok()
        })
}

/// Frames the machine target runs.
const FRAMES: usize = 3;

/// The cartridge the bytes describe, with `program` filling PRG (and CHR) ROM and the
/// interrupt vectors of every 8 KiB bank pointing into it so the CPU runs it, powered on;
/// `None` if the loader refuses the sizes. `select` picks the board; `board` its sizes (bits
/// 0-3), mirroring, battery and four-screen bits (4, 5, 7); `variant` the submapper (bits
/// 0-3), the PRG-RAM (bits 4-5: none, 8 KiB, 32 KiB, 8 KiB battery-backed) and CHR-RAM (bit 6:
/// 8 or 32 KiB without CHR-ROM, none or 8 KiB beside it), and bit 7 an iNES 1.0 header (no
/// submapper, sizes by default) instead of NES 2.0.
fn board_console(select: u8, board: u8, variant: u8, program: &[u8]) -> Option<Console> {
    let boards = boards();
    let (mapper, submappers) = &boards[usize::from(select) % boards.len()];
    let submapper = submappers[usize::from(variant & 15) % submappers.len()];
    let prg_banks = [1, 2, 8, 16][usize::from(board & 3)];
    let chr_banks = [0, 1, 4, 16][usize::from(board >> 2 & 3)];
    let flags6 = board >> 4 & 0b1011;
    let mut image = if variant & 0x80 != 0 {
        ines_header(*mapper as u8, prg_banks, chr_banks, flags6)
    } else {
        let prg_ram = [0x00, 0x07, 0x09, 0x70][usize::from(variant >> 4 & 3)];
        let chr_ram = match (chr_banks, variant & 0x40 != 0) {
            (0, false) => 0x07,
            (0, true) => 0x09,
            (_, false) => 0,
            (_, true) => 0x07,
        };
        nes2_header(
            *mapper,
            submapper,
            prg_banks,
            chr_banks,
            flags6,
            [prg_ram, chr_ram],
        )
    };
    let prg_size = usize::from(prg_banks) * 0x4000;
    let chr_size = usize::from(chr_banks) * 0x2000;
    let filler: &[u8] = if program.is_empty() { &[0xEA] } else { program };
    image.extend(filler.iter().cycle().take(prg_size + chr_size));
    for bank in image[16..16 + prg_size].chunks_exact_mut(0x2000) {
        // NMI, reset and IRQ vectors: $8000, $C000 and $E000 (pick the first bytes of a bank).
        bank[0x1FFA..].copy_from_slice(&[0x00, 0x80, 0x00, 0xC0, 0x00, 0xE0]);
    }
    Console::from_ines(&image).ok()
}

/// An arbitrary program on every board the loader accepts: the bytes choose the board
/// ([`board_console`]: mapper, submapper, sizes, RAM, mirroring), the controller input of
/// each frame, and fill PRG (and CHR) ROM.
pub fn machine(data: &[u8]) {
    let [select, board, variant, rest @ ..] = data else {
        return;
    };
    let (pads, program) = rest.split_at(rest.len().min(2 * FRAMES));
    let Some(mut console) = board_console(*select, *board, *variant, program) else {
        return;
    };
    for frame in 0..FRAMES {
        for port in 0..2 {
            let buttons = pads.get(2 * frame + port).copied().unwrap_or(0);
            console.set_buttons(port, Buttons(buttons));
        }
        console.run_frame();
    }
}

/// Values the Lua target passes as arguments: every type, edge numbers, strings the API
/// parses (colours, button names, addresses), tables and functions.
const LUA_VALUES: &str = r##"nil, true, false, 0, 1, -1, 2, 7, 8, 0.5, -0.5, 255, 256, 65535,
  65536, -129, 2^31, -2^31, 2^31 - 1, 2^32, 2^53, -2^53, 1e308, -1e308, 1/0, -1/0, 0/0, "", "a",
  "0", "12", "-5", "0x10", "#FF0000", "#12345678", "#zz", "red", "clear", "P1", "up", "A",
  "start", "inverted", "zapper", "rb", "base64", "md5", string.rep("x", 300), "\0\1\255",
  {}, {1, 2, 3}, {A = true, up = 1, left = false}, {r = 300, g = -1, b = 0.5, a = "x"},
  {x = 1e9, y = -1e9}, function() end, function() error("boom") end, print, coroutine.create(
  function() end)"##;

/// The FCEUX API called with arbitrary arguments: the bytes pick functions (from every
/// library the host installs, sorted by name) and their arguments; each call runs under
/// pcall, then two frames run so callbacks fire. Bad arguments must be Lua errors: a panic in
/// the host would fail the target.
pub fn lua_api(data: &[u8]) {
    let bytes: String = data.iter().map(|b| format!("\\{b}")).collect();
    let script = format!(
        r##"
local libs = {{ "emu", "FCEU", "memory", "joypad", "input", "zapper", "savestate", "gui",
  "rom", "ppu", "movie", "debugger", "cdlog", "taseditor", "bit", "sound" }}
local fns = {{}}
for _, lib in ipairs(libs) do
  if type(_G[lib]) == "table" then
    for name, f in pairs(_G[lib]) do
      if type(f) == "function" then fns[#fns + 1] = {{ lib .. "." .. name, f }} end
    end
  end
end
table.sort(fns, function(a, b) return a[1] < b[1] end)
local function pack(...) return {{ n = select("#", ...), ... }} end
local values = pack({LUA_VALUES})
local data = "{bytes}"
local i = 1
local function byte()
  local b = data:byte(i) or 0
  i = i + 1
  return b
end
local function value()
  local b = byte()
  if b < 200 then return values[b % values.n + 1] end
  -- A number made of the next two bytes, signed.
  return (byte() * 256 + byte()) - 32768
end
while i <= #data do
  local f = fns[byte() % #fns + 1][2]
  local args = {{}}
  local n = byte() % 6
  for k = 1, n do args[k] = value() end
  pcall(f, unpack(args, 1, n))
end
"##
    );
    run_script(&script, 2);
}

/// A Lua program the bytes describe (`lua_programs.rs`: recursion, closures as hooks, pcall
/// nests, hostile string calls, huge tables, coroutines inside hooks...) runs for three
/// frames. Its errors are reported and stop it: only a panic, abort or hang is a failure.
pub fn lua_programs(data: &[u8]) {
    run_script(&lua_programs::program(data), 3);
}

/// Runs `script` against Quadfall up to its first `emu.frameadvance`, then for `frames`
/// frames; the watchdog and the memory limit are set low so that a runaway or a hog is stopped
/// quickly.
fn run_script(script: &str, frames: usize) {
    let path = std::env::temp_dir().join(format!("nestor-fuzz-lua-{}.lua", std::process::id()));
    if std::fs::write(&path, script).is_err() {
        return;
    }
    let mut console = game_console();
    let mut scripts = lua::Scripts::with_output(
        include_bytes!("../../../roms/quadfall.nes").to_vec(),
        "quadfall.nes",
        std::rc::Rc::new(|_, _: &str| {}),
    );
    scripts.set_time_limit(std::time::Duration::from_millis(20));
    scripts.set_memory_limit(64 << 20);
    // A script's own error is reported and the script stopped: that is fine here.
    let _ = scripts.load(&mut console, &path);
    for _ in 0..frames {
        scripts.run_frame(&mut console);
    }
    scripts.stop_all(&mut console);
    let _ = std::fs::remove_file(&path);
}

/// Quadfall, powered on and run for ten frames once; each run starts from a copy.
fn game_console() -> Console {
    static TITLE: OnceLock<Console> = OnceLock::new();
    TITLE
        .get_or_init(|| {
            let mut console =
                Console::from_ines(include_bytes!("../../../roms/quadfall.nes")).unwrap();
            for _ in 0..10 {
                console.run_frame();
            }
            console
        })
        .clone()
}

/// Arbitrary bytes as a save state for Quadfall, and valid states with payload bytes changed
/// (framed again, so they pass the checksum), of Quadfall or of any board the loader accepts
/// running a program: loading gives an error and leaves the console untouched, or it loads and
/// the console runs on.
pub fn save_state(data: &[u8]) {
    let (mut console, edits) = match data {
        // Raw bytes.
        [0, rest @ ..] => {
            let mut console = game_console();
            let before = console.save_state();
            load_and_run(&mut console, rest, &before);
            return;
        }
        // A board ([`board_console`]) running the rest of the bytes for two frames, then
        // (offset, value) pairs from the same bytes written into its state's payload.
        [0x80..=0xFF, select, board, variant, rest @ ..] => {
            let Some(mut console) = board_console(*select, *board, *variant, rest) else {
                return;
            };
            for _ in 0..2 {
                console.run_frame();
            }
            (console, rest)
        }
        // (offset, value) pairs written into a valid payload of Quadfall's.
        _ => (game_console(), data.get(1..).unwrap_or_default()),
    };
    let before = console.save_state();
    let hash = console.cartridge().rom_hash();
    let Ok(payload) = nes::state::decode(&before, hash) else {
        panic!("a state just saved does not decode");
    };
    let mut payload = payload.to_vec();
    let len = payload.len().max(1);
    for edit in edits.chunks_exact(4) {
        let at = usize::from(u16::from_le_bytes([edit[0], edit[1]])) << (edit[2] >> 5);
        if let Some(byte) = payload.get_mut(at % len) {
            *byte ^= edit[3] | 1;
        }
    }
    load_and_run(&mut console, &nes::state::encode(hash, &payload), &before);
}

/// Loads `state`: an error must leave the console as `before`; a state that loads runs on.
fn load_and_run(console: &mut Console, state: &[u8], before: &[u8]) {
    match console.load_state(state) {
        Err(_) => assert!(
            console.save_state() == before,
            "a failed load changed the console"
        ),
        Ok(()) => {
            for _ in 0..2 {
                console.run_frame();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every board of the loader's list (`nes::mapper::variants`) is among those the machine
    /// and save-state targets pick from, with each submapper it tells apart, and nothing else.
    #[test]
    fn the_generators_reach_every_board() {
        let boards = super::boards();
        let variants = nes::mapper::variants();
        for &(mapper, submapper) in &variants {
            let reached = boards
                .iter()
                .any(|(m, subs)| *m == mapper && subs.contains(&submapper));
            assert!(reached, "mapper {mapper}.{submapper} is not reached");
        }
        for (mapper, _) in boards {
            assert!(
                variants.iter().any(|(m, _)| m == mapper),
                "mapper {mapper} is in no board of the list"
            );
        }
        for mapper in 256..4096 {
            assert!(
                !(0..16).any(|s| super::loads(mapper, s)),
                "mapper {mapper} loads: add it to `boards`"
            );
        }
    }
}
