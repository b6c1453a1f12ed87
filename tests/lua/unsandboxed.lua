-- Without --lua-sandbox a script reaches what FCEUX's do: programs, native code, any file.
print("os.execute", type(os.execute), "io.popen", type(io.popen))
print("package.loadlib", type(package.loadlib), "loadlib", type(loadlib))
print("C searchers", #package.loaders)
local f = io.open("../Cargo.toml")
print("file outside", f ~= nil)
f:close()
