//! Lua savestates from the command line: a numbered slot a script persists in one headless run
//! is in the data directory's slot file, and a script in the next run loads it.

use std::path::Path;
use std::process::Command;

#[path = "../../../tests/support/scratch.rs"]
mod scratch;
use scratch::Scratch;

fn run_script(dir: &Path, script: &str, text: &str) -> String {
    let path = dir.join(script);
    std::fs::write(&path, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_nestor"))
        .args(["run", "--headless", "--frames", "3", "--lua"])
        .arg(&path)
        .env("NESTOR_DATA_DIR", dir.join("data"))
        .output()
        .expect("nestor runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_persisted_slot_is_loaded_in_the_next_run() {
    let dir = Scratch::new("a_persisted_slot_is_loaded_in_the_next_run");

    run_script(
        &dir,
        "save.lua",
        "emu.frameadvance()\n\
         memory.writebyte(0x0400, 0x5A)\n\
         local slot = savestate.object(2)\n\
         savestate.save(slot)\n\
         savestate.persist(slot)\n",
    );
    let states = dir.join("data").join("states");
    let state = std::fs::read(states.join("quadfall.2.state")).expect("slot 2 written");
    assert!(state.starts_with(b"NESTORSS"));
    let names: Vec<_> = std::fs::read_dir(&states)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "no temporary file left: {names:?}");

    let out = run_script(
        &dir,
        "load.lua",
        "print('before', memory.readbyte(0x0400))\n\
         savestate.load(savestate.object(2))\n\
         print('after', memory.readbyte(0x0400))\n",
    );
    assert!(
        !out.contains("before 90\n") && out.contains("after 90\n"),
        "{out}"
    );
}
