//! The native Tetris AI of nestor: the NES Tetris rules model, the placement and controller
//! searches, the evaluation profiles, the fast simulator and benchmark, training, and the driver
//! that plays the game in the emulator through the controller.

pub mod bench;
pub mod controller;
pub mod driver;
pub mod eval;
pub mod placement;
pub mod planner;
pub mod rules;
pub mod sim;
pub mod train;
