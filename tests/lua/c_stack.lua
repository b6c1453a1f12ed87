-- Recursion through C functions that call back into Lua ends in a Lua error, as in PUC Lua,
-- instead of overflowing the host's stack; the script catches each and goes on.
local function gsub_deep() return (("x"):gsub("x", gsub_deep)) end
print("gsub", pcall(gsub_deep))
local function sort_deep() table.sort({3, 2, 1}, function(a, b) sort_deep() return a < b end) end
print("sort", pcall(sort_deep))
local mt = {}
mt.__tostring = function() return tostring(setmetatable({}, mt)) end
print("tostring", pcall(tostring, setmetatable({}, mt)))
mt.__tostring = function() return string.format("%s", setmetatable({}, mt)) end
print("format", pcall(string.format, "%s", setmetatable({}, mt)))
-- load turns an error in its reader into a result (LuaJIT adds the traceback).
local load_error
local function load_deep()
  local _, e = load(function() load_deep() end)
  load_error = load_error or e
end
load_deep()
print("load", load_error:match("^[^\n]*"))
local function wrap_deep() return coroutine.wrap(wrap_deep)() end
print("coroutine.wrap", pcall(wrap_deep))
local function resume_deep()
  local _, e = coroutine.resume(coroutine.create(resume_deep))
  error(e, 0)
end
print("coroutine.resume", pcall(resume_deep))
local pad
pad = setmetatable({}, {__index = function() joypad.set(1, pad) end})
print("__index", pcall(joypad.set, 1, pad))
local depth = 0
local function exec_deep() depth = depth + 1 emu.exec_count(1000000, exec_deep) end
exec_deep()
print("exec_count", depth)
-- pcall nests run on LuaJIT's own stack, which has a limit.
local function pcall_deep() local _, e = pcall(pcall_deep) error(e, 0) end
print("pcall", pcall(pcall_deep))
local function pass(e) return e end
local function xpcall_deep() local _, e = xpcall(xpcall_deep, pass) error(e, 0) end
print("xpcall", pcall(xpcall_deep))
local function handler_deep() local _, e = xpcall(error, handler_deep) return e end
print("xpcall handler", xpcall(error, handler_deep))
-- The checks leave errors as they were.
print(pcall(function() local s = string.gsub() return s end))
print(pcall(function() local s = ("x"):gsub() return s end))
print(pcall(function() local t = table.sort(1) return t end))
print(pcall(function() local s = xpcall() return s end))
print("still running")
