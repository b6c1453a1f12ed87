//! The Game Genie: a pass-through cartridge that answers CPU reads of chosen $8000-$FFFF
//! addresses with its own value, optionally only when the cartridge's byte there is a given
//! compare value (8-letter codes, which tell banks apart). Codes are letters, each a 4-bit
//! digit, whose bits are scrambled into the address, value and compare byte.

use std::fmt;

/// The code alphabet: the letter at index n stands for the digit n.
const LETTERS: &str = "APZLGITYEOXUKSVN";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameGenie {
    /// $8000-$FFFF.
    pub addr: u16,
    pub value: u8,
    /// Replace only reads of this byte (8-letter codes).
    pub compare: Option<u8>,
}

impl GameGenie {
    /// Decodes a 6- or 8-letter code (either case); `None` for anything else.
    pub fn decode(code: &str) -> Option<GameGenie> {
        let n = code
            .bytes()
            .map(|c| LETTERS.bytes().position(|l| l == c.to_ascii_uppercase()))
            .collect::<Option<Vec<usize>>>()?;
        if n.len() != 6 && n.len() != 8 {
            return None;
        }
        let n: Vec<u16> = n.into_iter().map(|d| d as u16).collect();
        let addr = 0x8000
            | (n[3] & 7) << 12
            | (n[5] & 7) << 8
            | (n[4] & 8) << 8
            | (n[2] & 7) << 4
            | (n[1] & 8) << 4
            | (n[4] & 7)
            | (n[3] & 8);
        let last = if n.len() == 8 { n[7] } else { n[5] };
        let value = (n[1] & 7) << 4 | (n[0] & 8) << 4 | (n[0] & 7) | (last & 8);
        let compare =
            (n.len() == 8).then(|| (n[7] & 7) << 4 | (n[6] & 8) << 4 | (n[6] & 7) | (n[5] & 8));
        Some(GameGenie {
            addr,
            value: value as u8,
            compare: compare.map(|c| c as u8),
        })
    }

    /// [`GameGenie::decode`], or why not in one line.
    pub fn parse(code: &str) -> Result<GameGenie, String> {
        GameGenie::decode(code).ok_or_else(|| {
            format!("'{code}' is not a Game Genie code (6 or 8 of the letters {LETTERS})")
        })
    }

    /// What a read of `addr` returns when the cartridge answers `byte`.
    #[inline]
    pub fn apply(&self, addr: u16, byte: u8) -> u8 {
        if addr == self.addr && self.compare.is_none_or(|c| c == byte) {
            self.value
        } else {
            byte
        }
    }
}

/// The code, in the letters the decoder reads (the third letter's high bit set for 8-letter
/// codes, as the Game Genie's own encoding does).
impl fmt::Display for GameGenie {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let (a, v) = (self.addr, u16::from(self.value));
        let c = u16::from(self.compare.unwrap_or(0));
        let long = self.compare.is_some();
        let mut n = [0u16; 8];
        n[0] = (v & 7) | (v >> 4 & 8);
        n[1] = (v >> 4 & 7) | (a >> 4 & 8);
        n[2] = (a >> 4 & 7) | if long { 8 } else { 0 };
        n[3] = (a >> 12 & 7) | (a & 8);
        n[4] = (a & 7) | (a >> 8 & 8);
        n[5] = (a >> 8 & 7) | if long { c & 8 } else { v & 8 };
        n[6] = (c & 7) | (c >> 4 & 8);
        n[7] = (c >> 4 & 7) | (v & 8);
        let letters = if long { &n[..] } else { &n[..6] };
        for &d in letters {
            write!(f, "{}", char::from(LETTERS.as_bytes()[usize::from(d)]))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_letter_codes_give_an_address_and_a_value() {
        // Worked by hand from the letter table: A=0 P=1 Z=2 L=3 G=4 I=5 T=6 Y=7 ...
        let code = GameGenie::decode("GOSSIP").unwrap();
        assert_eq!(code.addr, 0xD1DD);
        assert_eq!(code.value, 0x14);
        assert_eq!(code.compare, None);
        assert_eq!(GameGenie::decode("gossip"), Some(code));
    }

    #[test]
    fn eight_letter_codes_also_give_a_compare_value() {
        let code = GameGenie::decode("ZEXPYGLA").unwrap();
        assert_eq!(code.addr, 0x94A7);
        assert_eq!(code.value, 0x02);
        assert_eq!(code.compare, Some(0x03));
        assert_eq!(code.apply(0x94A7, 0x03), 0x02);
        assert_eq!(code.apply(0x94A7, 0x04), 0x04, "another bank's byte");
        assert_eq!(code.apply(0x94A8, 0x03), 0x03);
    }

    #[test]
    fn codes_round_trip_through_their_letters() {
        for code in [
            "GOSSIP", "ZEXPYGLA", "AAAAAA", "NNNNNN", "AEAAAAAA", "SXIOPO", "YEUZUGAA",
        ] {
            let decoded = GameGenie::decode(code).unwrap();
            assert_eq!(
                GameGenie::decode(&decoded.to_string()),
                Some(decoded),
                "{code}"
            );
        }
    }

    #[test]
    fn other_text_is_not_a_code() {
        for text in [
            "", "GOSSI", "GOSSIPS", "GOSSIPBB", "12345678", "GOSS P", "ÉOSSIP",
        ] {
            assert_eq!(GameGenie::decode(text), None, "{text:?}");
        }
    }
}
