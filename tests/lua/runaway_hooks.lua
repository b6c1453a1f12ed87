-- Run with a 0.2 s limit: each read hook returns within a millisecond, but the program reads RAM
-- thousands of times a frame, so the frame would take seconds. The hooks' work in one frame
-- counts against the limit, and the script is stopped in its first frame.
memory.registerread(0x0000, 0x800, function()
  local x = 0
  for i = 1, 100000 do x = x + i end
end)
while true do
  emu.frameadvance()
  print("frame", emu.framecount())
end
