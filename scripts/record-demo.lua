-- Demo recorder for Quadfall / NES Tetris, in the spirit of the article's RecordDemo.lua.
--
-- The game has a demo recording mode: with $D0 = $FF the demo takes the player's buttons and
-- writes (buttons, frames) pairs through ($D1),X into the demo table at $DD00. That table is
-- in ROM, where a store is a write to the mapper's registers. This script puts the game in
-- recording mode, and with exec hooks catches each pair before it is stored and skips the store
-- (FCEUX's exec-hook PC trick: the hook on `LDA zp` moves PC onto the operand of the following
-- `STA ($D1,X)`, so the fetched LDA takes that byte as its operand and the store never runs).
-- When the demo ends (table full, game over or Start) it prints the bytes, 16 a line, ready to
-- go into the ROM image at file offset $5D10 ($DD00).
--
-- Run: nestor run roms/quadfall.nes --lua scripts/record-demo.lua
-- then wait on the title screen for the demo to start and play it.

local RECORDING, GAME_MODE, MODE_DEMO = 0xD0, 0xC0, 5

-- Find the two "LDA held/repeats; STA ($D1,X)" pairs of the recording routine.
local function find(pattern)
  for addr = 0x8000, 0xFFFF - #pattern do
    local match = true
    for i, byte in ipairs(pattern) do
      if memory.readbyte(addr + i - 1) ~= byte then match = false break end
    end
    if match then return addr end
  end
  error(string.format("recording code %02X %02X %02X %02X not found: not a Tetris-compatible ROM",
    unpack(pattern)))
end

local recorded, hooks = {}, {}
for _, source in ipairs({0xCE, 0xCF}) do -- demo_held, demo_repeats
  local lda = find({0xA5, source, 0x81, 0xD1})
  hooks[#hooks + 1] = lda
  memory.registerexec(lda, function()
    if memory.readbyte(GAME_MODE) == MODE_DEMO then
      local value = memory.readbyte(source)
      -- The game counts the first pair's frames from the demo's first frame, one more than
      -- its replay holds them for (every later pair is exact): take one off so the replay
      -- follows the recording frame for frame.
      if #recorded == 1 and value > 0 then value = value - 1 end
      recorded[#recorded + 1] = value
      memory.setregister("pc", lda + 2)
    end
  end)
end

local function print_table()
  for line = 1, #recorded, 16 do
    local bytes = {}
    for i = line, math.min(line + 15, #recorded) do bytes[#bytes + 1] = string.format("%02X", recorded[i]) end
    print(table.concat(bytes, " "))
  end
  print(string.format("-- %d bytes (%d pairs) for $DD00", #recorded, #recorded / 2))
end

local in_demo = false
while true do
  memory.writebyte(RECORDING, 0xFF)
  local demo = memory.readbyte(GAME_MODE) == MODE_DEMO
  if demo and not in_demo then print("recording the demo") end
  if in_demo and not demo then
    print_table()
    for _, lda in ipairs(hooks) do memory.registerexec(lda, nil) end
    break
  end
  in_demo = demo
  emu.frameadvance()
end
