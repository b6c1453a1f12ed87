local M = {}
function M.greet(name) return "hello " .. name end
return M
