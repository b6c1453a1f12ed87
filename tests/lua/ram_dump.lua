-- dump_ram(): RAM ($0000-$07FF) as hex lines "0000: 00 01 ... 0F", the format of FCEUX's dump
-- in crates/session/tests/fceux/dump_ram.lua.
function dump_ram()
  local ram = memory.readbyterange(0, 0x800)
  for row = 0, 0x7F0, 0x10 do
    local bytes = {}
    for i = 1, 16 do
      bytes[i] = string.format("%02X", ram:byte(row + i))
    end
    print(string.format("%04X: %s", row, table.concat(bytes, " ")))
  end
end
