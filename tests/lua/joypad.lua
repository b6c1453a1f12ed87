-- joypad.set lasts exactly one frame: nil passes the user's button, false releases, true
-- presses, strings and numbers invert. $20 holds what the game read (A = bit 7 ... Right = bit 0).
local function show(label)
  local pad = joypad.get(1)
  print(label, memory.readbyte(0x20), pad.A, pad.B, pad.start, pad.right)
end
for i = 1, 3 do emu.frameadvance() end
joypad.set(1, {A=true, right=true})
emu.frameadvance()
show("set A+right")
emu.frameadvance()
show("next frame")
joypad.set(1, {start=1, B=false, Start=true})
emu.frameadvance()
show("start inverted")
emu.registerbefore(function() if emu.framecount() == 7 then joypad.set(1, {B=true}) end end)
for i = 1, 4 do
  emu.frameadvance()
  show("frame " .. emu.framecount() .. " (B set in registerbefore of frame 7)")
end
joypad.set(1, {A=true})
joypad.set(1, {select=true})
emu.frameadvance()
show("second set replaces")
print(pcall(joypad.get, 5))
print(joypad.getdown(1).select, joypad.getup(1).A, joypad.getdown(1).A)
