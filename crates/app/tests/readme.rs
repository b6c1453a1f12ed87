//! The README's examples stay true: every `$ nestor ...` line in its code blocks is run with
//! the built binary, in order, and must exit 0 and print exactly the lines that follow it.
//!
//! The commands run as typed in the repository's root: in a scratch folder that links
//! `scripts` and `roms` to the repository's and has the test ROMs at `../shared/test-roms`,
//! with an empty data directory.

use std::path::{Path, PathBuf};
use std::process::Command;

const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");

/// One example: the command after `$ ` and the lines printed under it.
#[derive(Debug)]
struct Example {
    command: String,
    output: Vec<String>,
}

/// The examples of the README's indented code blocks, in order.
fn examples(readme: &str) -> Vec<Example> {
    let mut examples: Vec<Example> = Vec::new();
    let mut in_example = false;
    for line in readme.lines() {
        match line.strip_prefix("    ") {
            Some(code) if code.starts_with("$ ") => {
                examples.push(Example {
                    command: code[2..].to_string(),
                    output: Vec::new(),
                });
                in_example = true;
            }
            Some(code) if in_example => examples.last_mut().unwrap().output.push(code.into()),
            // A blank line may sit inside a block; it belongs to the output if more follows.
            None if line.is_empty() && in_example => {
                examples.last_mut().unwrap().output.push(String::new())
            }
            _ => in_example = false,
        }
    }
    for example in &mut examples {
        while example.output.last().is_some_and(|l| l.is_empty()) {
            example.output.pop();
        }
    }
    examples
}

/// A folder laid out like the repository's root for the commands to run in.
fn scratch() -> PathBuf {
    let root = std::env::temp_dir().join(format!("nestor-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let work = root.join("nestor");
    std::fs::create_dir_all(work.join("data")).unwrap();
    std::fs::create_dir_all(root.join("shared")).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let roms = testrom::location::dir().unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(roms, root.join("shared/test-roms")).unwrap();
    for dir in ["scripts", "roms"] {
        std::os::unix::fs::symlink(repo.join(dir), work.join(dir)).unwrap();
    }
    work
}

#[test]
fn parser_finds_commands_and_their_lines() {
    let text = "text\n\n    $ nestor a\n    one\n\n    two\n\n    $ nestor b\n    three\n\nmore\n    plain block\n";
    let found = examples(text);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].command, "nestor a");
    assert_eq!(found[0].output, ["one", "", "two"]);
    assert_eq!(found[1].output, ["three"]);
}

#[test]
fn readme_examples_print_what_the_readme_shows() {
    let readme = std::fs::read_to_string(README).unwrap();
    let examples = examples(&readme);
    assert!(
        examples
            .iter()
            .any(|e| e.command == "nestor run --ai --headless --frames 3000"),
        "the README lost its main example: {examples:?}"
    );
    let work = scratch();
    let mut stale = Vec::new();
    for example in &examples {
        let mut words = example.command.split_whitespace();
        assert_eq!(words.next(), Some("nestor"), "{example:?}");
        let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
            .args(words)
            .current_dir(&work)
            .env("NESTOR_DATA_DIR", work.join("data"))
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .unwrap();
        let printed: Vec<&str> = std::str::from_utf8(&out.stdout)
            .unwrap()
            .trim_end()
            .lines()
            .collect();
        if !out.status.success() || printed != example.output {
            stale.push(format!(
                "$ {}\nREADME shows:\n{}\nit printed ({}):\n{}\n{}",
                example.command,
                example.output.join("\n"),
                out.status,
                printed.join("\n"),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    std::fs::remove_dir_all(work.parent().unwrap()).unwrap();
    assert!(
        stale.is_empty(),
        "README.md is stale:\n{}",
        stale.join("\n")
    );
}
