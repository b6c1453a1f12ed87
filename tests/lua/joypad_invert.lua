-- The user holds A+Start. Invert flips them, false forces off, a number inverts B (unheld → held).
for i = 1, 3 do emu.frameadvance() end
print("user", memory.readbyte(0x20), joypad.getimmediate(1).A, joypad.getimmediate(1).start)
joypad.set(1, {A="invert", start=false, B=1})
emu.frameadvance()
print("set", memory.readbyte(0x20))
emu.frameadvance()
print("after", memory.readbyte(0x20))
