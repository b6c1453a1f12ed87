-- coroutine.resume and coroutine.wrap are the watchdog's own (they list the coroutine they
-- run for its timer): they behave as Lua 5.1.5's own, whose output the expected text is.
local co = coroutine.create(function(a, b)
  print("started with", a, b)
  local c, d = coroutine.yield(a + b)
  print("resumed with", c, d)
  local e = coroutine.yield()
  return "done", e
end)
print(coroutine.resume(co, 1, 2))
print(coroutine.status(co))
print(coroutine.resume(co, "x", nil))
print(coroutine.resume(co, 3))
print(coroutine.status(co), coroutine.resume(co))
-- Errors inside, and the dead coroutine after them.
local bad = coroutine.create(function() error("inside") end)
print(coroutine.resume(bad))
print(coroutine.status(bad), coroutine.resume(bad))
local tbl = coroutine.create(function() error({code = 7}) end)
local ok, e = coroutine.resume(tbl)
print(ok, type(e), e.code)
-- Resuming the running coroutine, and one that is resuming another (normal).
local outer
outer = coroutine.create(function()
  print("self", coroutine.resume(outer))
  local inner = coroutine.create(function()
    print("normal", coroutine.status(outer), coroutine.resume(outer))
  end)
  print(coroutine.resume(inner))
end)
print(coroutine.resume(outer))
-- Argument errors name the function.
print(pcall(coroutine.resume))
print(pcall(coroutine.resume, 42))
print(pcall(coroutine.wrap))
print(pcall(coroutine.wrap, print))
-- wrap: values in and out, errors raised with the caller's position.
local gen = coroutine.wrap(function(n)
  for i = 1, n do coroutine.yield(i) end
  return "end"
end)
print(gen(3), gen(), gen(), gen())
print(pcall(gen))
local failing = coroutine.wrap(function() error("wrapped") end)
print(pcall(failing))
local failing_table = coroutine.wrap(function() error({}) end)
print(pcall(failing_table) == false)
local plain = coroutine.wrap(function() error("no position", 0) end)
print(pcall(plain))
-- Many values each way, nil holes included.
local echo = coroutine.wrap(function(...)
  local args = {...}
  while true do args = {coroutine.yield(unpack(args, 1, 5))} end
end)
print(echo(1, nil, 3, nil, 5))
print(select("#", echo()))
-- Nested wraps, a yield across them, and a generator in a for loop.
local function range(n)
  return coroutine.wrap(function() for i = 1, n do coroutine.yield(i) end end)
end
local sum = 0
for i in range(10) do
  for j in range(i) do sum = sum + j end
end
print("sum", sum)
-- Deep nesting reaches Lua 5.1's limit of C calls as an error, not a crash.
local function nest(depth)
  return coroutine.wrap(function() return nest(depth + 1)() end)
end
local ok2, message = pcall(function() return nest(1)() end)
local _, levels = string.gsub(message, "coroutines.lua:%d+: ", "")
print("deep", ok2, levels, (string.gsub(message, "^.*: ", "")))
