//! NES Four Score: two standard pads on one port, read as one 24-bit report on D0 (nesdev
//! wiki, "Four player adapters"): 8 bits of the first pad (players 1 or 2), 8 of the second
//! (players 3 or 4), then the port's signature, $10 on $4016 and $20 on $4017, MSB first.
//! D3 and D4 are not connected.

use crate::controller::Buttons;
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug, Default)]
pub struct FourScore {
    /// The buttons of the pad in front (player 1 or 2) and of the one behind (3 or 4).
    pub buttons: [Buttons; 2],
    /// The port's signature byte as it is shifted out after the pads (bit 0 first).
    signature: u8,
    report: u32,
    reads: u8,
    strobe: bool,
}

impl Field for FourScore {
    fn visit(&mut self, io: &mut StateIo) {
        let FourScore {
            buttons,
            signature: _,
            report,
            reads,
            strobe,
        } = self;
        let [front, back] = buttons;
        fields!(io, &mut front.0, &mut back.0, report, reads, strobe);
    }
}

/// Bits in a report.
const REPORT_BITS: u8 = 24;

impl FourScore {
    /// The Four Score's side on port `port` (0: $4016, 1: $4017).
    pub fn new(port: usize) -> FourScore {
        let signature = if port == 0 { 0x10u8 } else { 0x20 };
        FourScore {
            signature: signature.reverse_bits(),
            ..FourScore::default()
        }
    }

    pub fn write_strobe(&mut self, high: bool) {
        self.strobe = high;
        if high {
            self.reload();
        }
    }

    fn reload(&mut self) {
        let [front, back] = self.buttons;
        self.report = u32::from(front.0) | u32::from(back.0) << 8 | u32::from(self.signature) << 16;
        self.reads = 0;
    }

    /// The serial bit (D0) of a read; clocks the report unless strobed. Reads after the
    /// 24th return 1.
    pub fn read(&mut self) -> u8 {
        if self.strobe {
            self.reload();
        }
        let bit = self.peek();
        if !self.strobe && self.reads < REPORT_BITS {
            self.report >>= 1;
            self.reads += 1;
        }
        bit
    }

    /// The bit the next read would return, without clocking.
    pub fn peek(&self) -> u8 {
        if self.strobe {
            self.buttons[0].0 & 1
        } else if self.reads >= REPORT_BITS {
            1
        } else {
            (self.report & 1) as u8
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bits of 26 reads after a strobe, as a game reads them.
    fn report(port: usize, front: u8, back: u8) -> Vec<u8> {
        let mut four = FourScore::new(port);
        four.buttons = [Buttons(front), Buttons(back)];
        four.write_strobe(true);
        four.write_strobe(false);
        (0..26).map(|_| four.read()).collect()
    }

    /// `byte`'s bits, LSB first (a pad's order).
    fn lsb_first(byte: u8) -> Vec<u8> {
        (0..8).map(|bit| byte >> bit & 1).collect()
    }

    #[test]
    fn port_1_reports_players_1_and_3_then_the_signature_10() {
        let bits = report(0, Buttons::A | Buttons::RIGHT, Buttons::START);
        assert_eq!(bits[..8], lsb_first(0x81));
        assert_eq!(bits[8..16], lsb_first(0x08));
        // The signature goes MSB first: $10 is 0,0,0,1,0,0,0,0.
        assert_eq!(bits[16..24], [0, 0, 0, 1, 0, 0, 0, 0]);
        assert_eq!(bits[24..], [1, 1]);
    }

    #[test]
    fn port_2_reports_players_2_and_4_then_the_signature_20() {
        let bits = report(1, 0, Buttons::B | Buttons::UP);
        assert_eq!(bits[..8], lsb_first(0));
        assert_eq!(bits[8..16], lsb_first(0x12));
        assert_eq!(bits[16..24], [0, 0, 1, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn strobe_high_keeps_returning_player_1s_a() {
        let mut four = FourScore::new(0);
        four.buttons[0] = Buttons(Buttons::A);
        four.write_strobe(true);
        assert_eq!((four.read(), four.read(), four.peek()), (1, 1, 1));
    }
}
