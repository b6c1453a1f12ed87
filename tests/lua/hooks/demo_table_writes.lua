-- Keeps the game in demo recording mode ($D0 = $FF; power-on clears it) and reports every
-- write into the demo table ($DD00-$DEFF).
emu.registerbefore(function() memory.writebyte(0xD0, 0xFF) end)
memory.registerwrite(0xDD00, 0x200, function(addr)
  print(string.format("write %04X", addr))
end)
