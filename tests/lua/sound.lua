-- sound.get reports what the channels sound after real register writes.
local function show(label)
  local chip = sound.get().rp2a03
  for _, name in ipairs({"square1", "square2", "triangle", "noise", "dpcm"}) do
    local c = chip[name]
    print(label, name, string.format("volume %.3f frequency %.2f midikey %.2f regs %d",
      c.volume, c.frequency, c.midikey, c.regs.frequency), c.duty, c.short,
      c.dmcaddress, c.dmcsize, c.dmcloop, c.dmcseed)
  end
end
show("silent")
emu.frameadvance()   -- past power-on, whose reset silences the APU
memory.writebyte(0x4015, 0x0F)   -- pulses, triangle, noise on
memory.writebyte(0x4000, 0xBF)   -- duty 2, halt, constant volume 15
memory.writebyte(0x4002, 0xFD)   -- period $0FD: 440 Hz
memory.writebyte(0x4003, 0x00)
memory.writebyte(0x4004, 0x78)   -- duty 1, halt, constant volume 8
memory.writebyte(0x4006, 0x05)   -- period 5: under 8, muted
memory.writebyte(0x4007, 0x00)
memory.writebyte(0x4008, 0xFF)   -- triangle: control, linear counter 127
memory.writebyte(0x400A, 0x7E)   -- period $07E: 440 Hz
memory.writebyte(0x400B, 0x00)
memory.writebyte(0x400C, 0x3A)   -- noise: halt, constant volume 10
memory.writebyte(0x400E, 0x85)   -- short mode, period index 5
memory.writebyte(0x400F, 0x00)
memory.writebyte(0x4010, 0x4F)   -- DMC: loop, rate 15
memory.writebyte(0x4011, 0x40)   -- level 64
memory.writebyte(0x4012, 0x10)   -- sample at $C400
memory.writebyte(0x4013, 0x02)   -- 33 bytes (not started: DMC stays off)
emu.frameadvance()
show("playing")
