-- A runaway loop whose every instruction is slow C work (a megabyte string each time): the
-- watchdog stops it once it has run for another limit, not after its 20 million instructions.
while true do local s = ("x"):rep(1e6) end
