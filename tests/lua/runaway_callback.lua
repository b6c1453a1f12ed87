-- Run with a 0.2 s limit: a frame callback that loops under pcall and ends by returning what
-- pcall returned is stopped all the same (at its return), and its other callbacks and memory
-- hooks with it.
emu.registerafter(function()
  memory.registerwrite(0x10, function() print("write hook ran") end)
  return pcall(function() while true do end end)
end)
gui.register(function() print("gui callback ran") end)
print("registered")
emu.frameadvance()
print("frame 1")
emu.frameadvance()
print("not reached")
