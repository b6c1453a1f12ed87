-- A heads-up display for watching the native AI play Quadfall or NES Tetris.
--
-- Run: nestor --ai --lua scripts/ai-hud.lua          (window; nestor run ... --headless works too)
--
-- The AI is one of the session's input sources: it presses controller 1's buttons at the start
-- of each frame, and the script sees them through joypad.get like any other input. The script
-- only reads: RAM for the piece, the preview, lines and score (the RAM map of the seed article),
-- and draws them with the frame's buttons in the empty area left of the playfield.
-- Every 600 frames it also prints one line, which makes the script useful headless.

local PIECE_ID, LEVEL, LINES, SCORE, NEXT_PIECE, GAME_MODE = 0x42, 0x44, 0x50, 0x53, 0xBF, 0xC0
local PIECE_NAMES = { [0] = "T", "T", "T", "T", "J", "J", "J", "J", "Z", "Z", "O", "S", "S",
  "L", "L", "L", "L", "I", "I" }
local BUTTONS = { "left", "right", "up", "down", "A", "B", "select", "start" }
local LETTERS = { left = "<", right = ">", up = "^", down = "v", A = "A", B = "B",
  select = "s", start = "S" }

-- Packed BCD as a number.
local function bcd(addr, bytes)
  local value = 0
  for i = bytes - 1, 0, -1 do
    local b = memory.readbyte(addr + i)
    value = value * 100 + math.floor(b / 16) * 10 + b % 16
  end
  return value
end

local function lines()
  local lo = memory.readbyte(LINES)
  return memory.readbyte(LINES + 1) * 100 + math.floor(lo / 16) * 10 + lo % 16
end

local function pressed()
  local pad = joypad.get(1)
  local text = ""
  for _, name in ipairs(BUTTONS) do
    text = text .. (pad[name] and LETTERS[name] or ".")
  end
  return text
end

local presses = 0
emu.registerafter(function()
  local pad = joypad.get(1)
  for _, name in ipairs(BUTTONS) do
    if pad[name] then
      presses = presses + 1
      return
    end
  end
end)

gui.register(function()
  if memory.readbyte(GAME_MODE) ~= 4 then
    return
  end
  gui.box(2, 164, 88, 230, "#000000C0", "white")
  gui.text(6, 167, "piece " .. (PIECE_NAMES[memory.readbyte(PIECE_ID)] or "-"))
  gui.text(6, 177, "next  " .. (PIECE_NAMES[memory.readbyte(NEXT_PIECE)] or "-"))
  gui.text(6, 187, "level " .. memory.readbyte(LEVEL))
  gui.text(6, 197, "lines " .. lines())
  gui.text(6, 207, "score " .. bcd(SCORE, 3))
  gui.text(6, 218, "pad " .. pressed())
end)

while true do
  emu.frameadvance()
  local frame = emu.framecount()
  if frame > 0 and frame % 600 == 0 then
    print(string.format("frame %d: lines %d, score %d, frames with buttons %d",
      frame, lines(), bcd(SCORE, 3), presses))
  end
end
