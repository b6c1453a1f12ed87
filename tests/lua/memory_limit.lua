-- Run with a 32 MiB memory limit: an allocation past it is the Lua error "not enough memory",
-- which the script can catch; uncaught, it stops the script alone.
print(pcall(string.rep, "x", 64 * 1024 * 1024))
local t = {}
print(pcall(function() while true do t[#t + 1] = {} end end))
t = nil
collectgarbage()
print("still running")
local s = {}
for i = 1, 1e9 do s[i] = ("y"):rep(100) .. i end
