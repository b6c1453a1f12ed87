-- Run with a 0.2 s limit: a script's own hook still sees the events it asked for, and does
-- not take the watchdog's place (here one for calls, which a bare loop never makes).
local events = {}
debug.sethook(function(event) events[event] = (events[event] or 0) + 1 end, "l")
local x = 0
for i = 1, 3 do x = x + i end
debug.sethook()
print("line events", events["line"] > 0, "count events", events["count"] == nil)
events = {}
debug.sethook(function(event) events[event] = (events[event] or 0) + 1 end, "", 100)
for i = 1, 10000 do x = x + i end
debug.sethook()
print("count events", events["count"] >= 100, events["count"] <= 400)
print("looping under a hook of its own")
debug.sethook(function() end, "c")
while true do end
