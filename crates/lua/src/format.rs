//! FCEUX's `print`/`tostring` formatting: numbers as `%.12g`, tables by contents
//! (`{1, 2, key=val, ['odd key']='s', [3.5]=x}`), cycles as `table:parent^N`.

use mlua::{Result, Value};
use std::ffi::c_void;

/// Output of one `print` is cut here, as FCEUX's fixed buffer does.
const MAX_LEN: usize = 64 * 1024;
/// Tables nested deeper than this are shown as `table:0x...`, as FCEUX shows them once its Lua
/// stack has no room for another level (each level costs the host stack too).
const MAX_DEPTH: usize = 100;

/// C's `%.{precision}g`.
pub fn format_g(x: f64, precision: usize) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{:.*e}", precision - 1, x);
    let (mantissa, exp) = sci.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("exponent digits");
    if exp < -4 || exp >= precision as i32 {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{}{:02}", trim_zeros(mantissa), sign, exp.abs())
    } else {
        let decimals = (precision as i32 - 1 - exp) as usize;
        trim_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

struct Formatter {
    out: String,
    /// Tables being printed, innermost last (for cycle detection).
    tables: Vec<*const c_void>,
    /// Tables whose `__tostring` is running (a metamethod printing itself).
    metacalls: Vec<*const c_void>,
    /// Tables and `__tostring` results being shown.
    depth: usize,
}

impl Formatter {
    fn value(&mut self, v: &Value) -> Result<()> {
        if self.out.len() >= MAX_LEN {
            return Ok(());
        }
        if !matches!(v, Value::Table(_)) {
            return self.plain(v);
        }
        // Counts `__tostring` results too: one may return another such table, and so on.
        if self.depth == MAX_DEPTH {
            self.address(v);
            return Ok(());
        }
        self.depth += 1;
        let shown = match self.metamethod(v)? {
            Some(shown) => self.value(&shown),
            None => self.plain(v),
        };
        self.depth -= 1;
        shown
    }

    /// A value as it is, without its metamethod.
    fn plain(&mut self, v: &Value) -> Result<()> {
        match v {
            Value::Nil => self.out.push_str("nil"),
            Value::Boolean(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Integer(i) => self.out.push_str(&format_g(*i as f64, 12)),
            Value::Number(n) => self.out.push_str(&format_g(*n, 12)),
            Value::String(s) => self.out.push_str(&s.to_string_lossy()),
            // An error raised by one of our functions and caught by pcall: FCEUX's are strings.
            Value::Error(e) => self.out.push_str(&error_message(e)),
            Value::Table(t) => {
                let ptr = v.to_pointer();
                if let Some(pos) = self.tables.iter().position(|&p| p == ptr) {
                    let parent = self.tables.len() - pos;
                    if parent > 1 {
                        self.out.push_str(&format!("table:parent^{parent}"));
                    } else {
                        self.out.push_str("table:parent");
                    }
                    return Ok(());
                }
                self.tables.push(ptr);
                self.out.push('{');
                let mut array_index = 0.0;
                let mut in_array = true;
                for (i, pair) in t.clone().pairs::<Value, Value>().enumerate() {
                    let (key, val) = pair?;
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    if in_array {
                        array_index += 1.0;
                        in_array = number(&key) == Some(array_index);
                    }
                    if !in_array {
                        self.key(&key)?;
                    }
                    self.quoted(&val)?;
                    if self.out.len() >= MAX_LEN {
                        break;
                    }
                }
                self.out.push('}');
                self.tables.pop();
            }
            other => self.address(other),
        }
        Ok(())
    }

    /// FCEUX's fallback: `type:address`.
    fn address(&mut self, v: &Value) {
        let name = match v.type_name() {
            "lightuserdata" => "userdata",
            name => name,
        };
        self.out.push_str(&format!("{name}:{:p}", v.to_pointer()));
    }

    fn key(&mut self, key: &Value) -> Result<()> {
        match key {
            Value::String(s) => {
                let s = s.to_string_lossy();
                let identifier = s
                    .bytes()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_');
                if identifier {
                    self.out.push_str(&s);
                    self.out.push('=');
                } else {
                    self.out.push_str(&format!("['{s}']="));
                }
            }
            other => {
                self.out.push('[');
                self.value(other)?;
                self.out.push_str("]=");
            }
        }
        Ok(())
    }

    fn quoted(&mut self, v: &Value) -> Result<()> {
        let string = matches!(v, Value::String(_));
        if string {
            self.out.push('\'');
        }
        self.value(v)?;
        if string {
            self.out.push('\'');
        }
        Ok(())
    }

    /// The result of a table's `__tostring`, unless that table is already being shown by its own metamethod.
    fn metamethod(&mut self, v: &Value) -> Result<Option<Value>> {
        let Value::Table(t) = v else {
            return Ok(None);
        };
        let Some(f) = t.metatable().and_then(|m| {
            m.raw_get::<Option<mlua::Function>>("__tostring")
                .ok()
                .flatten()
        }) else {
            return Ok(None);
        };
        let ptr = v.to_pointer();
        if self.metacalls.contains(&ptr) {
            return Ok(None);
        }
        self.metacalls.push(ptr);
        let shown = f.call::<Value>(v.clone());
        self.metacalls.pop();
        shown.map(Some)
    }
}

/// An mlua error's own message, without mlua's wrapping: a Lua error raised through one of
/// the host's calls into Lua (a `__tostring` called by `tostring`) has the traceback mlua's
/// error handler added, which a script catching the error doesn't see in FCEUX.
pub fn error_message(e: &mlua::Error) -> String {
    match e {
        mlua::Error::RuntimeError(s) | mlua::Error::MemoryError(s) => s
            .split_once("\nstack traceback:")
            .map_or(s.as_str(), |(message, _)| message)
            .to_string(),
        mlua::Error::CallbackError { cause, .. } => error_message(cause),
        other => other.to_string(),
    }
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Number(n) => Some(*n),
        _ => None,
    }
}

/// One value as FCEUX's `tostring` shows it.
pub fn to_string(v: &Value) -> Result<String> {
    join(std::slice::from_ref(v))
}

/// Values joined by single spaces, as FCEUX's `print` shows them.
pub fn join(values: &[Value]) -> Result<String> {
    let mut f = Formatter {
        out: String::new(),
        tables: Vec::new(),
        metacalls: Vec::new(),
        depth: 0,
    };
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            f.out.push(' ');
        }
        f.value(v)?;
    }
    if f.out.len() >= MAX_LEN {
        let mut end = MAX_LEN - 3;
        while !f.out.is_char_boundary(end) {
            end -= 1;
        }
        f.out.truncate(end);
        f.out.push_str("...");
    }
    Ok(f.out)
}

#[cfg(test)]
mod tests {
    use super::{format_g, to_string, MAX_DEPTH};
    use mlua::{Lua, Value};

    #[test]
    fn tables_deeper_than_the_cap_show_their_address() {
        let lua = Lua::new();
        let t: Value = lua
            .load("local t = {} for _ = 1, 4000 do t = {t} end return t")
            .eval()
            .unwrap();
        let shown = to_string(&t).unwrap();
        assert!(shown.starts_with(&format!("{}table:0x", "{".repeat(MAX_DEPTH))));
        assert!(shown.ends_with(&"}".repeat(MAX_DEPTH)));
    }

    #[test]
    fn g_format_matches_c() {
        assert_eq!(format_g(255.0, 12), "255");
        assert_eq!(format_g(0.5, 12), "0.5");
        assert_eq!(format_g(1.0 / 3.0, 12), "0.333333333333");
        assert_eq!(format_g(1e15, 12), "1e+15");
        assert_eq!(format_g(123456789012.0, 12), "123456789012");
        assert_eq!(format_g(1234567890123.0, 12), "1.23456789012e+12");
        assert_eq!(format_g(0.0001, 12), "0.0001");
        assert_eq!(format_g(0.00001, 12), "1e-05");
        assert_eq!(format_g(-2.5, 12), "-2.5");
    }
}
