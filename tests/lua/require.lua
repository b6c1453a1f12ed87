-- require finds modules next to the script, dotted names in subdirectories.
local m = require("helper_module")
print(m.greet("nestor"), require("sub.mod"))
print(pcall(require, "no_such_module") == false)
