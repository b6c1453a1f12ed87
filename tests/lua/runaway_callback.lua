-- Run with a 0.2 s limit: a frame callback that loops under pcall and ends by returning what
-- pcall returned (no instruction of its own runs after the catch) is stopped all the same.
emu.registerafter(function() return pcall(function() while true do end end) end)
gui.register(function() print("gui callback ran") end)
print("registered")
emu.frameadvance()
print("frame 1")
emu.frameadvance()
print("not reached")
