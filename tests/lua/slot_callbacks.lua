-- registersave/registerload: called for the user's slot saves and loads only, with the slot
-- number; what the save callback returns comes back to the load callback.
local saves = 0
local previous = savestate.registersave(function(slot)
  saves = saves + 1
  print("save", slot, emu.framecount())
  return saves, "frame " .. emu.framecount(), {lines = 12, rows = {1, 2, 3}}, nil
end)
print("previous save callback", previous)
savestate.registerload(function(slot, count, text, t, missing)
  print("load", slot, emu.framecount(), count, text, t and t.lines, t and #t.rows, missing)
end)
-- The script's own savestates call neither.
local s = savestate.create()
savestate.save(s)
savestate.load(s)
while true do
  emu.frameadvance()
end
