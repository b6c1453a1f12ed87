-- A runaway loop of slow C calls (upper case of a 2 MB string each, which no hook
-- interrupts) in a coroutine: a few instructions a call, so the hook's instruction count alone
-- would take minutes to reach its next look at the clock. The watchdog's timer makes the hook
-- look at the next instruction once the limit has passed.
local s = ("x"):rep(2e6)
coroutine.wrap(function()
  while true do local _ = s:upper() end
end)()
