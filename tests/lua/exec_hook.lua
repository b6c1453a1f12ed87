-- Exec hooks run before the instruction: registers are the old ones and setregister changes
-- what the instruction uses. FCEUX has already fetched the opcode, so moving PC makes that
-- opcode take its operands from the new PC + 1: at $C00C `LDA #$11` becomes `LDA #$30` (the
-- operand byte of the next `STA $30`), and the store is skipped.
memory.writebyte(0x30, 0)
local shown = false
memory.registerexec(0xC00C, function(addr, size, value)
  if not shown then
    print("exec", string.format("%04X", addr), size, value, string.format("%04X", memory.getregister("pc")))
    shown = true
  end
  memory.setregister("pc", 0xC00E)
end)
local a_seen
memory.registerexec(0xC010, function() a_seen = memory.getregister("a") end)
memory.registerexec(0xC012, function() memory.setregister("x", 7) end)
emu.frameadvance()
emu.frameadvance()
print("A after the patched load", a_seen, "$30", memory.readbyte(0x30), "$31", memory.readbyte(0x31))
