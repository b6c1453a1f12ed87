//! The values `savestate.registersave` callbacks return, kept beside a slot's state file
//! (`<state>.luasav`) and handed to `savestate.registerload` callbacks when the user loads
//! that slot. FCEUX's own file layout is not needed by any script, so the format is ours:
//!
//! ```text
//! "NESTOR-LUASAV" 1        magic and version
//! u32 scripts, then per script: string (the script's file name), u32 count, count values
//! value: 0 nil | 1 false | 2 true | 3 i64 | 4 f64 | 5 string | 6 u32 pairs, pairs of values
//! string: u32 length, bytes; all numbers little-endian
//! ```

use mlua::{Lua, MultiValue, Table, Value};

const MAGIC: &[u8] = b"NESTOR-LUASAV\x01";
/// Tables nested deeper than this are taken for a cycle.
const MAX_DEPTH: usize = 64;

const NIL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const INTEGER: u8 = 3;
const NUMBER: u8 = 4;
const STRING: u8 = 5;
const TABLE: u8 = 6;

/// Values of one script's `registersave` callback, by the script's file name.
pub type Record = (String, Vec<Saved>);

/// A Lua value detached from its Lua state.
#[derive(Clone, Debug, PartialEq)]
pub enum Saved {
    Nil,
    Boolean(bool),
    Integer(i64),
    Number(f64),
    String(Vec<u8>),
    Table(Vec<(Saved, Saved)>),
}

impl Saved {
    /// Detaches `value`; functions, userdata, threads and cycles cannot be kept.
    pub fn from_lua(value: &Value) -> Result<Saved, String> {
        Saved::detach(value, 0)
    }

    fn detach(value: &Value, depth: usize) -> Result<Saved, String> {
        Ok(match value {
            Value::Nil => Saved::Nil,
            Value::Boolean(b) => Saved::Boolean(*b),
            Value::Integer(i) => Saved::Integer(*i),
            Value::Number(n) => Saved::Number(*n),
            Value::String(s) => Saved::String(s.as_bytes().to_vec()),
            Value::Table(t) if depth < MAX_DEPTH => {
                let mut pairs = Vec::new();
                for pair in t.clone().pairs::<Value, Value>() {
                    let (k, v) = pair.map_err(|e| e.to_string())?;
                    pairs.push((Saved::detach(&k, depth + 1)?, Saved::detach(&v, depth + 1)?));
                }
                Saved::Table(pairs)
            }
            Value::Table(_) => {
                return Err(format!(
                    "tables nested more than {MAX_DEPTH} deep (a cycle?)"
                ))
            }
            other => return Err(format!("a {} cannot be saved", other.type_name())),
        })
    }

    pub fn to_lua(&self, lua: &Lua) -> mlua::Result<Value> {
        Ok(match self {
            Saved::Nil => Value::Nil,
            Saved::Boolean(b) => Value::Boolean(*b),
            Saved::Integer(i) => Value::Integer(*i),
            Saved::Number(n) => Value::Number(*n),
            Saved::String(s) => Value::String(lua.create_string(s)?),
            Saved::Table(pairs) => {
                let t: Table = lua.create_table()?;
                for (k, v) in pairs {
                    t.raw_set(k.to_lua(lua)?, v.to_lua(lua)?)?;
                }
                Value::Table(t)
            }
        })
    }
}

/// The values a callback returned, detached; each that cannot be kept is reported through
/// `problem` and kept as nil.
pub fn detach_all(values: &MultiValue, mut problem: impl FnMut(String)) -> Vec<Saved> {
    values
        .iter()
        .map(|v| {
            Saved::from_lua(v).unwrap_or_else(|e| {
                problem(e);
                Saved::Nil
            })
        })
        .collect()
}

pub fn encode(records: &[Record]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    put_len(&mut out, records.len());
    for (name, values) in records {
        put_bytes(&mut out, name.as_bytes());
        put_len(&mut out, values.len());
        for value in values {
            put_value(&mut out, value);
        }
    }
    out
}

fn put_len(out: &mut Vec<u8>, len: usize) {
    out.extend_from_slice(&(len as u32).to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_len(out, bytes.len());
    out.extend_from_slice(bytes);
}

fn put_value(out: &mut Vec<u8>, value: &Saved) {
    match value {
        Saved::Nil => out.push(NIL),
        Saved::Boolean(false) => out.push(FALSE),
        Saved::Boolean(true) => out.push(TRUE),
        Saved::Integer(i) => {
            out.push(INTEGER);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Saved::Number(n) => {
            out.push(NUMBER);
            out.extend_from_slice(&n.to_le_bytes());
        }
        Saved::String(s) => {
            out.push(STRING);
            put_bytes(out, s);
        }
        Saved::Table(pairs) => {
            out.push(TABLE);
            put_len(out, pairs.len());
            for (k, v) in pairs {
                put_value(out, k);
                put_value(out, v);
            }
        }
    }
}

/// Reads a file written by [`encode`]; anything else, truncated or damaged, is an error.
pub fn decode(bytes: &[u8]) -> Result<Vec<Record>, String> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(MAGIC.len())? != MAGIC {
        return Err("not a nestor Lua savestate data file".into());
    }
    let mut records = Vec::new();
    for _ in 0..r.len()? {
        let name = String::from_utf8_lossy(r.bytes()?).into_owned();
        let count = r.len()?;
        let values = (0..count)
            .map(|_| r.value(0))
            .collect::<Result<Vec<_>, _>>()?;
        records.push((name, values));
    }
    if r.at != bytes.len() {
        return Err("trailing bytes".into());
    }
    Ok(records)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len())
            .ok_or("truncated")?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }

    /// A count; each counted item takes at least a byte, so a count past the end is damage
    /// (and never a huge allocation).
    fn len(&mut self) -> Result<usize, String> {
        let n = u32::from_le_bytes(self.array()?) as usize;
        if n > self.bytes.len() - self.at {
            return Err("truncated".into());
        }
        Ok(n)
    }

    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let n = self.len()?;
        self.take(n)
    }

    fn value(&mut self, depth: usize) -> Result<Saved, String> {
        if depth > MAX_DEPTH {
            return Err("tables nested too deep".into());
        }
        Ok(match self.take(1)?[0] {
            NIL => Saved::Nil,
            FALSE => Saved::Boolean(false),
            TRUE => Saved::Boolean(true),
            INTEGER => Saved::Integer(i64::from_le_bytes(self.array()?)),
            NUMBER => Saved::Number(f64::from_le_bytes(self.array()?)),
            STRING => Saved::String(self.bytes()?.to_vec()),
            TABLE => {
                let n = self.len()?;
                let mut pairs = Vec::with_capacity(n);
                for _ in 0..n {
                    pairs.push((self.value(depth + 1)?, self.value(depth + 1)?));
                }
                Saved::Table(pairs)
            }
            tag => return Err(format!("unknown value tag {tag}")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Record> {
        let nested = Saved::Table(vec![
            (Saved::Integer(1), Saved::String(b"one".to_vec())),
            (
                Saved::String(b"inner".to_vec()),
                Saved::Table(vec![(Saved::Boolean(true), Saved::Number(0.5))]),
            ),
        ]);
        vec![
            (
                "bot.lua".into(),
                vec![Saved::Integer(-7), Saved::Nil, nested],
            ),
            ("hud.lua".into(), vec![]),
        ]
    }

    #[test]
    fn records_survive_the_file() {
        let records = sample();
        assert_eq!(decode(&encode(&records)).unwrap(), records);
    }

    #[test]
    fn damaged_files_are_errors() {
        let bytes = encode(&sample());
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut wrong_tag = bytes.clone();
        let tag_at = MAGIC.len() + 4 + 4 + b"bot.lua".len() + 4;
        wrong_tag[tag_at] = 99;
        assert_eq!(decode(&wrong_tag).unwrap_err(), "unknown value tag 99");
        let mut huge = MAGIC.to_vec();
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode(&huge).unwrap_err(), "truncated");
        assert!(decode(b"NES\x1a").is_err());
    }

    #[test]
    fn lua_values_round_trip() {
        let lua = Lua::new();
        let value: Value = lua
            .load("return {1, 'two', x = {y = true}, [3.5] = false}")
            .eval()
            .unwrap();
        let saved = Saved::from_lua(&value).unwrap();
        let back = saved.to_lua(&lua).unwrap();
        lua.globals().set("t", back).unwrap();
        let check: bool = lua
            .load("return t[1] == 1 and t[2] == 'two' and t.x.y == true and t[3.5] == false")
            .eval()
            .unwrap();
        assert!(check);
        let cyclic: Value = lua.load("local t = {} t.t = t return t").eval().unwrap();
        assert!(Saved::from_lua(&cyclic).unwrap_err().contains("cycle"));
        let f: Value = lua.load("return print").eval().unwrap();
        assert_eq!(
            Saved::from_lua(&f).unwrap_err(),
            "a function cannot be saved"
        );
    }
}
