fn main() {
    let rom = std::fs::read(std::env::args().nth(1).unwrap()).unwrap();
    let mut c = nes::Console::from_ines(&rom).unwrap();
    let frames: u64 = std::env::args().nth(2).map_or(600, |s| s.parse().unwrap());
    for _ in 0..frames {
        c.run_frame();
    }
    println!("{} {}", c.bus.cycles, c.idle_cycles_skipped());
}
