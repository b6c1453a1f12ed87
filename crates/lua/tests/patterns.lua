-- Compares two string libraries' find, match, gmatch, gsub and rep (Lua 5.1's and nestor's) on
-- random patterns made of every kind of item, malformed ones included. Returns the number of
-- calls compared and a description of each difference (at most 20).
local lib51, ours = ...
assert(lib51.find ~= ours.find and lib51.gsub ~= ours.gsub)
local items = {
  "a", "b", "x", ".", "%a", "%A", "%c", "%C", "%d", "%D", "%l", "%L", "%p", "%P", "%s", "%S",
  "%u", "%U", "%w", "%W", "%x", "%X", "%z", "%Z", "%%", "%.", "%]", "%g", "%\255", "\0", "\255",
  "[ab]", "[^ab]", "[a-c]", "[%a_]", "[]]", "[^]]", "[a-]", "[-a]", "[a-c-e]", "[%]x]", "[%w%s]",
  "[^%d]", "[\0-\31]", "[\128-\255]", "[z-a]", "%b()", "%bab", "%b))", "%f[%w]", "%f[%W]",
  "%f[a]", "%f[^a]", "%f[%z]", "(", ")", "()", "%1", "%2", "%0", "%9", "^", "$", "[", "[^", "%",
  "%b", "%ba", "%f", "%fa", "[a", "[%", "-", "*", "?", "+",
}
local quantifiers = { "", "", "", "", "*", "+", "-", "?" }
local letters = { "a", "b", "x", "A", "1", " ", "_", "(", ")", "]", "-", "%", ".", "\0", "\n",
  "\255", "\128" }
local inits = { false, 1, 2, -1, -3, 0, 4, 100, -100, 2.7 }
local replacements = {
  "<%0>", "%1-%2", "%", "x%", "%%", "%a", "%9", "", 1.5,
  { a = "T", ab = false, ["("] = 7, x = {} },
  function(...) return select("#", ...) .. tostring((...)) end,
  function(c) if c == "a" then return {} end return nil end,
}

local function pack(...) return { n = select("#", ...), ... } end

local function same(a, b)
  if a.n ~= b.n then return false end
  for i = 1, a.n do
    if a[i] ~= b[i] then return false end
  end
  return true
end

local function show(t)
  local parts = {}
  for i = 1, t.n do parts[i] = string.format("%q", tostring(t[i])) end
  return "(" .. table.concat(parts, ", ") .. ")"
end

local function collect(lib, s, p)
  return pack(pcall(function()
    local all = {}
    for a, b, c in lib.gmatch(s, p) do
      all[#all + 1] = tostring(a) .. "|" .. tostring(b) .. "|" .. tostring(c)
      if #all > 40 then break end
    end
    return table.concat(all, ";")
  end))
end

local cases, differences = 0, {}
local function compare(what, a, b)
  cases = cases + 1
  if not same(a, b) and #differences < 20 then
    differences[#differences + 1] = what .. ": Lua 5.1 " .. show(a) .. ", ours " .. show(b)
  end
end

local function pick(t) return t[math.random(#t)] end

math.randomseed(51)
for _ = 1, 25000 do
  local p = {}
  for i = 1, math.random(0, 6) do p[i] = pick(items) .. pick(quantifiers) end
  p = table.concat(p)
  local s = {}
  for i = 1, math.random(0, 10) do s[i] = pick(letters) end
  s = table.concat(s)
  local init = pick(inits) or nil
  local r = pick(replacements)
  local n = pick({ false, 0, 1, 2, -1 }) or nil
  local label = string.format("%q %q %s", s, p, tostring(init))
  for _, name in ipairs({ "find", "match" }) do
    compare(name .. " " .. label, pack(pcall(lib51[name], s, p, init)),
      pack(pcall(ours[name], s, p, init)))
  end
  compare("plain find " .. label, pack(pcall(lib51.find, s, p, init, true)),
    pack(pcall(ours.find, s, p, init, true)))
  compare("gmatch " .. label, collect(lib51, s, p), collect(ours, s, p))
  compare("gsub " .. label .. " " .. tostring(r) .. " " .. tostring(n),
    pack(pcall(lib51.gsub, s, p, r, n)), pack(pcall(ours.gsub, s, p, r, n)))
end

-- Bad arguments, and many captures.
local calls = {
  { "find" }, { "find", nil, "a" }, { "find", "a", {} }, { "find", "a", "a", "x" },
  { "match", 12, 1 }, { "gmatch", "a" }, { "gsub", "a", "a" }, { "gsub", "a", "a", true },
  { "gsub", "a", "a", "b", "x" }, { "gsub", "abc", "%w", "%1", 2.9 },
  { "find", ("a"):rep(40), ("(a)"):rep(32) }, { "find", ("a"):rep(40), ("(a)"):rep(33) },
  { "match", ("a"):rep(40), ("()"):rep(32) }, { "gsub", "hello world", "(o)", "[%1]" },
  { "find", "a.b", ".", 1, true }, { "find", "abc", "", 10 }, { "find", "abc", "", 4 },
  { "find", "a\0b", "\0b" }, { "find", "a\0b", "%z" }, { "match", "a\0b", "a\0x" },
  { "rep", "ab", 3 }, { "rep", "", 1e6 }, { "rep", "x", -1 }, { "rep", "x", 2.9 }, { "rep", 5, 2 },
  { "rep", "x" }, { "rep", "x", "3" }, { "rep", "x", "y" }, { "rep", {}, 1 }, { "rep", "a\0", 2 },
}
for _, call in ipairs(calls) do
  local name = call[1]
  compare("call " .. name .. " " .. show(pack(unpack(call, 2, 5))),
    pack(pcall(lib51[name], unpack(call, 2, 5))), pack(pcall(ours[name], unpack(call, 2, 5))))
end
return cases, differences
