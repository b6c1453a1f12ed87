-- Lets another program play Quadfall (or NES Tetris) over TCP, the way FCEUX bot connectors
-- do, with LuaSocket's API (built into nestor: require("socket")).
--
-- Each time a piece spawns the script sends the other program one line:
--   piece <orientation ID> next <orientation ID> lines <count> field <200 characters>
-- the field row by row from the top, "." for an empty cell and "#" for a filled one.
-- Every frame it takes one line from the other program, if one has arrived (it never waits),
-- and holds the buttons it names for that frame: any of "a b select start up down left right"
-- ("left a" moves left and rotates); an empty line is a frame without buttons.
--
-- Try it with netcat as the other program, typing the lines yourself:
--   nc -l 127.0.0.1 3456          (traditional netcat: nc -l -p 3456)
--   nestor run roms/quadfall.nes --lua scripts/socket-bot.lua
-- then type "start" and Enter a few times to start a game, and "left", "right", "a" to play.
-- BOT_PORT=<port> in the environment picks another port.

local socket = require("socket")

local PORT = tonumber(os.getenv("BOT_PORT")) or 3456
local SPAWN_COUNT, PIECE, LINES, NEXT_PIECE, PLAYFIELD = 0x1A, 0x42, 0x50, 0xBF, 0x0400
local EMPTY = 0xEF
local BUTTONS = { a = "A", b = "B", select = "select", start = "start", up = "up",
  down = "down", left = "left", right = "right" }

local connection, err = socket.connect("127.0.0.1", PORT)
if not connection then
  error("cannot connect to 127.0.0.1:" .. PORT .. " (" .. err .. "): start the other program first", 0)
end
connection:setoption("tcp-nodelay", true)
-- Never wait: the game goes on while the other program thinks.
connection:settimeout(0)

local function status()
  local cells = {}
  for i = 0, 199 do
    cells[#cells + 1] = memory.readbyte(PLAYFIELD + i) == EMPTY and "." or "#"
  end
  local bcd = memory.readbyte(LINES)
  local lines = memory.readbyte(LINES + 1) * 100 + math.floor(bcd / 16) * 10 + bcd % 16
  return string.format("piece %d next %d lines %d field %s\n", memory.readbyte(PIECE),
    memory.readbyte(NEXT_PIECE), lines, table.concat(cells))
end

local spawns = memory.readbyte(SPAWN_COUNT)
-- A line that has only partly arrived.
local partial = ""
while true do
  if memory.readbyte(SPAWN_COUNT) ~= spawns then
    spawns = memory.readbyte(SPAWN_COUNT)
    connection:send(status())
  end
  local line, problem, so_far = connection:receive("*l", partial)
  if line then
    partial = ""
    local pad = {}
    for word in line:lower():gmatch("%a+") do
      if BUTTONS[word] then
        pad[BUTTONS[word]] = true
      end
    end
    joypad.set(1, pad)
  elseif problem == "timeout" then
    partial = so_far
  else
    print("socket-bot: the connection is " .. problem .. "; stopping")
    break
  end
  emu.frameadvance()
end
