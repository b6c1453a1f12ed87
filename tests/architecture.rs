//! The machine is reached through `Console`'s methods: no crate but `nes` (whose own white-box
//! tests check its fast paths against its parts) reaches into the console's bus.

use std::path::{Path, PathBuf};

/// Where `line` reaches into a `bus` field (`x.bus.y`, `&x.bus`, `x\n.bus`), not a method or a
/// longer name (`cpu_bus()`, `.bus_width`).
fn reaches_into_bus(line: &str) -> bool {
    line.match_indices(".bus").any(|(at, _)| {
        let after = line[at + 4..].chars().next();
        !matches!(after, Some(c) if c.is_alphanumeric() || c == '_' || c == '(')
    })
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            // Build output, not sources.
            if entry.file_name() != "target" {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_pattern_finds_field_accesses_only() {
    assert!(reaches_into_bus("let r = console.bus.ram[0];"));
    assert!(reaches_into_bus("f(&console.bus)"));
    assert!(reaches_into_bus("            .bus"));
    assert!(!reaches_into_bus("let b = console.cpu_bus();"));
    assert!(!reaches_into_bus("x.bus_width + y.bus()"));
}

#[test]
fn only_the_machine_reaches_into_its_bus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    rust_files(&root.join("tests"), &mut files);
    for krate in std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
    {
        if krate.file_name() != "nes" {
            rust_files(&krate.path(), &mut files);
        }
    }
    assert!(files.len() > 50, "found only {} files", files.len());
    let this = Path::new(file!()).file_name();
    let mut found = Vec::new();
    for path in files.iter().filter(|p| p.file_name() != this) {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            if reaches_into_bus(line) {
                found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "use Console's methods:\n{}",
        found.join("\n")
    );
}
