-- RecordDemo.lua's pattern (meatfighter; Pentris keeps a copy): in demo recording mode
-- ($D0 = $FF) the game stores each (buttons, frames) pair through ($D1),X into its demo
-- table, which is ROM. Exec hooks on the loads before the two stores take the byte and set PC
-- to the store: FCEUX has already fetched the LDA, which takes the store's operand as its own,
-- and the store is skipped.
local function take(hooked, source, store)
  memory.registerexecute(hooked, function()
    print(string.format("%04X %02X", hooked, memory.readbyte(source)))
    memory.setregister("pc", store)
  end)
end
take(0x9B86, 0xCE, 0x9B88) -- held buttons
take(0x9B8D, 0xCF, 0x9B8F) -- frames held - 1
