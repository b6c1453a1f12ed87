-- A runaway loop that does its slow work (upper case of a 2 MB string) in a new short
-- coroutine each time: each coroutine starts its own instruction count and ends before the
-- hook would look at the clock, and the loop around them runs a few instructions per call.
local s = ("x"):rep(2e6)
while true do
  coroutine.wrap(function() local _ = s:upper() end)()
end
