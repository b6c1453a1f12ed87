-- An error inside a memory hook is reported; this script stops, the machine and others go on.
memory.registerexec(0xC00C, function() error("boom in exec hook") end)
emu.registerexit(function() print("hook_error exit callback") end)
while true do emu.frameadvance() end
