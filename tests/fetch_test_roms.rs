//! `scripts/fetch-test-roms`, with the test-ROM folder as its source (these machines have no
//! internet): it must rebuild the folder file for file, verify each SHA-1 and refuse a corrupted
//! download; and the list it ships must be the folder's own.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/fetch-test-roms");
const SHIPPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/test-roms");

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nestor-fetch-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The number of files SOURCES.tsv lists.
fn listed() -> usize {
    let list = std::fs::read_to_string(Path::new(SHIPPED).join("SOURCES.tsv")).unwrap();
    list.lines().skip(1).filter(|l| !l.is_empty()).count()
}

fn fetch(source: &str, dest: &Path) -> Output {
    Command::new(SCRIPT)
        .args(["--source", source])
        .arg(dest)
        .output()
        .expect("scripts/fetch-test-roms runs (python3)")
}

/// Every file under `dir`, as paths relative to it, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                out.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn shipped_lists_match_the_test_rom_folder() {
    let roms = testrom::location::dir().unwrap_or_else(|e| panic!("{e}"));
    for name in [
        "SOURCES.tsv",
        "MANIFEST.tsv",
        "README.md",
        "AccuracyCoin/RESULTS_MAP.tsv",
    ] {
        assert!(
            std::fs::read(roms.join(name)).unwrap()
                == std::fs::read(Path::new(SHIPPED).join(name)).unwrap(),
            "scripts/test-roms/{name} differs from the test-ROM folder's: copy it over"
        );
    }
}

#[test]
fn fetches_every_file_and_verifies_it() {
    let roms = testrom::location::dir().unwrap_or_else(|e| panic!("{e}"));
    let dest = temp("whole");
    let out = fetch(roms.to_str().unwrap(), &dest);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("{n} of {n} files verified", n = listed())),
        "{stdout}"
    );
    assert_eq!(files(&dest), files(&roms));
    for file in files(&roms) {
        assert!(
            std::fs::read(dest.join(&file)).unwrap() == std::fs::read(roms.join(&file)).unwrap(),
            "{} differs",
            file.display()
        );
    }
    // Run again from a file:// base: everything is already there.
    let out = fetch(&format!("file://{}", roms.display()), &dest);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("(0 fetched, {} already there)", listed())),
        "{stdout}"
    );
    std::fs::remove_dir_all(dest).unwrap();
}

#[test]
fn refuses_a_corrupted_file() {
    let roms = testrom::location::dir().unwrap_or_else(|e| panic!("{e}"));
    let source = temp("corrupted-source");
    for file in files(&roms) {
        std::fs::create_dir_all(source.join(&file).parent().unwrap()).unwrap();
        std::fs::copy(roms.join(&file), source.join(&file)).unwrap();
    }
    let victim = "nestest/nestest.nes";
    let mut bytes = std::fs::read(source.join(victim)).unwrap();
    bytes[0x4000] ^= 1;
    std::fs::write(source.join(victim), bytes).unwrap();

    let dest = temp("corrupted-dest");
    let out = fetch(source.to_str().unwrap(), &dest);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("{victim}: SHA-1 ")), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!(
        "{} of {} files verified",
        listed() - 1,
        listed()
    )));
    assert!(
        !dest.join(victim).exists(),
        "the corrupted file was written"
    );
    assert!(dest.join("nestest/nestest.log").is_file());
    // Without the manifest the tests don't take the incomplete folder for a good one.
    assert!(!dest.join("MANIFEST.tsv").exists());
    std::fs::remove_dir_all(source).unwrap();
    std::fs::remove_dir_all(dest).unwrap();
}
