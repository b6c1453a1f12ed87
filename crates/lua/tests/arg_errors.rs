//! Arguments of the wrong type to nestor's own Lua functions give Lua 5.1's `bad argument`
//! error naming the function, as FCEUX 2.6.5 prints them (each expected line below is what
//! FCEUX printed for the same call, run under Xvfb).

mod common;

use lua::HostInput;

/// Runs `source` on Quadfall up to its end and returns what it printed (stderr lines marked).
fn run(name: &str, source: &str) -> String {
    common::run_frame(name, source, HostInput::default())
}

/// Each call, made from a chunk of its own (`return <call>`), and the error FCEUX 2.6.5 gives:
/// `[string "return <call>"]:1: <message>`.
const CALLS: &[(&str, &str)] = &[
    (
        "memory.readbyte()",
        "bad argument #1 to 'readbyte' (number expected, got no value)",
    ),
    (
        "memory.readbyte(nil)",
        "bad argument #1 to 'readbyte' (number expected, got nil)",
    ),
    (
        "memory.readbyteunsigned('x')",
        "bad argument #1 to 'readbyteunsigned' (number expected, got string)",
    ),
    (
        "memory.readword({})",
        "bad argument #1 to 'readword' (number expected, got table)",
    ),
    (
        "memory.readbyterange(1)",
        "bad argument #2 to 'readbyterange' (number expected, got no value)",
    ),
    (
        "memory.writebyte(1)",
        "bad argument #2 to 'writebyte' (number expected, got no value)",
    ),
    (
        "memory.getregister()",
        "bad argument #1 to 'getregister' (string expected, got no value)",
    ),
    (
        "memory.setregister('a')",
        "bad argument #2 to 'setregister' (number expected, got no value)",
    ),
    (
        "memory.registerwrite()",
        "bad argument #1 to 'registerwrite' (number expected, got no value)",
    ),
    (
        "memory.registerexec('x')",
        "bad argument #1 to 'registerexec' (number expected, got string)",
    ),
    (
        "joypad.set(1,5)",
        "bad argument #2 to 'set' (table expected, got number)",
    ),
    (
        "joypad.write(1,5)",
        "bad argument #2 to 'write' (table expected, got number)",
    ),
    (
        "joypad.get()",
        "bad argument #1 to 'get' (number expected, got no value)",
    ),
    (
        "joypad.read({})",
        "bad argument #1 to 'read' (number expected, got table)",
    ),
    (
        "joypad.getdown()",
        "bad argument #1 to 'getdown' (number expected, got no value)",
    ),
    (
        "joypad.getup('x')",
        "bad argument #1 to 'getup' (number expected, got string)",
    ),
    (
        "emu.speedmode()",
        "bad argument #1 to 'speedmode' (string expected, got no value)",
    ),
    (
        "emu.registerbefore(1)",
        "bad argument #1 to 'registerbefore' (function expected, got number)",
    ),
    (
        "emu.addgamegenie()",
        "bad argument #1 to 'addgamegenie' (string expected, got no value)",
    ),
    (
        "emu.delgamegenie({})",
        "bad argument #1 to 'delgamegenie' (string expected, got table)",
    ),
    (
        "emu.registerexit(1)",
        "bad argument #1 to 'registerexit' (function expected, got number)",
    ),
    (
        "emu.getscreenpixel()",
        "bad argument #1 to 'getscreenpixel' (number expected, got no value)",
    ),
    (
        "gui.pixel()",
        "bad argument #1 to 'pixel' (number expected, got no value)",
    ),
    (
        "gui.line(1,2,3)",
        "bad argument #4 to 'line' (number expected, got no value)",
    ),
    (
        "gui.box(1)",
        "bad argument #2 to 'box' (number expected, got no value)",
    ),
    (
        "gui.register(1)",
        "bad argument #1 to 'register' (function expected, got number)",
    ),
    (
        "gui.opacity()",
        "bad argument #1 to 'opacity' (number expected, got no value)",
    ),
    (
        "gui.transparency('x')",
        "bad argument #1 to 'transparency' (number expected, got string)",
    ),
    (
        "gui.getpixel()",
        "bad argument #1 to 'getpixel' (number expected, got no value)",
    ),
    (
        "gui.drawbox(1)",
        "bad argument #2 to 'drawbox' (number expected, got no value)",
    ),
    (
        "gui.drawline()",
        "bad argument #1 to 'drawline' (number expected, got no value)",
    ),
    (
        "gui.setpixel()",
        "bad argument #1 to 'setpixel' (number expected, got no value)",
    ),
    (
        "gui.rect(1)",
        "bad argument #2 to 'rect' (number expected, got no value)",
    ),
    (
        "savestate.registersave(1)",
        "bad argument #1 to 'registersave' (function expected, got number)",
    ),
    (
        "savestate.registerload('x')",
        "bad argument #1 to 'registerload' (function expected, got string)",
    ),
    (
        "movie.play({})",
        "bad argument #1 to 'play' (string expected, got table)",
    ),
    (
        "movie.record({})",
        "bad argument #1 to 'record' (string expected, got table)",
    ),
    (
        "rom.readbyte()",
        "bad argument #1 to 'readbyte' (number expected, got no value)",
    ),
    (
        "rom.readbytesigned('x')",
        "bad argument #1 to 'readbytesigned' (number expected, got string)",
    ),
    (
        "rom.readbyterange()",
        "bad argument #1 to 'readbyterange' (number expected, got no value)",
    ),
    (
        "bit.band({})",
        "bad argument #1 to 'band' (number expected, got table)",
    ),
    (
        "bit.lshift(1)",
        "bad argument #2 to 'lshift' (number expected, got no value)",
    ),
    (
        "bit.tohex('x')",
        "bad argument #1 to 'tohex' (number expected, got string)",
    ),
    (
        "bit.bnot()",
        "bad argument #1 to 'bnot' (number expected, got no value)",
    ),
    (
        "AND('x')",
        "bad argument #1 to 'AND' (number expected, got string)",
    ),
    (
        "OR({})",
        "bad argument #1 to 'OR' (number expected, got table)",
    ),
    (
        "XOR()",
        "bad argument #1 to 'XOR' (number expected, got no value)",
    ),
    (
        "SHIFT(1)",
        "bad argument #2 to 'SHIFT' (number expected, got no value)",
    ),
];

#[test]
fn bad_arguments_name_the_function_as_fceux_does() {
    let mut script = String::from("for _, call in ipairs({\n");
    for (call, _) in CALLS {
        script.push_str(&format!("  {call:?},\n"));
    }
    script.push_str(
        "}) do\n  local ok, e = pcall(loadstring(\"return \" .. call))\n  print(ok, e)\nend\n",
    );
    let output = run("calls", &script);
    let expected: String = CALLS
        .iter()
        .map(|(call, message)| format!("false [string \"return {call}\"]:1: {message}\n"))
        .collect();
    assert_eq!(output, expected);
}

/// Lua 5.1 names the function as its caller did: an upvalue's name, a method's (arguments
/// counted after `self`: `self` itself is "bad self"), and none when `pcall` calls it (FCEUX: `'?'`; nestor: the name it
/// was registered under); the caller's line comes first when the caller is Lua code.
#[test]
fn the_name_and_line_come_from_the_caller() {
    let output = run(
        "caller",
        r#"local peek = memory.readword
print(pcall(function() return peek({}) end))
print(pcall(memory.readword, {}))
print(pcall(bit.band, 1, 2, "x"))
local t = { box = gui.box }
print(pcall(function() return t:box() end))
print(pcall(function() return t.box() end))
"#,
    );
    let file = format!("nestor-lua-test-{}-caller.lua", std::process::id());
    let lines: Vec<&str> = output.lines().collect();
    let ends = [
        ":2: bad argument #1 to 'peek' (number expected, got table)",
        "bad argument #1 to 'readword' (number expected, got table)",
        "bad argument #3 to 'band' (number expected, got string)",
        ":6: calling 'box' on bad self (number expected, got table)",
        ":7: bad argument #1 to 'box' (number expected, got no value)",
    ];
    assert_eq!(lines.len(), ends.len(), "{output}");
    for (line, end) in lines.iter().zip(ends) {
        assert!(line.starts_with("false "), "{line}");
        assert!(line.ends_with(end), "{line:?} should end with {end:?}");
        if end.starts_with(':') {
            assert!(line.contains(&file), "{line:?} should name {file}");
        }
    }
}

/// Every function of every FCEUX table, given tables for arguments: any error about an
/// argument names the function it was given to, in Lua's words, never mlua's.
#[test]
fn every_functions_argument_errors_name_it() {
    let output = run(
        "sweep",
        r#"local skip = { exit = true, frameadvance = true, savescreenshot = true, persist = true }
local libs = { "emu", "FCEU", "memory", "joypad", "input", "zapper", "savestate", "gui", "rom",
  "ppu", "movie", "debugger", "cdlog", "taseditor", "bit", "sound", "_G", "socket" }
local socket = require("socket")
local called = 0
for _, lib in ipairs(libs) do
  local t = lib == "socket" and socket or _G[lib]
  local names = {}
  for name, f in pairs(t) do
    if type(f) == "function" and not skip[name] and (lib ~= "_G" or name:match("^%u+$")
        or name == "tobitstring" or name == "copytable" or name == "gethash") then
      names[#names + 1] = name
    end
  end
  table.sort(names)
  for _, name in ipairs(names) do
    local call = (lib == "_G" and "" or lib .. ".") .. name .. "({}, {}, {}, {}, {}, {})"
    local env = { socket = socket }
    setmetatable(env, { __index = _G })
    local chunk = setfenv(loadstring("return " .. call), env)
    local ok, e = pcall(chunk)
    called = called + 1
    e = tostring(e)
    if not ok and (e:find("bad argument") or e:find("error converting") or e:find("bad self")) then
      print("error\t" .. call .. "\t" .. e)
    end
  end
end
print("called\t" .. called)
"#,
    );
    let mut bad = Vec::new();
    let mut errors = 0;
    for line in output.lines() {
        if let Some(count) = line.strip_prefix("called\t") {
            let count: usize = count.parse().unwrap();
            assert!(count > 150, "only {count} functions called");
            continue;
        }
        let Some((call, error)) = line
            .strip_prefix("error\t")
            .and_then(|l| l.split_once('\t'))
        else {
            // What the functions print themselves.
            continue;
        };
        let name = call.split('(').next().unwrap().rsplit('.').next().unwrap();
        errors += 1;
        if !error.contains("bad argument #") || !error.contains(&format!(" to '{name}' (")) {
            bad.push(line.to_string());
        }
    }
    assert!(
        bad.is_empty(),
        "errors not naming the function:\n{}",
        bad.join("\n")
    );
    assert!(errors > 100, "only {errors} argument errors:\n{output}");
}
