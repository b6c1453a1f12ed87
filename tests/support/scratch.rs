//! A fresh folder for one test's files under the temp dir, removed when the test ends, pass or
//! fail. Shared by the test binaries of several crates (`#[path]`).

use std::path::{Path, PathBuf};

pub struct Scratch(PathBuf);

impl Scratch {
    /// The folder of the test `test` in this run (test names are unique within a binary, and
    /// each binary runs as its own process).
    pub fn new(test: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("nestor-test-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
