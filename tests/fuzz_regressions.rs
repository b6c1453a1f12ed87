//! Every input saved under crates/fuzz-cases/regressions/<target>/ (crashes the fuzzers found,
//! and seeds) runs through its target again: none may panic.

use std::path::Path;

#[test]
fn saved_fuzz_inputs_run_cleanly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/fuzz-cases/regressions");
    let mut ran = 0;
    for &(name, target) in fuzz_cases::TARGETS {
        let dir = root.join(name);
        let mut inputs: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.is_file())
            .collect();
        inputs.sort();
        assert!(!inputs.is_empty(), "{}: no saved inputs", dir.display());
        for path in inputs {
            eprintln!("{name}: {}", path.display());
            target(&std::fs::read(&path).unwrap());
            ran += 1;
        }
    }
    eprintln!("{ran} saved inputs ran");
}
