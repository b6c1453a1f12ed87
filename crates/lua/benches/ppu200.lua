-- Reads the PPU status register 200 times every frame (a script polling $2002), without the
-- read's side effects: the cost must stay near that of 200 RAM reads (read200.lua).
local sum = 0
while true do
  for _ = 1, 200 do
    sum = sum + memory.readbyte(0x2002)
  end
  emu.frameadvance()
end
