-- Run with a 0.2 s limit: a script cannot remove the watchdog's hook, neither with
-- debug.sethook nor with emu.exec_count, nor catch its error in a coroutine.
print("clearing hooks in a loop")
local co = coroutine.wrap(function()
  while true do
    debug.sethook()
    emu.exec_count(10, function() end)
    pcall(debug.sethook)
  end
end)
while true do pcall(co) end
