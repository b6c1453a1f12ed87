-- Relative names resolve beside this script (tests/lua/sub), as FCEUX resolves them from the
-- script's directory, while the test process runs in tests/.
local f = assert(io.open("relative.txt"))
print("io.open", f:read("*l"))
f:close()
for line in io.lines("relative.txt") do print("io.lines", line) end
print("dofile", dofile("relative_helper.lua"))
print("loadfile", loadfile("relative_helper.lua")())
print("require", require("relative_helper"))
local out = assert(io.open("relative.out", "w"))
out:write("written beside the script\n")
out:close()
print("written", io.open("relative.out"):read("*l"))
print("rename", os.rename("relative.out", "relative.out2"), os.remove("relative.out2"))
print("missing", io.open("no_such_file.txt"))
