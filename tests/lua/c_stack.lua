-- Recursion through C functions that call back into Lua ends in PUC Lua 5.1's "C stack
-- overflow" error (200 nested C calls), instead of overflowing the host's stack; the script
-- catches each and goes on.
local function gsub_deep() return (("x"):gsub("x", gsub_deep)) end
print("gsub", pcall(gsub_deep))
local function sort_deep() table.sort({3, 2, 1}, function(a, b) sort_deep() return a < b end) end
print("sort", pcall(sort_deep))
local mt = {}
mt.__tostring = function() return tostring(setmetatable({}, mt)) end
print("tostring", pcall(tostring, setmetatable({}, mt)))
-- Lua 5.1's string.format("%s") takes strings and numbers only: no __tostring.
print("format", pcall(string.format, "%s", setmetatable({}, mt)))
-- load turns an error in its reader into a result. (5.1 calls a reader again after it returned
-- nil, so each level recurses on its first call only.)
local load_error
local function load_deep()
  local called = false
  local _, e = load(function() if not called then called = true load_deep() end end)
  load_error = load_error or e
end
load_deep()
print("load", load_error:match("^[^\n]*"))
local function wrap_deep() return coroutine.wrap(wrap_deep)() end
-- (5.1's wrap puts the position in front of the message at every level.)
local ok, e = pcall(wrap_deep)
print("coroutine.wrap", ok, e:match("C stack overflow$"))
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
-- pcall nests count as C calls too.
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
