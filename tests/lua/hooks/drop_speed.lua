-- meatfighter's NintendoTetrisAI.lua speeds up the drop this way: before `CPX #$1D` at $8977
-- X holds the level (and A the one frame per row that levels 29 and up get); setting X to 29
-- takes the branch past the gravity table, so the piece falls a row every frame.
memory.registerexecute(0x8977, function()
  print(string.format("8977 x %d a %d level %d", memory.getregister("x"),
    memory.getregister("a"), memory.readbyte(0x44)))
  memory.setregister("x", 29)
end)
