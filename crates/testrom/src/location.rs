//! Where the test ROMs are: the one place every suite, benchmark and `nestor nestest` asks.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The environment variable naming the test-ROM folder.
pub const ENV: &str = "NESTOR_TEST_ROMS";

/// The test-ROM folder (the ROMs, `MANIFEST.tsv`, `SOURCES.tsv`): `$NESTOR_TEST_ROMS`, or else
/// `../shared/test-roms` beside the repository. The error is one line saying how to get them.
pub fn dir() -> Result<PathBuf, String> {
    // This crate is crates/testrom: three levels up is the folder holding the repository.
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(3);
    let default = beside.unwrap_or(Path::new("/")).join("shared/test-roms");
    find(std::env::var_os(ENV), default)
}

/// `path` inside the test-ROM folder; panics with [`dir`]'s one line when there is no folder.
#[track_caller]
pub fn path(path: &str) -> PathBuf {
    match dir() {
        Ok(dir) => dir.join(path),
        Err(e) => panic!("{e}"),
    }
}

fn find(env: Option<OsString>, default: PathBuf) -> Result<PathBuf, String> {
    let (dir, named_by) = match env.filter(|v| !v.is_empty()) {
        Some(dir) => (PathBuf::from(dir), ENV.to_string()),
        None => (default, format!("{ENV} is unset and the default")),
    };
    if dir.join("MANIFEST.tsv").is_file() {
        Ok(dir)
    } else {
        Err(format!(
            "test ROMs not found: {named_by} {} has no MANIFEST.tsv; \
             get them with `scripts/fetch-test-roms` (see README.md, \"Test ROMs\")",
            dir.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("testrom-location-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_variable_wins_over_the_folder_beside_the_repository() {
        let root = temp("env");
        let (named, beside) = (root.join("named"), root.join("shared/test-roms"));
        for dir in [&named, &beside] {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join("MANIFEST.tsv"), "").unwrap();
        }
        assert_eq!(find(Some(named.clone().into()), beside.clone()), Ok(named));
        assert_eq!(find(None, beside.clone()), Ok(beside.clone()));
        assert_eq!(find(Some("".into()), beside.clone()), Ok(beside));
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn neither_is_one_line_saying_how_to_get_them() {
        let root = temp("none");
        let err = find(None, root.join("shared/test-roms")).unwrap_err();
        assert!(!err.contains('\n'), "{err}");
        assert!(err.contains("NESTOR_TEST_ROMS is unset"), "{err}");
        assert!(err.contains("scripts/fetch-test-roms"), "{err}");
        let err = find(Some(root.join("missing").into()), root.clone()).unwrap_err();
        assert!(
            err.starts_with("test ROMs not found: NESTOR_TEST_ROMS "),
            "{err}"
        );
        std::fs::remove_dir_all(root).unwrap();
    }
}
