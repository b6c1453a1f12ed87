-- movie.* follows the host's movie: none, playing, finished, recording.
local function show()
  print(movie.active(), movie.mode(), movie.playing(), movie.recording(),
        movie.ispoweron(), movie.isfromsavestate(), movie.framecount() == emu.framecount())
  print(pcall(movie.length))
  print(pcall(movie.rerecordcount))
  print(pcall(movie.name))
end
for i = 1, 4 do
  show()
  emu.frameadvance()
end
