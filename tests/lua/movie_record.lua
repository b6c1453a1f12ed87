-- movie.record logs the input each frame gets; movie.play plays it back from power-on.
local path = os.tmpname()
os.remove(path)
emu.frameadvance()
emu.frameadvance()
print("record", movie.record(path, 0, "lua test"), emu.framecount(), movie.mode())
for i = 1, 6 do
  joypad.set(1, {A = i % 2 == 1, right = i > 3})
  emu.frameadvance()
end
print(movie.mode(), movie.length(), movie.recording(), movie.name() == path)
movie.stop()
print("stopped", movie.mode(), pcall(movie.stop))
print("play", movie.play(path, true), emu.framecount(), movie.mode(), movie.readonly())
for i = 1, 7 do
  joypad.set(1, {B = true}) -- the movie's input wins
  emu.frameadvance()
  local pad = joypad.get(1)
  print(emu.framecount(), movie.mode(), pad.A, pad.right, pad.B, memory.readbyte(0x20))
end
movie.stop()
-- Loading a state while recording rerecords from its frame on, and counts a rerecord.
print("record", movie.record(path))
joypad.set(1, {A = true})
emu.frameadvance()
local branch = savestate.create()
savestate.save(branch)
for i = 1, 2 do
  joypad.set(1, {A = true})
  emu.frameadvance()
end
savestate.load(branch)
joypad.set(1, {select = true})
emu.frameadvance()
print(movie.length(), movie.rerecordcount())
movie.rerecordcounting(false)
savestate.load(branch)
print(movie.length(), movie.rerecordcount())
movie.stop()
movie.play(path)
for i = 1, 3 do
  emu.frameadvance()
  local pad = joypad.get(1)
  print(movie.mode(), pad.A, pad.select)
end
movie.stop()
print(pcall(movie.record, path, 1))
print(movie.play("no such movie.fm2"))
print(pcall(movie.rerecordcounting))
os.remove(path)
