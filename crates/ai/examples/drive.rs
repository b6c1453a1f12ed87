//! Plays Quadfall in the emulator with the driver: `cargo run --release -p ai --example drive -- [frames] [level] [teleport]`
use ai::driver::{Driver, Mode};
use ai::eval::Profile;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let frames: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(5000);
    let level: u8 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(19);
    let mode = if args.get(3).is_some_and(|a| a == "teleport") {
        Mode::Teleport
    } else {
        Mode::Controller { tap_hz: 30 }
    };
    let rom = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../roms/quadfall.nes"
    ))
    .unwrap();
    let mut console = nes::Console::from_ines(&rom).unwrap();
    let mut d = Driver::new(Profile::by_name("strong").unwrap(), mode, level).unwrap();
    let t = std::time::Instant::now();
    for f in 0..frames {
        d.step(&mut console);
        if f % 1000 == 0 {
            eprintln!(
                "frame {f} mode {} state {} level {} {:?}",
                console.peek(0xC0),
                console.peek(0x48),
                console.peek(0x44),
                d.stats
            );
        }
    }
    println!("{:?} in {:?}", d.stats, t.elapsed());
}
