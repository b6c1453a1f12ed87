-- Read hooks fire right after the read, in the middle of the instruction: the NMI handler's
-- INC $10 has read the counter but not yet written it back.
local seen = {}
memory.registerread(0x10, function(addr, size, value)
  if #seen < 2 then
    seen[#seen + 1] = string.format("%04X %d %d still in memory: %s", addr, size, value,
      tostring(memory.readbyte(0x10) == value))
  end
end)
for i = 1, 3 do emu.frameadvance() end
for _, line in ipairs(seen) do print("read", line) end
