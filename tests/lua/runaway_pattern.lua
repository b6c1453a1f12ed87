-- A pattern that backtracks over a long subject would run practically forever inside one call
-- of the string library; the watchdog stops it there. A pattern with more items than Lua 5.1's
-- C stack has room for is an error; a merely deep one matches.
print(string.find(("a"):rep(20000), ("a?"):rep(20000) .. "$"))
print(pcall(string.find, ("a"):rep(200000), ("a?"):rep(200000)))
print(string.find(("a"):rep(100000), ".-.-.-.-.-.-b"))
print("not reached")
