-- First run: numbered slots are written to the host's slot files, named states to their path.
for i = 1, 3 do emu.frameadvance() end
memory.writebyte(0x0400, 0x42)
local slot = savestate.object(3)
savestate.save(slot)
savestate.persist(slot)
print("slot 3 saved at", memory.readbyte(0x10), emu.framecount())
local anon = savestate.create()
savestate.save(anon)
savestate.persist(anon) -- anonymous states stay in memory
local path = os.tmpname()
os.remove(path)
local named = savestate.create(path)
memory.writebyte(0x0401, 0x17)
savestate.save(named)
print("unsaved file", io.open(path) == nil)
savestate.persist(named)
memory.writebyte(0x0401, 0)
savestate.load(savestate.create(path))
print("named", memory.readbyte(0x0401))
os.remove(path)
print(savestate.object(5) ~= nil) -- a damaged slot file is reported and the object is empty
