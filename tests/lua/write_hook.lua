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
local rmw, in_memory, cycles, inc_pc = {}, {}, {}, nil
memory.registerwrite(0x11, function(addr, size, value)
  inc_pc = inc_pc or memory.getregister("pc")
  if #rmw < 2 then
    rmw[#rmw + 1] = value
    in_memory[#in_memory + 1] = memory.readbyte(0x11) == value
    cycles[#cycles + 1] = debugger.getcyclescount()
  end
end)
-- The PC a write hook sees is FCEUX's: past the writing instruction (STX $31 at $C012, INC $11
-- at $C00A, PHA at $C017); for the NMI's pushes, the address the NMI returns to. Exec hooks see
-- the instruction's own address.
local pcs = {}
local function pc_at(addr)
  memory.registerwrite(addr, function() pcs[addr] = pcs[addr] or memory.getregister("pc") end)
end
pc_at(0x31) pc_at(0x1FC) pc_at(0x1FF)
local sta_pc
memory.registerexec(0xC00E, function() sta_pc = memory.getregister("pc") end)
emu.frameadvance()
emu.frameadvance()
print(string.format("pc: exec STA %04X, STX $31 %04X, INC %04X, PHA %04X", sta_pc, pcs[0x31], inc_pc, pcs[0x1FC]))
print("NMI push returns into the main loop", pcs[0x1FF] >= 0xC005 and pcs[0x1FF] <= 0xC016)
print("$30 after override", memory.readbyte(0x30))
print("rmw values differ by one", rmw[2] - rmw[1])
print("memory holds each write's value", in_memory[1], in_memory[2])
print("cycles between the two writes", cycles[2] - cycles[1])
print("range hits", ranges[0x20], ranges[0x21], ranges[0x0F], ranges[0x10])
memory.registerwrite(0x30, nil)
emu.frameadvance()
print("$30 after clearing the hook", memory.readbyte(0x30))
print(pcall(memory.registerwrite, 0x30, "not a function"))
