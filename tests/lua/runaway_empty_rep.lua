-- A runaway loop of calls that each take seconds without using memory: string.rep looks at the
-- watchdog as it copies, so the first call past the limit is stopped.
while true do local s = string.rep("", 2^31 - 1) end
