-- Never yields: the watchdog reports it instead of freezing the emulator.
print("looping")
while true do end
