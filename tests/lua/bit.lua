-- LuaBitOp semantics (signed 32-bit results) and the old FCEU globals.
print(bit.band(0xFF, 0x0F), bit.bor(1, 2, 4), bit.bxor(3, 1))
print(bit.bor(0x80000000), bit.tobit(2^32 + 5), bit.bnot(0))
print(bit.lshift(1, 4), bit.rshift(-1, 28), bit.arshift(-16, 2))
print(bit.rol(0x80000000, 1), bit.ror(1, 1), bit.bswap(0x12345678))
print(bit.tohex(255), bit.tohex(-1, -4), bit.tohex(0x1234, 2))
print(AND(0xF0, 0x3C), OR(1, 2), XOR(0xFF, 0x0F))
print(SHIFT(256, 4), SHIFT(1, -3), BIT(0, 3, 7), BIT(40))
