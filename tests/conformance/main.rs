//! Conformance suite: every ROM in the test-ROM folder's `MANIFEST.tsv` with an automatic verdict
//! is run headless and judged by its own result protocol. `expectations.tsv` beside this file
//! says, for every ROM of the manifest, `pass`, `known-fail: <reason>` or `no-verdict: <why>`.
//!
//! Fails when a ROM expected to pass does not, or when the two files disagree; reports ROMs
//! that pass unexpectedly so the expectations get updated. Ends with one summary line
//! `conformance: N passed, M known-fail`.
//!
//! `cargo test --release -p nestor-tests --test conformance -- instr_test` runs only the ROMs
//! whose path contains `instr_test`.

use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use testrom::manifest::{self, Entry, Judge};
use testrom::Verdict;

const EXPECTATIONS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/conformance/expectations.tsv");

#[derive(Clone, Debug, PartialEq, Eq)]
enum Expectation {
    Pass,
    KnownFail(String),
    /// A multi-test ROM that does not pass whole yet, but whose own tally of passing tests
    /// must not drop below this (AccuracyCoin).
    AtLeast(u32, String),
    NoVerdict(String),
}

/// The number of passing tests in a multi-test ROM's outcome ("ROM's tally: 141 tests, 129 passed").
fn tally_passed(outcome: &str) -> Option<u32> {
    let tally = outcome.split("ROM's tally:").nth(1)?;
    tally
        .split(',')
        .nth(1)?
        .trim()
        .strip_suffix("passed")?
        .trim()
        .parse()
        .ok()
}

fn parse_expectations(text: &str) -> Result<BTreeMap<String, Expectation>, String> {
    let mut map = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |what: &str| format!("expectations.tsv line {}: {what}", i + 1);
        let (path, expectation) = line.split_once('\t').ok_or_else(|| err("no tab"))?;
        let expectation = match expectation.split_once(':') {
            None if expectation == "pass" => Expectation::Pass,
            Some(("known-fail", why)) => Expectation::KnownFail(why.trim().into()),
            Some(("no-verdict", why)) => Expectation::NoVerdict(why.trim().into()),
            Some(("at-least", rest)) => {
                let (count, why) = rest.trim().split_once(' ').unwrap_or((rest.trim(), ""));
                let count = count.parse().map_err(|_| err("at-least: <count> <reason>"))?;
                Expectation::AtLeast(count, why.trim().into())
            }
            _ => {
                return Err(err(
                    "expected pass, known-fail: <reason>, at-least: <count> <reason> or no-verdict: <why>",
                ))
            }
        };
        if map.insert(path.to_string(), expectation).is_some() {
            return Err(err("listed twice"));
        }
    }
    Ok(map)
}

/// Runs one ROM; `Ok` when it passed, else what went wrong in one line.
fn run(root: &Path, entry: &Entry, judge: &Judge) -> Result<(), String> {
    let path = root.join(&entry.path);
    let rom = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let report = match judge {
        Judge::Protocol(protocol) | Judge::OnPal(protocol) => testrom::run_rom_on(
            judge.region(),
            &rom,
            protocol,
            protocol.default_max_frames(),
        ),
        Judge::NestestLog => {
            let log = path.with_file_name("nestest.log");
            let reference = std::fs::read_to_string(&log)
                .map_err(|e| format!("cannot read {}: {e}", log.display()))?;
            testrom::nestest::compare(&rom, &reference)
        }
        Judge::Nobody(why) => return Err(why.to_string()),
    }
    .map_err(|e| e.to_string())?;
    if report.verdict == Verdict::Passed {
        return Ok(());
    }
    let last_words = report.message.lines().last().unwrap_or("").trim();
    Err(format!(
        "{} after {} frames: {last_words}",
        report.verdict, report.frames
    ))
}

fn main() -> ExitCode {
    match suite() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("conformance: {err}");
            ExitCode::FAILURE
        }
    }
}

fn suite() -> Result<bool, String> {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let root = testrom::location::dir()?;
    let manifest_path = root.join("MANIFEST.tsv");
    let manifest = std::fs::read_to_string(&manifest_path)
        .map_err(|e| format!("cannot read {}: {e}", manifest_path.display()))?;
    let entries = manifest::parse(&manifest)?;
    let text = std::fs::read_to_string(EXPECTATIONS).map_err(|e| e.to_string())?;
    let mut expectations = parse_expectations(&text)?;

    // The two files must list the same ROMs, and agree on which ones have a verdict.
    let mut problems = Vec::new();
    let mut jobs = Vec::new();
    for entry in &entries {
        let judge = entry.judge(&root)?;
        match (expectations.remove(&entry.path), &judge) {
            (None, _) => problems.push(format!("{}: missing from expectations.tsv", entry.path)),
            (Some(Expectation::NoVerdict(_)), Judge::Nobody(_)) => {}
            (Some(Expectation::NoVerdict(_)), _) => problems.push(format!(
                "{}: marked no-verdict but has an automatic verdict",
                entry.path
            )),
            (Some(_), Judge::Nobody(why)) => {
                problems.push(format!("{}: has no automatic verdict ({why})", entry.path))
            }
            (Some(expectation), _) => {
                if filter.is_empty() || filter.iter().any(|f| entry.path.contains(f.as_str())) {
                    jobs.push((entry, judge, expectation));
                }
            }
        }
    }
    problems.extend(
        expectations
            .keys()
            .map(|path| format!("{path}: in expectations.tsv but not in MANIFEST.tsv")),
    );

    let outcomes = run_all(&root, &jobs);
    let (mut passed, mut known_fail) = (0, 0);
    for ((entry, _, expectation), outcome) in jobs.iter().zip(&outcomes) {
        match (expectation, outcome) {
            (Expectation::Pass, Ok(())) => passed += 1,
            (Expectation::Pass, Err(why)) => {
                problems.push(format!("{}: expected to pass, {why}", entry.path))
            }
            (_, Ok(())) => {
                passed += 1;
                println!(
                    "UNEXPECTED PASS {} (listed known-fail): update expectations.tsv",
                    entry.path
                );
            }
            (Expectation::AtLeast(min, _), Err(why))
                if tally_passed(why).is_none_or(|passed| passed < *min) =>
            {
                problems.push(format!(
                    "{}: fewer than the {min} passing tests recorded: {why}",
                    entry.path
                ))
            }
            (_, Err(why)) => {
                known_fail += 1;
                if std::env::var_os("CONFORMANCE_VERBOSE").is_some() {
                    println!("known-fail {}: {why}", entry.path);
                }
            }
        }
    }
    for problem in &problems {
        println!("FAIL {problem}");
    }
    println!("conformance: {passed} passed, {known_fail} known-fail");
    Ok(problems.is_empty())
}

/// Runs the jobs on all cores; outcomes come back in job order.
fn run_all(root: &Path, jobs: &[(&Entry, Judge, Expectation)]) -> Vec<Result<(), String>> {
    let progress = ProgressBar::new(jobs.len() as u64).with_style(
        ProgressStyle::with_template("conformance {bar:30} {pos}/{len} {msg}")
            .expect("valid template"),
    );
    let next = AtomicUsize::new(0);
    let (send, receive) = mpsc::channel();
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut outcomes: Vec<Result<(), String>> = vec![Ok(()); jobs.len()];
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let send = send.clone();
            let next = &next;
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((entry, judge, _)) = jobs.get(i) else {
                    break;
                };
                if send.send((i, run(root, entry, judge))).is_err() {
                    break;
                }
            });
        }
        drop(send);
        for (i, outcome) in receive {
            progress.inc(1);
            progress.set_message(jobs[i].0.path.clone());
            outcomes[i] = outcome;
        }
    });
    progress.finish_and_clear();
    outcomes
}
