//! Save states: the whole machine as bytes, and the hashes that tell runs apart.
//!
//! A state is taken between two instructions ([`crate::Console::step`] boundaries; a DMA or
//! an interrupt sequence is never cut in half), which is as fine as "any cycle" gets here.
//!
//! File layout, little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `NESTORSS` |
//! | 4 | format version ([`VERSION`]) |
//! | 8 | ROM hash ([`rom_hash`]: FNV-1a of the board's header fields, PRG-ROM and CHR-ROM) |
//! | 8 | payload length |
//! | n | payload: every component's fields in a fixed order |
//! | 4 | CRC-32 of everything before it |
//!
//! Each component lists its fields once, in a `Field` impl next to its struct; the same code
//! saves and loads, so the two cannot disagree. The impls destructure their struct without
//! `..`, so a field added later fails to compile until it is listed (or marked as not state).
//! The ROM itself and values the header fixes are not stored.

use std::fmt;

const MAGIC: &[u8; 8] = b"NESTORSS";
/// Loaded cycle and frame counters must stay below this (some 40,000 years of CPU cycles), so
/// they can go on counting without overflow.
pub const COUNTER_LIMIT: u64 = 1 << 60;
/// Bumped whenever the payload's layout changes.
pub const VERSION: u32 = 6;
const HEADER_LEN: usize = 8 + 4 + 8 + 8;
const CHECKSUM_LEN: usize = 4;

/// Why a state could not be loaded. The running machine is left as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateError {
    NotAState,
    Truncated {
        expected: usize,
        actual: usize,
    },
    Corrupted,
    NewerVersion(u32),
    /// An earlier layout: the fields it lacks cannot be made up.
    OlderVersion(u32),
    OtherRom,
    /// Made on a console of another region: its timing would not fit this one's.
    OtherRegion {
        state: crate::Region,
        console: crate::Region,
    },
    /// The checksum matched but a field holds an impossible value.
    BadField(&'static str),
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            StateError::NotAState => write!(f, "not a nestor save state (missing the magic)"),
            StateError::Truncated { expected, actual } => write!(
                f,
                "the save state is truncated: {actual} bytes of {expected}"
            ),
            StateError::Corrupted => write!(f, "the save state is corrupted (checksum mismatch)"),
            StateError::NewerVersion(v) => write!(
                f,
                "the save state was made by a newer nestor (format {v}, this one reads up to {VERSION})"
            ),
            StateError::OlderVersion(v) => write!(
                f,
                "the save state was made by an older nestor (format {v}, this one reads format {VERSION})"
            ),
            StateError::OtherRom => write!(f, "the save state was made for another ROM"),
            StateError::OtherRegion { state, console } => write!(
                f,
                "the save state was made for {state} consoles, this one is {console}"
            ),
            StateError::BadField(what) => {
                write!(f, "the save state holds an impossible value ({what})")
            }
        }
    }
}

impl std::error::Error for StateError {}

/// Wraps a payload in the file layout.
pub fn encode(rom_hash: u64, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len() + CHECKSUM_LEN);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&rom_hash.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&crc32(&out).to_le_bytes());
    out
}

/// Checks a file's frame and returns its payload.
pub fn decode(bytes: &[u8], rom_hash: u64) -> Result<&[u8], StateError> {
    let truncated = |expected| StateError::Truncated {
        expected,
        actual: bytes.len(),
    };
    let magic_len = bytes.len().min(MAGIC.len());
    if bytes[..magic_len] != MAGIC[..magic_len] || bytes.is_empty() {
        return Err(StateError::NotAState);
    }
    if bytes.len() < HEADER_LEN {
        return Err(truncated(HEADER_LEN));
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    if version > VERSION {
        return Err(StateError::NewerVersion(version));
    }
    if version < VERSION {
        return Err(StateError::OlderVersion(version));
    }
    let payload_len = u64::from_le_bytes(bytes[20..28].try_into().unwrap());
    let total = usize::try_from(payload_len)
        .ok()
        .and_then(|n| n.checked_add(HEADER_LEN + CHECKSUM_LEN))
        .ok_or(StateError::Corrupted)?;
    if bytes.len() < total {
        return Err(truncated(total));
    }
    let (body, checksum) = bytes[..total].split_at(total - CHECKSUM_LEN);
    if bytes.len() > total || crc32(body).to_le_bytes() != checksum {
        return Err(StateError::Corrupted);
    }
    if u64::from_le_bytes(bytes[12..20].try_into().unwrap()) != rom_hash {
        return Err(StateError::OtherRom);
    }
    Ok(&body[HEADER_LEN..])
}

/// One pass over the machine: saving appends each field to a buffer, loading overwrites each
/// field from one.
pub struct StateIo<'a> {
    mode: Mode<'a>,
    error: Option<StateError>,
}

enum Mode<'a> {
    Save(Vec<u8>),
    Load(&'a [u8]),
}

impl StateIo<'_> {
    /// Runs `visit` in saving mode and returns the payload.
    pub fn save(visit: impl FnOnce(&mut StateIo)) -> Vec<u8> {
        StateIo::save_into(Vec::new(), visit)
    }

    /// [`StateIo::save`] into `out`, cleared first: a buffer reused keeps its capacity.
    pub fn save_into(mut out: Vec<u8>, visit: impl FnOnce(&mut StateIo)) -> Vec<u8> {
        out.clear();
        let mut io = StateIo {
            mode: Mode::Save(out),
            error: None,
        };
        visit(&mut io);
        match io.mode {
            Mode::Save(out) => out,
            Mode::Load(_) => unreachable!(),
        }
    }

    /// Runs `visit` in loading mode; fails if a field was impossible or the payload's size
    /// does not match.
    pub fn load(payload: &[u8], visit: impl FnOnce(&mut StateIo)) -> Result<(), StateError> {
        let mut io = StateIo {
            mode: Mode::Load(payload),
            error: None,
        };
        visit(&mut io);
        match (io.error, io.mode) {
            (Some(e), _) => Err(e),
            (None, Mode::Load([])) => Ok(()),
            _ => Err(StateError::BadField("bytes left over")),
        }
    }

    pub fn is_loading(&self) -> bool {
        matches!(self.mode, Mode::Load(_))
    }

    /// Saves `bytes`, or fills them from the payload (with zeros once it ran out).
    pub fn bytes(&mut self, bytes: &mut [u8]) {
        match &mut self.mode {
            Mode::Save(out) => out.extend_from_slice(bytes),
            Mode::Load(data) => {
                if data.len() < bytes.len() {
                    self.fail("payload too short");
                    bytes.fill(0);
                } else {
                    let (head, rest) = data.split_at(bytes.len());
                    bytes.copy_from_slice(head);
                    *data = rest;
                }
            }
        }
    }

    /// A field whose loaded value must satisfy `valid`: the machine indexes with it.
    pub fn checked<T: Field>(
        &mut self,
        field: &mut T,
        what: &'static str,
        valid: impl Fn(&T) -> bool,
    ) {
        field.visit(self);
        if !valid(field) {
            self.fail(what);
        }
    }

    /// A cycle or frame count (see [`COUNTER_LIMIT`]).
    pub fn counter<T: Field + Copy + Into<Option<u64>>>(
        &mut self,
        field: &mut T,
        what: &'static str,
    ) {
        self.checked(field, what, |&c| c.into().is_none_or(|c| c < COUNTER_LIMIT));
    }

    /// Records the first problem of a load; the rest of the pass fills in harmless values.
    pub fn fail(&mut self, what: &'static str) {
        self.fail_with(StateError::BadField(what));
    }

    /// [`StateIo::fail`] with its own error.
    pub fn fail_with(&mut self, error: StateError) {
        if self.is_loading() && self.error.is_none() {
            self.error = Some(error);
        }
    }

    /// A vector whose length the cartridge fixes (RAM, CHR-RAM, the frame buffer): the length
    /// is not stored.
    pub fn fixed<T: Field>(&mut self, items: &mut [T]) {
        T::visit_all(items, self);
    }
}

/// A value that is part of the machine's state.
pub trait Field {
    fn visit(&mut self, io: &mut StateIo);

    /// Visits a run of values in order; bytes and words override it to move a whole memory
    /// (RAM, the picture) at once, which rewind does every frame.
    fn visit_all(items: &mut [Self], io: &mut StateIo)
    where
        Self: Sized,
    {
        for item in items {
            item.visit(io);
        }
    }
}

/// Visits each listed field in order: `fields!(io, a, b, c)` for `&mut` bindings.
macro_rules! fields {
    ($io:expr, $($field:expr),+ $(,)?) => {{
        $( $crate::state::Field::visit($field, $io); )+
    }};
}
pub(crate) use fields;

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl Field for $t {
            fn visit(&mut self, io: &mut StateIo) {
                let mut bytes = self.to_le_bytes();
                io.bytes(&mut bytes);
                *self = <$t>::from_le_bytes(bytes);
            }
        }
    )*};
}
numbers!(u32, u64, i8, i16, i32, f32, f64);

impl Field for u8 {
    fn visit(&mut self, io: &mut StateIo) {
        io.bytes(std::slice::from_mut(self));
    }

    fn visit_all(items: &mut [u8], io: &mut StateIo) {
        io.bytes(items);
    }
}

impl Field for u16 {
    fn visit(&mut self, io: &mut StateIo) {
        Field::visit_all(std::slice::from_mut(self), io);
    }

    fn visit_all(items: &mut [u16], io: &mut StateIo) {
        match &mut io.mode {
            Mode::Save(out) => out.extend(items.iter().flat_map(|w| w.to_le_bytes())),
            Mode::Load(data) if data.len() >= 2 * items.len() => {
                let (head, rest) = data.split_at(2 * items.len());
                for (item, bytes) in items.iter_mut().zip(head.chunks_exact(2)) {
                    *item = u16::from_le_bytes([bytes[0], bytes[1]]);
                }
                *data = rest;
            }
            Mode::Load(_) => {
                io.fail("payload too short");
                items.fill(0);
            }
        }
    }
}

impl Field for bool {
    fn visit(&mut self, io: &mut StateIo) {
        let mut byte = u8::from(*self);
        io.checked(&mut byte, "a flag is neither 0 nor 1", |&b| b <= 1);
        *self = byte == 1;
    }
}

impl Field for usize {
    fn visit(&mut self, io: &mut StateIo) {
        let mut wide = *self as u64;
        wide.visit(io);
        *self = usize::try_from(wide).unwrap_or_else(|_| {
            io.fail("a size does not fit this machine");
            0
        });
    }
}

impl<T: Field, const N: usize> Field for [T; N] {
    fn visit(&mut self, io: &mut StateIo) {
        io.fixed(self);
    }
}

impl<T: Field + Default> Field for Option<T> {
    fn visit(&mut self, io: &mut StateIo) {
        let mut present = self.is_some();
        present.visit(io);
        let mut value = self.take().unwrap_or_default();
        if present {
            value.visit(io);
            *self = Some(value);
        }
    }
}

impl<A: Field, B: Field> Field for (A, B) {
    fn visit(&mut self, io: &mut StateIo) {
        self.0.visit(io);
        self.1.visit(io);
    }
}

/// A vector whose length varies with the run (stored as a count, then the items).
impl<T: Field + Default + Clone> Field for Vec<T> {
    fn visit(&mut self, io: &mut StateIo) {
        let mut len = self.len();
        len.visit(io);
        if let Mode::Load(data) = &io.mode {
            // Every item takes at least a byte: a count past the payload's end is a lie.
            if len > data.len() {
                len = 0;
                io.fail("a length runs past the end");
            }
            self.resize(len, T::default());
        }
        io.fixed(self);
    }
}

/// 64-bit FNV-1a: a fast, well-spread hash for comparing runs (not cryptographic).
#[derive(Clone, Copy)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xCBF2_9CE4_8422_2325)
    }
}

impl Fnv1a {
    pub fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01B3);
        }
    }

    pub fn finish(self) -> u64 {
        self.0
    }
}

/// CRC-32 (IEEE 802.3, reflected, polynomial $EDB88320), as zip and PNG use it.
pub fn crc32(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut crc = i as u32;
            let mut bit = 0;
            while bit < 8 {
                crc = if crc & 1 != 0 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
                bit += 1;
            }
            table[i] = crc;
            i += 1;
        }
        table
    };
    !bytes.iter().fold(!0u32, |crc, &byte| {
        TABLE[usize::from(crc as u8 ^ byte)] ^ (crc >> 8)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_and_fnv1a_known_values() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        let mut fnv = Fnv1a::default();
        fnv.write(b"a");
        assert_eq!(fnv.finish(), 0xAF63_DC4C_8601_EC8C);
    }

    #[test]
    fn frame_errors() {
        let file = encode(7, b"payload");
        assert_eq!(decode(&file, 7), Ok(&b"payload"[..]));
        assert_eq!(decode(&file, 8), Err(StateError::OtherRom));
        assert_eq!(decode(b"", 7), Err(StateError::NotAState));
        assert_eq!(decode(b"PK\x03\x04", 7), Err(StateError::NotAState));
        assert!(matches!(
            decode(&file[..file.len() - 1], 7),
            Err(StateError::Truncated { .. })
        ));
        assert!(matches!(
            decode(&file[..5], 7),
            Err(StateError::Truncated { .. })
        ));
        let mut bad = file.clone();
        bad[HEADER_LEN + 2] ^= 1;
        assert_eq!(decode(&bad, 7), Err(StateError::Corrupted));
        let mut other = file.clone();
        other[8..12].copy_from_slice(&(VERSION + 1).to_le_bytes());
        assert_eq!(
            decode(&other, 7),
            Err(StateError::NewerVersion(VERSION + 1))
        );
        other[8..12].copy_from_slice(&(VERSION - 1).to_le_bytes());
        assert_eq!(
            decode(&other, 7),
            Err(StateError::OlderVersion(VERSION - 1))
        );
    }

    #[test]
    fn fields_round_trip_and_bad_values_are_caught() {
        let mut a = (0x1234u16, Some(true));
        let mut v = vec![1.5f32, -2.0];
        let bytes = StateIo::save(|io| fields!(io, &mut a, &mut v));

        let (mut b, mut w) = ((0u16, None), Vec::new());
        assert_eq!(
            StateIo::load(&bytes, |io| fields!(io, &mut b, &mut w)),
            Ok(())
        );
        assert_eq!((b, w), (a, v));

        let mut flag = false;
        assert!(matches!(
            StateIo::load(&[2], |io| flag.visit(io)),
            Err(StateError::BadField(_))
        ));
        assert!(StateIo::load(&[1, 0], |io| flag.visit(io)).is_err());
        assert!(StateIo::load(&[], |io| flag.visit(io)).is_err());
    }
}
