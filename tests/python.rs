//! The Python package's tests (crates/python/tests, pytest), run from `cargo test`: a venv under
//! the target directory gets maturin, NumPy, Gymnasium and pytest from PyPI, the package is built
//! and installed with pip, and pytest runs. Needs python3 with venv and the network on the first
//! run (`-- --skip python_package` leaves it out, and cargo reports it filtered out).

use std::path::{Path, PathBuf};
use std::process::Command;

const REQUIREMENTS: &[&str] = &["maturin>=1.5,<2", "numpy", "gymnasium>=1.0", "pytest"];

/// Runs `command`, fails naming `what` with its output, or returns its standard output.
fn run(what: &str, command: &mut Command) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn python_package_builds_installs_and_passes_pytest() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let venv = tmp.join("python-venv");
    let python: PathBuf = venv.join("bin/python");
    if !python.exists() {
        run(
            "creating a venv (needs python3 and its venv module, e.g. Debian's python3-venv)",
            Command::new("python3").arg("-m").arg("venv").arg(&venv),
        );
    }
    // Already satisfied requirements need no network on later runs.
    run(
        "installing the build and test requirements from PyPI (needs the network)",
        Command::new(&python)
            .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
            .args(REQUIREMENTS),
    );
    // The build backend runs the venv's maturin executable by name.
    let path = std::env::join_paths(std::iter::once(venv.join("bin")).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH joins");
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/python");
    run(
        "building and installing crates/python",
        Command::new(&python)
            .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
            .args(["--no-build-isolation", "--force-reinstall", "--no-deps"])
            .arg(&package)
            .env("PATH", path)
            .env("CARGO_TARGET_DIR", tmp.join("python-build")),
    );
    let report = run(
        "pytest on crates/python/tests",
        Command::new(&python)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(package.join("tests"))
            .env("PYTHONDONTWRITEBYTECODE", "1"),
    );
    println!("{report}");
}
