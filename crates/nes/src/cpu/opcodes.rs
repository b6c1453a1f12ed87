//! The 256 opcodes of the 2A03: mnemonic and addressing mode, shared by the CPU and the tracer.

/// Instruction mnemonics. Unofficial ones use the names of the nesdev wiki's opcode matrix.
#[rustfmt::skip]
#[allow(clippy::upper_case_acronyms)] // assembler mnemonics are written in capitals
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    // Official.
    ADC, AND, ASL, BCC, BCS, BEQ, BIT, BMI, BNE, BPL, BRK, BVC, BVS, CLC, CLD, CLI, CLV, CMP,
    CPX, CPY, DEC, DEX, DEY, EOR, INC, INX, INY, JMP, JSR, LDA, LDX, LDY, LSR, NOP, ORA, PHA,
    PHP, PLA, PLP, ROL, ROR, RTI, RTS, SBC, SEC, SED, SEI, STA, STX, STY, TAX, TAY, TSX, TXA,
    TXS, TYA,
    // Unofficial, stable.
    ALR, ANC, ARR, AXS, DCP, ISC, LAX, RLA, RRA, SAX, SLO, SRE,
    // Unofficial, unstable on real chips; NES behaviour as documented on the nesdev wiki.
    ANE, LAS, LXA, SHA, SHX, SHY, TAS,
    /// Stops the CPU until reset.
    JAM,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Implied: one-byte instruction.
    Imp,
    /// Accumulator: one-byte instruction operating on A.
    Acc,
    Imm,
    Zp,
    ZpX,
    ZpY,
    Abs,
    AbsX,
    AbsY,
    /// (zp,X)
    IzX,
    /// (zp),Y
    IzY,
    /// (abs), JMP only.
    Ind,
    /// Branch offset.
    Rel,
}

impl Mode {
    /// Instruction length in bytes, opcode included.
    pub fn instruction_len(self) -> u16 {
        match self {
            Mode::Imp | Mode::Acc => 1,
            Mode::Abs | Mode::AbsX | Mode::AbsY | Mode::Ind => 3,
            _ => 2,
        }
    }
}

use Mode::*;
use Op::*;

/// Opcode matrix, indexed by opcode byte.
#[rustfmt::skip]
pub const OPCODES: [(Op, Mode); 256] = [
    // $00
    (BRK, Imp), (ORA, IzX), (JAM, Imp), (SLO, IzX), (NOP, Zp),   (ORA, Zp),   (ASL, Zp),   (SLO, Zp),
    (PHP, Imp), (ORA, Imm), (ASL, Acc), (ANC, Imm), (NOP, Abs),  (ORA, Abs),  (ASL, Abs),  (SLO, Abs),
    // $10
    (BPL, Rel), (ORA, IzY), (JAM, Imp), (SLO, IzY), (NOP, ZpX),  (ORA, ZpX),  (ASL, ZpX),  (SLO, ZpX),
    (CLC, Imp), (ORA, AbsY), (NOP, Imp), (SLO, AbsY), (NOP, AbsX), (ORA, AbsX), (ASL, AbsX), (SLO, AbsX),
    // $20
    (JSR, Abs), (AND, IzX), (JAM, Imp), (RLA, IzX), (BIT, Zp),   (AND, Zp),   (ROL, Zp),   (RLA, Zp),
    (PLP, Imp), (AND, Imm), (ROL, Acc), (ANC, Imm), (BIT, Abs),  (AND, Abs),  (ROL, Abs),  (RLA, Abs),
    // $30
    (BMI, Rel), (AND, IzY), (JAM, Imp), (RLA, IzY), (NOP, ZpX),  (AND, ZpX),  (ROL, ZpX),  (RLA, ZpX),
    (SEC, Imp), (AND, AbsY), (NOP, Imp), (RLA, AbsY), (NOP, AbsX), (AND, AbsX), (ROL, AbsX), (RLA, AbsX),
    // $40
    (RTI, Imp), (EOR, IzX), (JAM, Imp), (SRE, IzX), (NOP, Zp),   (EOR, Zp),   (LSR, Zp),   (SRE, Zp),
    (PHA, Imp), (EOR, Imm), (LSR, Acc), (ALR, Imm), (JMP, Abs),  (EOR, Abs),  (LSR, Abs),  (SRE, Abs),
    // $50
    (BVC, Rel), (EOR, IzY), (JAM, Imp), (SRE, IzY), (NOP, ZpX),  (EOR, ZpX),  (LSR, ZpX),  (SRE, ZpX),
    (CLI, Imp), (EOR, AbsY), (NOP, Imp), (SRE, AbsY), (NOP, AbsX), (EOR, AbsX), (LSR, AbsX), (SRE, AbsX),
    // $60
    (RTS, Imp), (ADC, IzX), (JAM, Imp), (RRA, IzX), (NOP, Zp),   (ADC, Zp),   (ROR, Zp),   (RRA, Zp),
    (PLA, Imp), (ADC, Imm), (ROR, Acc), (ARR, Imm), (JMP, Ind),  (ADC, Abs),  (ROR, Abs),  (RRA, Abs),
    // $70
    (BVS, Rel), (ADC, IzY), (JAM, Imp), (RRA, IzY), (NOP, ZpX),  (ADC, ZpX),  (ROR, ZpX),  (RRA, ZpX),
    (SEI, Imp), (ADC, AbsY), (NOP, Imp), (RRA, AbsY), (NOP, AbsX), (ADC, AbsX), (ROR, AbsX), (RRA, AbsX),
    // $80
    (NOP, Imm), (STA, IzX), (NOP, Imm), (SAX, IzX), (STY, Zp),   (STA, Zp),   (STX, Zp),   (SAX, Zp),
    (DEY, Imp), (NOP, Imm), (TXA, Imp), (ANE, Imm), (STY, Abs),  (STA, Abs),  (STX, Abs),  (SAX, Abs),
    // $90
    (BCC, Rel), (STA, IzY), (JAM, Imp), (SHA, IzY), (STY, ZpX),  (STA, ZpX),  (STX, ZpY),  (SAX, ZpY),
    (TYA, Imp), (STA, AbsY), (TXS, Imp), (TAS, AbsY), (SHY, AbsX), (STA, AbsX), (SHX, AbsY), (SHA, AbsY),
    // $A0
    (LDY, Imm), (LDA, IzX), (LDX, Imm), (LAX, IzX), (LDY, Zp),   (LDA, Zp),   (LDX, Zp),   (LAX, Zp),
    (TAY, Imp), (LDA, Imm), (TAX, Imp), (LXA, Imm), (LDY, Abs),  (LDA, Abs),  (LDX, Abs),  (LAX, Abs),
    // $B0
    (BCS, Rel), (LDA, IzY), (JAM, Imp), (LAX, IzY), (LDY, ZpX),  (LDA, ZpX),  (LDX, ZpY),  (LAX, ZpY),
    (CLV, Imp), (LDA, AbsY), (TSX, Imp), (LAS, AbsY), (LDY, AbsX), (LDA, AbsX), (LDX, AbsY), (LAX, AbsY),
    // $C0
    (CPY, Imm), (CMP, IzX), (NOP, Imm), (DCP, IzX), (CPY, Zp),   (CMP, Zp),   (DEC, Zp),   (DCP, Zp),
    (INY, Imp), (CMP, Imm), (DEX, Imp), (AXS, Imm), (CPY, Abs),  (CMP, Abs),  (DEC, Abs),  (DCP, Abs),
    // $D0
    (BNE, Rel), (CMP, IzY), (JAM, Imp), (DCP, IzY), (NOP, ZpX),  (CMP, ZpX),  (DEC, ZpX),  (DCP, ZpX),
    (CLD, Imp), (CMP, AbsY), (NOP, Imp), (DCP, AbsY), (NOP, AbsX), (CMP, AbsX), (DEC, AbsX), (DCP, AbsX),
    // $E0
    (CPX, Imm), (SBC, IzX), (NOP, Imm), (ISC, IzX), (CPX, Zp),   (SBC, Zp),   (INC, Zp),   (ISC, Zp),
    (INX, Imp), (SBC, Imm), (NOP, Imp), (SBC, Imm), (CPX, Abs),  (SBC, Abs),  (INC, Abs),  (ISC, Abs),
    // $F0
    (BEQ, Rel), (SBC, IzY), (JAM, Imp), (ISC, IzY), (NOP, ZpX),  (SBC, ZpX),  (INC, ZpX),  (ISC, ZpX),
    (SED, Imp), (SBC, AbsY), (NOP, Imp), (ISC, AbsY), (NOP, AbsX), (SBC, AbsX), (INC, AbsX), (ISC, AbsX),
];

/// Whether `opcode` is one of the 151 documented opcodes.
pub fn is_official(opcode: u8) -> bool {
    let (op, _) = OPCODES[usize::from(opcode)];
    match op {
        NOP => opcode == 0xEA,
        SBC => opcode != 0xEB,
        _ => (op as u8) <= (TYA as u8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_151_official_opcodes() {
        assert_eq!((0..=255).filter(|&op| is_official(op)).count(), 151);
    }

    #[test]
    fn twelve_opcodes_jam() {
        let jams: Vec<usize> = (0..256).filter(|&i| OPCODES[i].0 == JAM).collect();
        assert_eq!(
            jams,
            [0x02, 0x12, 0x22, 0x32, 0x42, 0x52, 0x62, 0x72, 0x92, 0xB2, 0xD2, 0xF2]
        );
    }
}
