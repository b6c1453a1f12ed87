emu.frameadvance()
print("exiting with 3")
os.exit(3)
print("never printed")
