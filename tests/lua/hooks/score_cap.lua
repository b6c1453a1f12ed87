-- meatfighter's NintendoTetrisAI.lua caps the score loop at 30 additions of the line points
-- (the most its designers expected): before `INC $A8` at $9C35, $A8 and A hold the level, and
-- the loop then adds the points level + 1 times.
memory.registerexecute(0x9C35, function()
  local counter = memory.readbyte(0xA8)
  print(string.format("9C35 counter %d a %d level %d", counter, memory.getregister("a"),
    memory.readbyte(0x44)))
  if counter > 29 then
    memory.writebyte(0xA8, 29)
  end
end)
