//! FCEUX-compatible Lua scripting: scripts in `lua/` run headless against a small test program
//! and their printed output (stdout, and stderr lines prefixed `stderr: `) must equal
//! `lua/<name>.expected`.

use lua::{HostFiles, MovieMode, MovieStatus, Scripts};
use nes::Console;
use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

/// NROM-128 program at $C000 (mirrored at $8000), written for these tests:
/// the main loop keeps NMI on, does an RMW on $11 and two load/store pairs the hook tests
/// patch; the NMI handler reads pad 1 into $20 (A in bit 7 ... Right in bit 0) and counts
/// frames in $10.
const PROGRAM: &[u8] = &[
    0x78, //             C000 reset: SEI
    0xD8, //             C001 CLD
    0xA2, 0xFF, //       C002 LDX #$FF
    0x9A, //             C004 TXS
    0xA9, 0x80, //       C005 loop:  LDA #$80
    0x8D, 0x00, 0x20, // C007 STA $2000
    0xE6, 0x11, //       C00A INC $11
    0xA9, 0x11, //       C00C LDA #$11   (exec-hook PC trick target)
    0x85, 0x30, //       C00E STA $30
    0xA2, 0x05, //       C010 LDX #$05
    0x86, 0x31, //       C012 STX $31    (setregister target)
    0x4C, 0x05, 0xC0, // C014 JMP loop
    0x48, //             C017 nmi: PHA
    0x8A, //             C018 TXA
    0x48, //             C019 PHA
    0xA9, 0x01, //       C01A LDA #1
    0x8D, 0x16, 0x40, // C01C STA $4016
    0xA9, 0x00, //       C01F LDA #0
    0x8D, 0x16, 0x40, // C021 STA $4016
    0xA2, 0x08, //       C024 LDX #8
    0xAD, 0x16, 0x40, // C026 read: LDA $4016
    0x4A, //             C029 LSR A
    0x26, 0x20, //       C02A ROL $20
    0xCA, //             C02C DEX
    0xD0, 0xF7, //       C02D BNE read
    0xE6, 0x10, //       C02F INC $10
    0x68, //             C031 PLA
    0xAA, //             C032 TAX
    0x68, //             C033 PLA
    0x40, //             C034 RTI
    0x40, //             C035 irq: RTI
];

fn test_rom() -> Vec<u8> {
    let mut prg = vec![0xEA; 0x4000];
    prg[..PROGRAM.len()].copy_from_slice(PROGRAM);
    // NMI, reset and IRQ vectors.
    prg[0x3FFA..].copy_from_slice(&[0x17, 0xC0, 0x00, 0xC0, 0x35, 0xC0]);
    let mut rom = b"NES\x1A\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00".to_vec();
    rom.extend(prg);
    rom.extend(vec![0; 0x2000]);
    rom
}

struct Session {
    console: Console,
    scripts: Scripts,
    output: Rc<RefCell<String>>,
}

impl Session {
    fn new() -> Session {
        Session::with_rom(test_rom())
    }

    fn with_rom(rom: Vec<u8>) -> Session {
        let (sink, output) = lua::captured_output();
        let scripts = Scripts::with_output(rom.clone(), "lua-test", sink);
        Session {
            console: Console::from_ines(&rom).expect("test ROM"),
            scripts,
            output,
        }
    }

    /// Slot files go to `dir` as `slot<n>.state`.
    fn files(&mut self, dir: &Path) {
        let dir = dir.to_path_buf();
        self.scripts.set_files(HostFiles {
            slot: Box::new(move |n| Some(dir.join(format!("slot{n}.state")))),
            write: |path, bytes| std::fs::write(path, bytes),
        });
    }

    fn load(&mut self, name: &str) {
        self.load_path(&format!("lua/{name}.lua"));
    }

    fn load_path(&mut self, path: &str) {
        if let Err(e) = self.scripts.load(&mut self.console, Path::new(path)) {
            self.output
                .borrow_mut()
                .push_str(&format!("load error: {e}\n"));
        }
    }

    fn frames(&mut self, n: u32) {
        for _ in 0..n {
            self.scripts.run_frame(&mut self.console);
        }
    }

    fn output(&self) -> String {
        self.output.borrow().clone()
    }
}

#[path = "support/scratch.rs"]
mod scratch;
use scratch::Scratch;

/// Compares with the expected file; on a difference the output is kept in `<name>.actual`.
fn expect(name: &str, output: &str) {
    let path = format!("lua/{name}.expected");
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if output != expected {
        let actual = format!("lua/{name}.actual");
        std::fs::write(&actual, output).expect("write actual output");
        panic!("{name}: output differs from {path} (see {actual})\n{output}");
    }
}

fn check(name: &str, frames: u32) -> Session {
    let mut s = Session::new();
    s.load(name);
    s.frames(frames);
    expect(name, &s.output());
    s
}

#[test]
fn print_and_tostring_use_fceux_formatting() {
    check("print", 0);
}

#[test]
fn bit_library_and_global_helpers() {
    check("bit", 0);
}

#[test]
fn memory_reads_writes_and_registers() {
    check("memory", 6);
}

#[test]
fn lag_frames_are_frames_without_a_controller_read() {
    check("lag", 7);
}

#[test]
fn frame_order_of_callbacks() {
    check("frame_order", 3);
}

#[test]
fn write_hook_fires_after_the_write_with_its_value() {
    check("write_hook", 4);
}

#[test]
fn exec_hook_sees_registers_before_the_instruction_and_can_move_pc() {
    check("exec_hook", 4);
}

#[test]
fn joypad_set_lasts_one_frame() {
    check("joypad", 12);
}

#[test]
fn joypad_invert_flips_the_users_buttons() {
    let mut s = Session::new();
    s.scripts
        .set_pads([nes::Buttons::A | nes::Buttons::START, 0]);
    s.load("joypad_invert");
    s.frames(6);
    expect("joypad_invert", &s.output());
}

#[test]
fn savestate_round_trip() {
    let mut s = Session::new();
    let dir = Scratch::new("savestate");
    s.files(&dir);
    s.load("savestate");
    s.frames(12);
    expect("savestate", &s.output());
}

#[test]
fn savestates_persist_in_slot_files_across_runs() {
    let dir = Scratch::new("persist");
    std::fs::write(dir.join("slot5.state"), b"not a state").expect("damaged slot file");
    let mut first = Session::new();
    first.files(&dir);
    first.load("persist_save");
    first.frames(4);
    let saved = std::fs::read(dir.join("slot3.state")).expect("slot 3 written");
    assert!(
        saved.starts_with(b"NESTORSS"),
        "the machine's save-state format"
    );
    let mut second = Session::new();
    second.files(&dir);
    second.load("persist_load");
    second.frames(7);
    let output = first.output() + &second.output();
    expect(
        "persist",
        &output.replace(dir.to_str().expect("UTF-8 path"), "DIR"),
    );
}

#[test]
fn movie_record_and_play_from_a_script() {
    let mut s = Session::new();
    let dir = Scratch::new("movie");
    s.files(&dir);
    s.load("movie_record");
    s.frames(30);
    expect("movie_record", &s.output());
}

#[test]
fn require_finds_modules_next_to_the_script() {
    check("require", 0);
}

#[test]
fn relative_file_names_resolve_beside_the_script_and_the_working_directory_stays() {
    let cwd = std::env::current_dir().expect("working directory");
    let mut s = Session::new();
    s.load_path("lua/sub/relative.lua");
    // The host's own relative paths still resolve from the directory it was started in.
    s.load("survivor");
    s.frames(1);
    assert_eq!(std::env::current_dir().expect("working directory"), cwd);
    expect("sub/relative", &s.output());
}

#[test]
fn readonly_taseditor_and_port_reads_as_in_fceux() {
    let mut s = check("api_details", 5);
    assert_eq!(
        s.scripts.take_messages(),
        ["Movie is now Read+Write.", "Movie is now Read-Only."]
    );
}

#[test]
fn lua_5_1_semantics_as_in_fceux() {
    check("lua51", 0);
}

#[test]
fn gui_drawing_is_composited_over_the_picture() {
    let s = check("gui", 2);
    let mut rgb = vec![0u8; 256 * 240 * 3];
    s.scripts.composite(&mut rgb, 3);
    let at = |x: usize, y: usize| &rgb[(y * 256 + x) * 3..][..3];
    // The solid red box from (10,10) to (20,20), and nothing outside it.
    assert_eq!(at(15, 15), [255, 0, 0]);
    assert_eq!(at(10, 20), [255, 0, 0]);
    assert_eq!(at(21, 15), [0, 0, 0]);
    // The green line from (0,100) to (50,100).
    assert_eq!(at(25, 100), [0, 255, 0]);
    // gui.text drew its dark blue background somewhere in the text cell.
    assert!((40..60).any(|x| at(x, 52) == [27, 18, 105]));
}

#[test]
fn script_error_reports_traceback_and_leaves_emulation_running() {
    let mut s = check("error", 3);
    // The failed script is gone; the machine and other scripts go on.
    assert!(!s.scripts.active());
    let frame = s.console.peek(0x10);
    s.frames(2);
    assert_ne!(s.console.peek(0x10), frame);
}

/// Runs a script for three frames with the watchdog's limit at 0.2 s.
fn check_with_short_limit(name: &str) {
    let mut s = Session::new();
    s.scripts
        .set_time_limit(std::time::Duration::from_millis(200));
    s.load(name);
    s.frames(3);
    expect(name, &s.output());
}

#[test]
fn infinite_loop_is_reported_instead_of_freezing() {
    check_with_short_limit("infinite_loop");
}

#[test]
fn exec_count_compatibility_and_a_runaway_callback() {
    check_with_short_limit("exec_count");
}

/// Runs `name` beside `survivor.lua` with the watchdog's limit at 0.2 s: the runaway script is
/// stopped for good and reported once; the survivor and the machine go on.
fn check_runaway(name: &str) {
    let mut s = Session::new();
    s.scripts
        .set_time_limit(std::time::Duration::from_millis(200));
    s.load(name);
    s.load("survivor");
    let frame = s.console.peek(0x10);
    s.frames(3);
    assert_ne!(s.console.peek(0x10), frame);
    expect(name, &s.output());
}

/// Loads `name` with the watchdog's limit at `limit_ms` on a thread of its own: the watchdog
/// must stop it within a minute.
fn stopped_within_a_minute(name: &'static str, limit_ms: u64) {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut s = Session::new();
        s.scripts
            .set_time_limit(std::time::Duration::from_millis(limit_ms));
        s.load(name);
        done.send(s.output()).unwrap();
    });
    let output = finished
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the watchdog stops the loop");
    assert!(output.contains("without yielding"), "{output}");
}

/// Loads `name` with the watchdog's limit at 0.1 s on a thread of its own: the watchdog must
/// stop it within 10 s, though its instructions would take minutes to reach the hook's count.
fn stopped_within_seconds(name: &'static str) {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut s = Session::new();
        s.scripts
            .set_time_limit(std::time::Duration::from_millis(100));
        s.load(name);
        done.send(s.output()).unwrap();
    });
    let output = finished
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the watchdog stops the loop");
    assert!(output.contains("without yielding"), "{output}");
}

/// A loop of slow C calls in a coroutine is stopped once the limit has passed, not 10,000
/// instructions (thousands of calls) later.
#[test]
fn a_runaway_of_slow_calls_in_a_coroutine_is_stopped_after_the_limit() {
    stopped_within_seconds("runaway_slow_loop");
}

/// Slow calls each in a short coroutine of their own are stopped as soon as the limit has
/// passed.
#[test]
fn a_runaway_of_short_slow_coroutines_is_stopped_after_the_limit() {
    stopped_within_seconds("runaway_short_coroutines");
}

/// `coroutine.resume` and `coroutine.wrap` (the watchdog's own) behave as Lua 5.1's.
#[test]
fn coroutines_behave_as_in_lua_5_1() {
    check("coroutines", 0);
}

/// A limit shorter than the time the watchdog's countdown of further instructions takes still
/// stops the script (the countdown is not restarted each time the limit passes again).
#[test]
fn a_limit_shorter_than_the_runaway_countdown_still_stops_the_script() {
    stopped_within_a_minute("infinite_loop", 5);
}

/// A runaway whose instructions are each slow is stopped after running another limit, not
/// 20 million instructions (which here take minutes).
#[test]
fn a_runaway_of_slow_instructions_is_stopped_after_another_limit() {
    stopped_within_a_minute("runaway_slow_calls", 100);
}

/// A pattern match that would run for hours inside one library call is stopped in it; one
/// with too many items for Lua 5.1's C stack is an error, not a crash.
#[test]
fn a_runaway_pattern_match_is_stopped_inside_the_call() {
    check_runaway("runaway_pattern");
}

/// Memory hooks each under the limit but together over it in one frame stop the script.
#[test]
fn a_frame_of_many_quick_hooks_is_stopped_after_the_limit() {
    check_runaway("runaway_hooks");
}

/// `string.rep` of an empty string a billion times takes seconds and no memory: a loop of them
/// is stopped in the call that passes the limit, not 10,000 instructions' worth of calls later.
#[test]
fn a_runaway_of_long_empty_repeats_is_stopped_inside_the_call() {
    stopped_within_a_minute("runaway_empty_rep", 100);
}

/// Memory hooks whose slow work runs in coroutines too short for the hook's instruction count
/// are stopped as soon as the frame has run past the limit, not seconds later.
#[test]
fn a_frame_of_hooks_running_short_coroutines_is_stopped_after_the_limit() {
    let mut s = Session::new();
    s.scripts
        .set_time_limit(std::time::Duration::from_millis(200));
    s.load("runaway_coroutine_hooks");
    let start = std::time::Instant::now();
    s.frames(1);
    let took = start.elapsed();
    let output = s.output();
    assert!(output.contains("ran 0.2 s in one frame"), "{output}");
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
}

#[test]
fn a_runaway_loop_under_pcall_and_xpcall_is_stopped_for_good() {
    check_runaway("runaway_pcall");
}

#[test]
fn a_script_cannot_remove_the_watchdogs_hook() {
    check_runaway("runaway_sethook");
}

#[test]
fn a_scripts_own_hook_does_not_replace_the_watchdog() {
    check_runaway("runaway_own_hook");
}

#[test]
fn a_runaway_error_handler_is_stopped_for_good() {
    check_runaway("runaway_handler");
}

#[test]
fn a_runaway_callback_that_catches_the_error_is_stopped_for_good() {
    check_runaway("runaway_callback");
}

#[test]
fn recursion_through_c_functions_is_a_lua_error() {
    check("c_stack", 1);
}

#[test]
fn deeply_nested_tables_print_their_first_levels() {
    check("deep_table", 1);
}

#[test]
fn memory_exhaustion_is_a_lua_error_that_stops_only_that_script() {
    let mut s = Session::new();
    s.scripts.set_memory_limit(32 << 20);
    s.load("memory_limit");
    s.load("survivor");
    s.frames(3);
    expect("memory_limit", &s.output());
}

#[test]
fn error_in_memory_hook_stops_only_that_script() {
    let mut s = Session::new();
    s.load("hook_error");
    s.load("survivor");
    s.frames(4);
    expect("hook_error", &s.output());
}

#[test]
fn os_exit_ends_with_the_status() {
    let mut s = Session::new();
    s.load("exit");
    s.frames(5);
    assert_eq!(s.scripts.exit_code(), Some(3));
    expect("exit", &s.output());
}

/// Lines cleared so far (packed BCD at $0050, hundreds at $0051).
fn quadfall_lines(console: &Console) -> u32 {
    let lo = console.peek(0x50);
    u32::from(console.peek(0x51)) * 100 + u32::from(lo >> 4) * 10 + u32::from(lo & 15)
}

#[test]
fn shipped_lua_ai_plays_quadfall_for_50_lines() {
    let rom = std::fs::read("../roms/quadfall.nes").expect("roms/quadfall.nes");
    let mut s = Session::with_rom(rom);
    s.load_path("../scripts/ai.lua");
    let (mut frames, mut playing) = (0, false);
    while quadfall_lines(&s.console) < 50 {
        let lines = quadfall_lines(&s.console);
        assert!(frames < 20_000, "only {lines} lines after {frames} frames");
        // gameMode 4 = play: once the game has started, leaving it means game over.
        let in_play = s.console.peek(0xC0) == 4;
        assert!(in_play || !playing, "game over after {lines} lines");
        playing |= in_play;
        s.frames(1);
        frames += 1;
    }
    // The script's own report (printed when it next runs) agrees with the game's RAM.
    s.frames(1);
    let last = s
        .output()
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("lines "))
        .map(str::to_string);
    assert_eq!(
        last,
        Some(quadfall_lines(&s.console).to_string()),
        "{}",
        s.output()
    );
    eprintln!("50 lines in {frames} frames");
}

/// Piece position, orientation, score and lines each frame from the demo's first frame on.
fn demo_trajectory(
    console: &mut Console,
    scripts: Option<&mut Scripts>,
    pads: impl Fn(u32) -> u8,
) -> Vec<[u8; 7]> {
    let mut scripts = scripts;
    let mut frame = |console: &mut Console, buttons: u8| match scripts.as_deref_mut() {
        Some(s) => {
            s.set_pads([buttons, 0]);
            s.run_frame(console);
        }
        None => {
            console.set_buttons(0, nes::Buttons(buttons));
            console.run_frame();
        }
    };
    let mut waited = 0;
    while console.peek(0xC0) != 5 {
        assert!(waited < 2000, "the demo never started");
        frame(console, 0);
        waited += 1;
    }
    let mut trajectory = Vec::new();
    let mut n = 0;
    while console.peek(0xC0) == 5 && n < 3000 {
        trajectory.push([0x40, 0x41, 0x42, 0x53, 0x54, 0x50, 0x48].map(|a| console.peek(a)));
        frame(console, pads(n));
        n += 1;
    }
    trajectory
}

#[test]
fn shipped_demo_recorder_records_a_demo_the_game_replays() {
    let rom = std::fs::read("../roms/quadfall.nes").expect("roms/quadfall.nes");
    // Record: the player's buttons change every 6 frames, picked by a small LCG.
    let player = |n: u32| {
        let choice = (n / 6).wrapping_mul(1_103_515_245).wrapping_add(12_345) >> 16;
        [
            0,
            nes::Buttons::LEFT,
            nes::Buttons::RIGHT,
            nes::Buttons::A,
            nes::Buttons::B,
            nes::Buttons::DOWN,
        ][choice as usize % 6]
    };
    let mut s = Session::with_rom(rom.clone());
    s.load_path("../scripts/record-demo.lua");
    let recorded = demo_trajectory(&mut s.console, Some(&mut s.scripts), player);
    s.frames(1);
    let output = s.output();
    let bytes: Vec<u8> = output
        .lines()
        .filter(|l| !l.starts_with("--") && !l.starts_with("recording"))
        .flat_map(|l| {
            l.split(' ')
                .map(|b| u8::from_str_radix(b, 16).expect("hex byte"))
        })
        .collect();
    assert!(
        bytes.len() >= 20 && bytes.len().is_multiple_of(2),
        "recorded {} bytes:\n{output}",
        bytes.len()
    );

    // Replay: the bytes go into the ROM's demo table; nobody touches the pad.
    let mut patched = rom;
    patched[0x5D10..0x5D10 + bytes.len()].copy_from_slice(&bytes);
    let mut console = Console::from_ines(&patched).expect("patched ROM");
    let replayed = demo_trajectory(&mut console, None, |_| 0);
    // The recording covers its pairs' frames; the replay follows it frame by frame.
    let frames: usize = bytes.chunks(2).map(|pair| usize::from(pair[1]) + 1).sum();
    let compared = frames.min(recorded.len()).min(replayed.len());
    assert!(compared > 200, "only {compared} frames to compare");
    if let Some(i) = (0..compared).find(|&i| recorded[i] != replayed[i]) {
        let from = i.saturating_sub(3);
        panic!(
            "replay differs at demo frame {i} of {compared} (x, y, piece, score, lines, state):\nrecorded {:?}\nreplayed {:?}",
            &recorded[from..i + 3],
            &replayed[from..i + 3]
        );
    }
}

#[test]
fn movie_functions_follow_the_hosts_movie() {
    let mut s = Session::new();
    s.load("movie");
    let status = |mode| {
        Some(MovieStatus {
            mode,
            name: "/tmp/run.fm2".into(),
            length: 300,
            rerecords: 2,
        })
    };
    s.scripts.set_movie(status(MovieMode::Playback));
    s.frames(1);
    s.scripts.set_movie(status(MovieMode::Finished));
    s.frames(1);
    s.scripts.set_movie(status(MovieMode::Record));
    s.frames(1);
    expect("movie", &s.output());
}

#[test]
fn sound_get_reports_the_channels() {
    check("sound", 2);
}

#[test]
fn read_hook_fires_after_the_read_inside_the_instruction() {
    check("read_hook", 3);
}

#[test]
fn slot_callbacks_run_for_the_users_saves_and_loads() {
    let mut s = Session::new();
    s.load("slot_callbacks");
    s.load("slot_callback_error");
    s.frames(3);
    let data = s.scripts.user_saved(&mut s.console, 4);
    let data = data.expect("registersave returned values");
    let state = s.console.save_state();
    s.frames(2);
    // The failing callback is reported and unregistered: a second save does not call it.
    let again = s.scripts.user_saved(&mut s.console, 2);
    assert!(again.is_some());
    // Slot 4's state goes back two frames: emu.framecount follows.
    let frame = s.console.ppu_frames();
    s.console.load_state(&state).expect("state");
    s.scripts.user_loaded(&mut s.console, frame, 4, Some(&data));
    let frame = s.console.ppu_frames();
    // A slot without a .luasav file, and a damaged one: the callbacks get the slot alone.
    s.scripts.user_loaded(&mut s.console, frame, 7, None);
    s.scripts
        .user_loaded(&mut s.console, frame, 8, Some(b"damaged"));
    expect("slot_callbacks", &s.output());
}

/// `--lua-sandbox`: no programs or native code, files only in the script's folder and the
/// data folder (here `quadfall/`), whatever the name says; the repository's path is shown as
/// `<repo>`.
#[test]
fn the_sandbox_removes_programs_and_native_code_and_keeps_files_in_its_folders() {
    let mut s = Session::new();
    s.scripts.set_sandbox(Some("quadfall".into()));
    s.load("sandbox");
    let repo = std::fs::canonicalize("..").unwrap();
    expect(
        "sandbox",
        &s.output().replace(repo.to_str().unwrap(), "<repo>"),
    );
}

/// Without the sandbox a script has all of Lua's libraries, as in FCEUX.
#[test]
fn without_the_sandbox_scripts_have_fceux_libraries() {
    let mut s = Session::new();
    s.load("unsandboxed");
    expect("unsandboxed", &s.output());
}

fn quadfall() -> Vec<u8> {
    std::fs::read("../roms/quadfall.nes").expect("roms/quadfall.nes")
}

/// A script plays a movie FCEUX 2.6.5 recorded (a reset and a power cycle in it) and counts
/// its frames as FCEUX does, dead frames included: where FCEUX's own dump script stops (at
/// `emu.framecount()` = the movie's length), the RAM is FCEUX's.
#[test]
fn a_script_plays_an_fceux_movie_to_fceuxs_ram() {
    let mut s = Session::with_rom(quadfall());
    s.load("fceux_movie");
    s.frames(700);
    let output = s.output();
    let (head, ram) = output.split_at(output.find("0000: ").expect("RAM printed"));
    assert_eq!(head, "true 700\nframe 700 700 finished\n");
    let fceux = std::fs::read_to_string("../crates/session/tests/fceux/quadfall-reset.ram")
        .expect("FCEUX's RAM");
    assert!(ram == fceux, "RAM differs from FCEUX's:\n{ram}");
}

/// A movie a script records, with a reset and a power-on the script asks for, holds FCEUX's
/// lines (dead frames after power-on and each of them) and ends where nestor's playback of it,
/// checked against FCEUX in crates/session/tests/fceux.rs, ends.
#[test]
fn a_movie_a_script_records_with_resets_plays_back_to_its_ram() {
    let mut s = Session::with_rom(quadfall());
    let dir = Scratch::new("movie_reset");
    s.files(&dir);
    s.load("movie_reset");
    s.frames(200);
    let output = s.output();
    let path = output.lines().next().and_then(|l| l.strip_prefix("movie "));
    let path = path.expect("movie path printed").to_string();
    let (head, ram) = output.split_at(output.find("0000: ").expect("RAM printed"));
    let dead = movie::DEAD_FRAMES;
    // Host frames: 70 before the reset (the script's first `frameadvance` returns before the
    // first frame, as in FCEUX), 61 before the power-on, 51 after; FCEUX's counter and the
    // movie's lines add the dead frames after each.
    let expected = format!(
        "movie {path}\nrecord true 0 {dead}\nsoftreset {r}\nafter {a} {a}\npower {p} {p}\nend {e} {e}\n",
        r = 70 + dead,
        a = 71 + 2 * dead,
        p = 70 + 61 + 1 + 3 * dead,
        e = 70 + 61 + 51 + 3 * dead,
    );
    assert_eq!(head, expected);
    let text = std::fs::read_to_string(&path).expect("movie written");
    std::fs::remove_file(&path).ok();
    let recorded = movie::Movie::parse(&text).expect("an FM2 movie");
    assert_eq!(recorded.frames.len(), 70 + 61 + 51 + 3 * dead);
    assert_eq!(recorded.frames[dead + 70].commands, movie::SOFT_RESET);
    assert_eq!(recorded.frames[2 * dead + 70 + 61].commands, movie::POWER);
    let playback = movie::Playback::new(&recorded);
    let mut console = Console::from_ines(&quadfall()).unwrap();
    for frame in 0..playback.frames() {
        playback.start_frame(frame, &mut console);
        console.run_frame();
    }
    let played: String = (0..0x800u16)
        .step_by(16)
        .map(|row| {
            let bytes: Vec<String> = (row..row + 16)
                .map(|a| format!("{:02X}", console.peek(a)))
                .collect();
            format!("{row:04X}: {}\n", bytes.join(" "))
        })
        .collect();
    assert!(
        ram == played,
        "the playback ends elsewhere:\n{played}\nrecording:\n{ram}"
    );
}
