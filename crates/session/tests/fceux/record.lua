-- FCEUX script that recorded quadfall-reset.fm2: Quadfall from power-on, through the menus, a
-- few moves, a soft reset at frame 420, the menus again and more moves, 700 frames in all.
-- Made with FCEUX 2.6.5 (with --no-config 1, so its default power-on RAM), then the RAM file
-- by playing the movie back:
--   NESTOR_MOVIE=$PWD/quadfall-reset.fm2 xvfb-run -a fceux --no-config 1 --sound 0 \
--     --loadlua record.lua quadfall.nes
--   NESTOR_FRAME=700 NESTOR_RAM=$PWD/quadfall-reset.ram xvfb-run -a fceux --no-config 1 \
--     --sound 0 --playmov quadfall-reset.fm2 --loadlua dump_ram.lua quadfall.nes
local frames = 700
emu.speedmode("maximum")
movie.record(os.getenv("NESTOR_MOVIE"), 0, "nestor's test fixture")
local function pad(f)
  if f >= 102 and f < 106 or f >= 162 and f < 166 then return {start = true} end
  if f >= 222 and f < 242 then return {left = true} end
  if f >= 242 and f < 246 then return {A = true} end
  if f >= 300 and f < 380 and f % 8 < 4 then return {right = true, down = f % 16 < 4} end
  if f >= 520 and f < 524 or f >= 580 and f < 584 then return {start = true} end
  if f >= 640 and f % 6 < 3 then return {B = true, left = f % 12 < 3} end
  return {}
end
while emu.framecount() < frames do
  if emu.framecount() == 420 then
    emu.softreset()
  end
  joypad.set(1, pad(emu.framecount()))
  emu.frameadvance()
end
movie.stop()
emu.exit()
