//! Runs the `ai-bench` logic from the command line without the `nestor` binary:
//! `cargo run --release -p ai --example ai_bench -- --games 4 --search placement --pieces uniform`.

use ai::bench::{run, BenchOptions};

fn main() {
    let mut o = BenchOptions::default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().cloned().unwrap_or_default();
        let num = |v: String| -> u64 {
            v.parse().unwrap_or_else(|_| {
                eprintln!("error: {flag} needs a number, got '{v}'");
                std::process::exit(2)
            })
        };
        match flag.as_str() {
            "--games" => o.games = num(value()),
            "--level" => o.level = num(value()) as u8,
            "--profile" => o.profile = value(),
            "--search" => o.search = value(),
            "--tap-hz" => o.tap_hz = num(value()) as u32,
            "--pieces" => o.pieces = value(),
            "--max-pieces" => o.max_pieces = Some(num(value())),
            "--seed" => o.seed = num(value()),
            "--json" => o.json = true,
            f => {
                eprintln!("error: unknown option {f}");
                std::process::exit(2)
            }
        }
    }
    match run(&o) {
        Ok(r) if o.json => println!("{}", r.to_json()),
        Ok(r) => print!("{}", r.to_text()),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2)
        }
    }
}
