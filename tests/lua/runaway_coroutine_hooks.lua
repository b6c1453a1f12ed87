-- Run with a 0.2 s limit: each read hook does its slow work (a long table.concat, which no
-- hook interrupts) in a coroutine of its own, which starts its own instruction count and ends
-- before the watchdog's hook would look at the clock. The host looks before each call.
local big = {}
for i = 1, 30000 do big[i] = "x" end
memory.registerread(0x0000, 0x800, function()
  coroutine.wrap(function()
    for i = 1, 20 do table.concat(big) end
  end)()
end)
emu.frameadvance()
