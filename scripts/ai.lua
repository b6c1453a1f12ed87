-- Quadfall / NES Tetris AI on nestor's FCEUX-compatible Lua API.
--
-- The algorithm of "Applying Artificial Intelligence to Nintendo Tetris": when a piece spawns,
-- search every position the current piece can lock in (breadth-first over shifts, rotations and
-- drops), and for each of them every lock of the preview piece; rate the resulting playfields
-- with El-Ashi's weighted features and place the current piece where the best pair starts
-- (the article's PLAY_FAST mode: the piece is put straight into its lock position).
--
-- Run: nestor run roms/quadfall.nes --lua scripts/ai.lua
-- It starts an A-type game at level 0 from the menus and prints the line count as it goes.

local PLAYFIELD, EMPTY = 0x0400, 0xEF
local GAME_MODE, PLAY_STATE, SPAWN_COUNT = 0xC0, 0x48, 0x1A
local MODE_PLAY = 4

-- The article's weights (lower rating is better).
local W_LINES, W_HEIGHT, W_WELLS = 1.0, 12.885008263218383, 15.842707182438396
local W_HOLES, W_COLUMN_TRANSITIONS, W_ROW_TRANSITIONS =
  26.894496507795950, 27.616914062397015, 30.185110719279040

-- ROM tables, read from the iNES image (16-byte header, then 32 KiB PRG at $8000).
local function rom_at(addr) return rom.readbyte(16 + addr - 0x8000) end
local function signed(b) if b >= 128 then return b - 256 end return b end

local squares, rotations = {}, {}
for id = 0, 18 do
  local s = {}
  for i = 0, 3 do
    local row = 0x8A9C + 12 * id + 3 * i
    s[#s + 1] = {signed(rom_at(row + 2)), signed(rom_at(row))}
  end
  squares[id] = s
  rotations[id] = {rom_at(0x88EE + 2 * id), rom_at(0x88EE + 2 * id + 1)}
end

-- Playfield: cells[y * 10 + x] true when filled, rows 0-19.
local function read_playfield()
  local cells = {}
  for i = 0, 199 do cells[i] = memory.readbyte(PLAYFIELD + i) ~= EMPTY end
  return cells
end

local function fits(cells, id, x, y)
  for _, sq in ipairs(squares[id]) do
    local cx, cy = x + sq[1], y + sq[2]
    if cx < 0 or cx > 9 or cy < -2 or cy > 19 then return false end
    if cy >= 0 and cells[cy * 10 + cx] then return false end
  end
  return true
end

-- Breadth-first search from the spawn state; calls found(x, y, id) for each lock state.
local function search(cells, id, found)
  if not fits(cells, id, 5, 0) then return end
  local seen, queue, head = {}, {{5, 0, id}}, 1
  seen[(2 * 10 + 5) * 19 + id] = true
  while head <= #queue do
    local x, y, o = queue[head][1], queue[head][2], queue[head][3]
    head = head + 1
    local moves = {
      {x - 1, y, o}, {x + 1, y, o}, {x, y, rotations[o][1]}, {x, y, rotations[o][2]}, {x, y + 1, o},
    }
    for i, m in ipairs(moves) do
      local key = ((m[2] + 2) * 10 + m[1]) * 19 + m[3]
      local ok = m[1] >= -2 and m[1] <= 11 and m[2] <= 19 and fits(cells, m[3], m[1], m[2])
      if i == 5 and not ok then found(x, y, o) end
      if ok and not seen[key] then
        seen[key] = true
        queue[#queue + 1] = m
      end
    end
  end
end

-- Places the piece; returns the new playfield and the number of lines it clears.
local function place(cells, id, x, y)
  local out = {}
  for i = 0, 199 do out[i] = cells[i] end
  for _, sq in ipairs(squares[id]) do
    local cy = y + sq[2]
    if cy >= 0 then out[cy * 10 + x + sq[1]] = true end
  end
  local cleared, dest = 0, 19
  local result = {}
  for row = 19, 0, -1 do
    local full = true
    for col = 0, 9 do if not out[row * 10 + col] then full = false break end end
    if full then
      cleared = cleared + 1
    else
      for col = 0, 9 do result[dest * 10 + col] = out[row * 10 + col] end
      dest = dest - 1
    end
  end
  for row = dest, 0, -1 do
    for col = 0, 9 do result[row * 10 + col] = false end
  end
  return result, cleared
end

-- El-Ashi's playfield features, weighted.
local function rate(cells, lines, lock_height)
  local wells, holes, column_transitions, row_transitions = 0, 0, 0, 0
  for col = 0, 9 do
    local covered, above = false, false
    for row = 0, 19 do
      local filled = cells[row * 10 + col]
      if filled ~= above then column_transitions = column_transitions + 1 end
      above = filled
      if filled then
        covered = true
      else
        if covered then holes = holes + 1 end
        local left = col == 0 or cells[row * 10 + col - 1]
        local right = col == 9 or cells[row * 10 + col + 1]
        if left and right then wells = wells + 1 end
      end
    end
    if not above then column_transitions = column_transitions + 1 end -- the floor
  end
  for row = 0, 19 do
    local left = true -- the wall
    for col = 0, 9 do
      local filled = cells[row * 10 + col]
      if filled ~= left then row_transitions = row_transitions + 1 end
      left = filled
    end
    if not left then row_transitions = row_transitions + 1 end
  end
  return W_LINES * lines + W_HEIGHT * lock_height + W_WELLS * wells + W_HOLES * holes
    + W_COLUMN_TRANSITIONS * column_transitions + W_ROW_TRANSITIONS * row_transitions
end

-- The best lock state for the current piece, looking one preview piece ahead.
local function best_placement(cells, current, next_piece)
  local best, best_rating = nil, math.huge
  search(cells, current, function(x, y, o)
    local after, lines = place(cells, o, x, y)
    local found_next = false
    search(after, next_piece, function(x2, y2, o2)
      found_next = true
      local final, lines2 = place(after, o2, x2, y2)
      local r = rate(final, lines + lines2, (20 - y) + (20 - y2))
      if r < best_rating then best, best_rating = {x, y, o}, r end
    end)
    if not found_next then
      local r = rate(after, lines, 20 - y) + 1e6 -- the preview piece would not fit: avoid
      if r < best_rating then best, best_rating = {x, y, o}, r end
    end
  end)
  return best
end

local function write_player(offset, value)
  memory.writebyte(0x40 + offset, value)
  memory.writebyte(0x60 + offset, value)
end

local function lines_cleared()
  local lo = memory.readbyte(0x50)
  return memory.readbyte(0x51) * 100 + math.floor(lo / 16) * 10 + lo % 16
end

local last_spawn, last_lines = nil, 0
while true do
  if memory.readbyte(GAME_MODE) ~= MODE_PLAY then
    -- Menus: tap Start (A-type, level 0).
    if emu.framecount() % 2 == 0 then joypad.set(1, {start = true}) end
    last_spawn = nil
  elseif memory.readbyte(PLAY_STATE) == 1 and memory.readbyte(SPAWN_COUNT) ~= last_spawn then
    last_spawn = memory.readbyte(SPAWN_COUNT)
    local current = memory.readbyte(0x62)
    local target = best_placement(read_playfield(), current, memory.readbyte(0xBF))
    if target then
      write_player(0, target[1])
      write_player(1, target[2])
      write_player(2, target[3])
      write_player(5, 0x7F) -- fallTimer: drop (and so lock) on the next frame
    end
  end
  local lines = lines_cleared()
  if lines ~= last_lines then
    print("lines", lines)
    last_lines = lines
  end
  emu.frameadvance()
end
