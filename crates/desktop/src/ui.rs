//! What the window draws over the picture with egui: the menu bar, the ROM browser, on-screen
//! messages and the frame counter.
//!
//! The UI never acts on the emulator itself: it returns [`Action`]s, which the window runs
//! through the same code as the hotkeys. winit's events are handed to egui here (egui-winit is
//! built for an older winit than the window's).

use crate::bindings::{is_modifier, BindTarget, Bound, Hotkey, PadButton, Shortcut};
use crate::config::Config;
use egui::{Align2, Color32, Context, Key, Modifiers, PointerButton, Pos2, RichText, Vec2};
use session::cheats::Cheat;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::Window;

/// The pointer this close to the top (in points) brings the menu bar down.
const MENU_STRIP: f32 = 24.0;
/// The size of a save state's picture in the menus (nine fit under the Emulation menu at 3x).
const THUMBNAIL_POINTS: Vec2 = Vec2::new(48.0, 45.0);
/// Speeds offered in the menu, in the order of `SPEEDS` in app.rs.
const SPEED_LABELS: [&str; 3] = ["100%", "200%", "50%"];

/// Something the user asked for, from a menu or a hotkey.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Show the ROM browser.
    BrowseRoms,
    OpenRom(PathBuf),
    Quit,
    TogglePause,
    FrameAdvance,
    Reset,
    PowerCycle,
    /// An index into the speeds.
    Speed(usize),
    RunAhead(u8),
    SaveState(usize),
    LoadState(usize),
    Scale(u32),
    ToggleAspect,
    ToggleFullscreen,
    ToggleMute,
    Volume(f32),
    /// Lists the sound host's output devices again (the Audio menu was opened).
    ListAudioDevices,
    /// Plays the sound through this device (empty: the default one).
    AudioDevice(String),
    ToggleAi,
    /// The AI's evaluation profile, its maximum tap rate.
    AiProfile(String),
    AiTapRate(u32),
    ToggleOverlay,
    Screenshot,
    /// Show the browser for `.pal` files.
    BrowsePalettes,
    /// Colours from a `.pal` file (`None`: the built-in palette).
    Palette(Option<PathBuf>),
    /// Show the browser for Lua scripts.
    BrowseScripts,
    /// Loads and starts a Lua script beside those running.
    OpenScript(PathBuf),
    /// Show the browser for FCEUX movies, to record one (true) or play one.
    BrowseMovies(bool),
    /// Records a movie into this file from power-on.
    RecordMovie(PathBuf),
    PlayMovie(PathBuf),
    /// Stops the movie being played or recorded.
    StopMovie,
    /// Starts a video recording, or stops the one under way.
    ToggleVideoRecording,
    StopScripts,
    ToggleMessages,
    ToggleFrameCounter,
    ToggleAiPanel,
    ToggleNtsc,
    ToggleScanlines,
    /// Show the Input window.
    OpenInput,
    /// Binds a key or gamepad button (pressed in the Input window).
    Bind(BindTarget, Bound),
    Unbind(BindTarget),
    /// Turbo's frames pressed (and let go).
    TurboFrames(u8),
    Deadzone(f32),
    /// Show the Cheats window.
    OpenCheats,
    /// A cheat typed in the Cheats window: its code, its name.
    AddCheat(String, String),
    ToggleCheat(usize),
    RemoveCheat(usize),
    /// Show the browser for `.cht` files.
    BrowseCheats,
    LoadCheats(PathBuf),
}

/// What the menus show as current: a snapshot of the window's state.
pub struct View {
    pub paused: bool,
    pub speed: usize,
    pub run_ahead: u8,
    pub scale: u32,
    pub aspect_8_7: bool,
    pub fullscreen: bool,
    /// `None` without a sound device.
    pub volume: Option<f32>,
    pub muted: bool,
    /// The chosen output device (empty: the default), and those the host lists.
    pub audio_device: String,
    pub audio_devices: Vec<String>,
    /// `None` when no AI plays this game.
    pub ai: Option<bool>,
    /// The AI's profile and tap rate, and those it can switch to.
    pub ai_styles: Option<session::Styles>,
    pub overlay: bool,
    pub scripts: bool,
    pub messages: bool,
    pub ntsc: bool,
    pub scanlines: bool,
    /// The `.pal` file the colours come from (empty: the built-in palette).
    pub palette: String,
    /// A video is being recorded.
    pub recording: bool,
    /// What the movie going on does ("recording game.fm2"), if one does.
    pub movie: Option<String>,
    /// When each save-state slot (1-9) was saved and the file of its picture, if it holds a
    /// state.
    pub slots: Vec<Option<(SystemTime, PathBuf)>>,
    pub recent: Vec<String>,
    /// The message of the moment, shown in a corner while `messages` is on.
    pub message: Option<String>,
    /// The frame counter's text, when it is on.
    pub counter: Option<String>,
    /// The settings, while the Input window shows them.
    pub config: Option<Config>,
    /// The game's cheats and their file, while the Cheats window shows them.
    pub cheats: Option<(Vec<Cheat>, String)>,
    /// Whether the AI panel is on (`None` when no AI plays this game), and its lines.
    pub ai_panel: Option<bool>,
    pub panel_lines: Vec<String>,
}

/// egui's output for one frame, ready for the renderer.
pub struct Painted {
    pub textures: egui::TexturesDelta,
    pub jobs: Vec<egui::ClippedPrimitive>,
    pub pixels_per_point: f32,
}

pub struct Gui {
    ctx: Context,
    /// Events since the last frame.
    events: Vec<egui::Event>,
    modifiers: Modifiers,
    pointer: Option<Pos2>,
    /// Esc brought the menu bar up: it stays, and the keyboard is the UI's.
    menu_pinned: bool,
    /// The menu dropped down in the last frame.
    menu_open: Option<&'static str>,
    /// Each save-state slot's picture, with the time of the save it shows.
    thumbnails: Vec<Option<(SystemTime, egui::TextureHandle)>>,
    browser: Option<Browser>,
    input: Option<InputWindow>,
    cheats: Option<CheatsWindow>,
    /// A key or button pressed while the Input window waits for one.
    captured: Option<Bound>,
    started: Instant,
}

/// The Input window: which page it shows and what it waits to bind.
struct InputWindow {
    page: InputPage,
    capturing: Option<BindTarget>,
}

#[derive(Clone, Copy, PartialEq)]
enum InputPage {
    Player(usize),
    Hotkeys,
    Options,
}

impl Gui {
    pub fn new() -> Gui {
        Gui {
            ctx: Context::default(),
            events: Vec::new(),
            modifiers: Modifiers::default(),
            pointer: None,
            menu_pinned: false,
            menu_open: None,
            thumbnails: vec![None; 9],
            browser: None,
            input: None,
            cheats: None,
            captured: None,
            started: Instant::now(),
        }
    }

    /// Keys go to the UI, not to the game or the hotkeys.
    pub fn takes_keys(&self) -> bool {
        self.menu_pinned
            || self.menu_open.is_some()
            || self.browser.is_some()
            || self.input.is_some()
            || self.cheats.is_some()
    }

    /// The Cheats window is open (the view must carry the cheats).
    pub fn cheats_open(&self) -> bool {
        self.cheats.is_some()
    }

    pub fn open_cheats(&mut self) {
        self.cheats = Some(CheatsWindow::default());
    }

    /// The Input window is open (the view must carry the settings).
    pub fn input_open(&self) -> bool {
        self.input.is_some()
    }

    /// Opens the Input window.
    pub fn open_input(&mut self) {
        self.input = Some(InputWindow {
            page: InputPage::Player(0),
            capturing: None,
        });
    }

    /// A gamepad button pressed: bound if the Input window waits for one; true if it was
    /// taken.
    pub fn gamepad_button(&mut self, button: gilrs::Button) -> bool {
        let waiting = self.input.as_ref().and_then(|w| w.capturing);
        if waiting.is_some_and(BindTarget::wants_button) {
            self.captured = Some(Bound::Button(button));
            return true;
        }
        false
    }

    /// The Input window waits for a key: the next one pressed (with its modifiers) is taken.
    fn capture_key(&mut self, code: KeyCode) -> bool {
        let Some(target) = self.input.as_ref().and_then(|w| w.capturing) else {
            return false;
        };
        // A hotkey waits for the key pressed with the modifiers; a pad takes any key.
        if target.wants_button() || matches!(target, BindTarget::Hotkey(_)) && is_modifier(code) {
            return true;
        }
        self.captured = Some(Bound::Key(Shortcut {
            key: code,
            ctrl: self.modifiers.ctrl,
            shift: self.modifiers.shift,
            alt: self.modifiers.alt,
        }));
        true
    }

    /// Takes a window event for egui; true when the UI must be drawn again to answer it.
    pub fn event(&mut self, event: &WindowEvent, scale_factor: f64) -> bool {
        let point =
            |x: f64, y: f64| Pos2::new((x / scale_factor) as f32, (y / scale_factor) as f32);
        match event {
            WindowEvent::CursorMoved { position, .. } => {
                let pos = point(position.x, position.y);
                self.pointer = Some(pos);
                self.events.push(egui::Event::PointerMoved(pos));
            }
            WindowEvent::CursorLeft { .. } => {
                self.pointer = None;
                self.events.push(egui::Event::PointerGone);
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let button = match button {
                    MouseButton::Left => PointerButton::Primary,
                    MouseButton::Right => PointerButton::Secondary,
                    MouseButton::Middle => PointerButton::Middle,
                    _ => return false,
                };
                let Some(pos) = self.pointer else {
                    return false;
                };
                self.events.push(egui::Event::PointerButton {
                    pos,
                    button,
                    pressed: *state == ElementState::Pressed,
                    modifiers: self.modifiers,
                });
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let delta = match delta {
                    MouseScrollDelta::LineDelta(x, y) => Vec2::new(*x, *y) * 24.0,
                    MouseScrollDelta::PixelDelta(p) => {
                        Vec2::new(p.x as f32, p.y as f32) / scale_factor as f32
                    }
                };
                self.events.push(egui::Event::Scroll(delta));
            }
            WindowEvent::ModifiersChanged(modifiers) => {
                let state = modifiers.state();
                self.modifiers = Modifiers {
                    alt: state.alt_key(),
                    ctrl: state.control_key(),
                    shift: state.shift_key(),
                    mac_cmd: false,
                    command: state.control_key(),
                };
            }
            WindowEvent::KeyboardInput { event, .. } => {
                let pressed = event.state == ElementState::Pressed;
                let PhysicalKey::Code(code) = event.physical_key else {
                    return false;
                };
                if code == KeyCode::Escape {
                    if pressed && !event.repeat {
                        self.escape();
                    }
                    return true;
                }
                if pressed && !event.repeat && self.capture_key(code) {
                    return true;
                }
                if !self.takes_keys() {
                    return false;
                }
                if let Some(key) = egui_key(code) {
                    self.events.push(egui::Event::Key {
                        key,
                        physical_key: Some(key),
                        pressed,
                        repeat: event.repeat,
                        modifiers: self.modifiers,
                    });
                }
                let typed = event
                    .text
                    .as_deref()
                    .filter(|t| t.chars().all(|c| !c.is_control()));
                if let Some(text) = typed.filter(|_| pressed && !self.modifiers.ctrl) {
                    self.events.push(egui::Event::Text(text.to_string()));
                }
            }
            _ => return false,
        }
        true
    }

    /// Esc stops the Input window waiting for a key, or closes it, or the ROM browser, or
    /// else brings the menu bar up or puts it away.
    fn escape(&mut self) {
        if let Some(window) = &mut self.input {
            if window.capturing.take().is_none() {
                self.input = None;
            }
        } else if self.browser.take().is_none() && self.cheats.take().is_none() {
            self.menu_pinned = !self.menu_pinned;
        }
    }

    /// Opens the ROM browser (File > Open ROM) in `dir`, or else in the current folder.
    pub fn browse(&mut self, dir: Option<&Path>) {
        let dir = dir
            .filter(|dir| dir.is_dir())
            .map(Path::to_path_buf)
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        self.browser = Some(Browser::new(dir, Purpose::Rom));
    }

    /// Opens the browser for another kind of file (Tools > Cheats > Load, Tools > Open Lua
    /// script), in `dir` if there is one.
    pub fn browse_for(&mut self, purpose: Purpose, dir: Option<&Path>) {
        self.browse(dir);
        if let Some(browser) = self.browser.take() {
            self.browser = Some(Browser::new(browser.dir, purpose));
        }
    }

    /// The slots as the state menus show them: when each was saved, and its picture (read
    /// again when the slot is saved again).
    fn slot_pictures(&mut self, slots: &[Option<(SystemTime, PathBuf)>]) -> Vec<SlotView> {
        slots
            .iter()
            .zip(&mut self.thumbnails)
            .enumerate()
            .map(|(i, (slot, cached))| {
                let Some((saved, picture)) = slot else {
                    *cached = None;
                    return SlotView::default();
                };
                if cached.as_ref().is_none_or(|(time, _)| time != saved) {
                    *cached = read_thumbnail(picture).map(|image| {
                        let name = format!("slot {}", i + 1);
                        let texture = self.ctx.load_texture(name, image, Default::default());
                        (*saved, texture)
                    });
                }
                SlotView {
                    saved: Some(*saved),
                    picture: cached.as_ref().map(|(_, texture)| texture.id()),
                }
            })
            .collect()
    }

    /// Lays out one frame of the UI over the window: what to draw, what the user asked for in
    /// it, and whether egui wants another frame straight away (to finish an animation or a
    /// layout).
    pub fn frame(&mut self, window: &Window, view: &View) -> (Painted, Vec<Action>, bool) {
        let size = window.inner_size();
        let scale = window.scale_factor() as f32;
        let mut input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                Pos2::ZERO,
                Vec2::new(size.width as f32, size.height as f32) / scale,
            )),
            time: Some(self.started.elapsed().as_secs_f64()),
            modifiers: self.modifiers,
            events: std::mem::take(&mut self.events),
            focused: window.has_focus(),
            ..Default::default()
        };
        input
            .viewports
            .entry(egui::ViewportId::ROOT)
            .or_default()
            .native_pixels_per_point = Some(scale);
        let mut actions = Vec::new();
        let near_top = self.pointer.is_some_and(|p| p.y <= MENU_STRIP);
        let show_menu = self.menu_pinned || self.menu_open.is_some() || near_top;
        let mut menu_open = None;
        let slots = self.slot_pictures(&view.slots);
        if self.input.as_ref().is_none_or(|w| w.capturing.is_none()) {
            self.captured = None;
        }
        let output = self.ctx.clone().run(input, |ctx| {
            if show_menu {
                menu_open = menu_bar(ctx, view, &slots, &mut actions);
            }
            if let (Some(window), Some((cheats, file))) = (&mut self.cheats, &view.cheats) {
                if !window.show(ctx, cheats, file, &mut actions) {
                    self.cheats = None;
                }
            }
            if let Some(browser) = &mut self.browser {
                match browser.show(ctx) {
                    Some(Browsed::Open(path)) => actions.push(match browser.purpose {
                        Purpose::Rom => Action::OpenRom(path),
                        Purpose::Cheats => Action::LoadCheats(path),
                        Purpose::Script => Action::OpenScript(path),
                        Purpose::Palette => Action::Palette(Some(path)),
                        Purpose::RecordMovie => Action::RecordMovie(path),
                        Purpose::PlayMovie => Action::PlayMovie(path),
                    }),
                    Some(Browsed::Cancel) => {}
                    None => return,
                }
                self.browser = None;
            }
            if let (Some(window), Some(config)) = (&mut self.input, &view.config) {
                if let (Some(target), Some(bound)) = (window.capturing, self.captured.take()) {
                    actions.push(Action::Bind(target, bound));
                    window.capturing = None;
                }
                if !window.show(ctx, config, &mut actions) {
                    self.input = None;
                }
            }
            if view.messages {
                if let Some(message) = &view.message {
                    corner(ctx, "message", Align2::LEFT_BOTTOM, message);
                }
            }
            if let Some(counter) = &view.counter {
                corner(ctx, "counter", Align2::RIGHT_TOP, counter);
            }
            if view.ai_panel == Some(true) && !view.panel_lines.is_empty() {
                ai_panel(ctx, &view.panel_lines);
            }
        });
        if menu_open == Some("Audio") && self.menu_open != Some("Audio") {
            actions.push(Action::ListAudioDevices);
        }
        self.menu_open = menu_open;
        let settings_only = actions.iter().all(|a| {
            matches!(
                a,
                Action::ListAudioDevices
                    | Action::Bind(..)
                    | Action::Unbind(_)
                    | Action::TurboFrames(_)
                    | Action::Deadzone(_)
                    | Action::AddCheat(..)
                    | Action::ToggleCheat(_)
                    | Action::RemoveCheat(_)
            )
        });
        if !actions.is_empty() && !settings_only {
            // Done with the menu: the keyboard is the game's again.
            self.menu_pinned = false;
        }
        let repaint = output
            .viewport_output
            .get(&egui::ViewportId::ROOT)
            .is_some_and(|v| v.repaint_delay.is_zero());
        let painted = Painted {
            jobs: self.ctx.tessellate(output.shapes, output.pixels_per_point),
            textures: output.textures_delta,
            pixels_per_point: output.pixels_per_point,
        };
        (painted, actions, repaint)
    }
}

/// A save-state slot in the menus.
#[derive(Default)]
struct SlotView {
    saved: Option<SystemTime>,
    picture: Option<egui::TextureId>,
}

/// A slot's picture file (a PNG), for the menu; None when it cannot be read.
fn read_thumbnail(path: &Path) -> Option<egui::ColorImage> {
    let file = std::fs::File::open(path).ok()?;
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .ok()?;
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).ok()?;
    if info.color_type != png::ColorType::Rgb || info.bit_depth != png::BitDepth::Eight {
        return None;
    }
    let size = [info.width as usize, info.height as usize];
    Some(egui::ColorImage::from_rgb(
        size,
        &pixels[..info.buffer_size()],
    ))
}

/// A line of text on a dark box in a corner of the window.
fn corner(ctx: &Context, id: &str, align: Align2, text: &str) {
    // 8 points in from the corner's two edges.
    let offset = Vec2::new(8.0, 8.0) * -align.to_sign();
    text_box(ctx, id, align, offset, 200, &[text], 16.0);
}

/// The AI panel: the AI's plan and the game's statistics, in a box at the bottom left (under
/// the piece statistics of NES Tetris and Quadfall at 3x), above the corner messages.
fn ai_panel(ctx: &Context, lines: &[String]) {
    let offset = Vec2::new(8.0, -40.0);
    text_box(
        ctx,
        "ai panel",
        Align2::LEFT_BOTTOM,
        offset,
        235,
        lines,
        14.0,
    );
}

/// Lines of white text on a dark box of opacity `alpha`, anchored over the picture.
fn text_box(
    ctx: &Context,
    id: &str,
    align: Align2,
    offset: Vec2,
    alpha: u8,
    lines: &[impl AsRef<str>],
    size: f32,
) {
    egui::Area::new(egui::Id::new(id))
        .anchor(align, offset)
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::none()
                .fill(Color32::from_black_alpha(alpha))
                .rounding(4.0)
                .inner_margin(6.0)
                .show(ui, |ui| {
                    for line in lines {
                        ui.label(
                            RichText::new(line.as_ref())
                                .size(size)
                                .color(Color32::WHITE),
                        );
                    }
                });
        });
}

/// The menu bar; returns the title of the menu dropped down, if one is.
fn menu_bar(
    ctx: &Context,
    view: &View,
    slots: &[SlotView],
    actions: &mut Vec<Action>,
) -> Option<&'static str> {
    let mut open = None;
    egui::TopBottomPanel::top("menu").show(ctx, |ui| {
        egui::menu::bar(ui, |ui| {
            let mut menu = |ui: &mut egui::Ui, title: &'static str, items: &dyn Fn(&mut Menu)| {
                ui.menu_button(title, |ui| {
                    open = Some(title);
                    let mut menu = Menu {
                        ui,
                        actions: &mut *actions,
                    };
                    items(&mut menu);
                });
            };
            menu(ui, "File", &|m| {
                m.item("Open ROM...", "Ctrl+O", None, Action::BrowseRoms);
                m.sub("Recent ROMs", |recent| {
                    if view.recent.is_empty() {
                        recent.ui.label("none yet");
                    }
                    for path in &view.recent {
                        recent.item(path, "", None, Action::OpenRom(path.into()));
                    }
                });
                m.ui.separator();
                m.item("Quit", "Ctrl+Q", None, Action::Quit);
            });
            menu(ui, "Emulation", &|m| {
                m.item("Pause", "P", Some(view.paused), Action::TogglePause);
                m.item("Next frame", "N", None, Action::FrameAdvance);
                m.item("Reset", "R", None, Action::Reset);
                m.item("Power cycle", "Shift+R", None, Action::PowerCycle);
                m.ui.separator();
                for (i, label) in SPEED_LABELS.iter().enumerate() {
                    let item = format!("Speed {label}");
                    m.item(&item, "T", Some(view.speed == i), Action::Speed(i));
                }
                m.ui.label("Fast-forward: hold Tab");
                m.ui.label("Rewind: hold Backspace");
                m.sub("Run-ahead", |sub| {
                    for frames in 0..=4 {
                        let label = format!("{frames} frames");
                        let on = Some(view.run_ahead == frames);
                        sub.item(&label, "", on, Action::RunAhead(frames));
                    }
                });
                m.ui.separator();
                m.sub("Save state", |sub| {
                    state_slots(sub, slots, "Shift+F", Action::SaveState)
                });
                m.sub("Load state", |sub| {
                    state_slots(sub, slots, "F", Action::LoadState)
                });
            });
            menu(ui, "Video", &|m| {
                for scale in 1..=4 {
                    let label = format!("{scale}x");
                    m.item(&label, "", Some(view.scale == scale), Action::Scale(scale));
                }
                m.ui.separator();
                m.item(
                    "8:7 pixels (TV)",
                    "F10",
                    Some(view.aspect_8_7),
                    Action::ToggleAspect,
                );
                m.item(
                    "Fullscreen",
                    "F11",
                    Some(view.fullscreen),
                    Action::ToggleFullscreen,
                );
                m.item("NTSC filter", "", Some(view.ntsc), Action::ToggleNtsc);
                let scanlines = Some(view.scanlines);
                m.item("Scanlines", "", scanlines, Action::ToggleScanlines);
                m.item(
                    "On-screen messages",
                    "",
                    Some(view.messages),
                    Action::ToggleMessages,
                );
                let counter = Some(view.counter.is_some());
                m.item("Frame counter", "K", counter, Action::ToggleFrameCounter);
                m.ui.separator();
                let built_in = Some(view.palette.is_empty());
                m.item("Built-in palette", "", built_in, Action::Palette(None));
                m.item("Palette file (.pal)...", "", None, Action::BrowsePalettes);
                if !view.palette.is_empty() {
                    m.ui.label(format!("Palette: {}", view.palette));
                }
            });
            menu(ui, "Audio", &|m| match view.volume {
                Some(volume) => {
                    m.item("Mute", "M", Some(view.muted), Action::ToggleMute);
                    let down = (volume - 0.1).max(0.0);
                    let up = (volume + 0.1).min(1.0);
                    m.item("Volume down", "-", None, Action::Volume(down));
                    m.item("Volume up", "=", None, Action::Volume(up));
                    m.ui.label(format!("Volume {}%", (volume * 100.0).round()));
                    m.ui.separator();
                    m.sub("Device", |sub| {
                        let chosen = &view.audio_device;
                        let default = Some(chosen.is_empty());
                        sub.item("Default", "", default, Action::AudioDevice(String::new()));
                        for name in &view.audio_devices {
                            let on = Some(name == chosen);
                            sub.item(name, "", on, Action::AudioDevice(name.clone()));
                        }
                    });
                }
                None => {
                    m.ui.label("no sound device");
                }
            });
            menu(ui, "Input", &|m| {
                m.item("Keys and buttons...", "", None, Action::OpenInput);
            });
            menu(ui, "AI", &|m| match view.ai {
                Some(on) => {
                    m.item("AI plays", "I", Some(on), Action::ToggleAi);
                    m.item("Outline", "O", Some(view.overlay), Action::ToggleOverlay);
                    let panel = view.ai_panel;
                    m.item("Panel", "L", panel, Action::ToggleAiPanel);
                    if let Some(styles) = &view.ai_styles {
                        m.ui.separator();
                        m.sub("Profile", |sub| {
                            for &profile in &styles.profiles {
                                let on = Some(styles.current.profile == profile);
                                sub.item(profile, "", on, Action::AiProfile(profile.into()));
                            }
                        });
                        if !styles.tap_rates.is_empty() {
                            m.sub("Tap rate", |sub| {
                                for &hz in &styles.tap_rates {
                                    let label = format!("{hz} taps a second");
                                    let on = Some(styles.current.tap_hz == hz);
                                    sub.item(&label, "", on, Action::AiTapRate(hz));
                                }
                            });
                        }
                    }
                }
                None => {
                    m.ui.label("no AI for this game");
                }
            });
            menu(ui, "Tools", &|m| {
                m.item("Cheats...", "", None, Action::OpenCheats);
                m.item("Screenshot", "F12", None, Action::Screenshot);
                let recording = Some(view.recording);
                m.item(
                    "Record video",
                    "Shift+F12",
                    recording,
                    Action::ToggleVideoRecording,
                );
                m.ui.separator();
                m.item("Record movie...", "", None, Action::BrowseMovies(true));
                m.item("Play movie...", "", None, Action::BrowseMovies(false));
                if let Some(movie) = &view.movie {
                    m.item("Stop movie", "", None, Action::StopMovie);
                    m.ui.label(movie);
                }
                m.ui.separator();
                m.item("Open Lua script...", "", None, Action::BrowseScripts);
                if view.scripts {
                    m.item("Stop Lua scripts", "", None, Action::StopScripts);
                }
            });
        });
    });
    open
}

/// A settings window (Input, Cheats) at the top left, under the menu bar.
fn tool_window(title: &str) -> egui::Window<'_> {
    egui::Window::new(title)
        .collapsible(false)
        .resizable(false)
        .anchor(Align2::LEFT_TOP, Vec2::new(16.0, 40.0))
}

impl InputWindow {
    /// Shows the window; false once it is closed.
    fn show(&mut self, ctx: &Context, config: &Config, actions: &mut Vec<Action>) -> bool {
        let mut open = true;
        tool_window("Input").show(ctx, |ui| {
            ui.horizontal(|ui| {
                for (page, label) in [
                    (InputPage::Player(0), "Player 1"),
                    (InputPage::Player(1), "Player 2"),
                    (InputPage::Hotkeys, "Hotkeys"),
                    (InputPage::Options, "Turbo and sticks"),
                ] {
                    if ui.selectable_label(self.page == page, label).clicked() {
                        self.page = page;
                        self.capturing = None;
                    }
                }
            });
            let mut rows: Vec<(String, BindTarget, Option<BindTarget>)> = Vec::new();
            match self.page {
                InputPage::Player(player) => {
                    for button in PadButton::ALL {
                        rows.push((
                            button.label().into(),
                            BindTarget::Key(player, button),
                            Some(BindTarget::Button(player, button)),
                        ));
                    }
                }
                InputPage::Hotkeys => {
                    for hotkey in Hotkey::all() {
                        rows.push((hotkey.label(), BindTarget::Hotkey(hotkey), None));
                    }
                }
                InputPage::Options => {}
            }
            if self.page == InputPage::Options {
                options(ui, config, actions);
            } else {
                egui::ScrollArea::vertical()
                    .max_height(480.0)
                    .show(ui, |ui| self.bindings(ui, config, &rows, actions));
            }
            let hint = match self.capturing {
                Some(BindTarget::Button(..)) => "Press a gamepad button (Esc: cancel)",
                Some(_) => "Press a key (Esc: cancel)",
                None => "Click a binding to change it, right-click to clear it",
            };
            ui.label(hint);
            if ui.button("Close").clicked() {
                open = false;
            }
        });
        open
    }

    /// The rows of a page: what each does, its key, its gamepad button.
    fn bindings(
        &mut self,
        ui: &mut egui::Ui,
        config: &Config,
        rows: &[(String, BindTarget, Option<BindTarget>)],
        actions: &mut Vec<Action>,
    ) {
        egui::Grid::new("bindings")
            .num_columns(3)
            .min_col_width(110.0)
            .show(ui, |ui| {
                ui.label("");
                ui.strong("Keyboard");
                if rows.iter().any(|r| r.2.is_some()) {
                    ui.strong("Gamepad");
                }
                ui.end_row();
                for (label, key, button) in rows {
                    ui.strong(label);
                    for target in [Some(*key), *button].into_iter().flatten() {
                        let text = if self.capturing == Some(target) {
                            "press...".to_string()
                        } else {
                            config.bound_to(target)
                        };
                        let clicked = ui.button(text);
                        if clicked.clicked() {
                            self.capturing = Some(target);
                        }
                        if clicked.secondary_clicked() {
                            actions.push(Action::Unbind(target));
                        }
                    }
                    ui.end_row();
                }
            });
    }
}

/// The Input window's page of turbo and stick settings.
fn options(ui: &mut egui::Ui, config: &Config, actions: &mut Vec<Action>) {
    let settings = &config.input;
    ui.label("Turbo A / B: presses a second");
    ui.horizontal(|ui| {
        for frames in [1u8, 2, 3, 4, 6] {
            let rate = crate::config::InputConfig {
                turbo_frames: frames,
                ..settings.clone()
            }
            .turbo_hz();
            let label = format!("{rate:.0}");
            if ui
                .selectable_label(settings.turbo_frames == frames, label)
                .clicked()
            {
                actions.push(Action::TurboFrames(frames));
            }
        }
    });
    ui.label("Stick dead zone (lean needed to press the d-pad)");
    let mut deadzone = settings.deadzone;
    let slider = egui::Slider::new(&mut deadzone, 0.1..=0.9).step_by(0.05);
    if ui.add(slider).changed() {
        actions.push(Action::Deadzone(deadzone));
    }
}

/// The Cheats window: the game's cheats to switch on and off or remove, and a field to type a
/// new one in.
#[derive(Default)]
struct CheatsWindow {
    code: String,
    name: String,
}

impl CheatsWindow {
    /// Shows the window; false once it is closed.
    fn show(
        &mut self,
        ctx: &Context,
        cheats: &[Cheat],
        file: &str,
        actions: &mut Vec<Action>,
    ) -> bool {
        let mut open = true;
        tool_window("Cheats").show(ctx, |ui| {
            ui.label(format!("File: {file}"));
            egui::ScrollArea::vertical()
                .max_height(300.0)
                .show(ui, |ui| {
                    if cheats.is_empty() {
                        ui.label("No cheats yet.");
                    }
                    egui::Grid::new("cheats").num_columns(4).show(ui, |ui| {
                        for (i, cheat) in cheats.iter().enumerate() {
                            let mut on = cheat.enabled;
                            if ui.checkbox(&mut on, "").changed() {
                                actions.push(Action::ToggleCheat(i));
                            }
                            ui.label(&cheat.name);
                            let kind = if !cheat.acts() {
                                " (no effect here)"
                            } else if cheat.substitute {
                                " read"
                            } else {
                                " write"
                            };
                            ui.monospace(cheat.code() + kind);
                            if ui.button("Remove").clicked() {
                                actions.push(Action::RemoveCheat(i));
                            }
                            ui.end_row();
                        }
                    });
                });
            ui.separator();
            ui.label("Game Genie code, or AAAA:VV (RAM write), or AAAA:VV:CC (compare):");
            let mut add = false;
            ui.horizontal(|ui| {
                let field = ui.add(
                    egui::TextEdit::singleline(&mut self.code)
                        .hint_text("code")
                        .desired_width(140.0),
                );
                add |= field.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
                let name = ui.add(
                    egui::TextEdit::singleline(&mut self.name)
                        .hint_text("name")
                        .desired_width(160.0),
                );
                add |= name.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
                // The keyboard goes to the code unless the name has it (a click elsewhere
                // in the window does not take it away).
                let typing = [&field, &name]
                    .iter()
                    .any(|f| f.has_focus() || f.lost_focus());
                if !typing {
                    field.request_focus();
                }
                add |= ui.button("Add").clicked();
            });
            if add && !self.code.trim().is_empty() {
                let code = std::mem::take(&mut self.code);
                actions.push(Action::AddCheat(code, std::mem::take(&mut self.name)));
            }
            ui.horizontal(|ui| {
                if ui.button("Load .cht file...").clicked() {
                    actions.push(Action::BrowseCheats);
                }
                if ui.button("Close").clicked() {
                    open = false;
                }
            });
        });
        open
    }
}

/// Slots 1-9 of the state menus, each with its picture and how long ago it was saved.
fn state_slots(menu: &mut Menu, slots: &[SlotView], key: &str, action: fn(usize) -> Action) {
    for (i, slot) in slots.iter().enumerate() {
        let number = i + 1;
        let age = slot.saved.map_or("empty".into(), |time| {
            saved_ago(time.elapsed().unwrap_or_default())
        });
        let label = format!("Slot {number} ({age})");
        let button = match slot.picture {
            Some(picture) => {
                let image = egui::Image::new((picture, THUMBNAIL_POINTS));
                egui::Button::image_and_text(image, label).wrap(false)
            }
            None => egui::Button::new(label),
        };
        menu.add(
            button.shortcut_text(format!("{key}{number}")),
            action(number),
        );
    }
}

/// How long ago a state was saved, as a slot's menu item says it.
fn saved_ago(age: Duration) -> String {
    let minutes = age.as_secs() / 60;
    match minutes {
        0 => "saved just now".into(),
        1..60 => format!("saved {minutes} min ago"),
        60..2880 => format!("saved {} h ago", minutes / 60),
        _ => format!("saved {} days ago", minutes / 1440),
    }
}

/// A dropped-down menu being filled.
struct Menu<'u, 'a> {
    ui: &'u mut egui::Ui,
    actions: &'a mut Vec<Action>,
}

impl Menu<'_, '_> {
    /// A submenu, filled by `items`.
    fn sub(&mut self, title: &str, items: impl FnOnce(&mut Menu)) {
        let actions = &mut *self.actions;
        self.ui
            .menu_button(title, |ui| items(&mut Menu { ui, actions }));
    }

    /// An item with its hotkey beside it; `on` marks a setting that is on (or off).
    fn item(&mut self, label: &str, key: &str, on: Option<bool>, action: Action) {
        let mut button = egui::Button::new(label).shortcut_text(key);
        if let Some(on) = on {
            button = button.selected(on);
        }
        self.add(button, action);
    }

    /// An item made by the caller.
    fn add(&mut self, button: egui::Button, action: Action) {
        if self.ui.add(button).clicked() {
            self.actions.push(action);
            self.ui.close_menu();
        }
    }
}

/// The ROM browser's answer.
enum Browsed {
    Open(PathBuf),
    Cancel,
}

/// A small file browser for ROMs: a path to type (from the folder shown), or folders and .nes
/// files to click.
struct Browser {
    dir: PathBuf,
    purpose: Purpose,
    typed: String,
    entries: Result<Vec<(String, bool)>, String>,
}

/// What the browser picks a file for.
#[derive(Clone, Copy, PartialEq)]
pub enum Purpose {
    Rom,
    Cheats,
    Script,
    Palette,
    RecordMovie,
    PlayMovie,
}

impl Browser {
    fn new(dir: PathBuf, purpose: Purpose) -> Browser {
        let extension = match purpose {
            Purpose::Rom => "nes",
            Purpose::Cheats => "cht",
            Purpose::Script => "lua",
            Purpose::Palette => "pal",
            Purpose::RecordMovie | Purpose::PlayMovie => "fm2",
        };
        Browser {
            typed: String::new(),
            entries: list(&dir, extension),
            dir,
            purpose,
        }
    }

    fn enter(&mut self, dir: PathBuf) {
        *self = Browser::new(dir, self.purpose);
    }

    fn show(&mut self, ctx: &Context) -> Option<Browsed> {
        let mut answer = None;
        let title = match self.purpose {
            Purpose::Rom => "Open ROM",
            Purpose::Cheats => "Load cheats (.cht)",
            Purpose::Script => "Open Lua script",
            Purpose::Palette => "Palette file (.pal)",
            Purpose::RecordMovie => "Record movie (.fm2) from power-on",
            Purpose::PlayMovie => "Play movie (.fm2)",
        };
        egui::Window::new(title)
            .collapsible(false)
            .resizable(false)
            .anchor(Align2::CENTER_CENTER, Vec2::ZERO)
            .show(ctx, |ui| {
                ui.label(self.dir.display().to_string());
                let field = egui::TextEdit::singleline(&mut self.typed)
                    .hint_text("file name or path")
                    .desired_width(400.0);
                let field = ui.add(field);
                if !field.has_focus() && !field.lost_focus() {
                    field.request_focus();
                }
                let typed_enter = field.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
                let typed = (!self.typed.is_empty()).then(|| self.dir.join(&self.typed));
                let mut chosen = typed.clone().filter(|_| typed_enter);
                egui::ScrollArea::vertical()
                    .max_height(300.0)
                    .show(ui, |ui| {
                        if ui.button("..").clicked() {
                            chosen = self.dir.parent().map(Path::to_path_buf);
                        }
                        match &self.entries {
                            Ok(entries) => {
                                for (name, is_dir) in entries {
                                    let label = if *is_dir {
                                        format!("{name}/")
                                    } else {
                                        name.clone()
                                    };
                                    if ui.button(label).clicked() {
                                        chosen = Some(self.dir.join(name));
                                    }
                                }
                            }
                            Err(err) => {
                                ui.colored_label(Color32::LIGHT_RED, err);
                            }
                        }
                    });
                ui.horizontal(|ui| {
                    if ui.button("Open").clicked() {
                        chosen = typed;
                    }
                    if ui.button("Cancel").clicked() {
                        answer = Some(Browsed::Cancel);
                    }
                });
                match chosen {
                    Some(path) if path.is_dir() => self.enter(path),
                    Some(path) => answer = Some(Browsed::Open(path)),
                    None => {}
                }
            });
        answer
    }
}

/// A folder's subfolders and files ending in `.extension`, folders first, by name; hidden
/// entries left out.
fn list(dir: &Path, extension: &str) -> Result<Vec<(String, bool)>, String> {
    let read = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut entries: Vec<(String, bool)> = read
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_string();
            let is_dir = entry.path().is_dir();
            let rom = Path::new(&name)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case(extension));
            (!name.starts_with('.') && (is_dir || rom)).then_some((name, is_dir))
        })
        .collect();
    entries.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(entries)
}

/// egui's name for a key, for the keys a menu or a text field uses.
fn egui_key(code: KeyCode) -> Option<Key> {
    let name = format!("{code:?}");
    let name = name
        .strip_prefix("Key")
        .or_else(|| name.strip_prefix("Digit"))
        .unwrap_or(&name);
    Key::from_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_say_how_long_ago_they_were_saved() {
        let ago = |seconds| saved_ago(Duration::from_secs(seconds));
        assert_eq!(ago(59), "saved just now");
        assert_eq!(ago(60 * 59 + 59), "saved 59 min ago");
        assert_eq!(ago(3600 * 47), "saved 47 h ago");
        assert_eq!(ago(3600 * 24 * 3), "saved 3 days ago");
    }

    #[test]
    fn keys_map_to_egui_keys() {
        assert_eq!(egui_key(KeyCode::Enter), Some(Key::Enter));
        assert_eq!(egui_key(KeyCode::ArrowDown), Some(Key::ArrowDown));
        assert_eq!(egui_key(KeyCode::KeyQ), Some(Key::Q));
        assert_eq!(egui_key(KeyCode::Digit3), Some(Key::Num3));
        assert_eq!(egui_key(KeyCode::Fn), None);
    }

    #[test]
    fn the_browser_lists_folders_then_roms() {
        let dir = std::env::temp_dir().join(format!("nestor-browse-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("b-folder")).unwrap();
        for file in ["z.nes", "a.NES", "notes.txt", ".hidden.nes"] {
            std::fs::write(dir.join(file), b"").unwrap();
        }
        let names = list(&dir, "nes").unwrap();
        assert_eq!(
            names,
            [
                ("b-folder".to_string(), true),
                ("a.NES".to_string(), false),
                ("z.nes".to_string(), false)
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(list(&dir, "nes").unwrap_err().contains("nestor-browse"));
    }
}
