//! The window's event loop: pacing, controls, and the glue between console, picture, sound and
//! input.

use crate::audio::Audio;
use crate::bindings::{Hotkey, Shortcut};
use crate::config::Config;
use crate::files;
use crate::input::Input;
use crate::ntsc::Ntsc;
use crate::ui::{Action, Gui, Purpose, View};
use crate::video::{fitting_scale, picture_size, Video};
use lua::{HostInput, Scripts, SpeedMode, Stream};
use nes::ppu::palette::Palette;
use nes::ppu::{HEIGHT, WIDTH};
use nes::{Cartridge, Console};
use session::cheats::{Cheat, CheatList};
use session::movies::Movies;
use session::video_recording::VideoRecording;
use session::{Outline, Player, Session};
use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, KeyEvent, MouseButton, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, ModifiersState, PhysicalKey};
use winit::window::{Fullscreen, Window, WindowId};

/// NTSC frame rate: the 2C02's 5.369318 MHz dot clock over 89341.5 dots per frame (one dot is
/// skipped on odd frames while rendering). The window paces a PAL or Dendy console to
/// [`nes::Region::frame_rate`] instead.
pub const FRAME_RATE: f64 = 60.098_814;
/// Speeds the speed key (T) cycles through.
const SPEEDS: [f64; 3] = [1.0, 2.0, 0.5];
/// Speed while Tab is held.
const FAST_FORWARD: f64 = 4.0;
/// Most frames run at one wake-up to catch up; further behind (a slow machine, a stall), the
/// emulator drops the debt instead of racing.
const MAX_LAG_FRAMES: u32 = 8;
/// How many ROMs File > Recent ROMs keeps.
const RECENT_ROMS: usize = 8;
/// How long a status message stays in the title and on the screen.
const MESSAGE_TIME: Duration = Duration::from_secs(3);
/// A save state's picture beside it is the frame shrunk this many times each way (64x60).
const THUMBNAIL_SHRINK: usize = 4;
/// Colour of the AI's planned-placement outline.
const OUTLINE_RGB: [u8; 3] = [255, 40, 200];

/// A ROM to play: the name shown in the title and used for state and screenshot files.
pub struct Rom {
    pub name: String,
    pub bytes: Vec<u8>,
    /// The file it was read from (its cheats are in the `.cht` file beside it).
    pub path: Option<PathBuf>,
}

impl Rom {
    pub fn from_file(path: &Path) -> Result<Rom, String> {
        let bytes = files::read_rom(path)?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into(),
        );
        Ok(Rom {
            name,
            bytes,
            path: Some(path.to_path_buf()),
        })
    }

    /// FCEUX's cheat file for the ROM: beside it, or for a ROM without a file in
    /// `<data dir>/cheats`.
    fn cheat_path(&self) -> Option<PathBuf> {
        match &self.path {
            Some(path) => Some(path.with_extension("cht")),
            None => files::data_dir().map(|dir| dir.join("cheats").join(self.stem() + ".cht")),
        }
    }

    /// File-name stem for states and screenshots.
    fn stem(&self) -> String {
        files::safe_stem(&self.name)
    }
}

pub struct Options {
    pub rom: Rom,
    pub ai: Option<Box<dyn Player>>,
    /// Whether the AI plays from the start.
    pub ai_enabled: bool,
    /// The AI's profile and tap rate for this run, instead of the config's (`--ai PROFILE`,
    /// `--tap-hz`).
    pub ai_profile: Option<String>,
    pub ai_tap_hz: Option<u32>,
    /// FCEUX Lua scripts run on the window's frames, beside the AI.
    pub lua: Vec<PathBuf>,
    /// Bytes each script may allocate.
    pub lua_memory: usize,
    /// Scripts run in the sandbox (so do they when the config's `lua.sandbox` is set).
    pub lua_sandbox: bool,
    /// An FCEUX movie to play back (its input replaces the keyboard's while it lasts).
    pub movie: Option<PathBuf>,
    /// Frames the picture is shown ahead of the machine (run-ahead, 0-4), instead of the
    /// config's.
    pub run_ahead: Option<u8>,
    /// The picture's scale when the window opens, instead of the config's.
    pub scale: Option<u32>,
    /// Game Genie codes plugged in from power-on, beside the ROM's `.cht` cheats (not into
    /// ROMs opened later in the window).
    pub game_genie: Vec<String>,
    /// A video file to record into from the start (`--record-video`).
    pub record_video: Option<PathBuf>,
    /// Config file; `None` is `<config dir>/nestor/config.toml`.
    pub config_path: Option<PathBuf>,
    /// The console to run ROMs on, instead of the config's (`--region`).
    pub region: Option<nes::Region>,
    /// The devices in controller ports 1 and 2 and whether a Four Score takes both, instead
    /// of the config's (`--port1`, `--port2`, `--four-score`).
    pub port1: Option<nes::Device>,
    pub port2: Option<nes::Device>,
    pub four_score: Option<bool>,
}

impl Options {
    pub fn new(rom: Rom) -> Options {
        Options {
            rom,
            ai: None,
            ai_enabled: false,
            ai_profile: None,
            ai_tap_hz: None,
            lua: Vec::new(),
            lua_memory: 1 << 30,
            lua_sandbox: false,
            movie: None,
            run_ahead: None,
            scale: None,
            game_genie: Vec::new(),
            record_video: None,
            config_path: None,
            region: None,
            port1: None,
            port2: None,
            four_score: None,
        }
    }
}

#[derive(Debug)]
pub enum RunError {
    /// No display to open a window on.
    NoDisplay(String),
    BadRom(String),
    /// Options that do not fit together (the command line's with the config's).
    Options(String),
    /// The window or the renderer could not be set up.
    Window(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::NoDisplay(why) => write!(
                f,
                "cannot open a window: {why} (no display? use --headless to run without one)"
            ),
            RunError::BadRom(why) | RunError::Options(why) => write!(f, "{why}"),
            RunError::Window(why) => write!(f, "cannot open a window: {why}"),
        }
    }
}

impl std::error::Error for RunError {}

/// Opens the window and plays until the user quits (File > Quit, Ctrl+Q or closing the window,
/// exit status 0)
/// or a Lua script ends the program (`emu.exit`, `os.exit(n)`); returns the exit status.
pub fn run(options: Options) -> Result<i32, RunError> {
    let cart = Cartridge::from_ines(&options.rom.bytes)
        .map_err(|e| RunError::BadRom(format!("{}: {e}", options.rom.name)))?;
    let mut cheats = load_cheats(&options.rom);
    for code in &options.game_genie {
        cheats
            .cheats
            .push(Cheat::game_genie(code).map_err(RunError::BadRom)?);
    }
    let event_loop = EventLoop::new().map_err(|e| RunError::NoDisplay(without_location(e)))?;
    let config_path = options.config_path.clone().or_else(Config::default_path);
    let mut config = match &config_path {
        Some(path) => Config::load_or_create(path),
        None => Config::default(),
    };
    // For this run only: the file keeps its own scale and region.
    if let Some(scale) = options.scale {
        config.video.scale = scale;
    }
    if let Some(region) = options.region {
        config.emulation.region = region.key().into();
    }
    if let Some(device) = options.port1 {
        config.input.port1 = device.name().into();
    }
    if let Some(device) = options.port2 {
        config.input.port2 = device.name().into();
    }
    if let Some(four_score) = options.four_score {
        config.input.four_score = four_score;
    }
    // The file's devices were checked alone; with the command line's they must fit too.
    config.input.devices().map_err(RunError::Options)?;
    let console = plug_in(cart, &options.rom.name, &config);
    let movies = Movies::open(
        options.movie.as_deref(),
        None,
        &options.rom.stem(),
        &console,
    )
    .map_err(|e| RunError::BadRom(format!("{e:#}")))?;
    if let Err(err) = session::signals::catch() {
        eprintln!("nestor: {err}");
    }
    let record_video = options.record_video.clone();
    let mut app = App::new(options, console, config, config_path);
    app.session.set_movies(movies);
    app.session.set_cheats(cheats);
    if let Some(path) = record_video {
        app.start_recording(path);
    }
    let result = event_loop.run_app(&mut app);
    // Every way out (quit, closing the window, a signal) writes the video file.
    app.stop_recording();
    // A game stopped by a failure of nestor's is an error, even once the window is closed.
    let status = app
        .exit_status
        .unwrap_or(if app.crashed.is_some() { 2 } else { 0 });
    if let Err(err) = app.session.finish(true) {
        eprintln!("nestor: {err:#}");
    }
    result.map_err(|e| RunError::Window(e.to_string()))?;
    app.error.map_or(Ok(status), Err)
}

struct App {
    rom: Rom,
    session: Session,
    overlay_enabled: bool,
    /// First lines of the errors scripts reported since the last frame (for the title).
    lua_errors: Rc<RefCell<Vec<String>>>,
    /// Mouse position in NES pixels and the buttons held, for `input.get`.
    mouse: (i32, i32),
    mouse_buttons: HashSet<&'static str>,
    /// Mouse buttons pressed since the last frame took its input: a click shorter than a
    /// frame still reaches the game, for one frame.
    mouse_clicks: HashSet<&'static str>,
    /// The NES pixel under the mouse, None off the picture: where a Zapper aims.
    mouse_pixel: Option<(u8, u8)>,
    exit_status: Option<i32>,
    config: Config,
    /// Where settings changed in the window are saved (`None`: nowhere).
    config_path: Option<PathBuf>,
    palette: Palette,
    /// The NTSC filter, made the first time it is switched on.
    ntsc: Option<Ntsc>,
    window: Option<Arc<Window>>,
    video: Option<Video>,
    gui: Gui,
    audio: Option<Audio>,
    input: Input,
    modifiers: ModifiersState,
    paused: bool,
    /// Why the game stopped for good: nestor failed inside a frame (a bug of its own).
    crashed: Option<String>,
    speed: usize,
    fast_forward: bool,
    /// Backspace is held: frames run backwards through the rewind ring.
    rewinding: bool,
    next_frame: Instant,
    message: Option<(String, Instant)>,
    title: String,
    /// Frames emulated per second, measured over the last second.
    fps: Option<f64>,
    fps_frames: u32,
    fps_since: Instant,
    /// The frame as packed RGB at the NES's resolution (what F12 saves).
    rgb: Vec<u8>,
    /// The video being recorded (Shift+F12, `--record-video`).
    recording: Option<VideoRecording>,
    /// What scripts opened from the menu get: memory, the sandbox.
    lua_memory: usize,
    lua_sandbox: bool,
    /// The last script opened from the menu (its folder is where the browser opens next).
    last_script: Option<PathBuf>,
    /// The last movie recorded or played from the menu (likewise).
    last_movie: Option<PathBuf>,
    /// The output devices the sound host listed when the Audio menu was last opened.
    audio_devices: Vec<String>,
    error: Option<RunError>,
}

impl App {
    fn new(
        options: Options,
        console: Console,
        config: Config,
        config_path: Option<PathBuf>,
    ) -> App {
        let audio = match Audio::open_or_default(&config.audio.device) {
            Ok((audio, fallback)) => {
                if let Some(why) = fallback {
                    eprintln!("nestor: sound: {why}");
                }
                Some(with_sound_settings(audio, &config))
            }
            Err(err) => {
                eprintln!("nestor: no sound ({err}); playing silently");
                None
            }
        };
        let lua_errors = Rc::new(RefCell::new(Vec::new()));
        let mut session = Session::new(console);
        session.open_battery(&options.rom.name);
        let rewind = config.emulation.rewind_mib as usize;
        session.set_rewind((rewind > 0).then_some(rewind << 20));
        let run_ahead = options.run_ahead.unwrap_or(config.emulation.run_ahead);
        if let Err(err) = session.set_run_ahead(run_ahead) {
            eprintln!("nestor: {err}; run-ahead is off");
        }
        if let Some(ai) = options.ai {
            session.set_player(ai, options.ai_enabled);
            let profile = options.ai_profile.unwrap_or(config.ai.profile.clone());
            let tap_hz = options.ai_tap_hz.unwrap_or(config.ai.tap_hz);
            if let Err(err) = restyle_player(&mut session, Some(profile), Some(tap_hz)) {
                eprintln!("nestor: config: AI: {err}; it plays as before");
            }
        }
        let lua_sandbox = options.lua_sandbox || config.lua.sandbox;
        let builtin = Palette::for_region(session.console().region());
        let palette = match config.video.palette.as_str() {
            "" => builtin,
            path => read_palette(Path::new(path)).unwrap_or_else(|err| {
                eprintln!("nestor: {err}; the built-in palette is used");
                builtin
            }),
        };
        if !options.lua.is_empty() {
            let (console, rom) = (session.console_mut(), &options.rom);
            let errors = lua_errors.clone();
            let scripts = load_scripts(
                rom,
                console,
                &options.lua,
                options.lua_memory,
                lua_sandbox,
                errors,
            );
            session.set_scripts(scripts);
        }
        App {
            rom: options.rom,
            session,
            overlay_enabled: false,
            lua_errors,
            mouse: (0, 0),
            mouse_buttons: HashSet::new(),
            mouse_clicks: HashSet::new(),
            mouse_pixel: None,
            exit_status: None,
            config,
            config_path,
            palette,
            ntsc: None,
            window: None,
            video: None,
            gui: Gui::new(),
            audio,
            input: Input::new(),
            modifiers: ModifiersState::empty(),
            paused: false,
            crashed: None,
            speed: 0,
            fast_forward: false,
            rewinding: false,
            next_frame: Instant::now(),
            message: None,
            title: String::new(),
            fps: None,
            fps_frames: 0,
            fps_since: Instant::now(),
            rgb: Vec::new(),
            recording: None,
            lua_memory: options.lua_memory,
            lua_sandbox,
            last_script: options.lua.last().cloned(),
            last_movie: options.movie.clone(),
            audio_devices: Vec::new(),
            error: None,
        }
    }

    fn speed(&self) -> f64 {
        if self.fast_forward {
            FAST_FORWARD
        } else {
            SPEEDS[self.speed]
        }
    }

    fn frame_period(&self) -> Duration {
        let rate = self.session.console().region().frame_rate();
        Duration::from_secs_f64(1.0 / (rate * self.speed()))
    }

    /// Lua scripts are loaded and running: they run the frames.
    fn scripting(&self) -> bool {
        self.session.scripts().is_some_and(Scripts::active)
    }

    /// `emu.speedmode` other than normal: frames run as fast as the machine can.
    fn unthrottled(&self) -> bool {
        self.scripting()
            && self
                .session
                .scripts()
                .is_some_and(|s| s.speed_mode() != SpeedMode::Normal)
    }

    /// Paused by the user or by a script's `emu.pause()`, or stopped by a failure.
    fn halted(&self) -> bool {
        self.paused || self.crashed.is_some() || self.session.scripts().is_some_and(Scripts::paused)
    }

    /// One frame forwards, or backwards while Backspace is held.
    fn next_frame_or_back(&mut self) {
        if !self.rewinding {
            return self.emulate_frame();
        }
        if self.session.rewind() {
            if let Some(window) = &self.window {
                window.request_redraw();
            }
        } else {
            let why = if self.session.movies().active() {
                "no rewind while a movie plays"
            } else {
                "rewind: no older frame kept"
            };
            self.show(why.into());
            self.rewinding = false;
        }
    }

    /// Runs one frame of the session with the players' buttons; its sound goes out.
    fn emulate_frame(&mut self) {
        let config = &self.config;
        let bindings = [
            &config.player1,
            &config.player2,
            &config.player3,
            &config.player4,
        ];
        let frame = self.session.console().frame_number();
        let pads = [0, 1, 2, 3].map(|player| {
            self.input
                .buttons(player, bindings[player], &config.input, frame)
        });
        self.input.frame_taken();
        self.session.set_pads(pads);
        // The left button pulls a Zapper's trigger where the mouse is, the right one away from
        // the screen (a shot off the picture); either is a Vaus's button.
        let down = |name| self.mouse_buttons.contains(name) || self.mouse_clicks.contains(name);
        let off_screen = down("rightclick");
        let aim = self.mouse_pixel.filter(|_| !off_screen);
        self.session
            .set_pointer(aim, off_screen || down("leftclick"));
        self.mouse_clicks.clear();
        if let Some(audio) = &self.audio {
            self.session.set_sample_rate(audio.steered_rate());
        }
        if let Some((scripts, _)) = self.session.scripts_mut() {
            scripts.set_input(HostInput {
                keys: self
                    .input
                    .fceux_key_names()
                    .chain(self.mouse_buttons.iter().map(|b| b.to_string()))
                    .collect(),
                mouse: self.mouse,
            });
        }
        if self.crashed.is_some() {
            return;
        }
        if let Err(err) = testrom::contain_panics(|| self.session.frame()) {
            return self.stop_after_crash(err.to_string());
        }
        self.after_scripts();
        self.record_frame();
        for message in self.session.take_messages() {
            self.message = Some((message, Instant::now()));
        }
        self.fps_frames += 1;
        // Sound only at normal speed; faster or slower it would be noise.
        if self.speed() == 1.0 {
            if let Some(audio) = &mut self.audio {
                audio.push(self.session.samples());
            }
        }
        if let Some(window) = &self.window {
            window.request_redraw();
        }
    }

    /// nestor failed in the middle of a frame: the game can't go on, but what it saved and
    /// what was recorded are written now, and the window stays to say what happened.
    fn stop_after_crash(&mut self, failure: String) {
        eprintln!("nestor: {failure}; the game is stopped");
        self.stop_recording();
        let finished = testrom::contain_panics(|| self.session.finish(true));
        if let Ok(Err(err)) = finished {
            eprintln!("nestor: {err:#}");
        }
        self.crashed = Some(failure);
        if let Some(window) = &self.window {
            window.request_redraw();
        }
    }

    /// What the scripts asked of the window during the frame: messages, errors, screenshots,
    /// the end of the program.
    fn after_scripts(&mut self) {
        let Some((scripts, _)) = self.session.scripts_mut() else {
            return;
        };
        let messages = scripts.take_messages();
        let screenshots = scripts.take_screenshot_requests();
        self.exit_status = self.exit_status.or(scripts.exit_code());
        let errors = std::mem::take(&mut *self.lua_errors.borrow_mut());
        for message in messages {
            self.message = Some((message, Instant::now()));
        }
        if let Some(error) = errors.last() {
            self.message = Some((format!("Lua: {error}"), Instant::now()));
        }
        for path in screenshots {
            let png = files::encode_png(&self.picture(), WIDTH as u32, HEIGHT as u32);
            if let Err(err) = files::write_atomic(Path::new(&path), &png) {
                self.show(format!("screenshot failed: {path}: {err}"));
            }
        }
    }

    fn show(&mut self, message: String) {
        println!("nestor: {message}");
        self.message = Some((message, Instant::now()));
    }

    fn update_title(&mut self) {
        let elapsed = self.fps_since.elapsed();
        if elapsed >= Duration::from_secs(1) {
            self.fps = Some(f64::from(self.fps_frames) / elapsed.as_secs_f64());
            self.fps_frames = 0;
            self.fps_since = Instant::now();
        }
        let mut title = format!("nestor - {}", self.rom.name);
        if let Some(failure) = &self.crashed {
            title += &format!(" - stopped: {failure}");
        } else if self.halted() {
            title += " - paused";
        } else {
            if self.rewinding {
                title += " - rewinding";
            } else if self.fast_forward {
                title += " - fast-forward";
            } else {
                title += &format!(" - {}%", (self.speed() * 100.0).round());
            }
            if let Some(fps) = self.fps {
                title += &format!(" - {fps:.0} fps");
            }
        }
        if self.session.player_on() {
            title += " - AI";
        }
        if self.recording.is_some() {
            title += " - recording video";
        }
        // Shown because run-ahead changes what a player sees (speedrun boards ask for it).
        if self.session.run_ahead_frames() > 0 {
            title += &format!(" - run-ahead {}", self.session.run_ahead_frames());
        }
        if let Some((message, since)) = &self.message {
            if since.elapsed() < MESSAGE_TIME {
                title += " - ";
                title += message;
            } else {
                self.message = None;
            }
        }
        if title != self.title {
            if let Some(window) = &self.window {
                window.set_title(&title);
            }
            self.title = title;
        }
    }

    /// The frame as packed RGB with the scripts' drawing over it.
    fn picture(&mut self) -> Vec<u8> {
        if self.config.video.ntsc {
            let frame = self.session.console().frame_number();
            let ntsc = self.ntsc.get_or_insert_with(Ntsc::default);
            ntsc.filter(self.session.picture(), frame, &mut self.rgb);
        } else {
            self.palette.to_rgb(self.session.picture(), &mut self.rgb);
        }
        let mut picture = self.rgb.clone();
        if let Some(scripts) = self.session.scripts() {
            scripts.composite(&mut picture, 3);
        }
        picture
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let mut picture = self.picture();
        if self.overlay_enabled {
            for outline in self.session.overlay() {
                draw_outline(&mut picture, outline);
            }
        }
        let view = self.view();
        let (Some(window), Some(video)) = (&self.window, &mut self.video) else {
            return;
        };
        let (painted, actions, again) = self.gui.frame(window, &view);
        if let Err(err) = video.draw(&picture, self.config.video.scanlines, &painted) {
            eprintln!("nestor: drawing failed: {err}");
        }
        if again {
            window.request_redraw();
        }
        for action in actions {
            self.act(event_loop, action);
        }
    }

    /// What the menus and the on-screen display show.
    fn view(&self) -> View {
        let video = &self.config.video;
        let window = self.window.as_ref();
        let message = self.message.as_ref();
        View {
            paused: self.halted(),
            speed: self.speed,
            run_ahead: self.session.run_ahead_frames(),
            scale: window.map_or(video.scale, |w| {
                fitting_scale(w.inner_size(), video.pixel_aspect_8_7)
            }),
            aspect_8_7: video.pixel_aspect_8_7,
            fullscreen: window.is_some_and(|w| w.fullscreen().is_some()),
            volume: self.audio.as_ref().map(|a| a.volume),
            muted: self.audio.as_ref().is_some_and(|a| a.muted),
            audio_device: self.config.audio.device.clone(),
            audio_devices: self.audio_devices.clone(),
            ai: self.session.has_player().then(|| self.session.player_on()),
            ai_styles: self.session.player_styles(),
            overlay: self.overlay_enabled,
            scripts: self.session.scripts().is_some(),
            messages: video.messages,
            ntsc: video.ntsc,
            scanlines: video.scanlines,
            palette: video.palette.clone(),
            recording: self.recording.is_some(),
            movie: self.session.movie_status().map(|status| {
                let doing = match status.mode {
                    lua::MovieMode::Record => "recording",
                    _ => "playing",
                };
                format!("{doing} {}", status.name)
            }),
            slots: (1..=9)
                .map(|slot| {
                    let path = self.state_path(slot)?;
                    let saved = std::fs::metadata(&path).ok()?.modified().ok()?;
                    Some((saved, thumbnail_path(&path)))
                })
                .collect(),
            recent: self.config.files.recent.clone(),
            message: message
                .filter(|(_, since)| since.elapsed() < MESSAGE_TIME)
                .map(|(text, _)| text.clone()),
            counter: video.frame_counter.then(|| {
                let fps = self.fps.map_or("-".into(), |fps| format!("{fps:.0}"));
                let frame = self.session.console().frame_number();
                format!("{fps} fps  frame {frame}")
            }),
            config: self.gui.input_open().then(|| self.config.clone()),
            cheats: self.gui.cheats_open().then(|| {
                let file = self.rom.cheat_path();
                let file = file.map_or("no data directory".into(), |p| p.display().to_string());
                (self.session.cheats().cheats.clone(), file)
            }),
            ai_panel: self.session.has_player().then_some(self.config.ai.panel),
            panel_lines: if self.config.ai.panel {
                self.session.panel()
            } else {
                Vec::new()
            },
        }
    }

    /// The action a key stands for (the hotkeys held for a while, fast-forward and rewind, are
    /// not here).
    fn hotkey(&self, key: KeyCode) -> Option<Action> {
        let pressed = self.shortcut(key);
        let volume = |step: f32| {
            let volume = self.audio.as_ref()?.volume;
            Some(Action::Volume((volume + step).clamp(0.0, 1.0)))
        };
        let action = match self.config.hotkeys.find(pressed)? {
            Hotkey::Quit => Action::Quit,
            Hotkey::OpenRom => Action::BrowseRoms,
            Hotkey::Pause => Action::TogglePause,
            Hotkey::FrameAdvance => Action::FrameAdvance,
            Hotkey::Speed => Action::Speed((self.speed + 1) % SPEEDS.len()),
            Hotkey::PowerCycle => Action::PowerCycle,
            Hotkey::Reset => Action::Reset,
            Hotkey::Ai => Action::ToggleAi,
            Hotkey::Overlay => Action::ToggleOverlay,
            Hotkey::AiPanel => Action::ToggleAiPanel,
            Hotkey::FrameCounter => Action::ToggleFrameCounter,
            Hotkey::Mute => Action::ToggleMute,
            Hotkey::VolumeDown => volume(-0.1)?,
            Hotkey::VolumeUp => volume(0.1)?,
            Hotkey::Aspect => Action::ToggleAspect,
            Hotkey::Fullscreen => Action::ToggleFullscreen,
            Hotkey::Screenshot => Action::Screenshot,
            Hotkey::RecordVideo => Action::ToggleVideoRecording,
            Hotkey::SaveState(slot) => Action::SaveState(usize::from(slot)),
            Hotkey::LoadState(slot) => Action::LoadState(usize::from(slot)),
            Hotkey::FastForward | Hotkey::Rewind => return None,
        };
        Some(action)
    }

    /// A key pressed now, with the modifiers held.
    fn shortcut(&self, key: KeyCode) -> Shortcut {
        Shortcut {
            key,
            ctrl: self.modifiers.control_key(),
            shift: self.modifiers.shift_key(),
            alt: self.modifiers.alt_key(),
        }
    }

    /// The held hotkey (fast-forward or rewind) a key pressed now starts.
    fn hotkey_held(&self, key: KeyCode) -> Option<Hotkey> {
        self.config
            .hotkeys
            .find(self.shortcut(key))
            .filter(|h| matches!(h, Hotkey::FastForward | Hotkey::Rewind))
    }

    /// Does what a hotkey or a menu item asks.
    fn act(&mut self, event_loop: &ActiveEventLoop, action: Action) {
        match action {
            Action::BrowseRoms => {
                let last = self.config.files.recent.first();
                self.gui
                    .browse(last.and_then(|rom| Path::new(rom).parent()));
            }
            Action::OpenRom(path) => self.load_rom(&path),
            Action::Quit => event_loop.exit(),
            Action::TogglePause => {
                let halted = self.halted();
                if let Some((scripts, _)) = self.session.scripts_mut() {
                    scripts.unpause();
                }
                self.set_paused(!halted);
                self.show(if halted { "resumed" } else { "paused" }.into());
            }
            Action::FrameAdvance => {
                if self.halted() {
                    self.emulate_frame();
                } else {
                    self.set_paused(true);
                    self.show("paused".into());
                }
            }
            Action::Speed(speed) => {
                self.speed = speed.min(SPEEDS.len() - 1);
                self.show(format!("speed {}%", SPEEDS[self.speed] * 100.0));
            }
            Action::RunAhead(frames) => match self.session.set_run_ahead(frames) {
                Ok(()) => {
                    self.show(format!("run-ahead {frames}"));
                    self.save_setting(|config| config.emulation.run_ahead = frames);
                }
                Err(err) => self.show(err),
            },
            Action::Reset => {
                self.session.reset();
                self.show("reset".into());
            }
            Action::PowerCycle => {
                self.session.power_cycle();
                self.show("power cycled".into());
            }
            Action::SaveState(slot) => self.save_state(slot),
            Action::LoadState(slot) => self.load_state(slot),
            Action::Scale(scale) => self.set_scale(scale),
            Action::ToggleAspect => self.toggle_aspect(),
            Action::ToggleFullscreen => self.toggle_fullscreen(),
            Action::ToggleMute => {
                if let Some(audio) = &mut self.audio {
                    audio.muted = !audio.muted;
                    let muted = audio.muted;
                    self.show(if muted { "muted" } else { "sound on" }.into());
                    self.save_setting(|config| config.audio.muted = muted);
                }
            }
            Action::Volume(volume) => {
                if let Some(audio) = &mut self.audio {
                    audio.volume = volume.clamp(0.0, 1.0);
                    let volume = audio.volume;
                    self.show(format!("volume {}%", (volume * 100.0).round()));
                    self.save_setting(|config| config.audio.volume = volume);
                }
            }
            Action::ListAudioDevices => self.audio_devices = crate::audio::output_devices(),
            Action::AudioDevice(name) => self.set_audio_device(name),
            // The movie's input would be the AI's (`--movie` and `--ai` go apart too); once it
            // has run out, the AI may take over.
            Action::ToggleAi if self.movie_playing() && !self.session.player_on() => {
                self.show("no AI while a movie plays (Tools > Stop movie)".into())
            }
            Action::ToggleAi if self.session.has_player() => {
                let state = if self.session.toggle_player() {
                    "on"
                } else {
                    "off"
                };
                self.show(format!("AI {state}"));
            }
            Action::ToggleAi => self.show("no AI for this game".into()),
            Action::AiProfile(profile) => {
                match restyle_player(&mut self.session, Some(profile.clone()), None) {
                    Ok(()) => {
                        self.show(format!("AI profile {profile}"));
                        self.save_setting(|config| config.ai.profile = profile);
                    }
                    Err(err) => self.show(format!("AI: {err}")),
                }
            }
            Action::AiTapRate(hz) => match restyle_player(&mut self.session, None, Some(hz)) {
                Ok(()) => {
                    self.show(format!("AI taps {hz} times a second at most"));
                    self.save_setting(|config| config.ai.tap_hz = hz);
                }
                Err(err) => self.show(format!("AI: {err}")),
            },
            Action::ToggleOverlay => {
                self.overlay_enabled = !self.overlay_enabled;
                let state = if self.overlay_enabled { "on" } else { "off" };
                self.show(format!("AI overlay {state}"));
            }
            Action::Screenshot => self.screenshot(),
            Action::BrowsePalettes => {
                let palette = Path::new(&self.config.video.palette).parent();
                self.gui.browse_for(Purpose::Palette, palette);
            }
            Action::Palette(path) => self.set_palette(path),
            Action::BrowseScripts => {
                let dir = self.last_script.as_deref().and_then(Path::parent);
                self.gui.browse_for(Purpose::Script, dir);
            }
            Action::OpenScript(path) => self.open_script(path),
            Action::ToggleVideoRecording if self.recording.is_some() => self.stop_recording(),
            Action::ToggleVideoRecording => match files::data_dir() {
                Some(dir) => {
                    let dir = dir.join("videos");
                    if let Err(err) = std::fs::create_dir_all(&dir) {
                        self.show(format!("no video recording: {}: {err}", dir.display()));
                    } else {
                        let path = files::next_numbered_path(&dir, &self.rom.stem(), "mkv");
                        self.start_recording(path);
                    }
                }
                None => self.show("no video recording: no data directory".into()),
            },
            Action::BrowseMovies(record) => {
                let dir = match self.last_movie.as_deref().and_then(Path::parent) {
                    Some(dir) => Some(dir.to_path_buf()),
                    None => files::data_dir().map(|dir| dir.join("movies")),
                };
                if let Some(dir) = &dir {
                    // Where recordings go unless another folder is chosen.
                    let _ = std::fs::create_dir_all(dir);
                }
                let purpose = if record {
                    Purpose::RecordMovie
                } else {
                    Purpose::PlayMovie
                };
                self.gui.browse_for(purpose, dir.as_deref());
            }
            Action::RecordMovie(path) => self.record_movie(path),
            Action::PlayMovie(path) => self.play_movie(path),
            Action::StopMovie => self.stop_movie(),
            Action::StopScripts => {
                if let Some((scripts, console)) = self.session.scripts_mut() {
                    scripts.stop_all(console);
                    self.show("Lua scripts stopped".into());
                }
            }
            Action::ToggleMessages => {
                let on = !self.config.video.messages;
                self.save_setting(|config| config.video.messages = on);
                self.show(format!(
                    "on-screen messages {}",
                    if on { "on" } else { "off" }
                ));
            }
            Action::ToggleFrameCounter => {
                let on = !self.config.video.frame_counter;
                self.save_setting(|config| config.video.frame_counter = on);
            }
            Action::ToggleNtsc => {
                let on = !self.config.video.ntsc;
                self.save_setting(|config| config.video.ntsc = on);
                self.show(format!("NTSC filter {}", if on { "on" } else { "off" }));
            }
            Action::ToggleScanlines => {
                let on = !self.config.video.scanlines;
                self.save_setting(|config| config.video.scanlines = on);
                self.show(format!("scanlines {}", if on { "on" } else { "off" }));
            }
            Action::ToggleAiPanel => {
                let on = !self.config.ai.panel;
                self.save_setting(|config| config.ai.panel = on);
                self.show(format!("AI panel {}", if on { "on" } else { "off" }));
            }
            Action::OpenInput => self.gui.open_input(),
            Action::OpenCheats => self.gui.open_cheats(),
            Action::BrowseCheats => {
                let dir = self.rom.cheat_path();
                self.gui
                    .browse_for(Purpose::Cheats, dir.as_deref().and_then(Path::parent));
            }
            Action::AddCheat(code, name) => match Cheat::parse(&code, &name) {
                Ok(cheat) => {
                    let what = format!("cheat added: {}", cheat_label(&cheat));
                    self.change_cheats(|list| list.cheats.push(cheat), what);
                }
                Err(err) => self.show(format!("not a cheat: {err}")),
            },
            Action::ToggleCheat(i) => {
                if let Some(cheat) = self.session.cheats().cheats.get(i) {
                    let state = if cheat.enabled { "off" } else { "on" };
                    let what = format!("cheat {state}: {}", cheat_label(cheat));
                    self.change_cheats(|list| list.cheats[i].enabled ^= true, what);
                }
            }
            Action::RemoveCheat(i) => {
                if let Some(cheat) = self.session.cheats().cheats.get(i) {
                    let what = format!("cheat removed: {}", cheat_label(cheat));
                    self.change_cheats(|list| drop(list.cheats.remove(i)), what);
                }
            }
            Action::LoadCheats(path) => match CheatList::load(&path) {
                Ok(list) => {
                    let count = list.cheats.len();
                    self.change_cheats(|all| *all = list, format!("{count} cheats loaded"));
                }
                Err(err) => self.show(format!("cheats not loaded: {err}")),
            },
            Action::Bind(target, bound) => {
                let mut config = self.config.clone();
                match config.bind(target, bound) {
                    Ok(message) => {
                        self.save_setting(|c| *c = config);
                        self.show(message);
                    }
                    Err(err) => self.show(err),
                }
            }
            Action::Unbind(target) => self.save_setting(|config| config.unbind(target)),
            Action::TurboFrames(frames) => {
                self.save_setting(|config| config.input.turbo_frames = frames);
                let rate = self.config.input.turbo_hz();
                self.show(format!("turbo {rate:.0} presses a second"));
            }
            Action::Deadzone(deadzone) => {
                let deadzone = (deadzone * 100.0).round() / 100.0;
                self.save_setting(|config| config.input.deadzone = deadzone.clamp(0.1, 0.9));
            }
        }
        if let Some(window) = &self.window {
            window.request_redraw();
        }
    }

    /// A movie is being played and has frames left.
    fn movie_playing(&self) -> bool {
        let status = self.session.movie_status();
        status.is_some_and(|s| s.mode == lua::MovieMode::Playback)
    }

    /// Changes the game's cheats, which act at once and are saved in its `.cht` file.
    fn change_cheats(&mut self, change: impl FnOnce(&mut CheatList), what: String) {
        let mut list = self.session.cheats().clone();
        change(&mut list);
        let script_records = self.session.scripts().is_some_and(Scripts::recording_movie);
        if (self.session.movies().recording() || script_records) && cheats_act(&list) {
            return self.show(format!(
                "{what}: refused, a movie is being recorded and a movie cannot hold cheats"
            ));
        }
        let saved = match self.rom.cheat_path() {
            Some(path) => list.save(&path).map(|()| path.display().to_string()),
            None => Err("no data directory".into()),
        };
        self.session.set_cheats(list);
        match saved {
            Ok(path) => self.show(format!("{what} (saved in {path})")),
            Err(err) => self.show(format!("{what}; not saved: {err}")),
        }
    }

    /// Pausing or resuming restarts the clocks: no catching up on the time spent paused.
    fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
        self.next_frame = Instant::now();
        self.fps = None;
        self.fps_frames = 0;
        self.fps_since = Instant::now();
    }

    fn state_path(&self, slot: usize) -> Option<PathBuf> {
        files::state_path(&self.rom.name, slot as u32)
    }

    fn save_state(&mut self, slot: usize) {
        let Some(path) = self.state_path(slot) else {
            return self.show("cannot save the state: no data directory".into());
        };
        let message = match files::write_atomic(&path, &self.session.console().save_state()) {
            Ok(()) => {
                let picture = self.save_thumbnail(&path);
                match (self.save_script_data(slot, &path), picture) {
                    (Ok(()), Ok(())) => format!("saved state {slot}"),
                    (Err(err), _) => format!("saved state {slot}; Lua data not saved: {err}"),
                    (_, Err(err)) => format!("saved state {slot}; its picture not saved: {err}"),
                }
            }
            Err(err) => format!("state {slot} not saved: {}: {err}", path.display()),
        };
        self.show(message);
    }

    /// The picture shown (as a screenshot takes it), shrunk, as a PNG beside the state, for the
    /// state menus.
    fn save_thumbnail(&mut self, state: &Path) -> Result<(), String> {
        let small = shrink(&self.picture(), THUMBNAIL_SHRINK);
        let (width, height) = (WIDTH / THUMBNAIL_SHRINK, HEIGHT / THUMBNAIL_SHRINK);
        let png = files::encode_png(&small, width as u32, height as u32);
        let path = thumbnail_path(state);
        files::write_atomic(&path, &png).map_err(|err| format!("{}: {err}", path.display()))
    }

    /// Tools > Record movie: the game starts again from power-on and its input is recorded
    /// into `path` (`.fm2` added if it has another extension), as `--record` does; refused
    /// while cheats are on, which a movie cannot hold.
    fn record_movie(&mut self, path: PathBuf) {
        let fm2 = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("fm2"));
        let path = if fm2 {
            path
        } else {
            let mut name = path.into_os_string();
            name.push(".fm2");
            PathBuf::from(name)
        };
        self.last_movie = Some(path.clone());
        if cheats_act(self.session.cheats()) {
            return self.show(
                "no movie recorded: cheats are on and a movie cannot hold them \
                 (switch them off in Tools > Cheats)"
                    .into(),
            );
        }
        if let Err(err) = files::check_writable(&path) {
            return self.show(format!("no movie recorded: {}: {err}", path.display()));
        }
        self.stop_movie();
        let stem = self.rom.stem();
        match Movies::open(None, Some(&path), &stem, self.session.console()) {
            Ok(movies) => {
                self.session.start_movies(movies);
                self.set_paused(false);
                self.show(format!("recording movie {} from power-on", path.display()));
            }
            Err(err) => self.show(format!("no movie recorded: {err:#}")),
        }
    }

    /// Tools > Play movie: the movie's input replaces the keyboard's and the AI's from power-on,
    /// as `--movie` does; one that cannot be read is reported and the game goes on.
    fn play_movie(&mut self, path: PathBuf) {
        self.last_movie = Some(path.clone());
        let stem = self.rom.stem();
        match Movies::open(Some(&path), None, &stem, self.session.console()) {
            Ok(movies) => {
                self.stop_movie();
                let frames = movies.length().unwrap_or(0);
                if self.session.player_on() {
                    self.session.toggle_player();
                }
                self.session.start_movies(movies);
                self.set_paused(false);
                self.show(format!(
                    "playing movie {} ({frames} frames)",
                    path.display()
                ));
            }
            Err(err) => self.show(format!("movie not played: {err:#}")),
        }
    }

    /// Tools > Stop movie: a recording is written; the keyboard plays again.
    fn stop_movie(&mut self) {
        match self.session.stop_movies() {
            Ok(Some(done)) => self.show(done),
            Ok(None) => {}
            Err(err) => self.show(format!("movie not saved: {err:#}")),
        }
    }

    /// Plays the sound through the device named (empty: the default one), saved for the next
    /// start; one that cannot be opened is reported and the sound stays where it was.
    fn set_audio_device(&mut self, name: String) {
        // The device may be the one playing now: it is let go first.
        self.audio = None;
        match Audio::open(&name) {
            Ok(audio) => {
                self.audio = Some(with_sound_settings(audio, &self.config));
                let shown = if name.is_empty() { "default" } else { &name };
                self.show(format!("sound device: {shown}"));
                self.save_setting(|config| config.audio.device = name);
            }
            Err(err) => {
                let device = &self.config.audio.device;
                self.audio = Audio::open_or_default(device)
                    .ok()
                    .map(|(audio, _)| with_sound_settings(audio, &self.config));
                self.show(format!("sound device not changed: {err}"));
            }
        }
    }

    /// What the scripts' `savestate.registersave` callbacks return for a slot goes into the
    /// `.luasav` file beside its state; a slot saved without any drops the old file, so a later
    /// load never hands the scripts values from another save.
    fn save_script_data(&mut self, slot: usize, state: &Path) -> Result<(), String> {
        let Some((scripts, console)) = self.session.scripts_mut() else {
            return Ok(());
        };
        let path = files::script_data_path(state);
        let written = match scripts.user_saved(console, slot as u32) {
            Some(data) => files::write_atomic(&path, &data),
            None => match std::fs::remove_file(&path) {
                Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(err),
                _ => Ok(()),
            },
        };
        written.map_err(|err| format!("{}: {err}", path.display()))
    }

    /// Hands the scripts' `savestate.registerload` callbacks the slot and the values saved
    /// with it (none when its file cannot be read, which is returned as the error).
    fn load_script_data(
        &mut self,
        frame_before: u64,
        slot: usize,
        state: &Path,
    ) -> Result<(), String> {
        let Some((scripts, console)) = self.session.scripts_mut() else {
            return Ok(());
        };
        let path = files::script_data_path(state);
        let (data, result) = match std::fs::read(&path) {
            Ok(data) => (Some(data), Ok(())),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => (None, Ok(())),
            Err(err) => (None, Err(format!("{}: {err}", path.display()))),
        };
        scripts.user_loaded(console, frame_before, slot as u32, data.as_deref());
        result
    }

    /// A missing, unreadable, damaged or other game's state is reported; the game runs on.
    fn load_state(&mut self, slot: usize) {
        if self.session.movies().active() {
            // A movie's frames only go forwards, as with rewind.
            return self.show("no state loading while a movie plays or records".into());
        }
        let Some(path) = self.state_path(slot) else {
            return self.show("cannot load a state: no data directory".into());
        };
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return self.show(format!("state {slot} is empty"));
            }
            Err(err) => {
                return self.show(format!(
                    "state {slot} not loaded: {}: {err}",
                    path.display()
                ))
            }
        };
        let console = self.session.console_mut();
        let frame_before = console.frame_number();
        match console.load_state(&bytes) {
            Ok(()) => {
                let message = match self.load_script_data(frame_before, slot, &path) {
                    Ok(()) => format!("loaded state {slot}"),
                    Err(err) => format!("loaded state {slot}; Lua data not read: {err}"),
                };
                self.show(message);
                if let Some(window) = &self.window {
                    window.request_redraw();
                }
            }
            Err(err) => self.show(format!("state {slot} not loaded: {err}")),
        }
    }

    fn screenshot(&mut self) {
        let png = files::encode_png(&self.picture(), WIDTH as u32, HEIGHT as u32);
        let Some(dir) = files::data_dir().map(|d| d.join("screenshots")) else {
            return self.show("screenshot failed: no data directory".into());
        };
        let path = files::next_numbered_path(&dir, &self.rom.stem(), "png");
        let message = match files::write_atomic(&path, &png) {
            Ok(()) => format!("screenshot {}", path.display()),
            Err(err) => format!("screenshot failed: {}: {err}", path.display()),
        };
        self.show(message);
    }

    /// Video > Palette: colours from a `.pal` file, or the built-in ones (`None`), saved for
    /// the next start; a file that cannot be read or is not a palette is reported and the
    /// colours stay.
    fn set_palette(&mut self, path: Option<PathBuf>) {
        let Some(path) = path else {
            self.palette = Palette::for_region(self.session.console().region());
            self.save_setting(|config| config.video.palette.clear());
            return self.show("built-in palette".into());
        };
        let path = std::path::absolute(&path).unwrap_or(path);
        match read_palette(&path) {
            Ok(palette) => {
                self.palette = palette;
                let name = path.display().to_string();
                self.save_setting(|config| config.video.palette = name.clone());
                self.show(format!("palette {name}"));
            }
            Err(err) => self.show(format!("palette not changed: {err}")),
        }
    }

    /// Tools > Open Lua script: the script starts beside those running (the first one makes
    /// the scripts' host, as `--lua` does); one that fails to load is reported.
    fn open_script(&mut self, path: PathBuf) {
        let name = path.display().to_string();
        let loaded = match self.session.scripts_mut() {
            Some((scripts, console)) => scripts.load(console, &path),
            None => {
                let (rom, errors) = (&self.rom, self.lua_errors.clone());
                let console = self.session.console_mut();
                let scripts = load_scripts(
                    rom,
                    console,
                    std::slice::from_ref(&path),
                    self.lua_memory,
                    self.lua_sandbox,
                    errors.clone(),
                );
                let failed = errors.borrow_mut().pop();
                if scripts.active() {
                    self.session.set_scripts(scripts);
                }
                failed.map_or(Ok(()), Err)
            }
        };
        self.last_script = Some(path);
        match loaded {
            Ok(()) => self.show(format!("Lua script started: {name}")),
            Err(err) => self.show(format!("Lua: {err}")),
        }
        self.after_scripts();
    }

    /// Records every frame run from now on into `path`; without ffmpeg, one message and the
    /// game goes on as it was.
    fn start_recording(&mut self, path: PathBuf) {
        match VideoRecording::start(&path) {
            Ok(recording) => {
                self.recording = Some(recording);
                self.show(format!("recording video to {}", path.display()));
            }
            Err(err) => self.show(format!("no video recording: {err}")),
        }
    }

    /// The frame just run, with its sound, into the video being recorded.
    fn record_frame(&mut self) {
        if self.recording.is_none() {
            return;
        }
        let picture = self.picture();
        let recording = self.recording.as_mut().expect("checked above");
        if let Err(err) = recording.frame(&picture, self.session.samples()) {
            self.recording = None;
            self.show(err);
        }
    }

    /// Writes the video being recorded, if any.
    fn stop_recording(&mut self) {
        let Some(recording) = self.recording.take() else {
            return;
        };
        let path = recording.path().display().to_string();
        let message = match recording.finish() {
            Ok(frames) => format!("video saved: {path} ({frames} frames)"),
            Err(err) => err,
        };
        self.show(message);
    }

    fn toggle_fullscreen(&mut self) {
        if let Some(window) = &self.window {
            let next = match window.fullscreen() {
                Some(_) => None,
                None => Some(Fullscreen::Borderless(None)),
            };
            window.set_fullscreen(next);
        }
    }

    fn toggle_aspect(&mut self) {
        if let (Some(video), Some(window)) = (&mut self.video, &self.window) {
            let on = !video.aspect_8_7();
            // The picture keeps its scale: the window widens or narrows around it (a
            // fullscreen window keeps its size and the picture fits in it).
            let mut size = window.inner_size();
            if window.fullscreen().is_none() {
                let scale = fitting_scale(size, !on);
                let (width, height) = picture_size(scale, on);
                size = PhysicalSize::new(width, height);
                if let Some(now) = window.request_inner_size(size) {
                    size = now;
                }
            }
            if let Err(err) = video.set_aspect_8_7(on, size) {
                eprintln!("nestor: {err}");
            }
            window.request_redraw();
            let shape = if on { "8:7 pixels" } else { "square pixels" };
            self.show(shape.into());
            self.save_setting(|config| config.video.pixel_aspect_8_7 = on);
        }
    }

    /// Applies a setting changed in the window and writes it to the config file.
    fn save_setting(&mut self, change: impl FnOnce(&mut Config)) {
        let before = self.config.clone();
        change(&mut self.config);
        if let Some(path) = &self.config_path {
            if let Err(err) = self.config.save_changes(&before, path) {
                eprintln!("nestor: {err}");
            }
        }
    }

    /// Puts a ROM first in File > Recent ROMs (a path that is not UTF-8 cannot be saved).
    fn remember_rom(&mut self, path: &Path) {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let Some(path) = path.to_str().map(str::to_string) else {
            return;
        };
        self.save_setting(|config| {
            let recent = &mut config.files.recent;
            recent.retain(|p| *p != path);
            recent.insert(0, path);
            recent.truncate(RECENT_ROMS);
        });
    }

    /// The window takes the size of the picture at `scale` (the picture fits a fullscreen
    /// window instead); the scale is saved for the next start.
    fn set_scale(&mut self, scale: u32) {
        let Some(window) = &self.window else { return };
        let aspect_8_7 = self.config.video.pixel_aspect_8_7;
        if window.fullscreen().is_none() {
            let (width, height) = picture_size(scale, aspect_8_7);
            if let Some(size) = window.request_inner_size(PhysicalSize::new(width, height)) {
                if let Some(video) = &mut self.video {
                    if let Err(err) = video.resize(size) {
                        eprintln!("nestor: resize failed: {err}");
                    }
                }
            }
        }
        self.show(format!("scale {scale}x"));
        self.save_setting(|config| config.video.scale = scale);
    }

    /// Loads a ROM file (dropped on the window or chosen in File); a bad one leaves the current
    /// game running.
    fn load_rom(&mut self, path: &Path) {
        match open_rom(path, &self.config) {
            Ok((rom, console)) => {
                // A recording is written before the game it is of goes.
                self.stop_movie();
                // Scripts were written for the game they started with, and the AI knows one
                // game: both stop.
                self.session.change_game(console, &rom.name);
                self.session.set_cheats(load_cheats(&rom));
                if self.config.video.palette.is_empty() {
                    // The built-in colours are the new console's PPU's.
                    self.palette = Palette::for_region(self.session.console().region());
                }
                self.rom = rom;
                self.crashed = None;
                self.set_paused(false);
                self.show(format!("loaded {}", self.rom.name));
                self.remember_rom(path);
            }
            Err(err) => {
                eprintln!("nestor: {err}");
                self.message = Some((format!("error: {err}"), Instant::now()));
            }
        }
    }

    fn open_window(&mut self, event_loop: &ActiveEventLoop) -> Result<(), RunError> {
        let (width, height) =
            picture_size(self.config.video.scale, self.config.video.pixel_aspect_8_7);
        let attributes = Window::default_attributes()
            .with_title(format!("nestor - {}", self.rom.name))
            .with_inner_size(PhysicalSize::new(width, height))
            .with_min_inner_size(PhysicalSize::new(WIDTH as u32, HEIGHT as u32));
        let window = Arc::new(
            event_loop
                .create_window(attributes)
                .map_err(|e| RunError::Window(e.to_string()))?,
        );
        let video = Video::new(Arc::clone(&window), self.config.video.pixel_aspect_8_7)
            .map_err(RunError::Window)?;
        self.window = Some(window);
        self.video = Some(video);
        self.next_frame = Instant::now();
        Ok(())
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_none() {
            if let Err(err) = self.open_window(event_loop) {
                self.error = Some(err);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let keys_were_the_uis = self.gui.takes_keys();
        if let Some(window) = &self.window {
            if self.gui.event(&event, window.scale_factor()) {
                window.request_redraw();
            }
        }
        if self.gui.takes_keys() && !keys_were_the_uis {
            // The menu has the keyboard now: the game sees its keys let go.
            self.input.release_keys();
            self.fast_forward = false;
            self.rewinding = false;
        }
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => {
                if let Some(video) = &mut self.video {
                    if let Err(err) = video.resize(size) {
                        eprintln!("nestor: resize failed: {err}");
                    }
                }
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            WindowEvent::ModifiersChanged(modifiers) => self.modifiers = modifiers.state(),
            WindowEvent::Focused(false) => {
                self.input.release_keys();
                self.fast_forward = false;
                self.rewinding = false;
            }
            WindowEvent::DroppedFile(path) => self.load_rom(&path),
            WindowEvent::CursorLeft { .. } => self.mouse_pixel = None,
            WindowEvent::CursorMoved { position, .. } => {
                if let Some(video) = &self.video {
                    self.mouse = video.nes_position(position.x, position.y);
                    self.mouse_pixel = video.nes_pixel(position.x, position.y);
                }
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let name = match button {
                    MouseButton::Left => "leftclick",
                    MouseButton::Right => "rightclick",
                    MouseButton::Middle => "middleclick",
                    _ => return,
                };
                if state == ElementState::Pressed {
                    self.mouse_buttons.insert(name);
                    self.mouse_clicks.insert(name);
                } else {
                    self.mouse_buttons.remove(name);
                }
            }
            WindowEvent::KeyboardInput {
                event:
                    KeyEvent {
                        physical_key: PhysicalKey::Code(key),
                        state,
                        repeat,
                        ..
                    },
                ..
            } => {
                if keys_were_the_uis || key == KeyCode::Escape {
                    return; // the UI's
                }
                let pressed = state == ElementState::Pressed;
                self.input.key(key, pressed);
                let hotkeys = &self.config.hotkeys;
                let held = if pressed { self.hotkey_held(key) } else { None };
                if !pressed && hotkeys.uses_key(Hotkey::FastForward, key) {
                    self.fast_forward = false;
                } else if !pressed && hotkeys.uses_key(Hotkey::Rewind, key) {
                    self.rewinding = false;
                } else if held == Some(Hotkey::FastForward) {
                    self.fast_forward = true;
                } else if held == Some(Hotkey::Rewind) {
                    self.rewinding = true;
                } else if pressed && !repeat {
                    if let Some(action) = self.hotkey(key) {
                        self.act(event_loop, action);
                    }
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        for button in self.input.poll_gamepads() {
            if self.gui.gamepad_button(button) {
                if let Some(window) = &self.window {
                    window.request_redraw();
                }
            }
        }
        if self.exit_status.is_some() {
            return event_loop.exit();
        }
        if session::signals::stop_requested() {
            self.exit_status = Some(i32::from(session::signals::INTERRUPTED));
            return event_loop.exit();
        }
        if self.window.is_some() && !self.halted() && self.unthrottled() {
            // emu.speedmode("maximum") and the like: frames back to back, the picture shown
            // about 60 times a second.
            let shown = Instant::now() + Duration::from_secs_f64(1.0 / FRAME_RATE);
            while Instant::now() < shown && self.unthrottled() && self.exit_status.is_none() {
                self.emulate_frame();
            }
            self.next_frame = Instant::now();
            event_loop.set_control_flow(ControlFlow::Poll);
        } else if self.window.is_some() && !self.halted() {
            // Every frame that is due runs, even when drawing is slow (software rendering): the
            // picture may skip frames, the game and its sound never do.
            let now = Instant::now();
            let period = self.frame_period();
            let mut due = 0;
            while now >= self.next_frame && due < MAX_LAG_FRAMES {
                self.next_frame_or_back();
                self.next_frame += period;
                due += 1;
            }
            if now >= self.next_frame {
                self.next_frame = now + period;
            }
            event_loop.set_control_flow(ControlFlow::WaitUntil(self.next_frame));
        } else if let Some((scripts, console)) =
            self.session.scripts_mut().filter(|(s, _)| s.paused())
        {
            // Paused by a script: its gui.register drawing stays live.
            scripts.redraw(console);
            self.after_scripts();
            if let Some(window) = &self.window {
                window.request_redraw();
            }
            let wake = Instant::now() + Duration::from_secs_f64(1.0 / FRAME_RATE);
            event_loop.set_control_flow(ControlFlow::WaitUntil(wake));
        } else {
            // Paused: wake to clear the status message (and for gamepad hot-plug).
            if let Some(window) = &self.window {
                window.request_redraw();
            }
            let wake = Instant::now() + Duration::from_millis(250);
            event_loop.set_control_flow(ControlFlow::WaitUntil(wake));
        }
        self.update_title();
    }
}

/// winit's message without the source location it starts with ("os error at src/x.rs:9: ").
fn without_location(err: impl fmt::Display) -> String {
    let text = err.to_string();
    match text.split_once(".rs:") {
        Some((_, rest)) => rest.split_once(": ").map_or(rest, |(_, m)| m).to_string(),
        None => text,
    }
}

/// The audio output with the volume and mute of the config.
fn with_sound_settings(mut audio: Audio, config: &Config) -> Audio {
    audio.volume = config.audio.volume;
    audio.muted = config.audio.muted;
    audio
}

/// Has the session's player play with this profile and (in controller mode) tap rate, each
/// `None` kept as it is; the error is one line. A player without styles is left alone.
fn restyle_player(
    session: &mut Session,
    profile: Option<String>,
    tap_hz: Option<u32>,
) -> Result<(), String> {
    let Some(styles) = session.player_styles() else {
        return Ok(());
    };
    let mut style = styles.current.clone();
    style.profile = profile.unwrap_or(style.profile);
    if !styles.tap_rates.is_empty() {
        style.tap_hz = tap_hz.unwrap_or(style.tap_hz);
    }
    if style == styles.current {
        return Ok(());
    }
    session.set_player_style(&style)
}

/// Whether any of the cheats is on and does something (a movie cannot hold them).
fn cheats_act(list: &CheatList) -> bool {
    list.cheats.iter().any(|c| c.enabled && c.acts())
}

/// A save state's picture file: `<state>.png`.
fn thumbnail_path(state: &Path) -> PathBuf {
    let mut name = state.as_os_str().to_owned();
    name.push(".png");
    PathBuf::from(name)
}

/// Packed RGB at the NES's resolution shrunk `factor` times each way, each pixel the mean of
/// its square.
fn shrink(rgb: &[u8], factor: usize) -> Vec<u8> {
    let (width, height) = (WIDTH / factor, HEIGHT / factor);
    let mut small = Vec::with_capacity(width * height * 3);
    for y in 0..height {
        for x in 0..width {
            for channel in 0..3 {
                let sum: usize = (0..factor * factor)
                    .map(|i| {
                        let (dx, dy) = (i % factor, i / factor);
                        let at = ((y * factor + dy) * WIDTH + x * factor + dx) * 3 + channel;
                        usize::from(rgb[at])
                    })
                    .sum();
                small.push((sum / (factor * factor)) as u8);
            }
        }
    }
    small
}

/// A `.pal` file's colours; the error names the file.
fn read_palette(path: &Path) -> Result<Palette, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Palette::from_pal_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The cheats of the ROM's `.cht` file (none when there is none; one line when it cannot be
/// read).
fn load_cheats(rom: &Rom) -> CheatList {
    let Some(path) = rom.cheat_path() else {
        return CheatList::default();
    };
    CheatList::load(&path).unwrap_or_else(|err| {
        eprintln!("nestor: cheats not read: {err}");
        CheatList::default()
    })
}

/// Reads a ROM file and plugs it into a new console; the error names the file.
fn open_rom(path: &Path, config: &Config) -> Result<(Rom, Console), String> {
    let rom = Rom::from_file(path)?;
    let cart = Cartridge::from_ines(&rom.bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let console = plug_in(cart, &rom.name, config);
    Ok((rom, console))
}

/// Powers on the console the config's region, else the ROM, asks for (a warning on stderr
/// when the config contradicts the ROM).
fn plug_in(cart: Cartridge, name: &str, config: &Config) -> Console {
    let (region, warning) = files::region_for(&cart, name, config.emulation.region());
    if let Some(warning) = warning {
        eprintln!("nestor: warning: {warning}");
    }
    let mut console = Console::with_region(cart, region);
    // The config's check let through only devices that fit together.
    let devices = config.input.devices().unwrap_or_default();
    for (port, device) in devices.into_iter().enumerate() {
        console.plug(port, device);
    }
    console
}

/// Loads the scripts up to their first frame; one that does not compile is reported (in the
/// title too) and the others run. Error reports also go to the title.
fn load_scripts(
    rom: &Rom,
    console: &mut Console,
    paths: &[PathBuf],
    memory_limit: usize,
    sandbox: bool,
    errors: Rc<RefCell<Vec<String>>>,
) -> Scripts {
    let reported = errors.clone();
    let output = Rc::new(move |stream, text: &str| match stream {
        Stream::Out => println!("{text}"),
        Stream::Err => {
            eprintln!("{text}");
            let first = text.lines().next().unwrap_or_default();
            reported.borrow_mut().push(first.to_string());
        }
    });
    let mut scripts = Scripts::with_output(rom.bytes.clone(), &rom.name, output);
    scripts.set_interactive(true);
    scripts.set_memory_limit(memory_limit);
    if sandbox {
        scripts.set_sandbox(files::data_dir());
    }
    scripts.set_files(files::lua_files(&rom.name));
    for path in paths {
        if let Err(err) = scripts.load(console, path) {
            eprintln!("nestor: {err}");
            errors.borrow_mut().push(err);
        }
    }
    scripts
}

/// Draws a one-pixel rectangle outline into packed RGB at the NES's resolution, clipped.
fn draw_outline(rgb: &mut [u8], outline: Outline) {
    let (x0, y0) = (usize::from(outline.x), usize::from(outline.y));
    let x1 = (x0 + usize::from(outline.width))
        .min(WIDTH)
        .saturating_sub(1);
    let y1 = (y0 + usize::from(outline.height))
        .min(HEIGHT)
        .saturating_sub(1);
    if outline.width == 0 || outline.height == 0 || x0 > x1 || y0 > y1 {
        return;
    }
    let mut plot = |x: usize, y: usize| {
        rgb[(y * WIDTH + x) * 3..][..3].copy_from_slice(&OUTLINE_RGB);
    };
    for x in x0..=x1 {
        plot(x, y0);
        plot(x, y1);
    }
    for y in y0..=y1 {
        plot(x0, y);
        plot(x1, y);
    }
}

/// A cheat as the messages name it: its name and code.
fn cheat_label(cheat: &Cheat) -> String {
    if cheat.name.is_empty() {
        cheat.code()
    } else {
        format!("{} ({})", cheat.name, cheat.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outline_is_a_clipped_frame() {
        let mut rgb = vec![0u8; WIDTH * HEIGHT * 3];
        draw_outline(
            &mut rgb,
            Outline {
                x: 250,
                y: 10,
                width: 20,
                height: 3,
            },
        );
        let lit = |x: usize, y: usize| rgb[(y * WIDTH + x) * 3] == OUTLINE_RGB[0];
        assert!(lit(250, 10) && lit(255, 10) && lit(250, 11) && lit(255, 12));
        assert!(!lit(251, 11) && !lit(249, 10) && !lit(250, 13));
    }

    #[test]
    fn thumbnails_are_the_mean_of_each_square() {
        let mut rgb = vec![0u8; WIDTH * HEIGHT * 3];
        // The top-left 4x4 square: half its pixels 200 in red, a quarter 100 in green.
        for (x, y) in [
            (0, 0),
            (1, 0),
            (2, 1),
            (3, 3),
            (0, 2),
            (1, 2),
            (2, 2),
            (3, 2),
        ] {
            rgb[(y * WIDTH + x) * 3] = 200;
        }
        for (x, y) in [(0, 1), (1, 1), (2, 3), (3, 1)] {
            rgb[(y * WIDTH + x) * 3 + 1] = 100;
        }
        rgb[(4 * WIDTH + 4) * 3 + 2] = 160;
        let small = shrink(&rgb, 4);
        assert_eq!(small.len(), 64 * 60 * 3);
        assert_eq!(small[..6], [100, 25, 0, 0, 0, 0]);
        assert_eq!(small[64 * 3..64 * 3 + 3], [0, 0, 0]);
        assert_eq!(small[(64 + 1) * 3 + 2], 10);
        assert_eq!(
            thumbnail_path(Path::new("states/game.3.state")),
            Path::new("states/game.3.state.png")
        );
    }

    #[test]
    fn winit_errors_lose_their_source_location() {
        let err = "os error at /src/platform_impl/linux/mod.rs:765: DISPLAY is not set.";
        assert_eq!(without_location(err), "DISPLAY is not set.");
        assert_eq!(without_location("plain"), "plain");
    }

    #[test]
    fn dropped_files_load_or_say_why_not() {
        let dir = std::env::temp_dir().join(format!("nestor-drop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = open_rom(&dir.join("missing.nes"), &Config::default())
            .err()
            .unwrap();
        assert!(missing.starts_with("cannot read"), "{missing}");

        let junk = dir.join("notes.txt");
        std::fs::write(&junk, b"not a ROM").unwrap();
        let bad = open_rom(&junk, &Config::default()).err().unwrap();
        assert!(bad.starts_with(&junk.display().to_string()), "{bad}");

        let good = dir.join("good.nes");
        std::fs::write(&good, testrom::image::nrom(&[], [0x8000; 3], 0)).unwrap();
        let (rom, _) = open_rom(&good, &Config::default()).unwrap();
        assert_eq!(rom.name, "good.nes");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn rom_stems_are_safe_file_names() {
        let rom = Rom {
            name: "My Game (U).nes".into(),
            bytes: Vec::new(),
            path: Some("roms/My Game (U).nes".into()),
        };
        assert_eq!(rom.cheat_path().unwrap(), Path::new("roms/My Game (U).cht"));
        assert_eq!(rom.stem(), "My_Game__U_");
    }
}
