-- Run in the sandbox with the data folder "quadfall" (the tests run in tests/): no programs, no
-- native code, files only in lua/ and quadfall/. Lua's file functions take names relative to
-- this script's folder (tests/lua), FCEUX's relative to nestor's working directory (tests).
-- Each refusal is a Lua error naming the file.
local function try(name, f, ...)
  local ok, e = pcall(f, ...)
  print(name, ok, ok or e)
end
-- Removed.
print("os.execute", os.execute, "io.popen", io.popen, "os.tmpname", os.tmpname)
print("package.loadlib", package.loadlib, "loadlib", loadlib, "cpath", package.cpath)
print("C searchers", #package.loaders, package.loaders[3], package.loaders[4])
-- Outside: through "..", absolute, a symlink in lua/ pointing out, a folder that is not there.
try("io.open ..", io.open, "../../Cargo.toml")
try("io.open ../lua", io.open, "../lua/../lua_scripts.rs")
try("io.open /", io.open, "/sandbox-escape", "w")
try("io.open symlink", io.open, "sandbox_link")
try("io.open missing folder", io.open, "/no-such-folder/x")
try("io.open number", io.open, 42)
try("io.lines", io.lines, "../../Cargo.toml")
try("io.input", io.input, "../../Cargo.toml")
try("io.output", io.output, "/sandbox-escape")
try("dofile", dofile, "../../scripts/ai.lua")
try("loadfile", loadfile, "../../scripts/ai.lua")
try("os.remove", os.remove, "../../no-such-file")
try("os.rename from", os.rename, "../../no-such-file", "x")
try("os.rename to", os.rename, "no-such-file", "../../x")
try("savestate.create", savestate.create, "../x.state")
try("movie.play", movie.play, "../x.fm2")
try("movie.record", movie.record, "../x.fm2")
try("gui.savescreenshotas", gui.savescreenshotas, "../x.png")
package.path = "../scripts/?.lua;" .. package.path
local ok, e = pcall(require, "ai")
print("require", ok, (e:match("^[^\n]*\n[^\n]*\n[^\n]*")))
-- Inside: the script's folder and the data folder.
local f = assert(io.open("sandbox.tmp", "w"))
f:write("written\n")
f:close()
for line in io.lines("sandbox.tmp") do print("read back", line) end
print("rename", os.rename("sandbox.tmp", "sandbox2.tmp"))
print("remove", os.remove("sandbox2.tmp"))
print("require next to the script", require("helper_module").greet("sandbox"))
local data = assert(io.open("../quadfall/mod.rs"))
print("data folder", type(data:read("*l")))
data:close()
print("stdin and handles pass", io.input() == io.stdin, io.output(io.stdout) == io.stdout)
-- The wrappers are host functions: no function reachable through their upvalues opens a
-- file outside (as the originals would).
local escapes = 0
local function reach(f)
  local i, name, value = 1, debug.getupvalue(f, 1)
  while name do
    if type(value) == "function" then
      local ok, r = pcall(value, "../Cargo.toml")
      if ok and (io.type(r) == "file" or type(r) == "function") then escapes = escapes + 1 end
      reach(value)
    end
    i = i + 1
    name, value = debug.getupvalue(f, i)
  end
end
for _, f in ipairs({io.open, io.lines, os.remove, os.rename, dofile, loadfile, package.loaders[2]}) do
  reach(f)
end
print("escapes through upvalues", escapes)
