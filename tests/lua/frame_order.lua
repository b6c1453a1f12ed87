-- FCEUX's frame: resume main body, latch input (framecount += 1), registerbefore, emulate,
-- registerafter, gui.register. The NMI counter $10 moves during emulation only.
print(emu.registerbefore(function() print("before", emu.framecount(), memory.readbyte(0x10)) end))
local function after() print("after", emu.framecount(), memory.readbyte(0x10)) end
emu.registerafter(after)
print(emu.registerafter(after) == after)
gui.register(function() print("gui", emu.framecount()) end)
print("loaded", emu.framecount())
while true do
  print("main", emu.framecount(), memory.readbyte(0x10))
  emu.frameadvance()
end
