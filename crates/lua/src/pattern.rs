//! Lua 5.1's patterns, matched as its string library matches them (same results, same errors,
//! raised at the same point of a match) but without recursion and with a step count: the C
//! matcher recurses once per pattern item and ran for minutes inside one C call where no
//! watchdog reaches, and a pattern of enough items overflowed the C stack. Here the choices a
//! match may come back to are kept on a heap stack, and every [`CHECK_EVERY`] steps the
//! matcher asks its `running` check whether to go on.

use std::cell::RefCell;
use std::ffi::CStr;

/// Captures one match may have, as in Lua 5.1 (`LUA_MAXCAPTURES`).
pub const MAX_CAPTURES: usize = 32;

/// Choices one match may keep open. The C matcher needed a stack frame for each, and ran out
/// of a thread's 8 MB of stack around this depth.
const MAX_CHOICES: usize = 100_000;

/// Steps (bytes looked at, roughly) between two calls of the `running` check.
const CHECK_EVERY: u32 = 4096;

/// The characters that make `string.find` match a pattern rather than search plain text.
const SPECIALS: &[u8] = b"^$*+?.([%-";

#[derive(Debug)]
pub enum Error {
    /// The pattern is malformed, or asks what cannot be (Lua's message).
    Pattern(&'static CStr),
    /// The `running` check said to stop.
    Stopped,
}

impl From<&'static CStr> for Error {
    fn from(message: &'static CStr) -> Error {
        Error::Pattern(message)
    }
}

type Result<T> = std::result::Result<T, Error>;

#[derive(Clone, Copy, PartialEq)]
enum Span {
    Unfinished,
    Position,
    Len(usize),
}

#[derive(Clone, Copy)]
struct Capture {
    start: usize,
    span: Span,
}

/// A capture's value.
pub enum Captured {
    Text(usize, usize),
    /// A position capture `()`: the 1-based position.
    Position(usize),
}

/// Where a failed match goes back to, and what it undoes on the way.
#[derive(Clone, Copy)]
enum Choice {
    /// `x?` took one `x` at `at`: else go on without it.
    Skip { at: usize, next: usize },
    /// `x*` or `x+` took `count` repetitions from `at`: else one fewer.
    Fewer {
        at: usize,
        count: usize,
        next: usize,
    },
    /// `x-` took the repetitions up to `at`: else one more, if `x` matches there.
    More { at: usize, item: usize, next: usize },
    /// A capture was opened: undone.
    Opened,
    /// Capture `l` was closed: open again.
    Closed(usize),
}

thread_local! {
    /// The choice stack, kept between matches (gsub and gmatch match at every position).
    static CHOICES: RefCell<Vec<Choice>> = const { RefCell::new(Vec::new()) };
}

/// Patterns that need matching, not a plain search, in `string.find`: as Lua 5.1 decides, up
/// to the pattern's first NUL.
pub fn has_specials(pattern: &[u8]) -> bool {
    until_nul(pattern).iter().any(|c| SPECIALS.contains(c))
}

/// Lua 5.1 reads patterns as C strings: they end at their first NUL.
fn until_nul(pattern: &[u8]) -> &[u8] {
    pattern.split(|&c| c == 0).next().unwrap_or_default()
}

/// A character class letter (`%a`...), or `class` itself for any other character, in the C
/// locale.
fn match_class(c: u8, class: u8) -> bool {
    let found = match class.to_ascii_lowercase() {
        b'a' => c.is_ascii_alphabetic(),
        b'c' => c.is_ascii_control(),
        b'd' => c.is_ascii_digit(),
        b'l' => c.is_ascii_lowercase(),
        b'p' => c.is_ascii_punctuation(),
        b's' => c.is_ascii_whitespace() || c == 0x0B,
        b'u' => c.is_ascii_uppercase(),
        b'w' => c.is_ascii_alphanumeric(),
        b'x' => c.is_ascii_hexdigit(),
        b'z' => c == 0,
        _ => return class == c,
    };
    found == class.is_ascii_lowercase()
}

pub struct Matcher<'a, F> {
    subject: &'a [u8],
    pattern: &'a [u8],
    level: usize,
    captures: [Capture; MAX_CAPTURES],
    steps: u32,
    running: F,
}

impl<'a, F: FnMut() -> bool> Matcher<'a, F> {
    /// A matcher of `pattern` (up to its first NUL) in `subject`; `running` is asked every
    /// [`CHECK_EVERY`] steps whether to go on.
    pub fn new(subject: &'a [u8], pattern: &'a [u8], running: F) -> Self {
        Matcher {
            subject,
            pattern: until_nul(pattern),
            level: 0,
            captures: [Capture {
                start: 0,
                span: Span::Unfinished,
            }; MAX_CAPTURES],
            steps: 0,
            running,
        }
    }

    pub fn subject(&self) -> &'a [u8] {
        self.subject
    }

    /// The pattern starts with `^`: it may only match where the search starts. Returns where
    /// the rest of the pattern begins.
    pub fn anchored(&self) -> (bool, usize) {
        let anchor = self.pattern.first() == Some(&b'^');
        (anchor, usize::from(anchor))
    }

    /// Counts `cost` steps, and checks every [`CHECK_EVERY`].
    fn tick(&mut self, cost: usize) -> Result<()> {
        let cost = u32::try_from(cost).unwrap_or(u32::MAX);
        self.steps = self.steps.saturating_add(cost);
        if self.steps >= CHECK_EVERY {
            self.steps = 0;
            if !(self.running)() {
                return Err(Error::Stopped);
            }
        }
        Ok(())
    }

    /// The pattern's character at `p`, NUL past its end (as C reads it).
    fn pat(&self, p: usize) -> u8 {
        self.pattern.get(p).copied().unwrap_or(0)
    }

    /// The first position at or after `from` where the plain text `needle` is, as
    /// `string.find` with `plain` searches it.
    pub fn find_plain(&mut self, from: usize, needle: &[u8]) -> Result<Option<usize>> {
        let hay = &self.subject[from.min(self.subject.len())..];
        if needle.is_empty() {
            return Ok(Some(from));
        }
        for (i, window) in hay.windows(needle.len()).enumerate() {
            self.tick(1 + needle.len() / 32)?;
            if window == needle {
                return Ok(Some(from + i));
            }
        }
        Ok(None)
    }

    /// Matches the pattern from its position `p` at the subject's position `s` (captures
    /// start afresh); returns where the match ends.
    pub fn match_at(&mut self, s: usize, p: usize) -> Result<Option<usize>> {
        self.level = 0;
        CHOICES.with_borrow_mut(|choices| {
            choices.clear();
            let end = self.run(choices, s, p);
            if choices.capacity() > 1024 {
                // A deep match keeps no megabytes once done.
                *choices = Vec::new();
            }
            end
        })
    }

    fn run(
        &mut self,
        choices: &mut Vec<Choice>,
        mut s: usize,
        mut p: usize,
    ) -> Result<Option<usize>> {
        let len = self.subject.len();
        loop {
            self.tick(1)?;
            if choices.len() >= MAX_CHOICES {
                return Err(c"pattern too complex".into());
            }
            match self.pat(p) {
                0 => return Ok(Some(s)),
                b'(' => {
                    if self.level >= MAX_CAPTURES {
                        return Err(c"too many captures".into());
                    }
                    let position = self.pat(p + 1) == b')';
                    self.captures[self.level] = Capture {
                        start: s,
                        span: if position {
                            Span::Position
                        } else {
                            Span::Unfinished
                        },
                    };
                    self.level += 1;
                    choices.push(Choice::Opened);
                    p += if position { 2 } else { 1 };
                    continue;
                }
                b')' => {
                    let l = (0..self.level)
                        .rev()
                        .find(|&l| self.captures[l].span == Span::Unfinished)
                        .ok_or(c"invalid pattern capture")?;
                    self.captures[l].span = Span::Len(s - self.captures[l].start);
                    choices.push(Choice::Closed(l));
                    p += 1;
                    continue;
                }
                b'$' if self.pat(p + 1) == 0 => {
                    if s == len {
                        return Ok(Some(s));
                    }
                }
                b'%' if self.pat(p + 1) == b'b' => {
                    if let Some(end) = self.balance(s, p + 2)? {
                        (s, p) = (end, p + 4);
                        continue;
                    }
                }
                b'%' if self.pat(p + 1) == b'f' => {
                    p += 2;
                    if self.pat(p) != b'[' {
                        return Err(c"missing '[' after '%f' in pattern".into());
                    }
                    let end = self.class_end(p)?;
                    let previous = if s == 0 { 0 } else { self.subject[s - 1] };
                    let here = self.subject.get(s).copied().unwrap_or(0);
                    if !self.in_set(previous, p, end - 1) && self.in_set(here, p, end - 1) {
                        p = end;
                        continue;
                    }
                }
                b'%' if self.pat(p + 1).is_ascii_digit() => {
                    if let Some(end) = self.back_reference(s, self.pat(p + 1))? {
                        (s, p) = (end, p + 2);
                        continue;
                    }
                }
                _ => {
                    let end = self.class_end(p)?;
                    let single = s < len && self.single(self.subject[s], p, end);
                    match self.pat(end) {
                        b'?' => {
                            if single {
                                choices.push(Choice::Skip {
                                    at: s,
                                    next: end + 1,
                                });
                                s += 1;
                            }
                            p = end + 1;
                            continue;
                        }
                        b'*' => {
                            let count = self.repetitions(s, p, end)?;
                            choices.push(Choice::Fewer {
                                at: s,
                                count,
                                next: end + 1,
                            });
                            s += count;
                            p = end + 1;
                            continue;
                        }
                        b'+' if single => {
                            let count = self.repetitions(s + 1, p, end)?;
                            choices.push(Choice::Fewer {
                                at: s + 1,
                                count,
                                next: end + 1,
                            });
                            s += 1 + count;
                            p = end + 1;
                            continue;
                        }
                        b'+' => {}
                        b'-' => {
                            choices.push(Choice::More {
                                at: s,
                                item: p,
                                next: end + 1,
                            });
                            p = end + 1;
                            continue;
                        }
                        _ if single => {
                            s += 1;
                            p = end;
                            continue;
                        }
                        _ => {}
                    }
                }
            }
            // Back to the latest choice, undoing captures on the way.
            loop {
                match choices.pop() {
                    None => return Ok(None),
                    Some(Choice::Opened) => self.level -= 1,
                    Some(Choice::Closed(l)) => self.captures[l].span = Span::Unfinished,
                    Some(Choice::Skip { at, next }) => {
                        (s, p) = (at, next);
                        break;
                    }
                    Some(Choice::Fewer { at, count, next }) if count > 0 => {
                        let count = count - 1;
                        choices.push(Choice::Fewer { at, count, next });
                        (s, p) = (at + count, next);
                        break;
                    }
                    Some(Choice::Fewer { .. }) => {}
                    Some(Choice::More { at, item, next }) => {
                        self.tick(1)?;
                        if at < len && self.single(self.subject[at], item, next - 1) {
                            choices.push(Choice::More {
                                at: at + 1,
                                item,
                                next,
                            });
                            (s, p) = (at + 1, next);
                            break;
                        }
                    }
                }
            }
        }
    }

    /// Where the single-character class at `p` ends (its quantifier, if any, is there).
    fn class_end(&self, p: usize) -> Result<usize> {
        let mut p = p + 1;
        match self.pat(p - 1) {
            b'%' => {
                if self.pat(p) == 0 {
                    return Err(c"malformed pattern (ends with '%')".into());
                }
                Ok(p + 1)
            }
            b'[' => {
                if self.pat(p) == b'^' {
                    p += 1;
                }
                // A `]` right after `[` or `[^` is a member.
                loop {
                    if self.pat(p) == 0 {
                        return Err(c"malformed pattern (missing ']')".into());
                    }
                    p += 1;
                    if self.pat(p - 1) == b'%' && self.pat(p) != 0 {
                        p += 1;
                    }
                    if self.pat(p) == b']' {
                        return Ok(p + 1);
                    }
                }
            }
            _ => Ok(p),
        }
    }

    /// `c` against the single-character class from `p` to `end`.
    fn single(&self, c: u8, p: usize, end: usize) -> bool {
        match self.pat(p) {
            b'.' => true,
            b'%' => match_class(c, self.pat(p + 1)),
            b'[' => self.in_set(c, p, end - 1),
            literal => literal == c,
        }
    }

    /// `c` against the set from `[` at `p` to `]` at `close`.
    fn in_set(&self, c: u8, mut p: usize, close: usize) -> bool {
        let negated = self.pat(p + 1) == b'^';
        if negated {
            p += 1;
        }
        p += 1;
        while p < close {
            let at = self.pat(p);
            if at == b'%' {
                p += 1;
                if match_class(c, self.pat(p)) {
                    return !negated;
                }
            } else if self.pat(p + 1) == b'-' && p + 2 < close {
                if (at..=self.pat(p + 2)).contains(&c) {
                    return !negated;
                }
                p += 2;
            } else if at == c {
                return !negated;
            }
            p += 1;
        }
        negated
    }

    /// How many times in a row the class from `p` to `end` matches from `s`.
    fn repetitions(&mut self, s: usize, p: usize, end: usize) -> Result<usize> {
        let mut count = 0;
        while let Some(&c) = self.subject.get(s + count) {
            if !self.single(c, p, end) {
                break;
            }
            self.tick(1)?;
            count += 1;
        }
        Ok(count)
    }

    /// `%bxy` (`x` and `y` at `p`) at `s`: where the balanced text ends.
    fn balance(&mut self, s: usize, p: usize) -> Result<Option<usize>> {
        let (open, close) = (self.pat(p), self.pat(p + 1));
        if open == 0 || close == 0 {
            return Err(c"unbalanced pattern".into());
        }
        if self.subject.get(s) != Some(&open) {
            return Ok(None);
        }
        let mut depth = 1;
        for at in s + 1..self.subject.len() {
            self.tick(1)?;
            let c = self.subject[at];
            if c == close {
                depth -= 1;
                if depth == 0 {
                    return Ok(Some(at + 1));
                }
            } else if c == open {
                depth += 1;
            }
        }
        Ok(None)
    }

    /// `%1` to `%9` (`digit`) at `s`: where the repeated capture ends.
    fn back_reference(&mut self, s: usize, digit: u8) -> Result<Option<usize>> {
        let l = usize::from(digit.wrapping_sub(b'1'));
        if l >= self.level || self.captures[l].span == Span::Unfinished {
            return Err(c"invalid capture index".into());
        }
        let Capture { start, span } = self.captures[l];
        // A position capture repeats nothing: it never matches.
        let Span::Len(n) = span else {
            return Ok(None);
        };
        self.tick(1 + n / 32)?;
        let repeated = self.subject.get(s..s + n) == Some(&self.subject[start..start + n]);
        Ok(repeated.then_some(s + n))
    }

    /// How many values the last match gives: its captures, or the whole match when it has none
    /// and `whole` asks for it.
    pub fn count(&self, whole: bool) -> usize {
        if self.level == 0 && whole {
            1
        } else {
            self.level
        }
    }

    /// Capture `i` of the last match, from `s` to `e` (the whole match stands for capture 0
    /// when there are none).
    pub fn capture(&self, i: usize, s: usize, e: usize) -> Result<Captured> {
        if i >= self.level {
            return if i == 0 {
                Ok(Captured::Text(s, e))
            } else {
                Err(c"invalid capture index".into())
            };
        }
        let Capture { start, span } = self.captures[i];
        match span {
            Span::Unfinished => Err(c"unfinished capture".into()),
            Span::Position => Ok(Captured::Position(start + 1)),
            Span::Len(n) => Ok(Captured::Text(start, start + n)),
        }
    }
}
