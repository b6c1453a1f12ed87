-- Details FCEUX scripts look at, with FCEUX's values.
-- The movie read-only toggle is on from the start, also without a movie.
print("readonly", emu.readonly(), movie.readonly())
emu.setreadonly(false)
print("setreadonly(false)", emu.readonly(), movie.getreadonly())
movie.setreadonly(true)
print("setreadonly(true)", emu.readonly())
-- TAS Editor is never engaged: -1, false, "" and nothing, as FCEUX returns then.
print("taseditor", taseditor.getmarker(0), taseditor.setmarker(5), taseditor.engaged(),
  taseditor.getinput(0, 1), taseditor.getnote(0) == "", taseditor.getselection())
-- $4016 and $4017 read as their last writes, $4018-$4FFF as $FF.
for i = 1, 3 do emu.frameadvance() end
print("ports", memory.readbyte(0x4016), memory.readbyte(0x4017), memory.readbyte(0x4018),
  memory.readbyte(0x4FFF))
memory.writebyte(0x4017, 0xC0)
memory.writebyte(0x4016, 1)
print("after writes", memory.readbyte(0x4016), memory.readbyte(0x4017))
memory.writebyte(0x4016, 0)
-- Reading $4016 between the game's reads of it doesn't clock the pad: the NMI still reads
-- A+Right into $20 (A = bit 7 ... Right = bit 0).
memory.registerexec(0xC026, function()
  for i = 1, 3 do memory.readbyte(0x4016) memory.readbyterange(0x4016, 2) end
end)
joypad.set(1, {A = true, right = true})
emu.frameadvance()
print("pad read by the game", string.format("%02X", memory.readbyte(0x20)))
-- FCEUX's wording for a wrong argument.
print(pcall(emu.speedmode, "fast"))
