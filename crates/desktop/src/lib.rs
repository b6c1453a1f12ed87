//! nestor's desktop front end: a window showing the picture (winit + pixels), sound (cpal),
//! keyboard and gamepads (gilrs), and the controls people expect from an emulator: pause, frame
//! advance, fast-forward, save states, screenshots, an AI that can take over and hand back.
//!
//! The caller gives a ROM and, optionally, an AI player and FCEUX Lua scripts, then calls
//! [`run`]. The emulator sets the pace (60.0988 frames per second, 50.007 on PAL and Dendy),
//! never the display.

mod app;
pub mod audio;
mod bindings;
pub mod config;
mod input;
pub mod ntsc;
mod ui;
mod video;

pub use app::{run, Options, Rom, RunError, FRAME_RATE};
pub use session::{battery, files, Outline, Player};
