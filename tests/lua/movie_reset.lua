-- Records a movie with a reset and a power-on asked for by the script, then prints the RAM at
-- its end: the movie, played by nestor's FCEUX-checked playback, must end there too.
dofile("ram_dump.lua")
local path = os.tmpname()
print("movie", path)
print("record", movie.record(path), emu.framecount(), movie.length())
local function frames(n, buttons)
  for i = 1, n do
    joypad.set(1, buttons)
    emu.frameadvance()
  end
end
frames(40, {})
frames(1, {start = true})
frames(30, {right = true})
emu.softreset()
print("softreset", emu.framecount())
frames(1, {})
print("after", emu.framecount(), movie.length())
frames(60, {start = true})
emu.poweron()
frames(1, {})
print("power", emu.framecount(), movie.length())
frames(50, {A = true})
print("end", emu.framecount(), movie.length())
movie.stop()
dump_ram()
