-- Run with a 0.2 s limit: catching the watchdog's error does not keep a runaway script alive.
-- Its error handlers fail too, its exit callback does not run, and the other script goes on.
emu.registerexit(function() print("exit callback ran") end)
print("looping under pcall and xpcall")
while true do
  pcall(function() while true do end end)
  xpcall(function() while true do end end, function(e) return e end)
end
