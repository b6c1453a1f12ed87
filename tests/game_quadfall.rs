mod quadfall;
use quadfall::*;

#[test]
fn explore() {
    let mut g = Game::start(0);
    for _ in 0..200 {
        g.frame(0);
        eprintln!("f{} mode {} st {} x {} y {} p {:02X} ft {} ary {:02X} vr {}", g.frames, g.peek(GAME_MODE), g.peek(PLAY_STATE), g.peek(X), g.peek(Y), g.peek(PIECE), g.peek(FALL_TIMER), g.peek(AUTOREPEAT_Y), g.peek(0x49));
    }
}
