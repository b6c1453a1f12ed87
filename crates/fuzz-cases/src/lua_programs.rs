//! Lua programs from the fuzzer's bytes, by a small grammar: each byte picks the next
//! statement, expression or constant. The statements are the ways scripts have taken hosts
//! down: recursion (plain and through C functions that call back into Lua), closures registered
//! as memory and frame hooks, pcall and xpcall nests, errors inside hooks, coroutines created
//! and resumed inside hooks, hostile string library calls, huge tables, deep tables printed,
//! savestates loaded from hooks, and gui calls with wild arguments. Running out of bytes reads
//! zeros, so every program ends.

/// Blocks nest at most this deep (hooks inside pcalls inside hooks...).
const MAX_DEPTH: u32 = 4;
/// Statements in one program, all blocks together.
const MAX_STATEMENTS: u32 = 120;

const NUMBERS: &[&str] = &[
    "0", "1", "-1", "2", "7", "255", "256", "65535", "65536", "2^31", "-2^31", "2^53", "1e308",
    "-1e308", "1/0", "-1/0", "0/0", "0.5", "1e7", "1e9",
];

const STRINGS: &[&str] = &[
    r#""""#,
    r#""a""#,
    r#""%""#,
    r#""%d""#,
    r#""%s%s%s""#,
    r#""\0\255""#,
    r#""red""#,
    r##""#FF000080""##,
    r#"("(("):rep(50)"#,
    r#"("a"):rep(40)"#,
    r#"("ab"):rep(20) .. "c""#,
    r#"("x"):rep(1000)"#,
    r#"("a"):rep(100000)"#,
];

/// Patterns the string library must refuse or match: malformed, back-references, balances,
/// frontiers, several quantifiers in a row that backtrack over the subject (for ages on the
/// long ones), and thousands of items.
const PATTERNS: &[&str] = &[
    r#""""#,
    r#"".""#,
    r#""%""#,
    r#""[""#,
    r#""[^""#,
    r#""(""#,
    r#"")""#,
    r#""%1""#,
    r#""(()""#,
    r#""%b()""#,
    r#""%f[%w]%w+""#,
    r#""(.-)%1""#,
    r#""((a*)(b?))""#,
    r#""[%a-z%]]+""#,
    r#""a*a*a*b""#,
    r#"".-.-.-c""#,
    r#""^(a+)b$""#,
    r#""(a-)(a*)%2%1b""#,
    r#"("(a)"):rep(32)"#,
    r#"("%b()"):rep(8)"#,
    r#"("a?"):rep(150000)"#,
];

/// Formats for `string.format`: wide, precise, malformed.
const FORMATS: &[&str] = &[
    r#""%99d""#,
    r#""%099.99f""#,
    r#""%-99s""#,
    r#""%.99g""#,
    r#""%100d""#,
    r#""%5.100s""#,
    r#""%q""#,
    r#""%c%c%c""#,
    r#""%x %X %o""#,
    r#""%""#,
    r#""%z""#,
    r#""%s""#,
];

/// Recursive calls of `f(n - 1)`: plain, and through the C functions that call back into Lua.
const RECURSIONS: &[&str] = &[
    "f(n - 1)",
    "(string.gsub(\"ab\", \".\", function() return f(n - 1) end))",
    "select(2, pcall(f, n - 1))",
    "select(2, xpcall(function() return f(n - 1) end, function(e) return e end))",
    "table.sort({3, 1, 2}, function(a, b) f(n - 1) return a < b end)",
    "tostring(setmetatable({}, {__tostring = function() return tostring(f(n - 1)) end}))",
    "string.format(\"%s\", setmetatable({}, {__tostring = function() return tostring(f(n - 1)) end}))",
    "coroutine.wrap(f)(n - 1)",
    "select(2, coroutine.resume(coroutine.create(f), n - 1))",
    "load(function() f(n - 1) end)",
    "emu.exec_count(100000, function() f(n - 1) end)",
    "memory.readbyte(setmetatable({}, {__index = function() return f(n - 1) end}))",
    "setmetatable({}, {__index = function() return f(n - 1) end}).x",
];

const DEPTHS: &[&str] = &["1", "10", "150", "199", "250", "1000", "100000"];

const GUI: &[&str] = &[
    "text",
    "pixel",
    "line",
    "box",
    "popup",
    "getpixel",
    "parsecolor",
    "opacity",
    "transparency",
    "savescreenshotas",
    "gdscreenshot",
];

/// Addresses for memory hooks: RAM (one byte, a page, all of it), PPU and pad registers, the
/// NMI handler (its first instruction, or its first few) and the reset handler.
const HOOKS: &[&str] = &[
    "0x0000",
    "0x0000, 0x800",
    "0x0010",
    "0x00FF, 0x100",
    "0x2000, 8",
    "0x4016",
    "memory.readword(0xFFFA)",
    "memory.readword(0xFFFA), 16",
    "memory.readword(0xFFFC)",
];

struct Gen<'a> {
    bytes: &'a [u8],
    at: usize,
    statements: u32,
    out: String,
}

/// The program the bytes describe.
pub fn program(bytes: &[u8]) -> String {
    let mut g = Gen {
        bytes,
        at: 0,
        statements: 0,
        out: String::from("t, u = {}, {}\n"),
    };
    g.block(0);
    g.out.push_str("for frame = 1, 3 do\nemu.frameadvance()\n");
    g.block(0);
    g.out.push_str("end\n");
    g.out
}

impl Gen<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    fn pick<'s>(&mut self, options: &[&'s str]) -> &'s str {
        options[usize::from(self.byte()) % options.len()]
    }

    fn emit(&mut self, text: &str) {
        self.out.push_str(text);
    }

    /// One to four statements, none once the bytes have run out or blocks nest too deep.
    fn block(&mut self, depth: u32) {
        if depth > MAX_DEPTH {
            return;
        }
        let count = self.byte() % 4 + 1;
        for _ in 0..count {
            if self.at >= self.bytes.len() || self.statements >= MAX_STATEMENTS {
                return;
            }
            self.statements += 1;
            self.statement(depth);
        }
    }

    /// `function(...) <block> end`, or a plain function at the deepest level.
    fn function(&mut self, depth: u32) {
        if depth >= MAX_DEPTH {
            self.emit("function(...) return ... end");
            return;
        }
        self.emit("function(...)\n");
        self.block(depth + 1);
        self.emit("end");
    }

    fn statement(&mut self, depth: u32) {
        match self.byte() % 16 {
            0 => {
                self.emit("t[");
                self.expr(depth);
                self.emit("] = ");
                self.expr(depth);
                self.emit("\n");
            }
            1 => {
                let call = self.pick(RECURSIONS);
                let n = self.pick(DEPTHS);
                self.emit(&format!(
                    "do local f; f = function(n) if n <= 0 then return 0 end return {call} end; \
                     print(pcall(f, {n})) end\n"
                ));
            }
            2 => {
                let register = self.pick(&["registerexecute", "registerwrite", "registerread"]);
                let at = self.pick(HOOKS);
                self.emit(&format!("memory.{register}({at}, "));
                self.function(depth);
                self.emit(")\n");
            }
            3 => {
                let register = self.pick(&[
                    "emu.registerbefore",
                    "emu.registerafter",
                    "emu.registerexit",
                    "gui.register",
                ]);
                self.emit(&format!("{register}("));
                self.function(depth);
                self.emit(")\n");
            }
            4 => {
                self.emit("print(pcall(");
                self.function(depth);
                self.emit(", ");
                self.expr(depth);
                self.emit("))\n");
            }
            5 => {
                self.emit("print(xpcall(");
                self.function(depth);
                self.emit(", ");
                self.function(depth);
                self.emit("))\n");
            }
            6 => {
                let value = self.pick(&[
                    "t",
                    "nil",
                    "setmetatable({}, {__tostring = function() error(\"in tostring\") end})",
                    "(\"e\"):rep(100000)",
                ]);
                self.emit(&format!("error({value})\n"));
            }
            7 => self.string_call(),
            8 => {
                let n = self.pick(&["10", "1000", "100000", "1e7"]);
                self.emit(&format!("do local h = {{}} for i = 1, {n} do h[i] = "));
                self.expr(depth);
                let then = self.pick(&[
                    "t.h = h",
                    "print(pcall(unpack, h))",
                    "print(pcall(table.concat, h, \",\"))",
                    "print(pcall(table.sort, h))",
                    "print(#h, h)",
                ]);
                self.emit(&format!(" end {then} end\n"));
            }
            9 => {
                self.emit("do local co = coroutine.create(");
                self.function(depth);
                self.emit(") u[#u + 1] = co print(coroutine.resume(co, ");
                self.expr(depth);
                self.emit(")) end\n");
            }
            10 => {
                let what = self.pick(&[
                    "for _, co in ipairs(u) do print(coroutine.resume(co, t)) end",
                    "print(pcall(coroutine.yield, 1))",
                    "emu.frameadvance()",
                    "print(pcall(emu.frameadvance))",
                    "do local s = savestate.object() savestate.save(s) savestate.load(s) end",
                    "savestate.load(savestate.create())",
                    "emu.poweron()",
                    "emu.softreset()",
                    "memory.setregister(\"pc\", memory.readword(0xFFFC))",
                    "collectgarbage()",
                    "debug.sethook()",
                    "debug.sethook(function() t.hooked = (t.hooked or 0) + 1 end, \"\", 1)",
                    "while true do end",
                    "while true do t.n = (t.n or 0) + 1 end",
                    "os.exit(3)",
                    "emu.exit()",
                ]);
                self.emit(what);
                self.emit("\n");
            }
            11 => {
                let name = self.pick(GUI);
                self.emit(&format!("print(pcall(gui.{name}"));
                for _ in 0..self.byte() % 6 {
                    self.emit(", ");
                    self.expr(depth);
                }
                self.emit("))\n");
            }
            12 => {
                let n = self.pick(&["10", "150", "250", "5000"]);
                self.emit(&format!(
                    "do local d = {{}} for i = 1, {n} do d = {{d, i}} end print(d) print(pcall(tostring, d)) end\n"
                ));
            }
            13 => {
                // Loops nest: small counts.
                let n = self.pick(&["3", "100"]);
                self.emit(&format!("for i = 1, {n} do\n"));
                self.block(depth + 1);
                self.emit("end\n");
            }
            14 => {
                let what = self.pick(&["memory.writebyte(", "memory.readbyterange(", "print("]);
                self.emit(what);
                self.expr(depth);
                self.emit(", ");
                self.expr(depth);
                self.emit(")\n");
            }
            _ => {
                self.emit("t.f = ");
                self.function(depth);
                self.emit("\nprint(pcall(t.f, ");
                self.expr(depth);
                self.emit("))\n");
            }
        }
    }

    /// A string library call on hostile arguments: huge repeats, pathological patterns on
    /// short and long subjects, wide formats.
    fn string_call(&mut self) {
        let subject = self.pick(STRINGS);
        let call = match self.byte() % 6 {
            0 => {
                let n = self.pick(&["0", "-1", "1e5", "1e8", "2^31", "2^53", "1/0"]);
                format!("string.rep, {subject}, {n}, {subject}")
            }
            1 => format!("string.find, {subject}, {}", self.pick(PATTERNS)),
            2 => format!("string.match, {subject}, {}", self.pick(PATTERNS)),
            3 => format!(
                "string.gsub, {subject}, {}, {}",
                self.pick(PATTERNS),
                self.pick(&["\"%0%0\"", "\"%9\"", "{}", "function(...) return ... end"])
            ),
            4 => format!("string.format, {}, {subject}", self.pick(FORMATS)),
            _ => format!(
                "function(s, p) local n = 0 for a in string.gmatch(s, p) do n = n + 1 end return n end, {subject}, {}",
                self.pick(PATTERNS)
            ),
        };
        self.emit(&format!("print(pcall({call}))\n"));
    }

    fn expr(&mut self, depth: u32) {
        if depth > 2 * MAX_DEPTH {
            self.emit("1");
            return;
        }
        match self.byte() % 10 {
            0..=2 => {
                let n = self.pick(NUMBERS);
                self.emit(n);
            }
            3 | 4 => {
                let s = self.pick(STRINGS);
                self.emit(s);
            }
            5 => {
                let value = self.pick(&["t", "u", "t.f", "t.h", "nil", "true", "{}"]);
                self.emit(value);
            }
            6 => {
                self.emit("{");
                self.expr(depth + 1);
                self.emit(", k = ");
                self.expr(depth + 1);
                self.emit("}");
            }
            7 if depth < MAX_DEPTH => {
                self.function(depth);
            }
            8 => {
                let value = self.pick(&[
                    "memory.readbyte(0x10)",
                    "emu.framecount()",
                    "coroutine.running()",
                    "u[#u]",
                    "#t",
                ]);
                self.emit(value);
            }
            _ => {
                self.emit("(");
                self.expr(depth + 1);
                let op = self.pick(&[" .. ", " + ", " < ", " == "]);
                self.emit(op);
                self.expr(depth + 1);
                self.emit(")");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::program;
    use std::rc::Rc;

    /// The grammar only writes Lua: every program compiles (here with a `return` in front,
    /// so that none runs).
    #[test]
    fn every_byte_string_gives_a_program_that_compiles() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let path = std::env::temp_dir().join(format!("nestor-grammar-{}.lua", std::process::id()));
        let mut console = crate::game_console();
        let mut scripts =
            lua::Scripts::with_output(Vec::new(), "grammar", Rc::new(|_, _: &str| {}));
        for len in (0..2000).step_by(10) {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect();
            let text = program(&bytes);
            std::fs::write(&path, format!("do return end\n{text}")).unwrap();
            if let Err(e) = scripts.load(&mut console, &path) {
                panic!("{e}\n{text}");
            }
        }
        std::fs::remove_file(&path).unwrap();
    }
}
