-- Anonymous and numbered savestates restore the machine and the frame counter.
local anon = savestate.create()
savestate.load(anon) -- never saved: nothing happens
for i = 1, 3 do emu.frameadvance() end
memory.writebyte(0x0400, 0x42)
savestate.save(anon)
local frame, nmis = emu.framecount(), memory.readbyte(0x10)
memory.writebyte(0x0400, 0x00)
for i = 1, 3 do emu.frameadvance() end
print("moved on", emu.framecount() - frame, memory.readbyte(0x10) - nmis)
savestate.load(anon)
print("restored", emu.framecount() == frame, memory.readbyte(0x10) == nmis, memory.readbyte(0x400))
local slot = savestate.object(3)
savestate.save(slot)
savestate.persist(slot)
emu.frameadvance()
memory.writebyte(0x0400, 0x07)
local same = savestate.create(4) -- create(n) is slot n-1, object(n) is slot n % 10
savestate.load(same) -- read from the slot file: the machine, not the frame counter
print("slot 3", memory.readbyte(0x10) == nmis, memory.readbyte(0x400))
print(pcall(savestate.create, 11))
print(type(anon))
emu.frameadvance()
print("runs on", memory.readbyte(0x10) == nmis + 1)
