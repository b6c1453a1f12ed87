savestate.registersave(function(slot)
  error("cannot save " .. slot)
end)
savestate.registerload(function(slot, ...)
  print("loaded", slot, select("#", ...))
  return print
end)
while true do
  emu.frameadvance()
end
