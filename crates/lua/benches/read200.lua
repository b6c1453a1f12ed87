-- Reads 200 bytes of RAM every frame (a typical HUD / bot workload).
local sum = 0
while true do
  for addr = 0x0400, 0x04C7 do
    sum = sum + memory.readbyte(addr)
  end
  emu.frameadvance()
end
