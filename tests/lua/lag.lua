-- A frame in which the game reads no controller port is a lag frame, with memory hooks
-- (instruction by instruction) and without (the machine's own stepping).
local function show(label)
  emu.frameadvance()
  print(label, emu.lagged(), emu.lagcount())
end
show("polls")
rom.writebyte(16 + 0x17, 0x40) -- the NMI handler returns at once: no controller read
show("lag")
show("lag")
memory.registerwrite(0x0030, function() end)
show("lag, hooked")
rom.writebyte(16 + 0x17, 0x48) -- the handler reads the pad again
show("polls, hooked")
memory.registerwrite(0x0030, nil)
show("polls")
emu.registerafter(function() emu.setlagflag(true) end)
show("polls, flag set after")
