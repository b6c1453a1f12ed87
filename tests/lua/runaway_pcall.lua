-- Run with a 0.2 s limit: catching the watchdog's error does not keep a runaway script alive.
-- Its error handlers fail too, its exit callback does not run, and the other script goes on.
emu.registerexit(function() print("exit callback ran") end)
print("looping under pcall and xpcall")
local function spin() while true do end end
while true do pcall(spin) xpcall(spin, function(e) return e end) end
