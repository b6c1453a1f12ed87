-- Reads are side-effect free, writes are bus writes wrapped to 8 bits, addresses to 16 bits.
print("emulating", emu.emulating(), emu.framecount())
memory.writebyte(0x0300, 257)
print(memory.readbyte(0x0300), memory.readbyte(0x10300), memory.readbyteunsigned(0x300))
memory.writebyte(0x0301, -1)
print(memory.readbyte(0x301), memory.readbytesigned(0x301), memory.readbyte(0x0B01))
memory.writebyte(0x302, 0x34)
memory.writebyte(0x303, 0x82)
print(memory.readword(0x302), memory.readwordsigned(0x302), memory.readword(0x303, 0x302))
print(memory.readbyterange(0x300, 4):byte(1, -1))
print(memory.readword(0xFFFC), rom.readbyte(0), rom.readbyte(16), rom.readbyte(0x10 + 0x3FFD))
print(memory.readbyte(3.9 + 0x2FD), memory.readbyte("770"))
print(string.format("%04X", memory.getregister("pc")), memory.getregister("bogus"), memory.getregister("S"))
rom.writebyte(16 + 0x4000, 0x55) -- first CHR-ROM byte
rom.writebyte(16 + 0x3FF0, 0xEA) -- unused PRG byte
print(ppu.readbyte(0x0000), ppu.readbyterange(0, 2):byte(1, -1), rom.readbyte(16 + 0x4000), memory.readbyte(0xFFF0))
print(pcall(rom.writebyte, 3, 1))
print(#rom.gethash("md5"), rom.gethash("base64"):sub(1, 7), #rom.gethash("base64"), rom.gethash("sha1") == "")
print(rom.getfilename())
print(#memory.readbyterange(0xFFFF, 0x10000), memory.readbyterange(0, -1), #ppu.readbyterange(0, -5))
print(pcall(memory.readbyterange, 0, 2^40))
memory.setregister("y", 0x1FF)
print(memory.getregister("Y"))
for i = 1, 5 do
  emu.frameadvance()
  print(emu.framecount(), memory.readbyte(0x10), emu.lagged(), emu.lagcount())
end
