//! Cycle-level checks of the CPU against a flat 64 KiB bus that logs every access.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    R(u16),
    W(u16, u8),
}
use Access::{R, W};

struct TestBus {
    mem: Vec<u8>,
    log: Vec<Access>,
    /// The NMI line is asserted from this cycle on (cycles count from 1).
    nmi_from: Option<usize>,
    irq_from: Option<usize>,
}

impl TestBus {
    /// Program at $8000, reset vector $8000, IRQ/BRK handler $9000, NMI handler $A000.
    fn new(program: &[u8]) -> TestBus {
        let mut mem = vec![0xEA; 0x10000]; // NOPs everywhere
        mem[..0x800].fill(0);
        mem[0x8000..0x8000 + program.len()].copy_from_slice(program);
        mem[0xFFFA..].copy_from_slice(&[0x00, 0xA0, 0x00, 0x80, 0x00, 0x90]);
        TestBus {
            mem,
            log: Vec::new(),
            nmi_from: None,
            irq_from: None,
        }
    }

    fn line(&self, from: Option<usize>) -> bool {
        from.is_some_and(|c| self.log.len() >= c)
    }
}

impl CpuBus for TestBus {
    fn read(&mut self, addr: u16) -> u8 {
        self.log.push(R(addr));
        self.mem[usize::from(addr)]
    }
    fn write(&mut self, addr: u16, val: u8) {
        self.log.push(W(addr, val));
        self.mem[usize::from(addr)] = val;
    }
    fn nmi_line(&self) -> bool {
        self.line(self.nmi_from)
    }
    fn irq_line(&self) -> bool {
        self.line(self.irq_from)
    }
}

/// A CPU after reset at $8000, with the reset cycles cleared from the log.
fn boot(program: &[u8]) -> (Cpu, TestBus) {
    let mut bus = TestBus::new(program);
    let mut cpu = Cpu::default();
    cpu.reset(&mut bus);
    bus.log.clear();
    (cpu, bus)
}

#[test]
fn power_on_reset_suppresses_stack_writes() {
    let mut bus = TestBus::new(&[]);
    let mut cpu = Cpu::default();
    cpu.reset(&mut bus);
    assert_eq!(
        bus.log,
        [
            R(0),
            R(0),
            R(0x100),
            R(0x1FF),
            R(0x1FE),
            R(0xFFFC),
            R(0xFFFD)
        ]
    );
    assert_eq!((cpu.pc, cpu.s, cpu.p, cpu.a), (0x8000, 0xFD, 0x24, 0));
}

#[test]
fn read_modify_write_writes_twice() {
    let (mut cpu, mut bus) = boot(&[0xE6, 0x10]); // INC $10
    bus.mem[0x10] = 0x41;
    cpu.step(&mut bus);
    assert_eq!(
        bus.log,
        [R(0x8000), R(0x8001), R(0x10), W(0x10, 0x41), W(0x10, 0x42)]
    );
}

#[test]
fn indexed_read_pays_only_on_page_cross() {
    // LDX #1; LDA $10FF,X; LDA $1000,X
    let (mut cpu, mut bus) = boot(&[0xA2, 0x01, 0xBD, 0xFF, 0x10, 0xBD, 0x00, 0x10]);
    cpu.step(&mut bus);
    bus.log.clear();
    cpu.step(&mut bus);
    assert_eq!(
        bus.log,
        [R(0x8002), R(0x8003), R(0x8004), R(0x1000), R(0x1100)]
    );
    bus.log.clear();
    cpu.step(&mut bus);
    assert_eq!(bus.log, [R(0x8005), R(0x8006), R(0x8007), R(0x1001)]);
}

#[test]
fn indexed_store_always_reads_the_uncarried_address() {
    // LDY #$10; STA ($F0),Y with ($F0) = $20F8
    let (mut cpu, mut bus) = boot(&[0xA0, 0x10, 0x91, 0xF0]);
    bus.mem[0xF0..0xF2].copy_from_slice(&[0xF8, 0x20]);
    cpu.step(&mut bus);
    bus.log.clear();
    cpu.step(&mut bus);
    assert_eq!(
        bus.log,
        [
            R(0x8002),
            R(0x8003),
            R(0xF0),
            R(0xF1),
            R(0x2008),
            W(0x2108, 0)
        ]
    );
}

#[test]
fn shx_page_cross_corrupts_the_high_byte() {
    // LDX #$01; LDY #$FF; SHX $12F0,Y -> value X & $13 = $01, address $01EF
    let (mut cpu, mut bus) = boot(&[0xA2, 0x01, 0xA0, 0xFF, 0x9E, 0xF0, 0x12]);
    cpu.step(&mut bus);
    cpu.step(&mut bus);
    bus.log.clear();
    cpu.step(&mut bus);
    assert_eq!(bus.log.last(), Some(&W(0x01EF, 0x01)));
}

#[test]
fn cli_takes_effect_after_the_next_instruction() {
    // CLI; NOP; NOP with IRQ asserted throughout.
    let (mut cpu, mut bus) = boot(&[0x58, 0xEA, 0xEA]);
    bus.irq_from = Some(0);
    cpu.step(&mut bus); // CLI
    cpu.step(&mut bus); // NOP still runs
    assert_eq!(cpu.pc, 0x8002);
    cpu.step(&mut bus); // IRQ sequence
    assert_eq!(cpu.pc, 0x9000);
    assert_eq!(bus.mem[0x1FB], 0x20, "pushed P has I and B clear");
}

#[test]
fn nmi_late_in_brk_hijacks_the_vector() {
    let (mut cpu, mut bus) = boot(&[0x00, 0x00]); // BRK
    bus.nmi_from = Some(4); // asserted during the PCL push
    cpu.step(&mut bus);
    assert_eq!(cpu.pc, 0xA000);
    assert_eq!(bus.mem[0x1FB] & flags::B, flags::B, "BRK's B bit survives");
    // The NMI was consumed: the handler runs instead of a second interrupt.
    cpu.step(&mut bus);
    assert_eq!(cpu.pc, 0xA001);
}

#[test]
fn taken_branch_without_page_cross_delays_an_interrupt() {
    // SEC; BCS +0; NOP; NOP; IRQ enabled, asserted on the branch's last cycle.
    let (mut cpu, mut bus) = boot(&[0x38, 0xB0, 0x00, 0xEA, 0xEA]);
    cpu.p &= !flags::I;
    cpu.step(&mut bus);
    bus.irq_from = Some(bus.log.len() + 2);
    cpu.step(&mut bus); // BCS, 3 cycles
    cpu.step(&mut bus); // NOP runs before the IRQ
    assert_eq!(cpu.pc, 0x8004);
    cpu.step(&mut bus);
    assert_eq!(cpu.pc, 0x9000);
}

#[test]
fn jam_halts_until_reset() {
    let (mut cpu, mut bus) = boot(&[0x02]);
    cpu.step(&mut bus);
    cpu.step(&mut bus);
    cpu.step(&mut bus);
    assert!(cpu.jammed);
    assert_eq!(cpu.pc, 0x8001);
    cpu.reset(&mut bus);
    assert!(!cpu.jammed);
    assert_eq!((cpu.pc, cpu.s), (0x8000, 0xFA));
}
