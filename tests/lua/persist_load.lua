-- Second run: slot 3 of the first run is there; create(n) is slot n-1, object(n) slot n % 10.
for i = 1, 5 do emu.frameadvance() end
local frame = emu.framecount()
print("fresh", memory.readbyte(0x0400), memory.readbyte(0x10))
savestate.load(savestate.create(4))
print("slot 3", memory.readbyte(0x0400), memory.readbyte(0x10), frame, emu.framecount())
savestate.load(savestate.object(4)) -- never saved: nothing happens
print("slot 4", memory.readbyte(0x0400))
emu.frameadvance()
print("runs on", memory.readbyte(0x10))
