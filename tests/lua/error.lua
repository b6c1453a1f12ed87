-- A runtime error stops this script with message and traceback; emulation goes on.
local function fail(x)
  return x.field
end
emu.frameadvance()
print("before error")
fail(nil)
print("never printed")
