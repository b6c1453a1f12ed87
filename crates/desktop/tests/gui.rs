//! The real window under Xvfb (software Vulkan: Mesa's lavapipe), driven the way a person would:
//! keys from xdotool, pictures from ImageMagick's `import`.
//!
//! This file is its own test harness: run plainly it is the test; run with `--child ROM` (as
//! the test does, inside Xvfb) it is the program under test, calling `desktop::run` exactly as
//! `nestor` does.
//!
//! Needs the Debian packages xvfb, xdotool, imagemagick and mesa-vulkan-drivers. Without them
//! the test fails and says so; NESTOR_SKIP_GUI=1 skips it (reported as skipped, not passed).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Window pixels per NES pixel at the default scale.
const SCALE: usize = 3;
const WIDTH: usize = 256 * SCALE;
const HEIGHT: usize = 240 * SCALE;
/// Generous: lavapipe start-up on a loaded 2-core machine can take seconds.
const START_TIMEOUT: Duration = Duration::from_secs(90);
const STEP_TIMEOUT: Duration = Duration::from_secs(20);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        let option = |name: &str| -> Vec<PathBuf> {
            args[i + 2..]
                .chunks_exact(2)
                .filter(|pair| pair[0] == name)
                .map(|pair| PathBuf::from(&pair[1]))
                .collect()
        };
        let options = ChildOptions {
            lua: option("--lua"),
            movie: option("--movie").pop(),
            player: option("--player").pop().map(|p| p == Path::new("panic")),
            run_ahead: option("--run-ahead")
                .pop()
                .map(|n| n.to_str().unwrap().parse().unwrap()),
            scale: option("--scale")
                .pop()
                .map(|n| n.to_str().unwrap().parse().unwrap()),
        };
        child(Path::new(&args[i + 1]), options);
    }
    if args.iter().any(|a| a == "--audio-child") {
        audio_child();
    }
    // `cargo test` passes flags meant for libtest; they are ignored.
    if std::env::var_os("NESTOR_SKIP_GUI").is_some() {
        println!("gui: skipped because NESTOR_SKIP_GUI is set");
        println!("0 passed, 0 failed, 23 skipped");
        return;
    }
    let tests: [(&str, fn()); 23] = [
        ("no_display_scenario", no_display_scenario),
        ("gui_scenario", gui_scenario),
        ("game_scenario", game_scenario),
        ("audio_scenario", audio_scenario),
        ("lua_scenario", lua_scenario),
        ("session_scenario", session_scenario),
        ("rewind_scenario", rewind_scenario),
        ("crash_scenario", crash_scenario),
        ("menu_scenario", menu_scenario),
        ("drop_scenario", drop_scenario),
        ("input_scenario", input_scenario),
        ("ai_panel_scenario", ai_panel_scenario),
        ("cheats_scenario", cheats_scenario),
        ("ntsc_scenario", ntsc_scenario),
        ("video_scenario", video_scenario),
        ("script_menu_scenario", script_menu_scenario),
        ("palette_scenario", palette_scenario),
        ("scanlines_scenario", scanlines_scenario),
        ("audio_device_scenario", audio_device_scenario),
        ("ai_style_scenario", ai_style_scenario),
        ("movie_menu_scenario", movie_menu_scenario),
        ("thumbnail_scenario", thumbnail_scenario),
        ("vaus_scenario", vaus_scenario),
    ];
    // Like libtest: plain arguments are name filters.
    let filters: Vec<&String> = args[1..].iter().filter(|a| !a.starts_with('-')).collect();
    let tests: Vec<_> = tests
        .into_iter()
        .filter(|(name, _)| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str())))
        .collect();
    let mut failed = 0;
    for &(name, test) in &tests {
        let started = Instant::now();
        let ok = std::panic::catch_unwind(test).is_ok();
        let verdict = if ok { "ok" } else { "FAILED" };
        println!(
            "test {name} ... {verdict} ({:.1} s)",
            started.elapsed().as_secs_f64()
        );
        failed += usize::from(!ok);
    }
    println!("{} passed, {failed} failed", tests.len() - failed);
    if failed > 0 {
        std::process::exit(1);
    }
}

/// What the program under test runs besides the ROM.
struct ChildOptions {
    lua: Vec<PathBuf>,
    movie: Option<PathBuf>,
    /// A stand-in for the AI, switched on and off with I: one that holds Right (`Some(false)`)
    /// or one that panics, as a bug in nestor would (`Some(true)`).
    player: Option<bool>,
    run_ahead: Option<u8>,
    scale: Option<u32>,
}

/// Holds Right on controller 1 while it is switched on; it has the AI's profiles and two tap
/// rates to choose from, and says on stderr which it is given.
struct RightPlayer {
    style: session::Style,
}

impl desktop::Player for RightPlayer {
    fn styles(&self) -> Option<session::Styles> {
        Some(session::Styles {
            current: self.style.clone(),
            profiles: vec!["classic", "strong"],
            tap_rates: vec![30, 15],
        })
    }

    fn set_style(&mut self, style: &session::Style) -> Result<(), String> {
        eprintln!("right player: {} at {} Hz", style.profile, style.tap_hz);
        self.style = style.clone();
        Ok(())
    }

    fn buttons(&mut self, _: &mut nes::Console) -> nes::Buttons {
        nes::Buttons(nes::Buttons::RIGHT)
    }

    fn panel(&self, _: &nes::Console, playing: bool) -> Vec<String> {
        let plan = if playing { "holding Right" } else { "off" };
        vec![format!("Plan: {plan}"), "Next moves: right".into()]
    }
}

/// Fails inside the frame the moment it is switched on.
struct PanickingPlayer;

impl desktop::Player for PanickingPlayer {
    fn buttons(&mut self, _: &mut nes::Console) -> nes::Buttons {
        panic!("injected failure")
    }
}

/// The program under test.
fn child(rom_path: &Path, child_options: ChildOptions) -> ! {
    let rom = desktop::Rom::from_file(rom_path).unwrap_or_else(|err| {
        eprintln!("nestor: {err}");
        std::process::exit(2)
    });
    let mut options = desktop::Options::new(rom);
    options.lua = child_options.lua;
    options.movie = child_options.movie;
    options.run_ahead = child_options.run_ahead;
    options.scale = child_options.scale;
    match child_options.player {
        Some(false) => {
            let style = session::Style {
                profile: "strong".into(),
                tap_hz: 30,
            };
            options.ai = Some(Box::new(RightPlayer { style }))
        }
        Some(true) => options.ai = Some(Box::new(PanickingPlayer)),
        None => {}
    }
    match desktop::run(options) {
        Ok(status) => std::process::exit(status),
        Err(err) => {
            eprintln!("nestor: {err}");
            std::process::exit(2)
        }
    }
}

/// Feeds the default audio device a 440 Hz tone at the emulator's frame rate, one frame's worth
/// of samples per frame, and prints what the device took.
fn audio_child() -> ! {
    let mut audio = desktop::audio::Audio::open("").unwrap_or_else(|err| {
        eprintln!("nestor: {err}");
        std::process::exit(2)
    });
    let rate = f64::from(audio.rate);
    let period = Duration::from_secs_f64(1.0 / desktop::FRAME_RATE);
    let (mut t, mut owed) = (0usize, 0.0);
    let mut next = Instant::now();
    // PulseAudio takes a while to start a stream (over a second here): the measurement starts
    // half a second after the device first takes samples.
    let mut started: Option<Instant> = None;
    let mut measuring: Option<(Instant, u64)> = None;
    let (mut frames, mut full, mut dry) = (0, 0, 0);
    while frames < 4 * 60 {
        // One frame's worth at the rate the emulator's APU would be told to make.
        owed += audio.steered_rate() / desktop::FRAME_RATE;
        let count = owed as usize;
        owed -= count as f64;
        let tone: Vec<i16> = (t..t + count)
            .map(|i| ((i as f64 * 440.0 * std::f64::consts::TAU / rate).sin() * 6000.0) as i16)
            .collect();
        t += count;
        audio.push(&tone);
        match (started, measuring) {
            // Past the first buffer the server takes in one go.
            (None, _) if audio.consumed() > 3 * audio.capacity() as u64 => {
                started = Some(Instant::now())
            }
            (Some(since), None) if since.elapsed() > Duration::from_millis(500) => {
                measuring = Some((Instant::now(), audio.consumed()));
            }
            (_, Some(_)) => {
                frames += 1;
                full += usize::from(audio.buffered() >= audio.capacity());
                dry += usize::from(audio.buffered() == 0);
            }
            _ => {}
        }
        next += period;
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    let (measured_from, consumed_from) = measuring.unwrap();
    let seconds = measured_from.elapsed().as_secs_f64();
    let consumed = (audio.consumed() - consumed_from) as f64 / seconds;
    println!("rate {rate} consumed_per_second {consumed:.0} frames {frames} full {full} dry {dry}");
    std::process::exit(0)
}

/// A 16 KiB NROM program that shows its controller: each frame it reads pad 1 and, if any
/// button is held, makes the held buttons' byte (A in bit 7 ... Right in bit 0, masked to six
/// bits) the backdrop colour. Rendering stays off, so the whole picture is that colour.
fn button_colour_rom() -> Vec<u8> {
    #[rustfmt::skip]
    let program: [u8; 0x58] = [
        0x78,             // C000 SEI
        0xD8,             // C001 CLD
        0xA2, 0xFF,       // C002 LDX #$FF
        0x9A,             // C004 TXS
        0xA9, 0x00,       // C005 LDA #0
        0x8D, 0x00, 0x20, // C007 STA $2000     NMI off
        0x8D, 0x01, 0x20, // C00A STA $2001     rendering off
        0x85, 0x00,       // C00D STA $00       colour = 0
        0x2C, 0x02, 0x20, // C00F BIT $2002     wait for the PPU to warm up
        0x10, 0xFB,       // C012 BPL $C00F
        0x2C, 0x02, 0x20, // C014 BIT $2002
        0x10, 0xFB,       // C017 BPL $C014
        0xA9, 0x01,       // C019 LDA #1        loop: strobe pad 1
        0x8D, 0x16, 0x40, // C01B STA $4016
        0xA9, 0x00,       // C01E LDA #0
        0x8D, 0x16, 0x40, // C020 STA $4016
        0x85, 0x01,       // C023 STA $01
        0xA2, 0x08,       // C025 LDX #8
        0xAD, 0x16, 0x40, // C027 LDA $4016     read 8 buttons into $01
        0x4A,             // C02A LSR A
        0x26, 0x01,       // C02B ROL $01
        0xCA,             // C02D DEX
        0xD0, 0xF7,       // C02E BNE $C027
        0xA5, 0x01,       // C030 LDA $01
        0xF0, 0x02,       // C032 BEQ $C036     nothing held: keep the colour
        0x85, 0x00,       // C034 STA $00
        0x2C, 0x02, 0x20, // C036 BIT $2002     wait for vblank
        0x10, 0xFB,       // C039 BPL $C036
        0xA9, 0x3F,       // C03B LDA #$3F      backdrop colour at $3F00
        0x8D, 0x06, 0x20, // C03D STA $2006
        0xA9, 0x00,       // C040 LDA #0
        0x8D, 0x06, 0x20, // C042 STA $2006
        0xA5, 0x00,       // C045 LDA $00
        0x29, 0x3F,       // C047 AND #$3F
        0x8D, 0x07, 0x20, // C049 STA $2007
        0xA9, 0x00,       // C04C LDA #0
        0x8D, 0x06, 0x20, // C04E STA $2006
        0x8D, 0x06, 0x20, // C051 STA $2006
        0x4C, 0x19, 0xC0, // C054 JMP $C019
        0x40,             // C057 RTI           NMI and IRQ
    ];
    testrom::image::nrom(&program, [0xC057, 0xC000, 0xC057], 0)
}

/// Everything the scenario started, stopped (and its folder removed) when it ends however it
/// ends.
struct Session {
    xvfb: Child,
    display: String,
    app: Option<Child>,
    dir: PathBuf,
    pulse: Option<Pulse>,
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(app) = &mut self.app {
            let _ = app.kill();
            let _ = app.wait();
        }
        // SIGTERM, not SIGKILL: Xvfb then removes its socket and lock file.
        // SAFETY: signals our own child, which has not been waited for yet.
        unsafe { libc::kill(self.xvfb.id() as i32, libc::SIGTERM) };
        let _ = self.xvfb.wait();
        // With XDG_RUNTIME_DIR unset, the program's sound library (libpulse) keeps its runtime
        // files in a new /tmp/pulse-* folder it links from the config folder: that goes too.
        let links = std::fs::read_dir(self.dir.join("config/pulse"))
            .into_iter()
            .flatten();
        for target in links
            .flatten()
            .filter_map(|e| std::fs::read_link(e.path()).ok())
        {
            if target.starts_with(std::env::temp_dir()) {
                let _ = std::fs::remove_dir_all(target);
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn require_tool(name: &str, package: &str) {
    let found = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(name).is_file()))
        .unwrap_or(false);
    assert!(
        found,
        "`{name}` not found: install the Debian package {package} (or set NESTOR_SKIP_GUI=1)"
    );
}

/// Starts Xvfb on a free display and waits until it answers a client. Numbers start high
/// (from the process id), away from the displays people and other test runs use.
fn start_xvfb() -> (Child, String) {
    let base = 100 + std::process::id() % 500;
    for number in base..base + 100 {
        if Path::new(&format!("/tmp/.X{number}-lock")).exists() {
            continue;
        }
        let display = format!(":{number}");
        let mut xvfb = Command::new("Xvfb")
            // -noreset: by default the server resets when its last client leaves (the probe
            // below), refusing connections meanwhile.
            .args([
                &display,
                "-screen",
                "0",
                "1024x768x24",
                "-nolisten",
                "tcp",
                "-noreset",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start Xvfb");
        let start = Instant::now();
        while start.elapsed() < START_TIMEOUT {
            if xvfb.try_wait().unwrap().is_some() {
                break; // the display was taken after all: try the next one
            }
            let probe = Command::new("xdotool")
                .arg("getdisplaygeometry")
                .env("DISPLAY", &display)
                .stderr(Stdio::null())
                .output();
            if probe.is_ok_and(|out| out.status.success()) {
                return (xvfb, display);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = xvfb.kill();
        let _ = xvfb.wait();
    }
    panic!("could not start Xvfb on any display from :{base}");
}

impl Session {
    fn start(rom: &[u8]) -> Session {
        require_tool("Xvfb", "xvfb");
        require_tool("xdotool", "xdotool");
        require_tool("import", "imagemagick");
        let dir = std::env::temp_dir().join(format!("nestor-gui-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("buttons.nes"), rom).unwrap();
        let (xvfb, display) = start_xvfb();
        Session {
            xvfb,
            display,
            app: None,
            dir,
            pulse: None,
        }
    }

    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .env("DISPLAY", &self.display)
            .env_remove("WAYLAND_DISPLAY")
            .env("XDG_CONFIG_HOME", self.dir.join("config"))
            .env("XDG_DATA_HOME", self.dir.join("data"));
        if let Some(pulse) = &self.pulse {
            pulse.client(&mut command);
        }
        command
    }

    /// Turns the on-screen messages off (as Video > On-screen messages does), for scenarios
    /// that compare whole pictures.
    fn messages_off(&self) {
        let config = self.dir.join("config/nestor/config.toml");
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        std::fs::write(config, "[video]\nmessages = false\n").unwrap();
    }

    /// Clicks at a point of the window with the mouse.
    fn click(&self, window: &str, x: usize, y: usize) {
        let (x, y) = (x.to_string(), y.to_string());
        self.xdotool(&["mousemove", "--sync", "--window", window, &x, &y]);
        self.xdotool(&["click", "1"]);
    }

    /// With the mouse, as a person would: the pointer to the top brings the menu bar down and a
    /// click on the `menu`-th title (0: File) drops its menu. Gives the menu's left edge and
    /// its lines of text (top and bottom rows).
    fn drop_menu(&mut self, window: &str, menu: usize) -> (usize, Vec<(usize, usize)>) {
        self.xdotool(&["mousemove", "--sync", "--window", window, "300", "5"]);
        let bar = self.wait_picture(window, "the menu bar under the pointer", |p| {
            menu_titles(p).len() == MENUS
        });
        let (left, right) = menu_titles(&bar)[menu];
        let bottom = bar_bottom(&bar);
        self.click(window, (left + right) / 2, bottom / 2);
        let open = self.wait_picture(window, "the menu to drop down", |p| {
            !menu_lines(p, left, bottom).is_empty()
        });
        let lines = menu_lines(&open, left, bottom);
        (left, lines)
    }

    /// Drops the `menu`-th menu ([`Session::drop_menu`]) and clicks the line of text that
    /// `pick` chooses among its lines, which runs that item.
    fn click_menu(&mut self, window: &str, menu: usize, pick: fn(&[(usize, usize)]) -> usize) {
        let (left, lines) = self.drop_menu(window, menu);
        let (top, end) = lines[pick(&lines)];
        self.click(window, left + 20, (top + end) / 2);
    }

    /// Like [`Session::click_menu`], but `pick` chooses a submenu among the menu's lines: the
    /// pointer rests on it, and a click on the line `sub_pick` chooses in the submenu runs that
    /// item.
    fn click_submenu(
        &mut self,
        window: &str,
        menu: usize,
        pick: fn(&[(usize, usize)]) -> usize,
        sub_pick: fn(&[(usize, usize)]) -> usize,
    ) {
        let (_, sub_left, (top, end)) = self.open_submenu(window, menu, pick);
        self.click_in_submenu(window, sub_left, (top, end), sub_pick);
    }

    /// Clicks the line `sub_pick` chooses in the submenu at column `sub_left`, opened from the
    /// line at rows `top..=end`; returns the submenu's lines.
    fn click_in_submenu(
        &mut self,
        window: &str,
        sub_left: usize,
        (top, end): (usize, usize),
        sub_pick: fn(&[(usize, usize)]) -> usize,
    ) -> Vec<(usize, usize)> {
        let open = self.screenshot(window);
        let lines = menu_lines(&open, sub_left, top.saturating_sub(12));
        let (line_top, line_end) = lines[sub_pick(&lines)];
        // Along the line first, so that the submenu stays open on the way.
        let y = ((line_top + line_end) / 2).to_string();
        let (mid, x) = (((top + end) / 2).to_string(), (sub_left + 20).to_string());
        self.xdotool(&["mousemove", "--sync", "--window", window, &x, &mid]);
        self.xdotool(&["mousemove", "--sync", "--window", window, &x, &y]);
        self.xdotool(&["click", "1"]);
        lines
    }

    /// Drops the `menu`-th menu and rests the pointer on the line `pick` chooses, then waits
    /// for its submenu: the picture, the submenu's left edge and the line's rows.
    fn open_submenu(
        &mut self,
        window: &str,
        menu: usize,
        pick: fn(&[(usize, usize)]) -> usize,
    ) -> (Image, usize, (usize, usize)) {
        let (left, top, end) = self.hover_submenu(window, menu, pick);
        let open = self.wait_settled(window, "the submenu", |p| {
            submenu_left(p, left, top, end).is_some()
        });
        let sub_left = submenu_left(&open, left, top, end).unwrap();
        (open, sub_left, (top, end))
    }

    /// Closes the menus with a click on the game, away from them (held a moment: egui closes
    /// a menu on a press seen while the button is still down).
    fn close_menus(&mut self, window: &str) {
        let (x, y) = ((WIDTH - 40).to_string(), (HEIGHT - 40).to_string());
        self.xdotool(&["mousemove", "--sync", "--window", window, &x, &y]);
        self.xdotool(&["mousedown", "1"]);
        std::thread::sleep(Duration::from_millis(200));
        self.xdotool(&["mouseup", "1"]);
        self.wait_picture(window, "the menus closed", |p| menu_titles(p).is_empty());
    }

    /// Drops the `menu`-th menu and rests the pointer on the line `pick` chooses; returns the
    /// menu's left edge and the line's rows.
    fn hover_submenu(
        &mut self,
        window: &str,
        menu: usize,
        pick: fn(&[(usize, usize)]) -> usize,
    ) -> (usize, usize, usize) {
        let (left, lines) = self.drop_menu(window, menu);
        let (top, end) = lines[pick(&lines)];
        let (x, y) = ((left + 20).to_string(), ((top + end) / 2).to_string());
        self.xdotool(&["mousemove", "--sync", "--window", window, &x, &y]);
        (left, top, end)
    }

    fn launch(&mut self) {
        self.launch_rom(&self.dir.join("buttons.nes"));
    }

    fn launch_rom(&mut self, rom: &Path) {
        self.launch_with(rom, &[]);
    }

    /// Starts the program on `rom` with these Lua scripts.
    fn launch_with(&mut self, rom: &Path, lua: &[PathBuf]) {
        let args: Vec<&OsStr> = lua
            .iter()
            .flat_map(|path| ["--lua".as_ref(), path.as_os_str()])
            .collect();
        self.launch_args(rom, &args);
    }

    /// Starts the program on `rom` with these child options (see `main`).
    fn launch_args(&mut self, rom: &Path, args: &[&OsStr]) {
        let app = self
            .command(std::env::current_exe().unwrap().to_str().unwrap())
            .arg("--child")
            .arg(rom)
            .args(args)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(self.dir.join("stderr.txt")).unwrap())
            .spawn()
            .expect("cannot start the program under test");
        self.app = Some(app);
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.join("stderr.txt")).unwrap_or_default()
    }

    fn xdotool(&self, args: &[&str]) -> String {
        let out = self
            .command("xdotool")
            .args(args)
            .output()
            .expect("xdotool runs");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Polls `check` until it gives a value, failing with `what` and the app's stderr.
    fn wait_for<T>(
        &mut self,
        what: &str,
        timeout: Duration,
        mut check: impl FnMut(&Self) -> Option<T>,
    ) -> T {
        let start = Instant::now();
        loop {
            if let Some(value) = check(self) {
                return value;
            }
            if let Some(status) = self.app.as_mut().and_then(|a| a.try_wait().unwrap()) {
                panic!(
                    "the program exited ({status}) while waiting for {what} on display {}; \
                     stderr:\n{}",
                    self.display,
                    self.stderr()
                );
            }
            assert!(
                start.elapsed() < timeout,
                "timed out after {timeout:?} waiting for {what}; stderr:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn window(&mut self) -> String {
        self.wait_for("the window", START_TIMEOUT, |s| {
            let ids = s.xdotool(&["search", "--name", "^nestor - "]);
            ids.lines().next().map(str::to_string)
        })
    }

    fn title(&self, window: &str) -> String {
        self.xdotool(&["getwindowname", window])
    }

    fn wait_title(&mut self, window: &str, part: &str) -> String {
        let what = format!("the title to contain {part:?}");
        self.wait_for(&what, STEP_TIMEOUT, |s| {
            Some(s.title(window)).filter(|t| t.contains(part))
        })
    }

    /// The window's picture: RGB rows, width, height.
    fn screenshot(&self, window: &str) -> Image {
        let out = self
            .command("import")
            .args(["-window", window, "png24:-"])
            .output()
            .expect("import runs");
        assert!(
            out.status.success(),
            "import failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Image::from_png(&out.stdout)
    }

    fn key(&self, window: &str, keys: &str) {
        self.xdotool(&["windowfocus", "--sync", window]);
        // No --window: that would send synthetic events, which X clients may ignore.
        self.xdotool(&["key", keys]);
    }

    /// Ctrl+Q quits with exit code 0.
    fn quit(&mut self, window: &str) {
        self.key(window, "ctrl+q");
        let status = self.wait_exit();
        assert!(
            status.success(),
            "Ctrl+Q must exit with 0, got {status}; stderr:\n{}",
            self.stderr()
        );
    }

    /// Waits for the program to end by itself; it must not have panicked.
    fn wait_exit(&mut self) -> std::process::ExitStatus {
        let mut app = self.app.take().expect("the program is running");
        let start = Instant::now();
        let status = loop {
            if let Some(status) = app.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > STEP_TIMEOUT {
                let _ = app.kill();
                panic!("the program did not exit within {STEP_TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        // Rust's own report of a panic nothing caught (a contained one is a "nestor:" line).
        let uncaught = |line: &str| line.starts_with("thread '") && line.contains("panicked");
        assert!(
            !self.stderr().lines().any(uncaught),
            "stderr:\n{}",
            self.stderr()
        );
        status
    }

    /// Presses N (frame advance) `frames` times, holding `held` throughout. The window is
    /// focused once: focusing again could drop the held key (focus loss releases all keys),
    /// and xdotool commands chained after a window command send synthetic events instead.
    fn advance(&self, window: &str, held: Option<&str>, frames: usize) {
        self.xdotool(&["windowfocus", "--sync", window]);
        if let Some(key) = held {
            self.xdotool(&["keydown", key]);
        }
        let mut args = vec!["key", "--delay", "100"];
        args.extend(std::iter::repeat_n("n", frames));
        self.xdotool(&args);
        if let Some(key) = held {
            self.xdotool(&["keyup", key]);
        }
        std::thread::sleep(Duration::from_millis(300));
    }

    /// Holds a key long enough for several frames to see it.
    fn hold(&self, window: &str, key: &str) {
        self.xdotool(&["windowfocus", "--sync", window]);
        self.xdotool(&["keydown", key]);
        std::thread::sleep(Duration::from_millis(250));
        self.xdotool(&["keyup", key]);
    }

    /// Waits for a picture that `accept`s and that stays the same for half a second (a screen
    /// being drawn, or a cursor sliding, is not there yet).
    fn wait_settled(&mut self, window: &str, what: &str, accept: impl Fn(&Image) -> bool) -> Image {
        let mut last = self.wait_picture(window, what, &accept);
        self.wait_for(what, STEP_TIMEOUT, |s| {
            std::thread::sleep(Duration::from_millis(500));
            let again = s.screenshot(window);
            let settled = accept(&again) && again == last;
            last = again.clone();
            settled.then_some(again)
        })
    }

    /// Waits for the file at `path` to hold text that `accept`s (a setting saved).
    fn wait_file(&mut self, path: &Path, what: &str, accept: impl Fn(&str) -> bool) {
        self.wait_for(what, STEP_TIMEOUT, |_| {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            accept(&text).then_some(())
        });
    }

    /// Waits for a picture that `accept`s, returning it.
    fn wait_picture(&mut self, window: &str, what: &str, accept: impl Fn(&Image) -> bool) -> Image {
        self.wait_for(what, STEP_TIMEOUT, |s| {
            Some(s.screenshot(window)).filter(&accept)
        })
    }
}

#[derive(Clone, PartialEq)]
struct Image {
    width: usize,
    height: usize,
    rgb: Vec<u8>,
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}x{} image, top-left {:?}",
            self.width,
            self.height,
            self.pixel(0, 0)
        )
    }
}

impl Image {
    fn from_png(bytes: &[u8]) -> Image {
        let mut decoder = png::Decoder::new(bytes);
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = decoder.read_info().expect("a PNG");
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).expect("PNG data");
        let channels = info.color_type.samples();
        let rgb = buf[..info.buffer_size()]
            .chunks_exact(channels)
            .flat_map(|p| match p.len() {
                1 | 2 => [p[0], p[0], p[0]],
                _ => [p[0], p[1], p[2]],
            })
            .collect();
        Image {
            width: info.width as usize,
            height: info.height as usize,
            rgb,
        }
    }

    fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        let i = (y * self.width + x) * 3;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }

    /// The single colour of a uniform picture.
    fn uniform(&self) -> Option<[u8; 3]> {
        let first = self.pixel(0, 0);
        self.rgb
            .chunks_exact(3)
            .all(|p| p == first)
            .then_some(first)
    }

    fn is_scaled_from(&self, native: &Image) -> bool {
        (self.width, self.height) == (WIDTH, HEIGHT)
            && (0..HEIGHT)
                .all(|y| (0..WIDTH).all(|x| self.pixel(x, y) == native.pixel(x / SCALE, y / SCALE)))
    }

    /// Asserts that this window picture is `native` (256x240) with each pixel `SCALE` x `SCALE`.
    fn assert_scaled_from(&self, native: &Image) {
        assert_eq!(
            (native.width, native.height),
            (256, 240),
            "native screenshot size"
        );
        assert_eq!(
            (self.width, self.height),
            (WIDTH, HEIGHT),
            "window picture size"
        );
        for y in 0..HEIGHT {
            for x in 0..WIDTH {
                let (want, got) = (native.pixel(x / SCALE, y / SCALE), self.pixel(x, y));
                assert_eq!(
                    got, want,
                    "window pixel ({x}, {y}) differs from the frame at scale {SCALE}"
                );
            }
        }
    }
}

fn gui_scenario() {
    let mut s = Session::start(&button_colour_rom());
    s.messages_off();
    s.launch();
    let window = s.window();
    let title = s.wait_title(&window, "100%");
    assert!(title.starts_with("nestor - buttons.nes"), "title {title:?}");

    // Nothing held yet: the backdrop is colour $00 everywhere, at 3x the NES's size.
    let start = s.wait_picture(&window, "the first frame", |p| {
        p.width == WIDTH && p.uniform().is_some()
    });
    assert_eq!((start.width, start.height), (WIDTH, HEIGHT));

    // The game reacts to the keyboard: Right (bit 0) makes the colour $01.
    s.hold(&window, "Right");
    let right = s.wait_picture(&window, "the picture to change after Right", |p| {
        p.uniform().is_some() && p.uniform() != start.uniform()
    });

    // Save state, change the game, load: the picture is the saved one again.
    s.key(&window, "shift+F1");
    s.wait_title(&window, "saved state 1");
    s.hold(&window, "Left");
    let left = s.wait_picture(&window, "the picture to change after Left", |p| {
        p.uniform().is_some() && p.uniform() != right.uniform()
    });
    assert_ne!(left.uniform(), start.uniform());
    s.key(&window, "F1");
    s.wait_title(&window, "loaded state 1");
    s.wait_picture(&window, "the saved picture after loading", |p| *p == right);

    // Pause: input no longer changes anything; frame advance (N) runs it frame by frame.
    s.key(&window, "p");
    s.wait_title(&window, "paused");
    s.hold(&window, "Up");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(s.screenshot(&window), right, "a paused game must not react");
    // Frame advance with Up held: a few frames each round, a few rounds at most.
    let mut up = None;
    for _ in 0..3 {
        s.advance(&window, Some("Up"), 3);
        let start = Instant::now();
        while up.is_none() && start.elapsed() < Duration::from_secs(5) {
            let shot = s.screenshot(&window);
            up = (shot.uniform().is_some() && shot.uniform() != right.uniform()).then_some(shot);
        }
        if up.is_some() {
            break;
        }
    }
    let up = up.unwrap_or_else(|| panic!("frame advance never showed Up; stderr:\n{}", s.stderr()));
    assert!(
        s.title(&window).contains("paused"),
        "frame advance keeps the game paused"
    );

    // F12 saves the frame as a PNG; the window shows exactly that frame at 3x.
    s.key(&window, "F12");
    let title = s.wait_title(&window, "screenshot ");
    let path = title.split("screenshot ").nth(1).unwrap().trim();
    let native = Image::from_png(&std::fs::read(path).expect("the screenshot file"));
    up.assert_scaled_from(&native);

    // A smaller window: the largest whole scale that fits (2x), centred, black around it.
    s.xdotool(&["windowsize", &window, "600", "560"]);
    let resized = s.wait_picture(&window, "the picture at 2x after a resize", |p| {
        (p.width, p.height) == (600, 560)
            && p.pixel(300, 280) == native.pixel(128, 120)
            && p.pixel(0, 0) == [0, 0, 0]
    });
    let (left, top) = ((600 - 512) / 2, (560 - 480) / 2);
    for y in 0..560 {
        for x in 0..600 {
            let inside = (left..left + 512).contains(&x) && (top..top + 480).contains(&y);
            let want = if inside {
                native.pixel((x - left) / 2, (y - top) / 2)
            } else {
                [0, 0, 0]
            };
            assert_eq!(resized.pixel(x, y), want, "resized window pixel ({x}, {y})");
        }
    }

    // A setting changed in the window is saved to the config file at once.
    let config = s.dir.join("config/nestor/config.toml");
    let aspect = |on: bool| format!("pixel_aspect_8_7 = {on}");
    // The picture keeps its 2x scale: the window widens to 8:7 (512 * 8 / 7 = 585) and back.
    for (on, width) in [(true, 585), (false, 512)] {
        s.key(&window, "F10");
        s.wait_title(&window, if on { "8:7 pixels" } else { "square pixels" });
        let text = std::fs::read_to_string(&config).unwrap();
        assert!(text.contains(&aspect(on)), "F10 not saved:\n{text}");
        s.wait_picture(&window, "the window around the 2x picture", |p| {
            (p.width, p.height) == (width, 480)
        });
    }

    s.quit(&window);

    // The saved state outlives the program: after a restart, a damaged state file is reported
    // and leaves the game alone; slot 1 brings back the saved game.
    let states = s.dir.join("data/nestor/states");
    assert!(states.join("buttons.1.state").is_file(), "slot 1 on disk");
    std::fs::write(states.join("buttons.2.state"), b"NES state? no").unwrap();
    s.launch();
    let window = s.window();
    s.wait_title(&window, "100%");
    let fresh = s.wait_picture(&window, "the first frame after the restart", |p| {
        p.width == WIDTH && p.uniform() == start.uniform()
    });
    s.key(&window, "F2");
    let title = s.wait_title(&window, "state 2 not loaded");
    println!("gui: damaged state: {title}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        s.screenshot(&window),
        fresh,
        "a bad state must not touch the game"
    );
    s.key(&window, "F1");
    s.wait_title(&window, "loaded state 1");
    s.wait_picture(&window, "the saved picture after a restart", |p| {
        *p == right
    });
    s.quit(&window);
}

/// The project's own game, as `nestor` embeds it.
const QUADFALL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../roms/quadfall.nes");

/// Quadfall's title screen as the machine draws it headless: power on, Start once the legal
/// screen accepts it, then a few frames for the title to be drawn.
fn quadfall_title() -> Image {
    let mut console = nes::Console::from_ines(&std::fs::read(QUADFALL).unwrap()).unwrap();
    for frame in 0..160 {
        let start = (130..135).contains(&frame);
        let buttons = if start { nes::Buttons::START } else { 0 };
        console.set_buttons(0, nes::Buttons(buttons));
        console.run_frame();
    }
    assert_eq!(
        console.peek(0xC0),
        1,
        "headless Quadfall is on its title screen (game mode 1)"
    );
    let mut rgb = Vec::new();
    nes::ppu::palette::Palette::default().to_rgb(console.frame_buffer(), &mut rgb);
    Image {
        width: 256,
        height: 240,
        rgb,
    }
}

/// The embedded game in the window: its title screen pixel-exact at 3x, the menus follow the
/// keyboard, a piece moves, and a saved state comes back exactly.
fn game_scenario() {
    let title = quadfall_title();
    let mut s = Session::start(&button_colour_rom());
    s.messages_off();
    s.launch_rom(Path::new(QUADFALL));
    let window = s.window();
    s.wait_title(&window, "quadfall.nes - 100%");

    // The legal screen takes Start only after two seconds: press until the title shows.
    let start = Instant::now();
    let on_title = loop {
        s.hold(&window, "Return");
        let deadline = Instant::now() + Duration::from_millis(1500);
        let shot = loop {
            let shot = s.screenshot(&window);
            if shot.is_scaled_from(&title) || Instant::now() > deadline {
                break shot;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        if shot.is_scaled_from(&title) {
            break shot;
        }
        assert!(
            start.elapsed() < START_TIMEOUT,
            "the title screen never matched the headless one at 3x; last picture {shot:?}"
        );
    };
    on_title.assert_scaled_from(&title);

    // Start: the game-type menu; Start again: the level menu; Right moves the level cursor.
    s.hold(&window, "Return");
    let type_menu = s.wait_settled(&window, "the game-type menu", |p| *p != on_title);
    s.hold(&window, "Return");
    let level_menu = s.wait_settled(&window, "the level menu", |p| *p != type_menu);
    s.hold(&window, "Right");
    let level_one = s.wait_settled(&window, "the level cursor to move", |p| *p != level_menu);

    // Start the game, then work frame by frame from a saved state: the same frames with Left
    // held and without differ (the piece moved), and loading gives back the saved picture.
    s.hold(&window, "Return");
    // In play the piece falls every 43 frames: the picture never stays for long.
    s.wait_picture(&window, "the game to start", |p| {
        *p != level_one && *p != level_menu
    });
    std::thread::sleep(Duration::from_millis(1500)); // the first piece enters
    s.key(&window, "p");
    s.wait_title(&window, "paused");
    let saved = s.screenshot(&window);
    s.key(&window, "shift+F1");
    s.wait_title(&window, "saved state 1");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(s.screenshot(&window), saved, "a paused game must not move");

    s.advance(&window, Some("Left"), 8);
    let with_left = s.screenshot(&window);
    assert_ne!(with_left, saved, "frame advance changed nothing");

    s.key(&window, "F1");
    s.wait_title(&window, "loaded state 1");
    s.wait_picture(&window, "the saved picture after loading", |p| *p == saved);
    s.advance(&window, None, 8);
    let without_left = s.screenshot(&window);
    assert_ne!(
        with_left, without_left,
        "holding Left did not move the piece"
    );

    s.quit(&window);
}

/// A PulseAudio server with only a null sink: a sound device that plays in real time to nowhere.
/// Stopped, and its folder removed, when dropped.
struct Pulse {
    server: Child,
    dir: PathBuf,
}

impl Drop for Pulse {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Pulse {
    fn start(dir: &Path) -> Pulse {
        require_tool(
            "pulseaudio",
            "pulseaudio (and libasound2-plugins for ALSA's pulse device)",
        );
        let home = dir.join("home");
        let runtime = dir.join("run");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&runtime).unwrap();
        std::fs::write(
            home.join(".asoundrc"),
            "pcm.!default { type pulse }\nctl.!default { type pulse }\n",
        )
        .unwrap();
        let server = Command::new("pulseaudio")
            .args([
                "-n",
                "--daemonize=no",
                "--exit-idle-time=-1",
                "--use-pid-file=no",
                "--disable-shm=yes",
                // The machine may be busy (CI, parallel builds): keep the sound server on time.
                "--high-priority=yes",
                "--realtime=yes",
                "--load=module-native-protocol-unix",
                "--load=module-null-sink sink_name=nestor_null",
            ])
            .env("HOME", &home)
            .env("XDG_RUNTIME_DIR", &runtime)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("pulse.txt")).unwrap())
            .spawn()
            .expect("cannot start pulseaudio");
        let pulse = Pulse {
            server,
            dir: dir.to_path_buf(),
        };
        let start = Instant::now();
        while !runtime.join("pulse/native").exists() {
            assert!(
                start.elapsed() < STEP_TIMEOUT,
                "pulseaudio did not start: {}",
                std::fs::read_to_string(dir.join("pulse.txt")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        pulse
    }

    /// Points a client at this server.
    fn client(&self, command: &mut Command) {
        command
            .env("HOME", self.dir.join("home"))
            .env("XDG_RUNTIME_DIR", self.dir.join("run"));
    }
}

/// Against a real-time null sink: the stream opens, takes samples at its rate while the
/// emulator's frame clock feeds it, and the window keeps 60 frames per second with sound on.
fn audio_scenario() {
    let dir = std::env::temp_dir().join(format!("nestor-audio-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let pulse = Pulse::start(&dir);

    let mut probe = Command::new(std::env::current_exe().unwrap());
    probe.arg("--audio-child");
    pulse.client(&mut probe);
    let out = probe.output().expect("the audio probe runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "audio probe failed: {stdout}{stderr}");
    println!("audio: {}", stdout.trim());
    let numbers: Vec<f64> = stdout
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    let [rate, consumed, frames, full, dry] = numbers[..] else {
        panic!("unexpected probe output {stdout:?}")
    };
    assert!(
        (consumed - rate).abs() < rate * 0.05,
        "the device took {consumed} samples/s; its rate is {rate}"
    );
    // Dynamic rate control keeps the buffer from running dry or overflowing; a loaded machine
    // may stall the sound server now and then, so a few frames either way are tolerated.
    assert!(
        full + dry <= frames * 0.05,
        "buffer full in {full} and dry in {dry} of {frames} frames"
    );

    // The window with sound on: it keeps the NES's 60 frames per second.
    let mut s = Session::start(&button_colour_rom());
    s.pulse = Some(pulse);
    s.launch();
    let window = s.window();
    s.wait_title(&window, " fps");
    std::thread::sleep(Duration::from_secs(3));
    let title = s.title(&window);
    let fps: f64 = title
        .split(" - ")
        .find_map(|part| part.strip_suffix(" fps")?.parse().ok())
        .unwrap_or_else(|| panic!("no fps in the title {title:?}"));
    let headless = headless_fps(&button_colour_rom());
    println!("audio: window at {fps} fps with sound; headless the machine runs {headless:.0} fps");
    assert!(
        !s.stderr().contains("no sound"),
        "sound did not open:\n{}",
        s.stderr()
    );
    // On a machine too busy to emulate 60 frames a second at all, sound must not slow the
    // window down further; otherwise it must hold the NES's rate.
    let expected = 60.0f64.min(headless * 0.9) - 3.0;
    assert!(
        (expected..=63.0).contains(&fps),
        "{fps} fps with sound; expected {expected:.0} to 63 ({title:?})"
    );
}

/// How many frames a second this machine emulates right now, with no window and no pacing.
fn headless_fps(rom: &[u8]) -> f64 {
    let mut console = nes::Console::from_ines(rom).unwrap();
    let start = Instant::now();
    let mut frames = 0;
    while start.elapsed() < Duration::from_secs(2) {
        console.run_frame();
        frames += 1;
    }
    f64::from(frames) / start.elapsed().as_secs_f64()
}

/// Without a display the window cannot open: one clear error line and a failing exit code.
fn no_display_scenario() {
    let dir = std::env::temp_dir().join(format!("nestor-nodisplay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rom = dir.join("buttons.nes");
    std::fs::write(&rom, button_colour_rom()).unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .arg("--child")
        .arg(&rom)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .output()
        .expect("the program runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(stderr.contains("cannot open a window"), "stderr:\n{stderr}");
    assert!(!stderr.contains("panicked"), "stderr:\n{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A script that draws a red box from (16, 32) to (47, 63) on every displayed frame, presses
/// Right through joypad.set while J is held (read with input.get), keeps a text with the user's
/// slot saves and shows it when the slot is loaded, and ends the program with status 3 when Q
/// is held.
const BOX_SCRIPT: &str = r#"
gui.register(function() gui.box(16, 32, 47, 63, "red", "red") end)
savestate.registersave(function(slot) return "kept with " .. slot end)
savestate.registerload(function(slot, text)
  emu.message("slot " .. slot .. " brought back " .. tostring(text))
end)
while true do
  local keys = input.get()
  if keys.J then joypad.set(1, {right = true}) end
  if keys.Q then os.exit(3) end
  emu.frameadvance()
end
"#;

/// A script that fails after half a second.
const FAILING_SCRIPT: &str = r#"
for i = 1, 30 do emu.frameadvance() end
error("boom after 30 frames")
"#;

/// Lua on the window's frames: the box drawn on the displayed picture at 3x, input.get seeing
/// the window's keyboard, joypad.set reaching the game, a failing script reported in the title
/// with the window and the other script running on, the slot keys calling registersave and
/// registerload, os.exit ending the program with its status.
fn lua_scenario() {
    let mut s = Session::start(&button_colour_rom());
    let (boxed, failing) = (s.dir.join("box.lua"), s.dir.join("failing.lua"));
    std::fs::write(&boxed, BOX_SCRIPT).unwrap();
    std::fs::write(&failing, FAILING_SCRIPT).unwrap();
    s.messages_off();
    s.launch_with(&s.dir.join("buttons.nes"), &[boxed, failing]);
    let window = s.window();
    let title = s.wait_title(&window, "Lua: ");
    assert!(title.contains("boom after 30 frames"), "title {title:?}");
    assert!(
        s.stderr().contains("failing.lua:3"),
        "stderr:\n{}",
        s.stderr()
    );

    // The box, exactly where the script put it; elsewhere the game's backdrop.
    let red = [255, 0, 0];
    let inside =
        |x: usize, y: usize| (16..=47).contains(&(x / SCALE)) && (32..=63).contains(&(y / SCALE));
    let boxed = s.wait_picture(&window, "the script's box", |p| {
        p.width == WIDTH && p.pixel(100, 130) == red
    });
    let backdrop = boxed.pixel(0, 0);
    assert_ne!(backdrop, red);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let want = if inside(x, y) { red } else { backdrop };
            assert_eq!(boxed.pixel(x, y), want, "pixel ({x}, {y})");
        }
    }

    // J held: the script presses Right for the game, which turns its backdrop to colour $01.
    s.hold(&window, "j");
    let right = s.wait_picture(&window, "the backdrop to change after J", |p| {
        p.pixel(0, 0) != backdrop && p.pixel(100, 130) == red
    });
    assert_ne!(right.pixel(0, 0), red);

    // The slot keys call the script's savestate callbacks: what it returned when the user saved
    // comes back to it when the user loads (it shows it with emu.message).
    s.key(&window, "shift+F1");
    s.wait_title(&window, "saved state 1");
    let states = s.dir.join("data/nestor/states");
    assert!(states.join("buttons.1.state.luasav").is_file());
    s.key(&window, "F1");
    s.wait_title(&window, "slot 1 brought back kept with 1");

    // Q: the script ends the program with os.exit(3).
    s.hold(&window, "q");
    let status = s.wait_exit();
    assert_eq!(status.code(), Some(3), "stderr:\n{}", s.stderr());
}

/// Colours a script's box by what `joypad.get` reads on controller 1: red while Right is held.
const PAD_SCRIPT: &str = r#"
gui.register(function()
  local colour = joypad.get(1).right and "red" or "blue"
  gui.box(16, 32, 47, 63, colour, colour)
end)
while true do emu.frameadvance() end
"#;

/// One session runs the window's frames with every source at once: a movie plays back in the
/// window under a Lua script (its end reported in the title, the game going on), then I turns
/// the automatic player on while the script runs, and the script reads the player's buttons.
fn session_scenario() {
    let mut s = Session::start(&button_colour_rom());
    let rom = s.dir.join("buttons.nes");
    // Two seconds with Left held, after one second of nothing.
    let console = nes::Console::from_ines(&button_colour_rom()).unwrap();
    let mut movie = movie::Movie::new(
        "buttons",
        movie::rom_checksum(console.cartridge()),
        movie::guid(b"gui"),
    );
    movie.frames = (0..180)
        .map(|frame| movie::Frame {
            commands: 0,
            pads: [if frame < 60 { 0 } else { nes::Buttons::LEFT }, 0, 0, 0],
        })
        .collect();
    let (movie_path, script) = (s.dir.join("left.fm2"), s.dir.join("pad.lua"));
    std::fs::write(&movie_path, movie.to_fm2()).unwrap();
    std::fs::write(&script, PAD_SCRIPT).unwrap();
    s.launch_args(
        &rom,
        &[
            "--movie".as_ref(),
            movie_path.as_os_str(),
            "--lua".as_ref(),
            script.as_os_str(),
            "--player".as_ref(),
            "on".as_ref(),
        ],
    );
    let window = s.window();
    let (red, blue) = ([255, 0, 0], [0, 0, 255]);
    let start = s.wait_picture(&window, "the script's blue box", |p| {
        p.width == WIDTH && p.pixel(100, 130) == blue
    });
    let left = s.wait_picture(&window, "the movie's Left in the backdrop", |p| {
        p.pixel(0, 0) != start.pixel(0, 0)
    });
    // Reported in the title for a few seconds, and on stderr for good.
    s.wait_for("the movie's end to be reported", STEP_TIMEOUT, |s| {
        s.stderr().contains("frames ran out").then_some(())
    });
    // A movie's frames only go forwards.
    s.hold(&window, "BackSpace");
    s.wait_title(&window, "no rewind while a movie plays");
    s.key(&window, "i");
    s.wait_title(&window, "AI on");
    let right = s.wait_picture(&window, "the player's Right, seen by the script", |p| {
        p.pixel(100, 130) == red && p.pixel(0, 0) != left.pixel(0, 0)
    });
    assert_ne!(right.pixel(0, 0), start.pixel(0, 0));
    s.key(&window, "i");
    s.wait_title(&window, "AI off");
    s.wait_picture(&window, "the box blue again", |p| p.pixel(100, 130) == blue);
    s.quit(&window);
}

/// Backspace held runs the game backwards: the colour a button press gave the backdrop goes
/// away again, and the game goes on from there when it is let go. Run-ahead is on and says so;
/// the window opens at the scale asked for (2x, not the config's 3x); SIGTERM closes it.
fn rewind_scenario() {
    let mut s = Session::start(&button_colour_rom());
    let rom = s.dir.join("buttons.nes");
    let args = ["--run-ahead", "2", "--scale", "2"].map(OsStr::new);
    s.launch_args(&rom, &args);
    let window = s.window();
    s.wait_title(&window, "buttons.nes - 100%");
    s.wait_title(&window, "run-ahead 2");
    let shot = s.screenshot(&window);
    assert_eq!((shot.width, shot.height), (512, 480));
    std::thread::sleep(Duration::from_millis(500));
    let before = s.screenshot(&window);
    // Right (ArrowRight) turns the backdrop to colour $01 and it stays so.
    s.hold(&window, "Right");
    let pressed = s.wait_settled(&window, "the backdrop of Right", |p| {
        p.pixel(0, 0) != before.pixel(0, 0)
    });
    std::thread::sleep(Duration::from_millis(300));
    s.xdotool(&["windowfocus", "--sync", &window]);
    s.xdotool(&["keydown", "BackSpace"]);
    let rewound = s.wait_picture(&window, "the backdrop from before Right", |p| {
        p.pixel(0, 0) == before.pixel(0, 0)
    });
    assert!(
        s.title(&window).contains("rewinding"),
        "{}",
        s.title(&window)
    );
    // A few frames further back: the first grey frame may be one where the game has read Right
    // but not drawn it yet, and going forwards from there turns the backdrop blue.
    std::thread::sleep(Duration::from_millis(300));
    s.xdotool(&["keyup", "BackSpace"]);
    assert_ne!(rewound.pixel(0, 0), pressed.pixel(0, 0));
    // Forwards again: the press is in the past that was undone, so the colour stays.
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(s.screenshot(&window).pixel(0, 0), before.pixel(0, 0));
    assert!(!s.title(&window).contains("rewinding"));
    // SIGTERM closes the window as Ctrl+Q does, through the same clean exit, with its own status.
    let pid = s.app.as_ref().unwrap().id();
    // SAFETY: signals our own child, which has not been waited for yet.
    unsafe { libc::kill(pid as i32, libc::SIGTERM) };
    assert_eq!(s.wait_exit().code(), Some(130), "stderr:\n{}", s.stderr());
}

/// A failure inside a frame (here an injected panic in the player) stops the game, not the
/// program: the window stays with the reason in its title, stderr has one line for it, and
/// closing the window then exits with 2.
fn crash_scenario() {
    let mut s = Session::start(&button_colour_rom());
    let rom = s.dir.join("buttons.nes");
    s.launch_args(&rom, &["--player", "panic"].map(OsStr::new));
    let window = s.window();
    s.wait_title(&window, "buttons.nes - 100%");
    // Drawn: the window is mapped and takes keys.
    s.wait_picture(&window, "the first picture", |p| p.width == WIDTH);
    // Pressed again if a press was lost (as a person would): the first frame after it fails.
    for _ in 0..5 {
        s.key(&window, "i");
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(3) && !s.title(&window).contains("stopped: ") {
            std::thread::sleep(Duration::from_millis(100));
        }
        if s.title(&window).contains("stopped: ") {
            break;
        }
    }
    let title = s.wait_title(&window, "stopped: ");
    assert!(title.contains("injected failure"), "title: {title}");
    std::thread::sleep(Duration::from_millis(500));
    let shot = s.screenshot(&window);
    assert_eq!((shot.width, shot.height), (WIDTH, HEIGHT));
    s.key(&window, "ctrl+q");
    let status = s.wait_exit();
    assert_eq!(status.code(), Some(2), "stderr:\n{}", s.stderr());
    let stderr = s.stderr();
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("injected failure"))
        .collect();
    assert_eq!(lines.len(), 1, "stderr:\n{stderr}");
    assert!(lines[0].starts_with("nestor: ") && lines[0].ends_with("the game is stopped"));
}

/// The menus' titles: File, Emulation, Video, Audio, Input, AI, Tools.
const MENUS: usize = 7;

/// Indexes in `range` where `lit` holds, as spans joined across gaps of at most `gap`.
fn spans(
    range: std::ops::Range<usize>,
    gap: usize,
    lit: impl Fn(usize) -> bool,
) -> Vec<(usize, usize)> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for i in range.filter(|&i| lit(i)) {
        match spans.last_mut() {
            Some(last) if i - last.1 <= gap + 1 => last.1 = i,
            _ => spans.push((i, i)),
        }
    }
    spans
}

/// The UI's text: light grey or white, brighter than the test ROM's colours.
fn is_text(p: &Image, x: usize, y: usize) -> bool {
    let [r, g, b] = p.pixel(x, y);
    let (low, high) = (r.min(g).min(b), r.max(g).max(b));
    low > 130 && high - low < 16
}

/// egui's dark grey panels (not black, nor a colour of the test ROM's).
fn is_panel(p: &Image, x: usize, y: usize) -> bool {
    let [r, g, b] = p.pixel(x, y);
    r == g && g == b && (20..=35).contains(&r)
}

/// Rows from the top of the menu bar.
fn bar_bottom(p: &Image) -> usize {
    (0..p.height).take_while(|&y| is_panel(p, 2, y)).count()
}

/// The columns of the words in the menu bar: the menus' titles.
fn menu_titles(p: &Image) -> Vec<(usize, usize)> {
    let bottom = bar_bottom(p);
    if !(10..60).contains(&bottom) {
        return Vec::new();
    }
    spans(0..p.width, 6, |x| (0..bottom).any(|y| is_text(p, x, y)))
}

/// The rows of the lines of text in a menu dropped down under the bar at column `left`.
fn menu_lines(p: &Image, left: usize, bottom: usize) -> Vec<(usize, usize)> {
    // The menu's panel, across the highlight of an item under the pointer.
    let Some(&(_, end)) = spans(bottom..p.height, 25, |y| is_panel(p, left + 4, y)).first() else {
        return Vec::new();
    };
    let columns = left..(left + 120).min(p.width);
    spans(bottom + 1..end, 2, |y| {
        columns.clone().any(|x| is_text(p, x, y))
    })
}

/// The left edge of the submenu beside the menu at column `left`, opened from its line at rows
/// `top..=end`: the first panel column past the menu's right edge and a gap.
fn submenu_left(p: &Image, left: usize, top: usize, end: usize) -> Option<usize> {
    let y = (top + end) / 2;
    // The menu's own panel, along a row of its margin above its first line (the line the
    // submenu opens from is lit up, and the submenu reaches no higher than it).
    let first = menu_lines(p, left, bar_bottom(p)).first()?.0;
    let row = first.checked_sub(3)?;
    let menu_right = spans(left..p.width, 0, |x| is_panel(p, x, row)).first()?.1;
    (menu_right + 3..p.width).find(|&x| is_panel(p, x, y) && is_panel(p, x + 3, y))
}

/// Whether the UI's white text is in the given corner region (x and y ranges).
fn text_in(p: &Image, xs: std::ops::Range<usize>, ys: std::ops::Range<usize>) -> bool {
    ys.into_iter()
        .any(|y| xs.clone().any(|x| p.pixel(x, y).iter().all(|&c| c > 220)))
}

/// An on-screen message in the bottom-left corner.
fn message_shown(p: &Image) -> bool {
    text_in(p, 0..300, p.height - 50..p.height)
}

/// The menus, the on-screen messages and the frame counter, as a person meets them: Esc brings
/// the menu bar up and gives the keyboard to it (the game no longer sees keys) and puts it
/// away; an action's message shows in a corner for a few seconds; Emulation > Pause clicked
/// with the mouse pauses; K shows the frame counter and saves the setting; File > Open ROM
/// switches to another game, which joins the recent ROMs; Video > 2x resizes the window;
/// File > Quit exits with 0.
fn menu_scenario() {
    let mut s = Session::start(&button_colour_rom());
    s.launch();
    let window = s.window();
    s.wait_title(&window, "buttons.nes - 100%");
    let config = s.dir.join("config/nestor/config.toml");
    assert!(config.is_file(), "the first run writes the default config");
    let start = s.wait_picture(&window, "the first frame", |p| {
        p.width == WIDTH && p.uniform().is_some()
    });
    let centre = |p: &Image| p.pixel(WIDTH / 2, HEIGHT / 2);
    // The game takes keys: Right changes its colour.
    s.hold(&window, "Right");
    let right = s.wait_picture(&window, "the game to see Right", |p| {
        p.uniform().is_some() && *p != start
    });
    let backdrop = right.pixel(0, 0);

    // Esc: the menu bar over the top of the picture, the rest still the game.
    s.key(&window, "Escape");
    let bar = s.wait_settled(&window, "the menu bar after Esc", |p| {
        menu_titles(p).len() == MENUS
    });
    assert_eq!(centre(&bar), backdrop);
    assert_eq!(bar.pixel(2, HEIGHT - 1), backdrop);
    // The keyboard is the menu's: Left does not reach the game.
    s.hold(&window, "Left");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        centre(&s.screenshot(&window)),
        backdrop,
        "a key reached the game"
    );
    s.key(&window, "Escape");
    s.wait_picture(&window, "the bar gone after Esc", |p| *p == right);
    s.hold(&window, "Left");
    s.wait_picture(&window, "the game to see Left", |p| {
        p.uniform().is_some_and(|c| c != backdrop)
    });

    // A hotkey's message in the corner, gone after a few seconds.
    s.key(&window, "shift+F1");
    s.wait_title(&window, "saved state 1");
    s.wait_picture(&window, "the message of the save", message_shown);
    let shown = Instant::now();
    s.wait_picture(&window, "the message to go", |p| p.uniform().is_some());
    assert!(
        shown.elapsed() > Duration::from_secs(1),
        "the message went at once"
    );

    // Emulation > Pause with the mouse: the title and a message say so.
    s.click_menu(&window, 1, |_| 0);
    s.wait_title(&window, "paused");
    s.xdotool(&["mousemove", "--window", &window, "400", "400"]);
    s.wait_picture(&window, "the message of the pause", message_shown);

    // K: frames per second and the frame number in the top-right corner; saved.
    s.key(&window, "k");
    s.wait_picture(&window, "the frame counter", |p| {
        text_in(p, WIDTH - 250..WIDTH, 0..50)
    });
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.contains("frame_counter = true"), "{text}");

    // File > Open ROM (Ctrl+O): a path typed in the browser opens that game.
    let quadfall = std::fs::canonicalize(QUADFALL).unwrap();
    s.key(&window, "ctrl+o");
    s.wait_picture(&window, "the ROM browser", |p| {
        let (xs, ys) = (
            WIDTH / 2 - 100..WIDTH / 2 + 100,
            HEIGHT / 2 - 100..HEIGHT / 2,
        );
        ys.into_iter().any(|y| xs.clone().any(|x| is_text(p, x, y)))
    });
    s.xdotool(&["type", "--delay", "20", quadfall.to_str().unwrap()]);
    s.xdotool(&["key", "Return"]);
    s.wait_title(&window, "nestor - quadfall.nes");
    s.wait_picture(&window, "Quadfall's picture", |p| p.uniform().is_none());
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(
        text.contains(quadfall.to_str().unwrap()),
        "not in the recent ROMs:\n{text}"
    );

    // Video > 2x: the window takes the size of the picture at 2x, kept for the next start.
    s.click_menu(&window, 2, |_| 1);
    s.wait_picture(&window, "the window at 2x", |p| {
        (p.width, p.height) == (512, 480)
    });
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.contains("scale = 2"), "{text}");

    // File > Quit, the last item.
    s.click_menu(&window, 0, |lines| lines.len() - 1);
    let status = s.wait_exit();
    assert!(
        status.success(),
        "File > Quit: {status}; stderr:\n{}",
        s.stderr()
    );
}

/// The drag source for `drop_scenario` (xdotool cannot drag files).
const XDND_DROP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/xdnd_drop.py");

impl Session {
    /// Drags `file` onto the window and drops it, as from a file manager (the XDND protocol);
    /// true when the window accepted it.
    fn drop_file(&self, window: &str, file: &Path) -> bool {
        // Debian's python3 and its python3-xlib, whatever `python3` the PATH finds first.
        let out = self
            .command("/usr/bin/python3")
            .arg(XDND_DROP)
            .arg(window)
            .arg(file)
            .output()
            .expect("/usr/bin/python3 runs (install the Debian package python3-xlib)");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("No module named 'Xlib'"),
            "install the Debian package python3-xlib (or set NESTOR_SKIP_GUI=1)"
        );
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "the drop got no answer: {stderr}"
        );
        out.status.success()
    }
}

/// A ROM dragged from elsewhere onto the window opens; a file that is not one leaves the game
/// running and says why.
fn drop_scenario() {
    let mut s = Session::start(&button_colour_rom());
    s.launch();
    let window = s.window();
    s.wait_title(&window, "buttons.nes - 100%");
    s.wait_picture(&window, "the first frame", |p| p.uniform().is_some());

    // Not a ROM: the game goes on, and a message and the title say why.
    let bad = s.dir.join("notes.nes");
    std::fs::write(&bad, "not a ROM").unwrap();
    s.drop_file(&window, &bad);
    let title = s.wait_title(&window, "not an iNES file");
    assert!(title.starts_with("nestor - buttons.nes"), "{title}");
    s.wait_picture(&window, "the error's message", message_shown);
    s.wait_picture(&window, "the game after the message", |p| {
        p.uniform().is_some()
    });

    // A ROM opens; a name with a space travels percent-encoded in the URI list.
    let quadfall = s.dir.join("my games/quadfall.nes");
    std::fs::create_dir_all(quadfall.parent().unwrap()).unwrap();
    std::fs::copy(QUADFALL, &quadfall).unwrap();
    assert!(
        s.drop_file(&window, &quadfall),
        "the window refused the ROM"
    );
    s.wait_title(&window, "nestor - quadfall.nes");
    s.wait_picture(&window, "Quadfall's picture", |p| p.uniform().is_none());
    let text = std::fs::read_to_string(s.dir.join("config/nestor/config.toml")).unwrap();
    assert!(
        text.contains(quadfall.to_str().unwrap()),
        "a dropped ROM is a recent ROM:\n{text}"
    );
    s.quit(&window);
}

/// Where the Input window's top-left corner is (its anchor in ui.rs).
const INPUT_WINDOW: (usize, usize) = (16, 40);

/// The rows of the lines of text in the Input window under its title bar (its pages first).
fn input_lines(p: &Image) -> Vec<(usize, usize)> {
    let (left, top) = INPUT_WINDOW;
    let Some(&(start, end)) = spans(top - 4..p.height, 25, |y| is_panel(p, left + 6, y)).first()
    else {
        return Vec::new();
    };
    let columns = left..(left + 600).min(p.width);
    spans(start..end, 2, |y| columns.clone().any(|x| is_text(p, x, y)))
}

/// The columns of the words of a line of the Input window: the label, then its bindings.
fn input_cells(p: &Image, (top, bottom): (usize, usize)) -> Vec<(usize, usize)> {
    let (left, _) = INPUT_WINDOW;
    spans(left..(left + 600).min(p.width), 10, |x| {
        (top..=bottom).any(|y| is_text(p, x, y))
    })
}

/// The lines of the Input window's page that show a binding (a label at the left, a binding
/// or two beside it), with their cells.
#[allow(clippy::type_complexity)]
fn binding_rows(p: &Image) -> Vec<((usize, usize), Vec<(usize, usize)>)> {
    input_lines(p)
        .into_iter()
        .skip(1)
        .map(|line| (line, input_cells(p, line)))
        .filter(|(_, cells)| (2..=3).contains(&cells.len()) && cells[0].0 < INPUT_WINDOW.0 + 30)
        .collect()
}

/// Presses `key` for the binding the Input window waits for, waits for the config to hold
/// `saved`, and closes the window with Esc.
fn bind_and_close(s: &mut Session, window: &str, key: &str, saved: &str) {
    s.key(window, key);
    let config = s.dir.join("config/nestor/config.toml");
    s.wait_file(&config, &format!("{saved} in the config"), |text| {
        text.contains(saved)
    });
    s.key(window, "Escape");
    s.wait_picture(window, "the Input window closed", |p| p.uniform().is_some());
}

/// The button test ROM in the window, corner messages off, at its first frame: the session, the
/// window and the colour of the picture.
fn buttons_without_messages() -> (Session, String, [u8; 3]) {
    let mut s = Session::start(&button_colour_rom());
    s.messages_off();
    s.launch();
    let window = s.window();
    s.wait_title(&window, "buttons.nes - 100%");
    let start = s.wait_picture(&window, "the first frame", |p| {
        p.width == WIDTH && p.uniform().is_some()
    });
    (s, window, start.uniform().unwrap())
}

/// The Input window as a person uses it: Input > Keys and buttons, a click on player 1's Up
/// key and J pressed binds J (saved at once); with the window closed (Esc), J presses Up in the
/// game and the arrow key no longer does. A hotkey is rebound the same way on the Hotkeys page.
fn input_scenario() {
    let (mut s, window, backdrop) = buttons_without_messages();

    // Input > Keys and buttons: title, pages, column names, then A, B, Select, Start, Up...
    s.click_menu(&window, 4, |_| 0);
    let open = s.wait_settled(&window, "the Input window", |p| input_lines(p).len() > 12);
    let (up, cells) = binding_rows(&open).swap_remove(4);
    assert_eq!(cells.len(), 3, "Up, its key, its button: {cells:?}");
    let (left, right) = cells[1];
    s.click(&window, (left + right) / 2, (up.0 + up.1) / 2);
    s.wait_picture(&window, "the binding to wait for a key", |p| {
        input_cells(p, up).get(1) != Some(&(left, right))
    });
    bind_and_close(&mut s, &window, "j", "up = [\"KeyJ\"]");

    // The arrow key is no longer Up; J is, at once.
    s.hold(&window, "Up");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        s.screenshot(&window).uniform(),
        Some(backdrop),
        "Up still pressed Up"
    );
    s.hold(&window, "j");
    s.wait_picture(&window, "J to press Up", |p| {
        p.uniform().is_some_and(|c| c != backdrop)
    });

    // Hotkeys: Y becomes Pause.
    s.click_menu(&window, 4, |_| 0);
    let open = s.wait_settled(&window, "the Input window again", |p| {
        input_lines(p).len() > 12
    });
    let pages_row = input_lines(&open)[0];
    let pages = input_cells(&open, pages_row);
    // Player 1 (the page shown: its name on a highlight), Player 2, Hotkeys, Turbo and sticks.
    assert!(pages.len() >= 3, "the pages: {pages:?}");
    let hotkeys = pages[pages.len() - 2];
    s.click(
        &window,
        (hotkeys.0 + hotkeys.1) / 2,
        (pages_row.0 + pages_row.1) / 2,
    );
    let hotkeys = s.wait_settled(&window, "the Hotkeys page", |p| {
        p != &open && input_lines(p).len() > 12
    });
    let (pause, cells) = binding_rows(&hotkeys).swap_remove(0);
    s.click(
        &window,
        (cells[1].0 + cells[1].1) / 2,
        (pause.0 + pause.1) / 2,
    );
    std::thread::sleep(Duration::from_millis(300));
    bind_and_close(&mut s, &window, "y", "pause = [\"KeyY\"]");
    s.key(&window, "y");
    s.wait_title(&window, "paused");
    s.quit(&window);
}

/// The AI panel: AI > Panel shows the player's lines at the bottom left over the game, saved
/// in the config; clicked again, it goes.
fn ai_panel_scenario() {
    let mut s = Session::start(&button_colour_rom());
    s.messages_off();
    s.launch_args(
        &s.dir.join("buttons.nes"),
        &["--player", "right"].map(OsStr::new),
    );
    let window = s.window();
    s.wait_title(&window, "buttons.nes - 100%");
    let config = s.dir.join("config/nestor/config.toml");
    let panel_shown = |p: &Image| text_in(p, 0..300, HEIGHT - 200..HEIGHT - 50);
    let start = s.wait_picture(&window, "the first frame", |p| {
        p.width == WIDTH && p.uniform().is_some()
    });
    assert!(!panel_shown(&start));

    // AI: AI plays, Outline, Panel.
    s.click_menu(&window, 5, |_| 2);
    s.wait_file(&config, "the panel saved as on", |text| {
        text.contains("[ai]") && text.contains("panel = true")
    });
    s.xdotool(&["mousemove", "--window", &window, "400", "600"]);
    // With the menu put away (its highlighted item is white text too).
    let panel = s.wait_picture(&window, "the AI panel", |p| {
        panel_shown(p) && menu_titles(p).is_empty()
    });
    // Over the game's picture, which goes on around it.
    assert_eq!(
        panel.pixel(WIDTH - 1, HEIGHT - 1),
        start.pixel(WIDTH - 1, HEIGHT - 1)
    );

    // Off again from the menu.
    s.click_menu(&window, 5, |_| 2);
    s.wait_file(&config, "the panel saved as off", |text| {
        text.contains("panel = false")
    });
    s.xdotool(&["mousemove", "--window", &window, "400", "600"]);
    s.wait_picture(&window, "the AI panel gone", |p| p.uniform().is_some());
    s.quit(&window);
}

/// Cheats as a person uses them: Tools > Cheats, a RAM cheat typed in ($0000, the colour the
/// test ROM shows, held at $16) acts at once and is saved in the `.cht` file beside the ROM in
/// FCEUX's format; the next start loads it by itself.
fn cheats_scenario() {
    let (mut s, window, backdrop) = buttons_without_messages();
    let corner = |p: &Image| p.pixel(WIDTH - 1, HEIGHT - 1);

    s.click_menu(&window, 6, |_| 0);
    s.wait_settled(&window, "the Cheats window", |p| input_lines(p).len() > 3);
    // Typed into the code field, which has the keyboard (again if the keys were lost on a busy
    // machine: Ctrl+A first replaces what a lost attempt left).
    let file = s.dir.join("buttons.cht");
    let saved = || {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        text.starts_with("0000:16:\n").then_some(text)
    };
    s.wait_for("the cheat saved beside the ROM", START_TIMEOUT, |s| {
        if saved().is_none() {
            s.xdotool(&["windowfocus", "--sync", &window]);
            s.xdotool(&["key", "ctrl+a"]);
            s.xdotool(&["type", "--delay", "50", "0000:16"]);
            s.xdotool(&["key", "Return"]);
            std::thread::sleep(Duration::from_millis(3000));
        }
        saved()
    });
    let cheated = s.wait_picture(&window, "the cheat's colour", |p| corner(p) != backdrop);
    let colour = corner(&cheated);
    s.key(&window, "Escape");
    s.wait_picture(&window, "the Cheats window closed", |p| {
        p.uniform() == Some(colour)
    });
    s.quit(&window);

    // The next start reads the file: the cheat acts from the first frames.
    s.launch();
    let window = s.window();
    s.wait_picture(&window, "the cheat from the file", |p| {
        p.width == WIDTH && p.uniform() == Some(colour)
    });
    s.quit(&window);
}

/// Pixels whose channels differ by more than a grey's would: colour.
fn coloured_pixels(p: &Image) -> usize {
    (0..p.height)
        .flat_map(|y| (0..p.width).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let [r, g, b] = p.pixel(x, y);
            r.max(g).max(b) - r.min(g).min(b) > 40
        })
        .count()
}

/// Video > NTSC filter on Quadfall's legal screen (grey text on black, paused): the text's
/// edges get the colour fringes of a composite picture; switched off, the picture is exactly
/// what it was.
fn ntsc_scenario() {
    let mut s = Session::start(&button_colour_rom());
    s.messages_off();
    s.launch_rom(Path::new(QUADFALL));
    let window = s.window();
    s.wait_title(&window, "quadfall.nes - 100%");
    let config = s.dir.join("config/nestor/config.toml");
    s.wait_picture(&window, "the legal screen", |p| {
        p.width == WIDTH && p.uniform().is_none()
    });
    // P until the title says paused (a key can be slow to arrive on a busy machine).
    s.wait_for("the title to say paused", STEP_TIMEOUT, |s| {
        if !s.title(&window).contains("paused") {
            s.key(&window, "p");
            std::thread::sleep(Duration::from_millis(1000));
        }
        s.title(&window).contains("paused").then_some(())
    });
    let plain = s.wait_settled(&window, "the paused picture", |p| p.uniform().is_none());
    let toggle = |s: &mut Session, on: bool| {
        // Video: 1x-4x, 8:7 pixels, Fullscreen, NTSC filter.
        s.click_menu(&window, 2, |_| 6);
        let want = format!("ntsc = {on}");
        s.wait_file(&config, &want, |text| text.contains(&want));
        s.xdotool(&["mousemove", "--window", &window, "400", "600"]);
    };
    toggle(&mut s, true);
    let filtered = s.wait_settled(&window, "the filtered picture", |p| {
        menu_titles(p).is_empty() && p != &plain
    });
    let (before, after) = (coloured_pixels(&plain), coloured_pixels(&filtered));
    assert!(
        after > before + 100,
        "colour fringes: {before} coloured pixels, then {after}"
    );
    toggle(&mut s, false);
    s.wait_picture(&window, "the plain picture again", |p| p == &plain);
    s.quit(&window);
}

/// Video recording as a person does it: Shift+F12 starts it (the title says so) and stops it,
/// and the file in the data folder's `videos` holds the frames with their sound (48 kHz, each
/// frame's share); Tools > Record video starts another, which quitting finishes. Nothing but
/// the two files is left in the folder.
fn video_scenario() {
    require_tool("ffprobe", "ffmpeg");
    let mut s = Session::start(&button_colour_rom());
    s.launch_rom(Path::new(QUADFALL));
    let window = s.window();
    s.wait_title(&window, "quadfall.nes - 100%");
    s.key(&window, "shift+F12");
    s.wait_title(&window, "recording video");
    std::thread::sleep(Duration::from_secs(2));
    s.key(&window, "shift+F12");
    let title = s.wait_title(&window, "video saved");
    assert!(!title.contains("recording video"), "{title}");
    let videos = s.dir.join("data/nestor/videos");
    let first = videos.join("quadfall-1.mkv");
    let video = testrom::video::probe(&first).unwrap();
    assert_eq!(video.codecs, ["h264", "flac"]);
    assert!((video.frame_rate - 60.0988).abs() < 0.001, "{video:?}");
    // Two seconds at 60 frames a second, whatever the machine's load.
    assert!((60..=180).contains(&video.frames), "{video:?}");
    assert!(
        title.contains(&format!("({} frames)", video.frames)),
        "{title}"
    );
    assert_eq!(video.samples, samples_for(video.frames));

    s.click_menu(&window, 6, |_| 2);
    s.wait_title(&window, "recording video");
    std::thread::sleep(Duration::from_secs(1));
    s.quit(&window);
    let video = testrom::video::probe(&videos.join("quadfall-2.mkv")).unwrap();
    assert!(video.frames >= 30, "{video:?}");
    assert_eq!(video.samples, samples_for(video.frames));
    let mut names: Vec<_> = std::fs::read_dir(&videos)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["quadfall-1.mkv", "quadfall-2.mkv"]);
}

/// The sound of `frames` frames at 48 kHz: each frame's exact share, 48000 / 60.0988 samples
/// (the frame rate is 39375000/655171).
fn samples_for(frames: u64) -> u64 {
    frames * 48_000 * 655_171 / 39_375_000
}

/// Tools > Open Lua script...: a script picked in the browser starts in the running game, its
/// message in the title and its drawing over the picture.
fn script_menu_scenario() {
    let (mut s, window, backdrop) = buttons_without_messages();
    let script = s.dir.join("menu.lua");
    std::fs::write(
        &script,
        "emu.message('script from the menu')\n\
         while true do gui.box(10, 10, 60, 60, 'red', 'red') emu.frameadvance() end\n",
    )
    .unwrap();
    // Tools: Cheats..., Screenshot, Record video, Record movie..., Play movie..., Open Lua
    // script...
    s.click_menu(&window, 6, |_| 5);
    s.wait_picture(&window, "the script browser", |p| {
        let (xs, ys) = (
            WIDTH / 2 - 100..WIDTH / 2 + 100,
            HEIGHT / 2 - 100..HEIGHT / 2,
        );
        ys.into_iter().any(|y| xs.clone().any(|x| is_text(p, x, y)))
    });
    // Typed into the path field (again if the keys were lost on a busy machine: Ctrl+A first
    // replaces what a lost attempt left).
    s.wait_for("the script's message in the title", START_TIMEOUT, |s| {
        if !s.title(&window).contains("script from the menu") {
            s.xdotool(&["windowfocus", "--sync", &window]);
            s.xdotool(&["key", "ctrl+a"]);
            s.xdotool(&["type", "--delay", "20", script.to_str().unwrap()]);
            s.xdotool(&["key", "Return"]);
            std::thread::sleep(Duration::from_millis(2000));
        }
        s.title(&window)
            .contains("script from the menu")
            .then_some(())
    });
    let boxed = s.wait_picture(&window, "the script's box", |p| {
        p.pixel(30 * SCALE, 30 * SCALE) != backdrop
    });
    assert_eq!(boxed.pixel(30 * SCALE, 30 * SCALE), [255, 0, 0]);
    assert_eq!(boxed.pixel(100 * SCALE, 100 * SCALE), backdrop);
    s.quit(&window);
}

/// Video > Palette file (.pal)...: a 64-colour file whose colours are all one green gives a
/// green picture at once, is saved in the config and used at the next start; Video > Built-in
/// palette gives the first colours back.
fn palette_scenario() {
    let (mut s, window, backdrop) = buttons_without_messages();
    let green = [10, 200, 30];
    let pal = s.dir.join("green.pal");
    std::fs::write(&pal, green.repeat(64)).unwrap();
    let config = s.dir.join("config/nestor/config.toml");
    // Video: 1x-4x, 8:7 pixels, Fullscreen, NTSC filter, Scanlines, On-screen messages, Frame
    // counter, Built-in palette, Palette file (.pal)...
    s.click_menu(&window, 2, |lines| lines.len() - 1);
    s.wait_for("the green palette", START_TIMEOUT, |s| {
        if s.screenshot(&window).uniform() != Some(green) {
            s.xdotool(&["windowfocus", "--sync", &window]);
            s.xdotool(&["key", "ctrl+a"]);
            s.xdotool(&["type", "--delay", "20", pal.to_str().unwrap()]);
            s.xdotool(&["key", "Return"]);
            std::thread::sleep(Duration::from_millis(2000));
        }
        (s.screenshot(&window).uniform() == Some(green)).then_some(())
    });
    let saved = format!("palette = \"{}\"", pal.display());
    s.wait_file(&config, "the palette saved", |text| text.contains(&saved));
    s.quit(&window);

    s.launch();
    let window = s.window();
    s.wait_picture(&window, "the palette from the config", |p| {
        p.width == WIDTH && p.uniform() == Some(green)
    });
    s.click_menu(&window, 2, |_| 10);
    s.wait_file(&config, "the built-in palette saved", |text| {
        text.contains("palette = \"\"")
    });
    s.xdotool(&["mousemove", "--window", &window, "400", "600"]);
    s.wait_picture(&window, "the built-in colours", |p| {
        p.uniform() == Some(backdrop)
    });
    s.quit(&window);
}

/// Video > Scanlines: at 3x, every third row of the window is the picture at half brightness;
/// switched off, the picture is what it was.
fn scanlines_scenario() {
    let (mut s, window, backdrop) = buttons_without_messages();
    let config = s.dir.join("config/nestor/config.toml");
    let dark = backdrop.map(|c| c / 2);
    let toggle = |s: &mut Session, on: bool| {
        // Video: 1x-4x, 8:7 pixels, Fullscreen, NTSC filter, Scanlines.
        s.click_menu(&window, 2, |_| 7);
        let want = format!("scanlines = {on}");
        s.wait_file(&config, &want, |text| text.contains(&want));
        s.xdotool(&["mousemove", "--window", &window, "400", "600"]);
    };
    toggle(&mut s, true);
    s.wait_picture(&window, "scanlines", |p| {
        (0..HEIGHT).all(|y| {
            let want = if y % SCALE == SCALE - 1 {
                dark
            } else {
                backdrop
            };
            (0..WIDTH).step_by(7).all(|x| p.pixel(x, y) == want)
        })
    });
    toggle(&mut s, false);
    s.wait_picture(&window, "no scanlines", |p| p.uniform() == Some(backdrop));
    s.quit(&window);
}

/// Audio > Device: a device named in the config that cannot be opened gives way to the default
/// one with one line on stderr; the submenu lists the host's devices, and Default chosen there
/// is saved in the config.
fn audio_device_scenario() {
    let dir = std::env::temp_dir().join(format!("nestor-audio-dev-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let pulse = Pulse::start(&dir);
    let mut s = Session::start(&button_colour_rom());
    s.pulse = Some(pulse);
    let config = s.dir.join("config/nestor/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "[audio]\ndevice = \"no such device\"\n").unwrap();
    s.launch();
    let window = s.window();
    s.wait_title(&window, " fps");
    let stderr = s.stderr();
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("nestor")).collect();
    assert_eq!(
        lines,
        ["nestor: sound: no audio output device \"no such device\"; the default device plays"],
        "{stderr}"
    );

    // Audio: Mute, Volume down, Volume up, Volume %, Device.
    let (_, sub_left, line) = s.open_submenu(&window, 3, |lines| lines.len() - 1);
    let devices = s.click_in_submenu(&window, sub_left, line, |_| 0);
    println!("audio devices: {} lines", devices.len());
    assert!(
        devices.len() >= 2,
        "Default and the host's devices: {devices:?}"
    );
    s.wait_file(&config, "the default device saved", |text| {
        text.contains("device = \"\"")
    });
    s.wait_title(&window, "sound device: default");
    s.close_menus(&window);
    s.quit(&window);
    assert!(!s.stderr().contains("no sound"), "{}", s.stderr());
}

/// AI > Profile and AI > Tap rate: the choice goes to the player at once and into the config,
/// and the next start gives the player the config's.
fn ai_style_scenario() {
    let mut s = Session::start(&button_colour_rom());
    let player = ["--player", "right"].map(OsStr::new);
    s.launch_args(&s.dir.join("buttons.nes"), &player);
    let window = s.window();
    s.wait_title(&window, "buttons.nes - 100%");
    let config = s.dir.join("config/nestor/config.toml");
    assert!(!s.stderr().contains("right player"), "{}", s.stderr());

    // AI: AI plays, Outline, Panel, Profile, Tap rate; the profiles: classic, strong.
    s.click_submenu(&window, 5, |_| 3, |_| 0);
    s.wait_title(&window, "AI profile classic");
    s.wait_file(&config, "the profile saved", |text| {
        text.contains("profile = \"classic\"")
    });
    assert!(s.stderr().contains("right player: classic at 30 Hz"));
    // The tap rates: 30, 15.
    s.click_submenu(&window, 5, |_| 4, |_| 1);
    s.wait_title(&window, "AI taps 15 times a second");
    s.wait_file(&config, "the tap rate saved", |text| {
        text.contains("tap_hz = 15")
    });
    s.quit(&window);

    s.launch_args(&s.dir.join("buttons.nes"), &player);
    let window = s.window();
    s.wait_title(&window, "buttons.nes - 100%");
    assert!(
        s.stderr().contains("right player: classic at 15 Hz"),
        "{}",
        s.stderr()
    );
    s.quit(&window);
}

/// Types a path into the file browser that has the keyboard (again if the keys were lost on a
/// busy machine: Ctrl+A first replaces what a lost attempt left) until the title says `done`.
fn type_path(s: &mut Session, window: &str, path: &str, done: &str) -> String {
    s.wait_for(&format!("{done:?} in the title"), START_TIMEOUT, |s| {
        if !s.title(window).contains(done) {
            s.xdotool(&["windowfocus", "--sync", window]);
            s.xdotool(&["key", "ctrl+a"]);
            s.xdotool(&["type", "--delay", "20", path]);
            s.xdotool(&["key", "Return"]);
            std::thread::sleep(Duration::from_millis(2000));
        }
        Some(s.title(window)).filter(|t| t.contains(done))
    })
}

/// Tools > Record movie, Stop movie and Play movie: a recording from power-on of Right pressed,
/// written as an FCEUX movie; played back, it powers the game on and presses Right again over
/// what the keyboard did; recording refuses while a cheat is on.
fn movie_menu_scenario() {
    let mut s = Session::start(&button_colour_rom());
    s.launch();
    let window = s.window();
    s.wait_title(&window, "buttons.nes - 100%");
    let start = s.wait_picture(&window, "the first frame", |p| p.uniform().is_some());
    let movie = s.dir.join("right.fm2");
    // Tools: Cheats..., Screenshot, Record video, Record movie..., Play movie..., ...
    s.click_menu(&window, 6, |_| 3);
    type_path(&mut s, &window, movie.to_str().unwrap(), "recording movie");
    s.hold(&window, "Right");
    let right = s.wait_picture(&window, "Right's colour", |p| {
        p.uniform().is_some_and(|c| c != start.pixel(0, 0))
    });
    let right = right.uniform().unwrap();
    // ..., Play movie..., Stop movie, recording <file>, Open Lua script...
    s.click_menu(&window, 6, |_| 5);
    let title = s.wait_title(&window, "movie saved");
    assert!(title.contains("right.fm2"), "{title}");
    let text = std::fs::read_to_string(&movie).unwrap();
    let recorded = movie::Movie::parse(&text).unwrap();
    let presses = recorded.frames.iter().filter(|f| f.pads[0] != 0).count();
    assert!(
        presses >= 5,
        "Right held for a quarter second: {presses} frames"
    );

    // Up over it from the keyboard, then the movie: power-on, then Right.
    s.hold(&window, "Up");
    s.wait_picture(&window, "Up's colour", |p| {
        p.uniform().is_some_and(|c| c != right)
    });
    s.click_menu(&window, 6, |_| 4);
    type_path(&mut s, &window, movie.to_str().unwrap(), "playing movie");
    s.wait_picture(&window, "the movie pressing Right", |p| {
        p.uniform() == Some(right)
    });
    s.wait_title(&window, "ran out");
    s.quit(&window);

    // With a cheat on, no recording.
    std::fs::write(s.dir.join("buttons.cht"), "0000:16:colour\n").unwrap();
    s.launch();
    let window = s.window();
    s.wait_title(&window, "buttons.nes - 100%");
    let refused = s.dir.join("refused.fm2");
    s.click_menu(&window, 6, |_| 3);
    type_path(&mut s, &window, refused.to_str().unwrap(), "cheats are on");
    assert!(!refused.exists());
    s.quit(&window);
}

/// A state saved in slot 1 keeps a small picture of its frame beside it, and Emulation > Load
/// state shows it beside the slot.
fn thumbnail_scenario() {
    let (mut s, window, backdrop) = buttons_without_messages();
    s.hold(&window, "Up");
    let saved = s.wait_picture(&window, "Up's colour", |p| {
        p.uniform().is_some_and(|c| c != backdrop)
    });
    let a = saved.uniform().unwrap();
    s.key(&window, "shift+F1");
    let picture = s.dir.join("data/nestor/states/buttons.1.state.png");
    s.wait_for("the slot's picture", STEP_TIMEOUT, |_| {
        picture.is_file().then_some(())
    });
    let small = Image::from_png(&std::fs::read(&picture).unwrap());
    assert_eq!(
        (small.width, small.height, small.uniform()),
        (64, 60, Some(a))
    );
    // Another colour in the game, so that the slot's picture stands out.
    s.hold(&window, "Right");
    s.wait_picture(&window, "Right's colour", |p| {
        p.uniform().is_some_and(|c| c != a)
    });

    // Emulation: ..., Save state, Load state.
    let (open, sub_left, _) = s.open_submenu(&window, 1, |lines| lines.len() - 1);
    let shown: Vec<(usize, usize)> = (0..open.height)
        .flat_map(|y| (sub_left..open.width).map(move |x| (x, y)))
        .filter(|&(x, y)| open.pixel(x, y) == a)
        .collect();
    // 48x45 points, edges blended with the menu.
    assert!(
        (1800..=2200).contains(&shown.len()),
        "the picture in the menu: {} pixels of the saved colour",
        shown.len()
    );
    s.close_menus(&window);
    s.quit(&window);
}

/// Writes vaus-test's `control_type` and marker column (`indicator_x`, the knob's reading
/// inverted), $19 and $1C, to OUT every frame.
const VAUS_SCRIPT: &str = r#"
while true do
  local f = io.open("OUT", "w")
  f:write(memory.readbyte(0x19) .. " " .. memory.readbyte(0x1C))
  f:close()
  emu.frameadvance()
end
"#;

/// A Vaus in port 2 from the config: a left click is its button (vaus-test then takes the
/// Vaus), and the mouse's column turns its knob.
fn vaus_scenario() {
    let rom = std::fs::read(testrom::location::path("vaus-test/vaus-test.nes")).unwrap();
    let mut s = Session::start(&rom);
    let config = s.dir.join("config/nestor/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        config,
        "[video]\nmessages = false\n[input]\nport2 = \"vaus\"\n",
    )
    .unwrap();
    let (script, out) = (s.dir.join("vaus.lua"), s.dir.join("vaus.txt"));
    let source = VAUS_SCRIPT.replace("OUT", out.to_str().unwrap());
    std::fs::write(&script, source).unwrap();
    s.launch_with(&s.dir.join("buttons.nes"), &[script]);
    let window = s.window();
    // The middle of NES pixel column `x`, halfway down the picture.
    let at = |x: u8| {
        (
            (usize::from(x) * SCALE + 1).to_string(),
            (HEIGHT / 2).to_string(),
        )
    };
    let marker = |x: u8| format!("3 {}", !nes::vaus::Vaus::knob_at(x));

    let (x, y) = at(40);
    s.xdotool(&["mousemove", "--sync", "--window", &window, &x, &y]);
    // Held until the game, which may still be starting, has seen it.
    s.xdotool(&["mousedown", "1"]);
    s.wait_file(
        &out,
        "vaus-test to take the Vaus, its marker at column 40",
        |t| t == marker(40),
    );
    s.xdotool(&["mouseup", "1"]);
    let (x, y) = at(200);
    s.xdotool(&["mousemove", "--sync", "--window", &window, &x, &y]);
    s.wait_file(&out, "the marker to follow the mouse to column 200", |t| {
        t == marker(200)
    });
    s.quit(&window);
}
