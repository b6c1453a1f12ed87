-- emu.exec_count limits a function's Lua instructions; LuaJIT gets Lua 5.1's compatibility
-- functions and neither its compiler nor its FFI; waiting in a C function longer than the
-- watchdog's limit is not a runaway, but a callback that never returns is.
print(emu.exec_count(1000, function() local x = 0 for i = 1, 10 do x = x + i end end))
print(emu.exec_count(1000, function() while true do end end))
print(emu.exec_count(0, function() end))
print(math.mod(7, 3), math.mod(-7, 3), string.gfind == string.gmatch, loadlib == package.loadlib)
print(pcall(table.setn, {}, 1))
print(jit, ffi, (pcall(require, "jit")))
os.execute("sleep 0.5")
print("waited")
emu.registerbefore(function() while true do end end)
print("registered")
emu.frameadvance()
print("the main chunk goes on")
emu.frameadvance()
