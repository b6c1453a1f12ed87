-- Plays a movie FCEUX 2.6.5 recorded (with a reset and a power cycle) and, once emu.framecount()
-- reaches its length as FCEUX's own dump script waits for it, prints the RAM.
dofile("ram_dump.lua")
print(movie.play("../crates/session/tests/fceux/quadfall-reset.fm2"), movie.length())
while emu.framecount() < movie.length() do
  emu.frameadvance()
end
print("frame", emu.framecount(), movie.framecount(), movie.mode())
dump_ram()
