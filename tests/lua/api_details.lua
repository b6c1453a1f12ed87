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
-- $4000-$4016 read as their last writes, $4017 as the mode bits of its last write, $4018-$4FFF
-- as $FF; PPUCTRL, PPUMASK, OAMADDR, fine X and the VRAM address's low byte as they are (as
-- FCEUX 2.6.5 shows them after such writes).
for i = 1, 3 do emu.frameadvance() end
local function show(name, from, to)
  local bytes = {}
  for a = from, to do bytes[#bytes + 1] = string.format("%02X", memory.readbyte(a)) end
  print(name, table.concat(bytes, " "))
end
show("ports", 0x4016, 0x4019)
show("tail", 0x4FFE, 0x4FFF)
memory.writebyte(0x4017, 0xC0)
memory.writebyte(0x4016, 0xFF)
memory.writebyte(0x4000, 0x5A)
memory.writebyte(0x4003, 0xF8)
memory.writebyte(0x4015, 0x1A)
memory.writebyte(0x4014, 0x03)
show("after writes", 0x4000, 0x4017)
memory.writebyte(0x4016, 0)
memory.writebyte(0x2003, 0x05)
memory.writebyte(0x2000, 0x91)
memory.writebyte(0x2001, 0x18)
memory.writebyte(0x2005, 0x33)
memory.writebyte(0x2006, 0x21)
memory.writebyte(0x2006, 0x08)
show("ppu", 0x2000, 0x2006)
show("ppu mirror", 0x3FF8, 0x3FFE)
memory.writebyte(0x2000, 0x80)
memory.writebyte(0x2001, 0x00)
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
