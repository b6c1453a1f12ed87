-- Write hooks fire after the write, with (address, size, value); the byte is already in memory,
-- so memory.writebyte in the hook overrides the game's store.
local shown = 0
memory.registerwrite(0x30, function(addr, size, value)
  if shown < 2 then
    print("write", string.format("%04X", addr), size, value, memory.readbyte(0x30))
    shown = shown + 1
  end
  memory.writebyte(0x30, 0x99)
end)
-- A range: $0020-$0021 (pad byte written by the NMI's ROL), negative size: $000F-$0010 ...
local ranges = {}
memory.registerwrite(0x20, 2, function(addr) ranges[addr] = true end)
memory.registerwrite(0x11, -2, function(addr) ranges[addr] = true end)
-- RMW: INC $11 writes twice (dummy write of the old value, then the new one). Each hook runs
-- right after its write, in the middle of the instruction: memory holds that write's value, and
-- the two writes are one CPU cycle apart.
local rmw, in_memory, cycles = {}, {}, {}
memory.registerwrite(0x11, function(addr, size, value)
  if #rmw < 2 then
    rmw[#rmw + 1] = value
    in_memory[#in_memory + 1] = memory.readbyte(0x11) == value
    cycles[#cycles + 1] = debugger.getcyclescount()
  end
end)
emu.frameadvance()
emu.frameadvance()
print("$30 after override", memory.readbyte(0x30))
print("rmw values differ by one", rmw[2] - rmw[1])
print("memory holds each write's value", in_memory[1], in_memory[2])
print("cycles between the two writes", cycles[2] - cycles[1])
print("range hits", ranges[0x20], ranges[0x21], ranges[0x0F], ranges[0x10])
memory.registerwrite(0x30, nil)
emu.frameadvance()
print("$30 after clearing the hook", memory.readbyte(0x30))
print(pcall(memory.registerwrite, 0x30, "not a function"))
