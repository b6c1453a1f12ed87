//! Ricoh 2A03 CPU core (a 6502 without decimal mode).
//!
//! Every cycle is one call to [`CpuBus::read`] or [`CpuBus::write`], dummy accesses included;
//! the bus advances the rest of the machine inside that call, so the CPU never counts time.
//!
//! Interrupts follow the hardware's pipeline: after every cycle the NMI edge detector and the
//! IRQ level (masked by I) are sampled. An instruction hands over to the interrupt sequence when
//! the sample taken at the end of its second-to-last cycle asked for one, which is what makes
//! CLI/SEI/PLP take effect one instruction late and RTI immediately. The sample only changes
//! when a line or I does, so the lines are looked at only after a cycle the bus says may have
//! moved them ([`CpuBus::cpu_read`]) and the poll worked out again when I changes.

mod opcodes;

pub use opcodes::{is_official, Mode, Op, OPCODES};

/// What the CPU sees of the machine. Each read or write call is exactly one CPU cycle.
pub trait CpuBus {
    fn read(&mut self, addr: u16) -> u8;
    fn write(&mut self, addr: u16, val: u8);
    /// The NMI output of the PPU after the last cycle (true = asserted).
    fn nmi_line(&self) -> bool;
    /// The wired-OR /IRQ line after the last cycle (true = asserted).
    fn irq_line(&self) -> bool;
    /// [`CpuBus::read`] as the CPU's own cycle, which also tells whether /NMI or /IRQ may have
    /// moved since the CPU's last cycle (in this one or between the two). A bus that cannot
    /// tell says yes.
    #[inline(always)]
    fn cpu_read(&mut self, addr: u16) -> (u8, bool) {
        (self.read(addr), true)
    }
    /// [`CpuBus::write`] as the CPU's own cycle, with [`CpuBus::cpu_read`]'s answer.
    #[inline(always)]
    fn cpu_write(&mut self, addr: u16, val: u8) -> bool {
        self.write(addr, val);
        true
    }
    /// Whether a DMA halted the CPU (pulled RDY low) just before the last read.
    fn dma_halted_last_read(&self) -> bool {
        false
    }
}

/// Processor status flags.
pub mod flags {
    pub const C: u8 = 0x01;
    pub const Z: u8 = 0x02;
    pub const I: u8 = 0x04;
    pub const D: u8 = 0x08;
    /// Not a register bit: only set in the copy BRK and PHP push.
    pub const B: u8 = 0x10;
    /// Always reads as 1.
    pub const U: u8 = 0x20;
    pub const V: u8 = 0x40;
    pub const N: u8 = 0x80;
}

use crate::state::{fields, Field, StateIo};
use flags::*;
use Op::*;

const NMI_VECTOR: u16 = 0xFFFA;
const RESET_VECTOR: u16 = 0xFFFC;
const IRQ_VECTOR: u16 = 0xFFFE;

/// The three ways into the interrupt sequence, which differ only in their first cycles.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sequence {
    Brk,
    /// IRQ or NMI; the vector is chosen late, so an NMI can hijack an IRQ (or BRK).
    Hardware,
    /// The stack cycles are reads: S still drops by 3 but nothing is written.
    Reset,
}

#[derive(Clone, Debug)]
pub struct Cpu {
    pub a: u8,
    pub x: u8,
    pub y: u8,
    pub s: u8,
    /// Status register; bit 5 always set, bit 4 (B) always clear. Set from outside the
    /// program with [`Cpu::set_status`], so that the interrupt poll sees its I.
    pub p: u8,
    pub pc: u16,
    /// A JAM opcode stopped the CPU; only reset restarts it.
    pub jammed: bool,
    /// NMI line level at the end of the last cycle, for edge detection.
    nmi_level: bool,
    /// An NMI edge was detected and not yet serviced.
    nmi_pending: bool,
    /// Whether an interrupt was wanted at the end of the last cycle, and of the one before.
    poll: bool,
    prev_poll: bool,
    /// The next step runs the interrupt sequence instead of an instruction.
    interrupt_due: bool,
}

impl Field for Cpu {
    fn visit(&mut self, io: &mut StateIo) {
        let Cpu {
            a,
            x,
            y,
            s,
            p,
            pc,
            jammed,
            nmi_level,
            nmi_pending,
            poll,
            prev_poll,
            interrupt_due,
        } = self;
        fields!(
            io,
            a,
            x,
            y,
            s,
            p,
            pc,
            jammed,
            nmi_level,
            nmi_pending,
            poll,
            prev_poll,
            interrupt_due
        );
    }
}

impl Default for Cpu {
    /// The state before the power-on reset sequence, which brings S to $FD and sets I.
    fn default() -> Self {
        Cpu {
            a: 0,
            x: 0,
            y: 0,
            s: 0,
            p: U | I,
            pc: 0,
            jammed: false,
            nmi_level: false,
            nmi_pending: false,
            poll: false,
            prev_poll: false,
            interrupt_due: false,
        }
    }
}

impl Cpu {
    /// Runs the reset sequence: 7 cycles, S -= 3 without writing, I set, PC from $FFFC.
    pub fn reset<B: CpuBus>(&mut self, bus: &mut B) {
        self.jammed = false;
        self.nmi_pending = false;
        self.interrupt_due = false;
        self.read(bus, self.pc);
        self.interrupt(bus, Sequence::Reset);
    }

    /// Whether the next `step` runs the IRQ/NMI sequence instead of fetching an opcode
    /// (Lua exec hooks fire only for opcode fetches).
    pub fn interrupt_due(&self) -> bool {
        self.interrupt_due
    }

    /// No interrupt is on its way: none pending, none polled in the last two cycles, none due.
    pub fn interrupts_idle(&self) -> bool {
        !(self.nmi_pending || self.poll || self.prev_poll || self.interrupt_due)
    }

    /// Executes one instruction, or one IRQ/NMI sequence when one is due.
    pub fn step<B: CpuBus>(&mut self, bus: &mut B) {
        if self.jammed {
            // The clock keeps running; the CPU just never fetches again.
            self.read(bus, 0xFFFF);
            return;
        }
        if self.interrupt_due {
            // The fetched opcode is discarded.
            self.read(bus, self.pc);
            self.interrupt(bus, Sequence::Hardware);
        } else {
            let opcode = self.fetch(bus);
            self.execute(bus, opcode);
        }
        self.interrupt_due = self.prev_poll;
    }

    // ---- cycles ----

    #[inline(always)]
    fn read<B: CpuBus>(&mut self, bus: &mut B, addr: u16) -> u8 {
        let (val, lines_moved) = bus.cpu_read(addr);
        self.sample_interrupts(bus, lines_moved);
        val
    }

    #[inline(always)]
    fn write<B: CpuBus>(&mut self, bus: &mut B, addr: u16, val: u8) {
        let lines_moved = bus.cpu_write(addr, val);
        self.sample_interrupts(bus, lines_moved);
    }

    /// End of a cycle: the interrupt poll moves down the pipeline, and is taken again if the
    /// lines may have moved (otherwise it is the same as the last one).
    #[inline(always)]
    fn sample_interrupts<B: CpuBus>(&mut self, bus: &B, lines_moved: bool) {
        self.prev_poll = self.poll;
        if lines_moved {
            self.sense(bus);
        }
    }

    /// The NMI edge detector and the IRQ level (masked by I) sampled now: after a cycle that
    /// may have moved a line, and when I changes.
    #[inline(always)]
    fn sense<B: CpuBus>(&mut self, bus: &B) {
        let nmi = bus.nmi_line();
        self.nmi_pending |= nmi & !self.nmi_level;
        self.nmi_level = nmi;
        self.poll = self.nmi_pending | (self.p & I == 0) & bus.irq_line();
    }

    /// Sets P from outside the program (a debugger, a script); the next samples see its I.
    pub fn set_status<B: CpuBus>(&mut self, p: u8, bus: &B) {
        self.p = p;
        self.sense(bus);
    }

    #[inline(always)]
    fn fetch<B: CpuBus>(&mut self, bus: &mut B) -> u8 {
        let val = self.read(bus, self.pc);
        self.pc = self.pc.wrapping_add(1);
        val
    }

    #[inline(always)]
    fn fetch16<B: CpuBus>(&mut self, bus: &mut B) -> u16 {
        let lo = self.fetch(bus);
        u16::from_le_bytes([lo, self.fetch(bus)])
    }

    /// A 16-bit pointer in zero page; the high byte wraps within the page.
    #[inline(always)]
    fn read_zp16<B: CpuBus>(&mut self, bus: &mut B, ptr: u8) -> u16 {
        let lo = self.read(bus, u16::from(ptr));
        u16::from_le_bytes([lo, self.read(bus, u16::from(ptr.wrapping_add(1)))])
    }

    #[inline(always)]
    fn push<B: CpuBus>(&mut self, bus: &mut B, val: u8) {
        self.write(bus, 0x100 | u16::from(self.s), val);
        self.s = self.s.wrapping_sub(1);
    }

    #[inline(always)]
    fn pull<B: CpuBus>(&mut self, bus: &mut B) -> u8 {
        self.s = self.s.wrapping_add(1);
        self.read(bus, 0x100 | u16::from(self.s))
    }

    /// The cycle in which S is incremented before a pull: a read of the current stack slot.
    #[inline(always)]
    fn stack_dummy_read<B: CpuBus>(&mut self, bus: &mut B) {
        self.read(bus, 0x100 | u16::from(self.s));
    }

    // ---- addressing ----

    /// Effective address of a memory operand, with the mode's dummy reads. Writes and
    /// read-modify-writes always spend the indexed fix-up cycle; reads only on a page cross.
    #[inline(always)]
    fn address<B: CpuBus>(&mut self, bus: &mut B, mode: Mode, always_fix_up: bool) -> u16 {
        match mode {
            Mode::Imm => {
                let addr = self.pc;
                self.pc = self.pc.wrapping_add(1);
                addr
            }
            Mode::Zp => u16::from(self.fetch(bus)),
            Mode::ZpX | Mode::ZpY => {
                let base = self.fetch(bus);
                self.read(bus, u16::from(base));
                let index = if mode == Mode::ZpX { self.x } else { self.y };
                u16::from(base.wrapping_add(index))
            }
            Mode::Abs => self.fetch16(bus),
            Mode::AbsX | Mode::AbsY => {
                let base = self.fetch16(bus);
                let index = if mode == Mode::AbsX { self.x } else { self.y };
                self.indexed(bus, base, index, always_fix_up)
            }
            Mode::IzX => {
                let ptr = self.fetch(bus);
                self.read(bus, u16::from(ptr));
                self.read_zp16(bus, ptr.wrapping_add(self.x))
            }
            Mode::IzY => {
                let ptr = self.fetch(bus);
                let base = self.read_zp16(bus, ptr);
                self.indexed(bus, base, self.y, always_fix_up)
            }
            Mode::Imp | Mode::Acc | Mode::Ind | Mode::Rel => {
                unreachable!("{mode:?} has no memory operand")
            }
        }
    }

    /// base + index; the fix-up cycle reads the address before the carry reached the high byte.
    #[inline(always)]
    fn indexed<B: CpuBus>(&mut self, bus: &mut B, base: u16, index: u8, fix_up: bool) -> u16 {
        let addr = base.wrapping_add(u16::from(index));
        let uncarried = (base & 0xFF00) | (addr & 0x00FF);
        if fix_up || uncarried != addr {
            self.read(bus, uncarried);
        }
        addr
    }

    // ---- instructions ----

    /// One arm per opcode, each a function of its own ([`Cpu::execute_opcode`]).
    #[inline(always)]
    fn execute<B: CpuBus>(&mut self, bus: &mut B, opcode: u8) {
        macro_rules! arms {
            ($($code:literal)*) => {
                match opcode {
                    $($code => self.execute_opcode::<$code, B>(bus),)*
                }
            };
        }
        arms! {
            0x00 0x01 0x02 0x03 0x04 0x05 0x06 0x07 0x08 0x09 0x0A 0x0B 0x0C 0x0D 0x0E 0x0F
            0x10 0x11 0x12 0x13 0x14 0x15 0x16 0x17 0x18 0x19 0x1A 0x1B 0x1C 0x1D 0x1E 0x1F
            0x20 0x21 0x22 0x23 0x24 0x25 0x26 0x27 0x28 0x29 0x2A 0x2B 0x2C 0x2D 0x2E 0x2F
            0x30 0x31 0x32 0x33 0x34 0x35 0x36 0x37 0x38 0x39 0x3A 0x3B 0x3C 0x3D 0x3E 0x3F
            0x40 0x41 0x42 0x43 0x44 0x45 0x46 0x47 0x48 0x49 0x4A 0x4B 0x4C 0x4D 0x4E 0x4F
            0x50 0x51 0x52 0x53 0x54 0x55 0x56 0x57 0x58 0x59 0x5A 0x5B 0x5C 0x5D 0x5E 0x5F
            0x60 0x61 0x62 0x63 0x64 0x65 0x66 0x67 0x68 0x69 0x6A 0x6B 0x6C 0x6D 0x6E 0x6F
            0x70 0x71 0x72 0x73 0x74 0x75 0x76 0x77 0x78 0x79 0x7A 0x7B 0x7C 0x7D 0x7E 0x7F
            0x80 0x81 0x82 0x83 0x84 0x85 0x86 0x87 0x88 0x89 0x8A 0x8B 0x8C 0x8D 0x8E 0x8F
            0x90 0x91 0x92 0x93 0x94 0x95 0x96 0x97 0x98 0x99 0x9A 0x9B 0x9C 0x9D 0x9E 0x9F
            0xA0 0xA1 0xA2 0xA3 0xA4 0xA5 0xA6 0xA7 0xA8 0xA9 0xAA 0xAB 0xAC 0xAD 0xAE 0xAF
            0xB0 0xB1 0xB2 0xB3 0xB4 0xB5 0xB6 0xB7 0xB8 0xB9 0xBA 0xBB 0xBC 0xBD 0xBE 0xBF
            0xC0 0xC1 0xC2 0xC3 0xC4 0xC5 0xC6 0xC7 0xC8 0xC9 0xCA 0xCB 0xCC 0xCD 0xCE 0xCF
            0xD0 0xD1 0xD2 0xD3 0xD4 0xD5 0xD6 0xD7 0xD8 0xD9 0xDA 0xDB 0xDC 0xDD 0xDE 0xDF
            0xE0 0xE1 0xE2 0xE3 0xE4 0xE5 0xE6 0xE7 0xE8 0xE9 0xEA 0xEB 0xEC 0xED 0xEE 0xEF
            0xF0 0xF1 0xF2 0xF3 0xF4 0xF5 0xF6 0xF7 0xF8 0xF9 0xFA 0xFB 0xFC 0xFD 0xFE 0xFF
        }
    }

    /// One opcode's instruction, with its operation and mode as constants, so that the matches
    /// on them in [`Cpu::execute_as`] and the functions it inlines fold away; on its own, it
    /// saves only the registers its instruction needs.
    #[inline(never)]
    fn execute_opcode<const OPCODE: u8, B: CpuBus>(&mut self, bus: &mut B) {
        let (op, mode) = const { OPCODES[OPCODE as usize] };
        self.execute_as(bus, op, mode)
    }

    #[inline(always)]
    fn execute_as<B: CpuBus>(&mut self, bus: &mut B, op: Op, mode: Mode) {
        match op {
            BRK => self.interrupt(bus, Sequence::Brk),
            JSR => {
                let lo = self.fetch(bus);
                self.stack_dummy_read(bus);
                self.push(bus, (self.pc >> 8) as u8);
                self.push(bus, self.pc as u8);
                let hi = self.read(bus, self.pc);
                self.pc = u16::from_le_bytes([lo, hi]);
            }
            RTI => {
                self.read(bus, self.pc);
                self.stack_dummy_read(bus);
                let p = self.pull(bus);
                self.set_p(p);
                self.sense(bus);
                let lo = self.pull(bus);
                self.pc = u16::from_le_bytes([lo, self.pull(bus)]);
            }
            RTS => {
                self.read(bus, self.pc);
                self.stack_dummy_read(bus);
                let lo = self.pull(bus);
                self.pc = u16::from_le_bytes([lo, self.pull(bus)]);
                self.fetch(bus);
            }
            PHA | PHP => {
                self.read(bus, self.pc);
                let val = if op == PHA { self.a } else { self.p | B | U };
                self.push(bus, val);
            }
            PLA | PLP => {
                self.read(bus, self.pc);
                self.stack_dummy_read(bus);
                let val = self.pull(bus);
                if op == PLA {
                    self.a = self.set_nz(val);
                } else {
                    self.set_p(val);
                    self.sense(bus);
                }
            }
            JMP => {
                let target = self.fetch16(bus);
                self.pc = if mode == Mode::Abs {
                    target
                } else {
                    // The pointer's high byte is fetched without carrying into its page.
                    let lo = self.read(bus, target);
                    let hi_addr = (target & 0xFF00) | (target.wrapping_add(1) & 0x00FF);
                    u16::from_le_bytes([lo, self.read(bus, hi_addr)])
                };
            }
            JAM => self.jammed = true,
            BPL | BMI | BVC | BVS | BCC | BCS | BNE | BEQ => {
                let taken = self.branch_condition(op);
                self.branch(bus, taken);
            }
            STA | STX | STY | SAX => {
                let addr = self.address(bus, mode, true);
                let val = match op {
                    STA => self.a,
                    STX => self.x,
                    STY => self.y,
                    _ => self.a & self.x,
                };
                self.write(bus, addr, val);
            }
            SHA | SHX | SHY | TAS => self.unstable_store(bus, op, mode),
            ASL | LSR | ROL | ROR | INC | DEC | SLO | SRE | RLA | RRA | DCP | ISC => {
                if mode == Mode::Acc {
                    self.read(bus, self.pc);
                    self.a = self.modify(op, self.a);
                } else {
                    let addr = self.address(bus, mode, true);
                    let old = self.read(bus, addr);
                    // The unmodified value is written back while the ALU works.
                    self.write(bus, addr, old);
                    let new = self.modify(op, old);
                    self.write(bus, addr, new);
                }
            }
            _ if mode == Mode::Imp => {
                self.read(bus, self.pc);
                self.implied(op);
                if matches!(op, CLI | SEI) {
                    self.sense(bus);
                }
            }
            _ => {
                let addr = self.address(bus, mode, false);
                let val = self.read(bus, addr);
                self.compute(op, val);
            }
        }
    }

    /// BRK, IRQ, NMI and reset from their second cycle on.
    fn interrupt<B: CpuBus>(&mut self, bus: &mut B, seq: Sequence) {
        if seq == Sequence::Brk {
            // BRK skips the byte after its opcode.
            self.fetch(bus);
        } else {
            self.read(bus, self.pc);
        }
        if seq == Sequence::Reset {
            for _ in 0..3 {
                self.stack_dummy_read(bus);
                self.s = self.s.wrapping_sub(1);
            }
            self.p |= I;
        } else {
            self.push(bus, (self.pc >> 8) as u8);
            self.push(bus, self.pc as u8);
        }
        // The vector is chosen here, so an NMI seen by now takes over an IRQ or BRK.
        let vector = if seq == Sequence::Reset {
            RESET_VECTOR
        } else if self.nmi_pending {
            self.nmi_pending = false;
            NMI_VECTOR
        } else {
            IRQ_VECTOR
        };
        if seq != Sequence::Reset {
            let b = if seq == Sequence::Brk { B } else { 0 };
            self.push(bus, self.p | b | U);
            self.p |= I;
        }
        self.sense(bus);
        let lo = self.read(bus, vector);
        self.pc = u16::from_le_bytes([lo, self.read(bus, vector + 1)]);
        // The sequence does not poll at its end: the handler's first instruction always runs.
        self.prev_poll = false;
    }

    #[inline(always)]
    fn branch_condition(&self, op: Op) -> bool {
        let flag = |f: u8| self.p & f != 0;
        match op {
            BPL => !flag(N),
            BMI => flag(N),
            BVC => !flag(V),
            BVS => flag(V),
            BCC => !flag(C),
            BCS => flag(C),
            BNE => !flag(Z),
            _ => flag(Z),
        }
    }

    #[inline(always)]
    fn branch<B: CpuBus>(&mut self, bus: &mut B, taken: bool) {
        let offset = self.fetch(bus) as i8;
        if !taken {
            return;
        }
        // Interrupts are polled before the operand fetch and, on a page cross, again before
        // the fix-up cycle; either poll counts. A taken branch that stays in its page does not
        // poll again, so an interrupt arriving now waits one more instruction.
        let poll_before_operand = self.prev_poll;
        self.read(bus, self.pc);
        let target = self.pc.wrapping_add(offset as u16);
        let uncarried = (self.pc & 0xFF00) | (target & 0x00FF);
        if uncarried == target {
            self.prev_poll = poll_before_operand;
        } else {
            self.read(bus, uncarried);
            self.prev_poll |= poll_before_operand;
        }
        self.pc = target;
    }

    /// SHA, SHX, SHY, TAS: the stored value is ANDed with the base address's high byte + 1,
    /// and on a page cross that value also replaces the high byte of the address. When a DMA
    /// halts the CPU on the cycle before the write, the high-byte term drops out.
    #[inline(always)]
    fn unstable_store<B: CpuBus>(&mut self, bus: &mut B, op: Op, mode: Mode) {
        let (base, index) = match mode {
            Mode::AbsX => (self.fetch16(bus), self.x),
            Mode::AbsY => (self.fetch16(bus), self.y),
            _ => {
                let ptr = self.fetch(bus);
                (self.read_zp16(bus, ptr), self.y)
            }
        };
        let addr = base.wrapping_add(u16::from(index));
        let uncarried = (base & 0xFF00) | (addr & 0x00FF);
        self.read(bus, uncarried);
        let high_term = if bus.dma_halted_last_read() {
            0xFF
        } else {
            ((base >> 8) as u8).wrapping_add(1)
        };
        let reg = match op {
            SHA => self.a & self.x,
            SHX => self.x,
            SHY => self.y,
            _ => {
                self.s = self.a & self.x;
                self.s
            }
        };
        let val = reg & high_term;
        let addr = if addr == uncarried {
            addr
        } else {
            (u16::from(val) << 8) | (addr & 0x00FF)
        };
        self.write(bus, addr, val);
    }

    /// One-byte instructions that only touch registers.
    #[inline(always)]
    fn implied(&mut self, op: Op) {
        match op {
            CLC => self.p &= !C,
            SEC => self.p |= C,
            CLI => self.p &= !I,
            SEI => self.p |= I,
            CLV => self.p &= !V,
            CLD => self.p &= !D,
            SED => self.p |= D,
            INX => self.x = self.set_nz(self.x.wrapping_add(1)),
            INY => self.y = self.set_nz(self.y.wrapping_add(1)),
            DEX => self.x = self.set_nz(self.x.wrapping_sub(1)),
            DEY => self.y = self.set_nz(self.y.wrapping_sub(1)),
            TAX => self.x = self.set_nz(self.a),
            TAY => self.y = self.set_nz(self.a),
            TXA => self.a = self.set_nz(self.x),
            TYA => self.a = self.set_nz(self.y),
            TSX => self.x = self.set_nz(self.s),
            TXS => self.s = self.x,
            NOP => {}
            _ => unreachable!("{op:?} is not implied"),
        }
    }

    /// Instructions that read one operand byte.
    #[inline(always)]
    fn compute(&mut self, op: Op, val: u8) {
        match op {
            LDA => self.a = self.set_nz(val),
            LDX => self.x = self.set_nz(val),
            LDY => self.y = self.set_nz(val),
            LAX => {
                self.a = self.set_nz(val);
                self.x = val;
            }
            AND => self.a = self.set_nz(self.a & val),
            ORA => self.a = self.set_nz(self.a | val),
            EOR => self.a = self.set_nz(self.a ^ val),
            ADC => self.adc(val),
            SBC => self.adc(!val),
            CMP => self.compare(self.a, val),
            CPX => self.compare(self.x, val),
            CPY => self.compare(self.y, val),
            BIT => {
                self.set_flag(Z, self.a & val == 0);
                self.p = (self.p & !(N | V)) | (val & (N | V));
            }
            NOP => {}
            LAS => {
                self.s &= val;
                self.a = self.set_nz(self.s);
                self.x = self.s;
            }
            ANC => {
                self.a = self.set_nz(self.a & val);
                self.set_flag(C, self.a & 0x80 != 0);
            }
            ALR => {
                let anded = self.a & val;
                self.a = self.modify(LSR, anded);
            }
            ARR => {
                let anded = self.a & val;
                self.a = self.set_nz((anded >> 1) | ((self.p & C) << 7));
                self.set_flag(C, self.a & 0x40 != 0);
                self.set_flag(V, ((self.a >> 6) ^ (self.a >> 5)) & 1 != 0);
            }
            AXS => {
                let anded = self.a & self.x;
                self.set_flag(C, anded >= val);
                self.x = self.set_nz(anded.wrapping_sub(val));
            }
            // The NES's 2A03 behaves as if the unstable "magic" term were $EE (ANE) / $FF (LXA).
            ANE => self.a = self.set_nz((self.a | 0xEE) & self.x & val),
            LXA => {
                self.a = self.set_nz((self.a | 0xFF) & val);
                self.x = self.a;
            }
            _ => unreachable!("{op:?} does not read an operand"),
        }
    }

    /// The ALU part of the read-modify-write instructions; returns the value written back.
    #[inline(always)]
    fn modify(&mut self, op: Op, val: u8) -> u8 {
        let carry_in = self.p & C;
        let (result, carry_out) = match op {
            ASL | SLO => (val << 1, val >> 7),
            LSR | SRE => (val >> 1, val & 1),
            ROL | RLA => ((val << 1) | carry_in, val >> 7),
            ROR | RRA => ((val >> 1) | (carry_in << 7), val & 1),
            INC | ISC => (val.wrapping_add(1), carry_in),
            _ => (val.wrapping_sub(1), carry_in),
        };
        self.set_flag(C, carry_out != 0);
        self.set_nz(result);
        match op {
            SLO => self.compute(ORA, result),
            SRE => self.compute(EOR, result),
            RLA => self.compute(AND, result),
            RRA => self.compute(ADC, result),
            DCP => self.compute(CMP, result),
            ISC => self.compute(SBC, result),
            _ => {}
        }
        result
    }

    #[inline(always)]
    fn adc(&mut self, val: u8) {
        let sum = u16::from(self.a) + u16::from(val) + u16::from(self.p & C);
        let result = sum as u8;
        self.set_flag(C, sum > 0xFF);
        self.set_flag(V, (self.a ^ result) & (val ^ result) & 0x80 != 0);
        self.a = self.set_nz(result);
    }

    #[inline(always)]
    fn compare(&mut self, reg: u8, val: u8) {
        self.set_flag(C, reg >= val);
        self.set_nz(reg.wrapping_sub(val));
    }

    // ---- flags ----

    #[inline(always)]
    fn set_flag(&mut self, flag: u8, on: bool) {
        if on {
            self.p |= flag;
        } else {
            self.p &= !flag;
        }
    }

    /// Sets N and Z from `val` and returns it.
    #[inline(always)]
    fn set_nz(&mut self, val: u8) -> u8 {
        self.set_flag(Z, val == 0);
        self.set_flag(N, val & 0x80 != 0);
        val
    }

    /// P as pulled by PLP and RTI: B does not exist in the register, bit 5 is always set.
    fn set_p(&mut self, val: u8) {
        self.p = (val & !B) | U;
    }
}

#[cfg(test)]
mod tests;
