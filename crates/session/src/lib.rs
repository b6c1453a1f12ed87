//! The host's frame runner. One [`Session`] owns the console and everything that happens
//! around a frame: the input sources, the movie being played or recorded, the Lua scripts, the
//! battery file and the frame's sound. The window, `nestor run --headless`, `bench` and `soak`
//! all call [`Session::frame`]; none of them runs the machine any other way.
//!
//! A frame is the host's frame, `Console::run_frame` (FCEUX's: it starts when the PPU enters
//! line 240; FCEUX's two dead frames after power-on and resets are not frames here, see
//! [`movies`]). At its start the sources are layered, each replacing what the one before chose:
//!
//! 1. the user's pads (keyboard, gamepad, an input script), from [`Session::set_pads`], their
//!    pointer (the mouse: it aims a Zapper, turns a Vaus's knob) from [`Session::set_pointer`],
//!    and a reset or power cycle from [`Session::reset`] or [`Session::power_cycle`];
//! 2. the movie being played back (its resets replace the user's);
//! 3. the automatic [`Player`] (the Tetris AI), on controller 1, while it is switched on;
//! 4. the scripts' `joypad.set`, inside the Lua frame (so a script can read the AI's buttons
//!    with `joypad.get` and override them, as it can override a movie in FCEUX).
//!
//! What the game latched is what the recording logs, whichever source pressed it.

pub mod battery;
pub mod cheats;
pub mod files;
pub mod movies;
pub mod rewind;
pub mod signals;
pub mod video_recording;

use battery::BatterySave;
use cheats::CheatList;
use lua::Scripts;
use movies::Movies;
use nes::{Buttons, Console};
use rewind::Rewind;
use std::collections::VecDeque;

/// The most frames run-ahead may show ahead of the machine.
pub const MAX_RUN_AHEAD: u8 = 4;

/// `frames` if run-ahead can show that many frames ahead, else why not in one line.
pub fn check_run_ahead(frames: u8) -> Result<u8, String> {
    if frames > MAX_RUN_AHEAD {
        return Err(format!(
            "run-ahead of {frames} frames: at most {MAX_RUN_AHEAD}"
        ));
    }
    Ok(frames)
}

/// A rectangle in NES pixels to outline over the picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outline {
    pub x: u16,
    pub y: u16,
    pub width: u16,
    pub height: u16,
}

/// How an automatic player plays: an evaluation profile and the fastest it taps a button.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Style {
    pub profile: String,
    pub tap_hz: u32,
}

/// The player's style now and the ones it can switch to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Styles {
    pub current: Style,
    pub profiles: Vec<&'static str>,
    pub tap_rates: Vec<u32>,
}

/// An automatic player (the Tetris AI), an input source that can be switched on and off at any
/// frame.
pub trait Player {
    /// Controller 1's buttons for the frame about to start, decided from the machine as it
    /// stands at the frame's input latch.
    fn buttons(&mut self, console: &mut Console) -> Buttons;
    /// What the window outlines over the picture (the planned lock position), in NES pixels.
    fn overlay(&self) -> Vec<Outline> {
        Vec::new()
    }
    /// Looks at every frame once it has run, whether the player plays or not (to keep
    /// statistics of the game).
    fn observe(&mut self, _console: &Console) {}
    /// Lines of text for the window's panel about the player and the game; `playing` says
    /// whether the player is at the controls.
    fn panel(&self, _console: &Console, _playing: bool) -> Vec<String> {
        Vec::new()
    }
    /// The styles the player offers (None: it has no choice to make).
    fn styles(&self) -> Option<Styles> {
        None
    }
    /// Plays in `style` from the next piece on; the error is one line.
    fn set_style(&mut self, _style: &Style) -> Result<(), String> {
        Err("this player has no styles".into())
    }
}

pub struct Session {
    console: Console,
    battery: BatterySave,
    movies: Movies,
    scripts: Option<Scripts>,
    player: Option<Box<dyn Player>>,
    player_on: bool,
    /// The user's pads, players 1 to 4 (3 and 4 reach a Four Score only).
    pads: [u8; 4],
    /// The user's pointer: the pixel it is over (None: off the picture) and its button.
    pointer: Pointer,
    /// The user's reset or power cycle for the start of the next frame (`movie` command bits).
    commands: u8,
    /// Frames run, the index of the played movie's next host frame.
    frames: u64,
    /// The last frame's sound.
    samples: Vec<i16>,
    rewind: Option<Rewind>,
    /// Frames shown ahead of the machine (run-ahead), 0 to [`MAX_RUN_AHEAD`].
    run_ahead: u8,
    /// The frames after the machine's, emulated ahead with the buttons in `ahead_buttons` and
    /// the pointer `ahead_pointer` (the next one first); the last one's picture is shown.
    ahead: VecDeque<Console>,
    ahead_buttons: [u8; 4],
    ahead_pointer: Pointer,
    /// A console no longer wanted, whose picture buffer the next frame run ahead draws into.
    spare: Option<Console>,
    /// The sound of frames run ahead before the one kept (never played).
    unheard: Vec<i16>,
    /// One-line reports for the front end to show.
    messages: Vec<String>,
    /// The game's cheats (FCEUX's raw cheats and Game Genie codes).
    cheats: CheatList,
}

/// The user's pointer, as [`Session::set_pointer`] gives it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Pointer {
    aim: Option<(u8, u8)>,
    button: bool,
}

impl Session {
    /// A session on `console`, saving nothing until [`Session::open_battery`].
    pub fn new(console: Console) -> Session {
        Session {
            battery: BatterySave::none(),
            console,
            movies: Movies::default(),
            scripts: None,
            player: None,
            player_on: false,
            pads: [0; 4],
            pointer: Pointer::default(),
            commands: 0,
            frames: 0,
            samples: Vec::new(),
            rewind: None,
            run_ahead: 0,
            ahead: VecDeque::new(),
            ahead_buttons: [0; 4],
            ahead_pointer: Pointer::default(),
            spare: None,
            unheard: Vec::new(),
            messages: Vec::new(),
            cheats: CheatList::default(),
        }
    }

    /// The game's cheats from now on: the Game Genie codes in the cartridge become the list's,
    /// and its RAM cheats are written at the start of every frame.
    pub fn set_cheats(&mut self, cheats: CheatList) {
        cheats.plug_into(&mut self.console);
        self.cheats = cheats;
        self.drop_ahead();
    }

    pub fn cheats(&self) -> &CheatList {
        &self.cheats
    }

    /// Reads the battery RAM from the save file of `rom_name` in the data directory, where it
    /// is saved from now on.
    pub fn open_battery(&mut self, rom_name: &str) {
        self.battery = BatterySave::open(rom_name, &mut self.console);
    }

    /// Runs one frame with every source in its place (see the module's description).
    pub fn frame(&mut self) {
        let mut pads = self.pads;
        let commands = std::mem::take(&mut self.commands);
        // A movie being played has its own resets.
        let commands = if self.movies.playing() { 0 } else { commands };
        if commands != 0 {
            // The frames run ahead had no reset.
            self.drop_ahead();
            movie::apply_commands(commands, &mut self.console);
        }
        if self.cheats.writes_ram_each_frame() {
            // The frames run ahead were run without this frame's writes.
            self.drop_ahead();
            self.cheats.write_ram(&mut self.console);
        }
        let mut restarts = commands;
        if let Some(line) = self.movies.play(self.frames, &mut self.console) {
            pads = line.pads;
            restarts |= line.commands;
        }
        if let Some(player) = self.player.as_mut().filter(|_| self.player_on) {
            pads[0] = player.buttons(&mut self.console).0;
        }
        let movie = self.movie_status();
        // Scripts watch and change the frame as it runs: it is never one run ahead without
        // them.
        let scripted = self.scripts.as_ref().is_some_and(Scripts::active);
        let pointer = self.pointer_in_use();
        if scripted || pads != self.ahead_buttons || pointer != self.ahead_pointer {
            self.drop_ahead();
        }
        // Players 3 and 4 and the pointer: the scripts and the movie leave them to the user.
        for (player, &bits) in pads.iter().enumerate().skip(2) {
            self.console.set_buttons(player, Buttons(bits));
        }
        self.console.point(pointer.aim, pointer.button);
        if let Some(scripts) = self.scripts.as_mut().filter(|_| scripted) {
            scripts.set_pads([pads[0], pads[1]]);
            scripts.set_movie(movie);
            scripts.set_ram_cheats(self.cheats.writes_ram_each_frame());
            scripts.set_restarts(restarts);
            scripts.run_frame(&mut self.console);
        } else if let Some(next) = self.ahead.pop_front() {
            // Already emulated ahead with these very buttons: that frame is this one.
            self.spare = Some(std::mem::replace(&mut self.console, next));
        } else {
            for (port, &bits) in pads.iter().enumerate() {
                self.console.set_buttons(port, Buttons(bits));
            }
            self.console.run_frame();
        }
        self.movies.log(&self.console, commands);
        if let Some(player) = &mut self.player {
            player.observe(&self.console);
        }
        self.battery.tick(&self.console);
        self.samples.clear();
        self.console.take_samples(&mut self.samples);
        self.frames += 1;
        if let Some(rewind) = &mut self.rewind {
            if let Err(err) = rewind.push(&mut self.console) {
                self.rewind = None;
                self.report(format!("{err}; rewind is off"));
            }
        }
        self.run_ahead();
    }

    /// Run-ahead: the frames after this one are emulated with the buttons it latched and kept,
    /// the last one's picture shown, so that a press shows `run_ahead` frames sooner. While the
    /// buttons stay the same, the next frame is the first one kept and only one new frame is
    /// run ahead; a change of buttons throws them away. The sound is always the machine's own
    /// frame's. Off while a movie plays or records.
    fn run_ahead(&mut self) {
        let frames = usize::from(self.run_ahead_frames());
        let buttons = [0, 1, 2, 3].map(|player| self.console.buttons(player).0);
        let pointer = self.pointer_in_use();
        if buttons != self.ahead_buttons || pointer != self.ahead_pointer {
            self.drop_ahead();
            self.ahead_buttons = buttons;
            self.ahead_pointer = pointer;
        }
        self.ahead.truncate(frames);
        while self.ahead.len() < frames {
            let last = self.ahead.back_mut().unwrap_or(&mut self.console);
            let mut next = last.fork(self.spare.take());
            // Each frame kept ahead holds its own sound only, to hand over when it is taken.
            self.unheard.clear();
            next.take_samples(&mut self.unheard);
            next.run_frame();
            self.ahead.push_back(next);
        }
    }

    /// The user's pointer if a device takes it (a Zapper, a Vaus), else none: a mouse moving
    /// over pads alone does not throw the frames run ahead away.
    fn pointer_in_use(&self) -> Pointer {
        let console = &self.console;
        let takes_it = (0..2).any(|port| {
            matches!(
                console.port(port).device(),
                nes::Device::Zapper | nes::Device::Vaus
            )
        });
        if takes_it {
            self.pointer
        } else {
            Pointer::default()
        }
    }

    /// Throws the frames run ahead away, keeping one console's memory for the next.
    fn drop_ahead(&mut self) {
        if let Some(last) = self.ahead.pop_back() {
            self.spare = Some(last);
        }
        self.ahead.clear();
    }

    /// Shows frames `frames` ahead of the machine (0 turns run-ahead off).
    pub fn set_run_ahead(&mut self, frames: u8) -> Result<(), String> {
        self.run_ahead = check_run_ahead(frames)?;
        self.drop_ahead();
        Ok(())
    }

    /// Frames run ahead now: 0 while a movie plays or records.
    pub fn run_ahead_frames(&self) -> u8 {
        if self.movies.active() {
            0
        } else {
            self.run_ahead
        }
    }

    /// The picture to show: the frame run ahead, or the machine's own.
    pub fn picture(&self) -> &[u16] {
        self.ahead.back().unwrap_or(&self.console).frame_buffer()
    }

    /// Keeps a ring of the last frames' states within `budget` bytes, for [`Session::rewind`]
    /// (`None`: no ring).
    pub fn set_rewind(&mut self, budget: Option<usize>) {
        self.rewind = budget.map(Rewind::new);
    }

    /// Puts the machine back one frame, with no sound; false when the ring goes back no
    /// further, or is off, or a movie is being played or recorded (its frames only go forwards).
    pub fn rewind(&mut self) -> bool {
        self.samples.clear();
        self.drop_ahead();
        let Some(rewind) = self.rewind.as_mut().filter(|_| !self.movies.active()) else {
            return false;
        };
        let stepped = rewind.step_back(&mut self.console);
        self.frames -= u64::from(stepped);
        stepped
    }

    /// The rewind ring, while it is on.
    pub fn rewind_ring(&self) -> Option<&Rewind> {
        self.rewind.as_ref()
    }

    /// Reports since the last call: movie desyncs, rewind turned off.
    pub fn take_messages(&mut self) -> Vec<String> {
        let mut messages = std::mem::take(&mut self.messages);
        messages.extend(self.movies.take_messages());
        messages
    }

    fn report(&mut self, message: String) {
        eprintln!("nestor: {message}");
        self.messages.push(message);
    }

    /// Ends the session on any way out: the scripts' `emu.registerexit` callbacks run, the
    /// battery RAM and the recording are written. Returns the exit code a movie desync calls
    /// for. Safe to call more than once.
    pub fn finish(&mut self, quiet: bool) -> anyhow::Result<Option<u8>> {
        if let Some(scripts) = &mut self.scripts {
            scripts.stop_all(&mut self.console);
        }
        self.battery.flush(&self.console);
        self.movies.finish(quiet)
    }

    /// Plugs in another game: the old one's battery RAM is saved and its scripts stopped; the
    /// player is switched off (it knows one game) and no movie goes on.
    pub fn change_game(&mut self, mut console: Console, rom_name: &str) {
        if let Some(mut scripts) = self.scripts.take() {
            scripts.stop_all(&mut self.console);
        }
        self.battery.flush(&self.console);
        self.battery = BatterySave::open(rom_name, &mut console);
        self.console = console;
        self.cheats = CheatList::default();
        self.drop_ahead();
        self.movies = Movies::default();
        self.player_on = false;
        self.frames = 0;
        if let Some(rewind) = &mut self.rewind {
            // The old game's states cannot be loaded into the new one.
            *rewind = Rewind::new(rewind.budget());
        }
    }

    pub fn console(&self) -> &Console {
        &self.console
    }

    /// The machine, to change: the frames run ahead of it are thrown away.
    pub fn console_mut(&mut self) -> &mut Console {
        self.drop_ahead();
        &mut self.console
    }

    /// The rate the sound is made at, steered by the front end to keep its output fed; the
    /// frames run ahead go on (the rate changes no emulated state the game sees).
    pub fn set_sample_rate(&mut self, rate: f64) {
        for console in self.ahead.iter_mut().chain([&mut self.console]) {
            console.set_sample_rate(rate);
        }
    }

    /// Presses the reset button at the start of the next frame (where FCEUX takes it too), so
    /// that a recording logs it.
    pub fn reset(&mut self) {
        self.commands |= movie::SOFT_RESET;
    }

    /// Turns the machine off and on at the start of the next frame (RAM all $00), so that a
    /// recording logs it.
    pub fn power_cycle(&mut self) {
        self.commands |= movie::POWER;
    }

    /// The user's pads for the next frames (bits as in [`Buttons`]): players 1 to N, up to
    /// 4; the others hold nothing.
    pub fn set_pads<const N: usize>(&mut self, pads: [u8; N]) {
        const { assert!(N <= 4, "four players at most") };
        self.pads = [0; 4];
        self.pads[..N].copy_from_slice(&pads);
    }

    /// The user's pointer for the next frames: the pixel it is over, None when it is off the
    /// picture (a Zapper then shoots away from the screen), and whether its button is down.
    pub fn set_pointer(&mut self, aim: Option<(u8, u8)>, button: bool) {
        self.pointer = Pointer { aim, button };
    }

    pub fn set_movies(&mut self, movies: Movies) {
        self.movies = movies;
    }

    /// Starts playing or recording `movies` in the middle of a session, as they would start
    /// with it: from power-on (a movie played powers the machine on at its first frame, a
    /// recording starts on a machine just powered on), frames counted from 0, the rewind ring
    /// emptied (its states are from before the movie). Call [`Session::stop_movies`] first.
    pub fn start_movies(&mut self, movies: Movies) {
        if movies.recording() {
            self.console.power_cycle();
        }
        self.drop_ahead();
        self.commands = 0;
        self.frames = 0;
        self.movies = movies;
        if let Some(rewind) = &mut self.rewind {
            *rewind = Rewind::new(rewind.budget());
        }
    }

    /// Stops the movie being played or recorded (a recording is written); returns what was
    /// done in one line, None when no movie went on.
    pub fn stop_movies(&mut self) -> anyhow::Result<Option<String>> {
        std::mem::take(&mut self.movies).stop()
    }

    /// What Lua's `movie.*` functions report now (scripts being loaded need it too).
    pub fn movie_status(&self) -> Option<lua::MovieStatus> {
        self.movies.status(self.frames)
    }

    pub fn movies(&self) -> &Movies {
        &self.movies
    }

    pub fn set_scripts(&mut self, scripts: Scripts) {
        self.scripts = Some(scripts);
    }

    pub fn scripts(&self) -> Option<&Scripts> {
        self.scripts.as_ref()
    }

    /// The scripts and the console they run on.
    pub fn scripts_mut(&mut self) -> Option<(&mut Scripts, &mut Console)> {
        self.scripts.as_ref()?;
        self.drop_ahead();
        self.scripts.as_mut().map(|s| (s, &mut self.console))
    }

    pub fn set_player(&mut self, player: Box<dyn Player>, on: bool) {
        self.player = Some(player);
        self.player_on = on;
    }

    pub fn has_player(&self) -> bool {
        self.player.is_some()
    }

    pub fn player_on(&self) -> bool {
        self.player_on && self.player.is_some()
    }

    /// Switches the player on or off; returns whether it is on now (never without a player).
    pub fn toggle_player(&mut self) -> bool {
        self.player_on = !self.player_on && self.player.is_some();
        self.player_on
    }

    /// The player's styles (see [`Player::styles`]).
    pub fn player_styles(&self) -> Option<Styles> {
        self.player.as_ref()?.styles()
    }

    /// Has the player play in `style`; the error is one line.
    pub fn set_player_style(&mut self, style: &Style) -> Result<(), String> {
        match &mut self.player {
            Some(player) => player.set_style(style),
            None => Err("no automatic player".into()),
        }
    }

    /// What the player wants outlined, while it plays.
    pub fn overlay(&self) -> Vec<Outline> {
        match &self.player {
            Some(player) if self.player_on => player.overlay(),
            _ => Vec::new(),
        }
    }

    /// The player's panel (see [`Player::panel`]); empty without a player.
    pub fn panel(&self) -> Vec<String> {
        match &self.player {
            Some(player) => player.panel(&self.console, self.player_on),
            None => Vec::new(),
        }
    }

    /// Frames run since the session began (or the game was changed).
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// The sound of the last frame, at the console's sample rate.
    pub fn samples(&self) -> &[i16] {
        &self.samples
    }
}
