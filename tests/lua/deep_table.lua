-- A table nested 4,000 deep prints its first 100 levels and then the address of the rest, as
-- FCEUX shows a table its stack has no room for.
local t = {}
for _ = 1, 4000 do t = {t} end
local shown = tostring(t)
print(#shown < 1000, shown:sub(1, 12), (shown:gsub("0x%x+", "0x...")):sub(95))
print(tostring(t) == shown)
-- A __tostring returning another such table, without end.
local mt = {}
mt.__tostring = function() return setmetatable({}, mt) end
print((tostring(setmetatable({}, mt)):gsub("0x%x+", "0x...")))
-- One print or tostring is cut at 64 KiB, ending in "...".
local long = tostring({string.rep("x", 100000)})
print(#long, long:sub(1, 2), long:sub(-4))
