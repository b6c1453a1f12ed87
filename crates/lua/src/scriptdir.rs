//! Relative paths in a script resolve beside the script, as in FCEUX. FCEUX changes the
//! process's working directory to the script's; nestor doesn't: several scripts run in one
//! process, and the paths given on nestor's command line (movies, states, screenshots, other
//! scripts) stay relative to the directory the user started it in. So the functions that open
//! files by name get the script's directory put in front of a relative name instead, and
//! `require` searches it first.

use mlua::{Lua, Result, Table};
use std::path::Path;

/// Wraps the file functions of `io`, `os`, `dofile` and `loadfile`, and puts `dir` at the
/// front of `package.path` and `package.cpath`.
pub fn install(lua: &Lua, dir: &Path) -> Result<()> {
    let slashes = |dir: &Path| dir.display().to_string().replace('\\', "/");
    // The search paths are absolute: `require` hands its file names to `loadfile`, which would
    // otherwise put the folder in front a second time.
    let found = slashes(&std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()));
    let package: Table = lua.globals().get("package")?;
    let path: String = package.get("path")?;
    package.set("path", format!("{found}/?.lua;{found}/?/init.lua;{path}"))?;
    let cpath: String = package.get("cpath")?;
    package.set("cpath", format!("{found}/?.so;{cpath}"))?;
    let dir = slashes(dir);
    lua.load(
        r#"
        local dir, type, find, ipairs, tostring = ..., type, string.find, ipairs, tostring
        -- Absolute names (/x, \x, C:x) and non-strings (stdin for dofile) pass unchanged; a
        -- number is a name, as Lua's io takes it.
        local function beside(name)
          if type(name) == "number" then name = tostring(name) end
          if type(name) ~= "string" or find(name, "^[/\\]") or find(name, "^%a:") then
            return name
          end
          return dir .. "/" .. name
        end
        local function wrap(t, key)
          local f = t[key]
          t[key] = function(name, ...) return f(beside(name), ...) end
        end
        for _, key in ipairs({"open", "lines", "input", "output"}) do wrap(io, key) end
        wrap(os, "remove")
        wrap(_G, "dofile")
        wrap(_G, "loadfile")
        -- rename has two names to resolve.
        local rename = os.rename
        os.rename = function(from, to) return rename(beside(from), beside(to)) end
        "#,
    )
    .set_name("=nestor")
    .call(dir)
}
