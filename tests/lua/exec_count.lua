-- emu.exec_count limits a function's Lua instructions; Lua 5.1's compatibility functions are
-- there as in FCEUX (stock luaconf.h: no global loadlib), no LuaJIT modules; waiting in a C
-- function longer than the watchdog's limit is not a runaway (nor is a pattern match after
-- it), but a callback that never returns is.
print(emu.exec_count(1000, function() local x = 0 for i = 1, 10 do x = x + i end end))
print(emu.exec_count(1000, function() while true do end end))
print(emu.exec_count(0, function() end))
-- A handler for the count's error would run where hooks are off: it is not called.
print(emu.exec_count(1000, function()
  xpcall(function() while true do end end, function() while true do end end)
end))
print(math.mod(7, 3), math.mod(-7, 3), string.gfind == string.gmatch, loadlib)
print(pcall(table.setn, {}, 1))
print(jit, ffi, (pcall(require, "jit")))
os.execute("sleep 0.5")
print("waited", #("x"):rep(10000):match("x*"))
emu.registerbefore(function() while true do end end)
print("registered")
emu.frameadvance()
print("the main chunk goes on")
emu.frameadvance()
