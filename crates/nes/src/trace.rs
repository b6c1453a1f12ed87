//! CPU trace lines in the format of nestest.log, built from side-effect-free peeks.

use crate::console::Console;
use crate::cpu::{is_official, Mode, Op, OPCODES};

/// The line for the instruction about to execute, e.g.
/// `C000  4C F5 C5  JMP $C5F5                       A:00 X:00 Y:00 P:24 SP:FD PPU:  0, 21 CYC:7`.
pub fn trace_line(console: &Console) -> String {
    let cpu = &console.cpu;
    let pc = cpu.pc;
    let peek = |addr: u16| console.peek(addr);
    let opcode = peek(pc);
    let (op, mode) = OPCODES[usize::from(opcode)];
    let bytes: Vec<String> = (0..mode.instruction_len())
        .map(|i| format!("{:02X}", peek(pc.wrapping_add(i))))
        .collect();
    let mark = if is_official(opcode) { ' ' } else { '*' };
    format!(
        "{pc:04X}  {:<8} {mark}{:<32}A:{:02X} X:{:02X} Y:{:02X} P:{:02X} SP:{:02X} PPU:{:>3},{:>3} CYC:{}",
        bytes.join(" "),
        disassemble(console, op, mode),
        cpu.a,
        cpu.x,
        cpu.y,
        cpu.p,
        cpu.s,
        console.bus.ppu.scanline,
        console.bus.ppu.dot,
        console.bus.cycles,
    )
}

/// Mnemonic and operand, with nestest's `@ address` and `= value` annotations.
fn disassemble(console: &Console, op: Op, mode: Mode) -> String {
    let cpu = &console.cpu;
    let peek = |addr: u16| console.peek(addr);
    let peek16 = |lo: u16, hi: u16| u16::from_le_bytes([peek(lo), peek(hi)]);
    let arg8 = peek(cpu.pc.wrapping_add(1));
    let arg16 = peek16(cpu.pc.wrapping_add(1), cpu.pc.wrapping_add(2));
    // nestest.log spells ISC "ISB".
    let name = if op == Op::ISC {
        "ISB".to_string()
    } else {
        format!("{op:?}")
    };
    let jumps = matches!(op, Op::JMP | Op::JSR);
    let operand = match mode {
        Mode::Imp => String::new(),
        Mode::Acc => "A".to_string(),
        Mode::Imm => format!("#${arg8:02X}"),
        Mode::Zp => format!("${arg8:02X} = {:02X}", peek(u16::from(arg8))),
        Mode::ZpX | Mode::ZpY => {
            let (reg, index) = if mode == Mode::ZpX {
                ('X', cpu.x)
            } else {
                ('Y', cpu.y)
            };
            let addr = arg8.wrapping_add(index);
            format!(
                "${arg8:02X},{reg} @ {addr:02X} = {:02X}",
                peek(u16::from(addr))
            )
        }
        Mode::Abs if jumps => format!("${arg16:04X}"),
        Mode::Abs => format!("${arg16:04X} = {:02X}", peek(arg16)),
        Mode::AbsX | Mode::AbsY => {
            let (reg, index) = if mode == Mode::AbsX {
                ('X', cpu.x)
            } else {
                ('Y', cpu.y)
            };
            let addr = arg16.wrapping_add(u16::from(index));
            format!("${arg16:04X},{reg} @ {addr:04X} = {:02X}", peek(addr))
        }
        Mode::IzX => {
            let ptr = arg8.wrapping_add(cpu.x);
            let addr = peek16(u16::from(ptr), u16::from(ptr.wrapping_add(1)));
            format!(
                "(${arg8:02X},X) @ {ptr:02X} = {addr:04X} = {:02X}",
                peek(addr)
            )
        }
        Mode::IzY => {
            let base = peek16(u16::from(arg8), u16::from(arg8.wrapping_add(1)));
            let addr = base.wrapping_add(u16::from(cpu.y));
            format!(
                "(${arg8:02X}),Y = {base:04X} @ {addr:04X} = {:02X}",
                peek(addr)
            )
        }
        Mode::Ind => {
            let hi = (arg16 & 0xFF00) | (arg16.wrapping_add(1) & 0x00FF);
            format!("(${arg16:04X}) = {:04X}", peek16(arg16, hi))
        }
        Mode::Rel => {
            let target = cpu.pc.wrapping_add(2).wrapping_add(arg8 as i8 as u16);
            format!("${target:04X}")
        }
    };
    if operand.is_empty() {
        name
    } else {
        format!("{name} {operand}")
    }
}
