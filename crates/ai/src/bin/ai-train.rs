//! Trains the strong profile's weights (see weights/README.md):
//! `cargo run --release -p ai --bin ai-train -- [--generations N] [--population N] [--games N]
//! [--max-pieces N] [--level L] [--search placement|controller] [--tap-hz H] [--pieces nes|uniform]
//! [--objective score|survive|transition] [--seed S] [--start FILE] [--out FILE]`

use ai::eval::Weights;
use ai::planner::SearchKind;
use ai::sim::Pieces;
use ai::train::{train, Objective, TrainOptions};
use std::process::exit;

fn fail(msg: String) -> ! {
    eprintln!("ai-train: {msg}");
    exit(2)
}

fn main() {
    let mut o = TrainOptions {
        generations: 10,
        population: 16,
        games: 4,
        max_pieces: 300,
        level: 18,
        kind: SearchKind::Placement,
        pieces: Pieces::Nes,
        objective: Objective::Score,
        seed: 1,
    };
    let weights_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/weights");
    let mut start = format!("{weights_dir}/strong.json");
    let mut out = format!("{weights_dir}/strong.json");
    let mut search = "placement".to_string();
    let mut tap_hz = 30;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it
            .next()
            .cloned()
            .unwrap_or_else(|| fail(format!("{flag} needs a value")));
        let num = |v: &str| -> u64 {
            v.parse()
                .unwrap_or_else(|_| fail(format!("{flag} needs a number, got '{v}'")))
        };
        match flag.as_str() {
            "--generations" => o.generations = num(&value) as u32,
            "--population" => o.population = (num(&value) as usize).max(4),
            "--games" => o.games = num(&value).max(1),
            "--max-pieces" => o.max_pieces = num(&value),
            "--level" => o.level = num(&value) as u8,
            "--search" => search = value,
            "--tap-hz" => tap_hz = num(&value) as u32,
            "--pieces" => {
                o.pieces = match value.as_str() {
                    "nes" => Pieces::Nes,
                    "uniform" => Pieces::Uniform,
                    v => fail(format!("unknown piece source '{v}'")),
                }
            }
            "--objective" => {
                o.objective = match value.as_str() {
                    "score" => Objective::Score,
                    "survive" => Objective::Survive,
                    "transition" => Objective::Transition,
                    v => fail(format!("unknown objective '{v}'")),
                }
            }
            "--seed" => o.seed = num(&value),
            "--start" => start = value,
            "--out" => out = value,
            f => fail(format!("unknown option {f}")),
        }
    }
    o.kind = match search.as_str() {
        "placement" => SearchKind::Placement,
        "controller" => SearchKind::Controller { tap_hz },
        s => fail(format!("unknown search '{s}'")),
    };
    let text = std::fs::read_to_string(&start)
        .unwrap_or_else(|e| fail(format!("cannot read {start}: {e}")));
    let w: Weights = serde_json::from_str(&text).unwrap_or_else(|e| fail(format!("{start}: {e}")));
    eprintln!("start fitness {:.0}", ai::train::fitness(&w, &o, 12345));
    if o.generations == 0 {
        return;
    }
    let result = train(&o, &w, |g| {
        eprintln!(
            "generation {}: best {:.0}, mean {:.0}, mean weights {:?}",
            g.index,
            g.best_fitness,
            g.mean_fitness,
            g.mean
                .w
                .iter()
                .map(|v| (v * 100.0).round() / 100.0)
                .collect::<Vec<_>>()
        );
    });
    eprintln!(
        "final fitness {:.0}",
        ai::train::fitness(&result, &o, 12345)
    );
    let json = serde_json::to_string(&result).expect("numbers");
    std::fs::write(&out, json + "\n").unwrap_or_else(|e| fail(format!("cannot write {out}: {e}")));
    eprintln!("wrote {out}");
}
