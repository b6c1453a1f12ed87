-- print/tostring with FCEUX's formatting: %.12g numbers, tables by contents, cycles.
print(1, 2.5, "s", nil, true, false)
print(1/3, 1e15, 2^53, -0.25)
print({1, 2, 3})
print({a=1})
print({[3.5]='x'})
print({1, 2, x='y'})
print({['odd key']=1}, {['1st']=2}) -- FCEUX checks only the first character
local t = {} t.self = t
print(t)
local n = {inner={}} n.inner.up = n
print(n)
print(tostring({5}), tostring(12))
print(setmetatable({}, {__tostring=function() return "meta!" end}))
print(type(print), _VERSION)
print(table.getn({1,2,3}), math.mod(7,3), unpack({1,2}))
print(string.format("%d", 3), select('#', 1, 2))
print(type(debug.getinfo), type(io.open), type(os.clock), type(loadstring))
print(emu == FCEU, type(FCEU.framecount), require("bit") == bit)
print(tobitstring(0x5A), copytable({1,2})[2], addressof({}) ~= 0)
print(gethash("123456789", 9))
print(debug.getinfo(1).source)
