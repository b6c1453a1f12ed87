-- Code the interpreter runs where hooks are off would be out of the watchdog's reach: an xpcall
-- handler called for the watchdog's own error (here it is, because the handler's pcall resets
-- the error state) is skipped once the script is stopped, and there is no newproxy for a
-- __gc finalizer.
print("newproxy", newproxy)
print(xpcall(error, function() pcall(error, "p") while true do end end))
print("never printed")
