-- FCEUX script: at frame $NESTOR_FRAME writes RAM ($0000-$07FF) to $NESTOR_RAM as a hex dump
-- (lines "0000: 00 01 ... 0F"), then quits FCEUX. Used with --playmov to see where a movie ends.
local frame, out = tonumber(os.getenv("NESTOR_FRAME")), os.getenv("NESTOR_RAM")
emu.speedmode("maximum")
while emu.framecount() < frame do
  emu.frameadvance()
end
local ram, lines = memory.readbyterange(0, 0x800), {}
for row = 0, 0x7F0, 0x10 do
  local bytes = {}
  for i = 1, 16 do
    bytes[i] = string.format("%02X", ram:byte(row + i))
  end
  lines[#lines + 1] = string.format("%04X: %s\n", row, table.concat(bytes, " "))
end
local file = io.open(out, "w")
file:write(table.concat(lines))
file:close()
emu.exit()
