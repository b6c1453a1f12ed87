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

/// iNES header for `mapper` with `prg` 16 KiB and `chr` 8 KiB banks (0: CHR RAM).
fn ines_header(mapper: u8, prg: u8, chr: u8, flags6: u8) -> Vec<u8> {
    let mut header = vec![
        b'N',
        b'E',
        b'S',
        0x1A,
        prg,
        chr,
        mapper << 4 | flags6,
        mapper & 0xF0,
    ];
    header.resize(16, 0);
    header
}

/// Mapper numbers the cartridge loader accepts.
fn mappers() -> &'static [u8] {
    static MAPPERS: OnceLock<Vec<u8>> = OnceLock::new();
    MAPPERS.get_or_init(|| {
        (0..=255)
            .filter(|&m| {
                let mut image = ines_header(m, 2, 1, 0);
                image.resize(16 + 0x8000 + 0x2000, 0);
                Cartridge::from_ines(&image).is_ok()
            })
            .collect()
    })
}

/// Frames the machine target runs.
const FRAMES: usize = 3;

/// An arbitrary program on each mapper: the bytes choose the mapper, the board's sizes and
/// mirroring, the controller input of each frame, and fill PRG (and CHR) ROM, with the
/// interrupt vectors of every 8 KiB bank pointing into them so the CPU runs them.
pub fn machine(data: &[u8]) {
    let [select, board, rest @ ..] = data else {
        return;
    };
    let (pads, program) = rest.split_at(rest.len().min(2 * FRAMES));
    let mappers = mappers();
    let mapper = mappers[usize::from(*select) % mappers.len()];
    let prg_banks = [1, 2, 8, 16][usize::from(board & 3)];
    let chr_banks = [0, 1, 4, 16][usize::from(board >> 2 & 3)];
    // Mirroring, battery RAM, four-screen.
    let flags6 = board >> 4 & 0b1011;
    let mut image = ines_header(mapper, prg_banks, chr_banks, flags6);
    let prg_size = usize::from(prg_banks) * 0x4000;
    let chr_size = usize::from(chr_banks) * 0x2000;
    let filler: &[u8] = if program.is_empty() { &[0xEA] } else { program };
    image.extend(filler.iter().cycle().take(prg_size + chr_size));
    for bank in image[16..16 + prg_size].chunks_exact_mut(0x2000) {
        // NMI, reset and IRQ vectors: $8000, $C000 and $E000 (pick the first bytes of a bank).
        bank[0x1FFA..].copy_from_slice(&[0x00, 0x80, 0x00, 0xC0, 0x00, 0xE0]);
    }
    let Ok(mut console) = Console::from_ines(&image) else {
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
/// (framed again, so they pass the checksum): loading gives an error and leaves the console
/// untouched, or it loads and the console runs on.
pub fn save_state(data: &[u8]) {
    let mut console = game_console();
    let before = console.save_state();
    let state = match data.split_first() {
        // Raw bytes.
        Some((0, rest)) => rest.to_vec(),
        // (offset, value) pairs written into a valid payload.
        _ => {
            let hash = console.cartridge().rom_hash();
            let Ok(payload) = nes::state::decode(&before, hash) else {
                panic!("a state just saved does not decode");
            };
            let mut payload = payload.to_vec();
            let len = payload.len().max(1);
            for edit in data.get(1..).unwrap_or_default().chunks_exact(4) {
                let at = usize::from(u16::from_le_bytes([edit[0], edit[1]])) << (edit[2] >> 5);
                if let Some(byte) = payload.get_mut(at % len) {
                    *byte ^= edit[3] | 1;
                }
            }
            nes::state::encode(hash, &payload)
        }
    };
    match console.load_state(&state) {
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
