-- Lua 5.1 as FCEUX runs it (PUC Lua 5.1 with the stock compatibility switches).
print(_VERSION)
-- The implicit `arg` table of vararg functions, with `n`.
local function count(...) return arg.n, arg[1], arg[3] end
print("arg", count("a", nil, "c"))
local function none(...) return arg.n end
print("arg empty", none())
-- Escapes 5.1 accepts: an unknown escaped character stands for itself.
print("escapes", "\|", "\q", "\%", "\65\066\0677", #"\0", "a\
b")
-- Functions of 5.1's library that later versions dropped.
print("getn", table.getn({1, 2, 3}), unpack({4, 5, 6}))
print("mod", math.mod(7, 3), math.mod(-7, 3), math.fmod(-7, 3))
local words = {}
for w in string.gfind("one two three", "%a+") do words[#words + 1] = w end
print("gfind", table.concat(words, ","))
print("loadstring", loadstring("return 1 + ...")(41))
local env = {x = "from setfenv"}
local function getx() return x end
setfenv(getx, env)
print("setfenv", getx(), getfenv(getx) == env, getfenv(0) == _G)
print("setn", pcall(table.setn, {}, 1))
print("loadlib", loadlib, type(package.loadlib))
print("module", type(module), type(package.seeall))
-- Operators and number formatting.
print("#", #{1, 2, 3}, #"four", #{n = 1})
print("%", -7 % 3, 7 % -3, -7.5 % 2, 5.5 % -2)
print("tostring", tostring(3), tostring(-0.5), tostring(1e15), tostring(2^53), tostring(1/0))
print("format", string.format("%d %5.2f %s %q", 3.9, 1/3, 10 / 2, "a\nb\0"))
print("concat", 1 .. "", 1e15 .. "", 0.1 .. "", 2^63 .. "")
print("tonumber", tonumber("0x10"), tonumber("  12  "), tonumber("1e2"), tonumber("z", 36))
-- No goto, no bit32, no table.unpack / table.pack (5.2's names).
print("5.2", loadstring("goto x") == nil, bit32, table.unpack, table.pack)
-- Yielding across pcall is an error in 5.1.
local co = coroutine.create(function() return pcall(coroutine.yield) end)
print("yield across pcall", coroutine.resume(co))
