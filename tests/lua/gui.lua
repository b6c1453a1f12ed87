-- Drawing goes to an overlay composited over the frame; the first draw after a display clears it.
local function draw()
  gui.box(10, 10, 20, 20, "red")
  gui.line(0, 100, 50, 100, "#00FF00")
  return gui.text(40, 50, "Hi!")
end
print(draw())
print(gui.getpixel(15, 15))
print(gui.getpixel(10, 10))
print(gui.parsecolor(0x11223344))
print(gui.parsecolor({r=1, g=2}))
print(gui.parsecolor("#FF000080"))
print(pcall(gui.pixel, 0, 0, "nocolour"))
gui.opacity(0.5)
print(gui.parsecolor("white"))
gui.opacity(1)
emu.frameadvance()
-- A displayed frame shows only what was drawn since the previous one: draw every frame.
while true do
  draw()
  emu.frameadvance()
end
