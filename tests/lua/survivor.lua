while true do
  emu.frameadvance()
  print("survivor frame", emu.framecount())
end
