//! `--lua-sandbox`: a script that may not run programs, load native code, or use files outside
//! its own folder and nestor's data folder. By default a script has what FCEUX's have: all of
//! Lua's `os`, `io` and `package` (scripts/README.md lists it).
//!
//! Removed: `os.execute`, `os.tmpname`, `io.popen`, `package.loadlib` (and 5.1's global `loadlib`), C modules
//! (`package.cpath` and the C searchers of `package.loaders`). Limited to the folders: the
//! functions that take a file name (`io.open`, `io.lines`, `io.input`, `io.output`, `dofile`,
//! `loadfile`, `os.remove`, `os.rename`), `require`'s Lua searcher, and the FCEUX functions that
//! write or read a file the script names ([`check`]). Names are resolved as the system will
//! (`..`, symlinks) before they are compared; a refusal is a Lua error naming the file. The
//! wrappers are host functions, so the originals are not reachable as upvalues through `debug`.

use mlua::{Function, Lua, MultiValue, Result, Table, Value};
use std::path::{Component, Path, PathBuf};

/// The folders a sandboxed script's files must be in, resolved; and the script's own folder,
/// which relative names given to Lua's file functions are relative to (see `scriptdir`).
struct Roots {
    folders: Vec<PathBuf>,
    script_dir: PathBuf,
}

/// Puts `lua` in the sandbox: its files in `script_dir` or `others` (folders that do not exist
/// are left out).
pub fn install(lua: &Lua, script_dir: &Path, others: &[PathBuf]) -> Result<()> {
    let folders = std::iter::once(script_dir)
        .chain(others.iter().map(PathBuf::as_path))
        .filter_map(|dir| std::fs::canonicalize(dir).ok())
        .collect();
    let script_dir = std::path::absolute(script_dir).unwrap_or_else(|_| script_dir.into());
    lua.set_app_data(Roots {
        folders,
        script_dir,
    });
    let globals = lua.globals();
    let os: Table = globals.get("os")?;
    let io: Table = globals.get("io")?;
    let package: Table = globals.get("package")?;
    os.set("execute", Value::Nil)?;
    // It creates a file in the system's temporary folder.
    os.set("tmpname", Value::Nil)?;
    io.set("popen", Value::Nil)?;
    package.set("loadlib", Value::Nil)?;
    globals.set("loadlib", Value::Nil)?;
    package.set("cpath", "")?;

    // Each takes a file name as its first argument (os.rename as its second too); a file
    // handle or nil (standard input) passes.
    for (table, library, name, follow) in [
        (&io, "io.", "open", true),
        (&io, "io.", "lines", true),
        (&io, "io.", "input", true),
        (&io, "io.", "output", true),
        (&globals, "", "dofile", true),
        (&globals, "", "loadfile", true),
        // They act on the name itself, not on what a symlink points to.
        (&os, "os.", "remove", false),
        (&os, "os.", "rename", false),
    ] {
        let original: Function = table.get(name)?;
        let what = format!("{library}{name}");
        let names = if name == "rename" { 2 } else { 1 };
        let f = move |lua: &Lua, args: MultiValue| {
            for arg in args.iter().take(names) {
                if matches!(arg, Value::String(_) | Value::Integer(_) | Value::Number(_)) {
                    if let Some(file) = lua.coerce_string(arg.clone())? {
                        allow(lua, &what, &file.to_string_lossy(), follow, true)?;
                    }
                }
            }
            original.call::<MultiValue>(args)
        };
        crate::api::add(lua, table, &[name], f)?;
    }

    // Lua 5.1's loaders: preload, Lua files, C libraries, C libraries by root name. The Lua
    // searcher is replaced by one that skips files outside the folders.
    let loaders: Table = package.get("loaders")?;
    let loadfile: Function = globals.get("loadfile")?;
    let searcher = lua.create_function(move |lua, name: String| {
        let package: Table = lua.globals().get("package")?;
        let templates: String = package.get("path")?;
        let file_name = name.replace('.', "/");
        let mut tried = String::new();
        for template in templates.split(';').filter(|t| !t.is_empty()) {
            let file = template.replace('?', &file_name);
            if allow(lua, "require", &file, true, false).is_err() {
                tried.push_str(&format!("\n\tno file '{file}' (outside the sandbox)"));
            } else if std::fs::File::open(&file).is_err() {
                tried.push_str(&format!("\n\tno file '{file}'"));
            } else {
                return match loadfile.call::<(Value, Value)>(file.as_str())? {
                    (Value::Function(chunk), _) => Ok(Value::Function(chunk)),
                    (_, e) => Err(mlua::Error::runtime(format!(
                        "error loading module '{name}' from file '{file}':\n\t{}",
                        lua.coerce_string(e)?
                            .map_or_else(String::new, |e| e.to_string_lossy())
                    ))),
                };
            }
        }
        lua.create_string(tried).map(Value::String)
    })?;
    loaders.raw_set(2, searcher)?;
    loaders.raw_set(3, Value::Nil)?;
    loaders.raw_set(4, Value::Nil)?;
    Ok(())
}

/// For the FCEUX functions that read or write a file the script names (`what`): an error
/// unless the script is not sandboxed or `file` is in its folders.
pub fn check(lua: &Lua, what: &str, file: &str) -> Result<()> {
    match lua.app_data_ref::<Roots>() {
        Some(_) => allow(lua, what, file, true, false),
        None => Ok(()),
    }
}

/// An error naming `file` unless it resolves to a place inside the sandbox's folders. With
/// `follow`, a symlink at the end of the name counts as the file it points to; with
/// `beside_script`, a relative name is relative to the script's folder (else to nestor's
/// working directory).
fn allow(lua: &Lua, what: &str, file: &str, follow: bool, beside_script: bool) -> Result<()> {
    let roots = lua
        .app_data_ref::<Roots>()
        .expect("a sandboxed script has its folders");
    let refuse = |why: String| {
        Err(mlua::Error::runtime(format!(
            "{what}: '{file}' refused by the sandbox: {why}"
        )))
    };
    let path = match Path::new(file) {
        relative if beside_script && relative.is_relative() => roots.script_dir.join(relative),
        name => name.to_path_buf(),
    };
    match resolve(&path, follow) {
        Ok(place) if roots.folders.iter().any(|root| place.starts_with(root)) => Ok(()),
        Ok(place) => refuse(format!(
            "{} is outside the script's folder and nestor's data folder",
            place.display()
        )),
        Err(why) => refuse(why),
    }
}

/// Where `path` leads: every symlink and `..` resolved (the last component's too with
/// `follow`). A file that does not exist yet resolves through its folder, which must.
fn resolve(path: &Path, follow: bool) -> std::result::Result<PathBuf, String> {
    let link = path.symlink_metadata().map(|m| m.file_type().is_symlink());
    if follow && link.is_ok() {
        // A symlink pointing nowhere fails here: writing through it would create its target.
        return std::fs::canonicalize(path).map_err(|e| e.to_string());
    }
    let name = match path.components().next_back() {
        Some(Component::Normal(name)) => name,
        _ => return Err("not a file name".into()),
    };
    let folder = match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    };
    let folder = std::fs::canonicalize(folder).map_err(|e| format!("its folder: {e}"))?;
    Ok(folder.join(name))
}

#[cfg(test)]
mod tests {
    use super::resolve;
    use std::path::Path;

    #[cfg(unix)]
    #[test]
    fn names_resolve_through_dot_dot_and_symlinks() {
        let dir = std::env::temp_dir().join(format!("nestor-sandbox-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("inside")).unwrap();
        let dir = std::fs::canonicalize(&dir).unwrap();
        std::fs::write(dir.join("outside.txt"), "").unwrap();
        std::os::unix::fs::symlink(dir.join("outside.txt"), dir.join("inside/link")).unwrap();
        std::os::unix::fs::symlink("/no/such/file", dir.join("inside/dangling")).unwrap();
        let at = |name: &str, follow| resolve(&dir.join(name), follow);

        assert_eq!(at("inside/../new.txt", true), Ok(dir.join("new.txt")));
        assert_eq!(at("inside/link", true), Ok(dir.join("outside.txt")));
        // Removing or renaming a symlink acts on the link.
        assert_eq!(at("inside/link", false), Ok(dir.join("inside/link")));
        assert!(at("inside/dangling", true).is_err());
        assert!(at("missing/new.txt", true).is_err());
        assert!(resolve(Path::new("inside/.."), false).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
