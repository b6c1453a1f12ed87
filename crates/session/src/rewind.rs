//! Rewind: a ring of the machine's states, one per frame, going back as far as a memory budget
//! allows. The newest state is kept whole; each older one is kept as the bytes that differ from
//! the state after it (XOR, zero runs counted), which for a frame of a game is a few kilobytes
//! out of the ~125 KiB of a state (most of it the picture, which changes little).

use nes::Console;
use std::collections::VecDeque;

/// The ring's default budget: 60 s at 60 frames/s fit in a few MiB for most games; this leaves
/// room for busy pictures.
pub const DEFAULT_BUDGET: usize = 64 << 20;

/// How to get from a state to the one before it.
enum Step {
    /// The bytes that differ, as made by [`diff`].
    Diff(Vec<u8>),
    /// The state before, whole: its size differs (the sound still to be taken is part of a
    /// state, and its length can change by a sample).
    Whole(Vec<u8>),
}

impl Step {
    fn len(&self) -> usize {
        match self {
            Step::Diff(bytes) | Step::Whole(bytes) => bytes.len(),
        }
    }
}

pub struct Rewind {
    /// The newest state, whole.
    head: Vec<u8>,
    /// `steps[i]` turns the state after it (`steps[i + 1]`, or `head`) into the one before.
    steps: VecDeque<Step>,
    /// Bytes held by `steps`.
    step_bytes: usize,
    /// The buffer the next state is written into.
    spare: Vec<u8>,
    budget: usize,
}

impl Rewind {
    pub fn new(budget: usize) -> Rewind {
        Rewind {
            head: Vec::new(),
            steps: VecDeque::new(),
            step_bytes: 0,
            spare: Vec::new(),
            budget,
        }
    }

    /// Takes the console's state after a frame. Fails (and keeps nothing new) when the memory
    /// for it cannot be had.
    pub fn push(&mut self, console: &mut Console) -> Result<(), String> {
        // The state before this one becomes the buffer the next is written into, unless the
        // ring keeps it whole.
        let state = console.snapshot_into(std::mem::take(&mut self.spare));
        let before = std::mem::replace(&mut self.head, state);
        if !before.is_empty() {
            let step = if before.len() == self.head.len() {
                let step = Step::Diff(diff(&self.head, &before)?);
                self.spare = before;
                step
            } else {
                Step::Whole(before)
            };
            self.step_bytes += step.len();
            self.steps.push_back(step);
        }
        while self.bytes() > self.budget {
            let Some(oldest) = self.steps.pop_front() else {
                break;
            };
            self.step_bytes -= oldest.len();
        }
        Ok(())
    }

    /// Puts the console back one frame; false when the ring holds nothing older.
    pub fn step_back(&mut self, console: &mut Console) -> bool {
        let Some(step) = self.steps.pop_back() else {
            return false;
        };
        self.step_bytes -= step.len();
        match step {
            Step::Diff(bytes) => apply(&bytes, &mut self.head),
            Step::Whole(bytes) => self.head = bytes,
        }
        console
            .restore(&self.head)
            .expect("a state of the ring loads into the console that made it");
        true
    }

    pub fn budget(&self) -> usize {
        self.budget
    }

    /// Frames the ring can go back.
    pub fn depth(&self) -> usize {
        self.steps.len()
    }

    /// Memory held, in bytes.
    pub fn bytes(&self) -> usize {
        self.step_bytes + self.head.len()
    }
}

/// `new XOR old` as (zero-run length, literal length, literal bytes) triples, lengths as
/// LEB128 varints.
fn diff(new: &[u8], old: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < new.len() {
        let zeros = equal_prefix(&new[i..], &old[i..]);
        i += zeros;
        // A literal ends at the first run of 4 equal bytes (a shorter run costs less as bytes).
        let start = i;
        let mut same = 0;
        while i < new.len() && same < 4 {
            same = if new[i] == old[i] { same + 1 } else { 0 };
            i += 1;
        }
        let end = if same == 4 { i - 4 } else { i };
        i = end;
        out.try_reserve(20 + end - start)
            .map_err(|e| format!("no memory for the rewind ring: {e}"))?;
        varint(&mut out, zeros);
        varint(&mut out, end - start);
        out.extend(
            new[start..end]
                .iter()
                .zip(&old[start..end])
                .map(|(a, b)| a ^ b),
        );
    }
    Ok(out)
}

/// How many leading bytes two slices share, compared a word at a time.
fn equal_prefix(a: &[u8], b: &[u8]) -> usize {
    let words = a
        .chunks_exact(8)
        .zip(b.chunks_exact(8))
        .take_while(|(x, y)| x == y)
        .count();
    let i = words * 8;
    i + a[i..]
        .iter()
        .zip(&b[i..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// XORs a [`diff`] into `state`.
fn apply(step: &[u8], state: &mut [u8]) {
    let (mut at, mut i) = (0, 0);
    while at < step.len() {
        let zeros = read_varint(step, &mut at);
        let literal = read_varint(step, &mut at);
        i += zeros;
        for (byte, x) in state[i..i + literal]
            .iter_mut()
            .zip(&step[at..at + literal])
        {
            *byte ^= x;
        }
        i += literal;
        at += literal;
    }
}

fn varint(out: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn read_varint(bytes: &[u8], at: &mut usize) -> usize {
    let (mut n, mut shift) = (0, 0);
    loop {
        let byte = bytes[*at];
        *at += 1;
        n |= usize::from(byte & 0x7F) << shift;
        if byte < 0x80 {
            return n;
        }
        shift += 7;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_turns_one_state_into_the_other() {
        let old: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut new = old.clone();
        for i in [0, 1, 2, 3, 300, 302, 4095, 4096, 4999] {
            new[i] ^= 0x5A;
        }
        new[1000..1300].fill(9);
        let step = diff(&old, &new).unwrap();
        assert!(step.len() < 400, "{} bytes", step.len());
        let mut state = new.clone();
        apply(&step, &mut state);
        assert_eq!(state, old);
        assert!(diff(&old, &old).unwrap().len() <= 3);
    }
}
