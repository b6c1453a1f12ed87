//! The bus keeps the /NMI and /IRQ lines as its last full cycle left them, because a quiet
//! cycle only counts and cannot move them. After every instruction (whose last cycles may have
//! been quiet ones) the kept lines must be the ones the PPU, the APU and the cartridge drive.
//! The CPU samples them only after the cycles the bus says may have moved them: it must run as
//! it does sampling them after every cycle.

use nes::bus::Bus;
use nes::cpu::CpuBus;
use nes::{Buttons, Console};
use testrom::location::path as test_rom;

/// The ROMs that drive the lines, with the frames to run and the lines each drives: /NMI from
/// VBlank, /IRQ from the APU's frame counter and DMC or from MMC3's counter.
const DRIVERS: [(&str, u64, [bool; 2]); 9] = [
    ("cpu_interrupts_v2/cpu_interrupts.nes", 200, [true, true]),
    ("apu_test/rom_singles/3-irq_flag.nes", 60, [false, true]),
    ("apu_test/rom_singles/7-dmc_basics.nes", 100, [false, true]),
    (
        "mmc3_test_2/rom_singles/4-scanline_timing.nes",
        100,
        [false, true],
    ),
    ("mmc3_test_2/rom_singles/5-MMC3.nes", 60, [false, true]),
    (
        "holydiverbatman/testroms/M4_P256K_C256K.nes",
        60,
        [false, true],
    ),
    (
        "ppu_vbl_nmi/rom_singles/04-nmi_control.nes",
        60,
        [true, false],
    ),
    (
        "ppu_vbl_nmi/rom_singles/07-nmi_on_timing.nes",
        200,
        [true, false],
    ),
    ("AccuracyCoin/AccuracyCoin.nes", 400, [true, true]),
];

fn power_on(path: &str) -> Console {
    let path = test_rom(path);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Console::from_ines(&bytes).expect("a valid ROM")
}

/// Start held on frames 60 and 61 (AccuracyCoin runs its tests).
fn press_start(console: &mut Console) {
    let start = (60..62).contains(&console.frame_number());
    console.set_buttons(0, Buttons(if start { Buttons::START } else { 0 }));
}

/// Steps `frames` frames of the ROM instruction by instruction, holding Start on frames 60 and
/// 61; returns the instructions after which each line was asserted.
fn check(path: &str, frames: u64) -> [u64; 2] {
    let mut console = power_on(path);
    let mut asserted = [0; 2];
    while console.frame_number() < frames {
        press_start(&mut console);
        console.step();
        let bus = &console.bus;
        let devices = (bus.ppu.nmi_line(), bus.apu.irq_line() || bus.cart.irq());
        assert_eq!(
            (bus.nmi_line(), bus.irq_line()),
            devices,
            "{path} at CPU cycle {}",
            bus.cycles
        );
        asserted[0] += u64::from(devices.0);
        asserted[1] += u64::from(devices.1);
    }
    asserted
}

#[test]
fn kept_lines_are_the_devices_lines() {
    for (path, frames, lines) in DRIVERS {
        let asserted = check(path, frames);
        for (line, (&driven, &count)) in ["/NMI", "/IRQ"].iter().zip(lines.iter().zip(&asserted)) {
            assert!(!driven || count > 0, "{path}: {line} never asserted");
        }
    }
}

#[test]
fn an_untimed_write_moves_the_kept_nmi_line() {
    let bytes = std::fs::read(test_rom("nestest/nestest.nes")).expect("nestest");
    let mut console = Console::from_ines(&bytes).expect("a valid ROM");
    // Into VBlank with NMIs off (the menu's loop does not read $2002).
    console.run_frame();
    console.write(0x2000, 0x00);
    assert!(!console.bus.nmi_line());
    while (console.bus.ppu.scanline, console.bus.ppu.dot) < (241, 2) {
        console.step();
    }
    console.write(0x2000, 0x80);
    assert!(console.bus.nmi_line(), "NMI enabled in VBlank");
    console.write(0x2000, 0x00);
    assert!(!console.bus.nmi_line(), "NMI disabled again");
}

/// The bus as a bus that cannot tell when the lines move: [`CpuBus::cpu_read`] and
/// [`CpuBus::cpu_write`] say they may have after every cycle, so the CPU samples them after
/// every cycle.
struct EveryCycle<'a>(&'a mut Bus);

impl CpuBus for EveryCycle<'_> {
    fn read(&mut self, addr: u16) -> u8 {
        self.0.read(addr)
    }
    fn write(&mut self, addr: u16, val: u8) {
        self.0.write(addr, val);
    }
    fn nmi_line(&self) -> bool {
        self.0.nmi_line()
    }
    fn irq_line(&self) -> bool {
        self.0.irq_line()
    }
    fn dma_halted_last_read(&self) -> bool {
        self.0.dma_halted_last_read()
    }
}

#[test]
fn sampling_where_the_lines_can_move_matches_sampling_every_cycle() {
    for (path, frames, _) in DRIVERS {
        let mut console = power_on(path);
        let mut reference = power_on(path);
        while console.frame_number() < frames {
            press_start(&mut console);
            press_start(&mut reference);
            console.step();
            reference.cpu.step(&mut EveryCycle(&mut reference.bus));
            reference.bus.catch_up();
            let state = |c: &Console| {
                let cpu = &c.cpu;
                let pending = (cpu.interrupt_due(), cpu.interrupts_idle());
                (
                    c.cycles(),
                    cpu.pc,
                    cpu.a,
                    cpu.x,
                    cpu.y,
                    cpu.p,
                    cpu.s,
                    pending,
                )
            };
            assert_eq!(state(&console), state(&reference), "{path}");
        }
        assert_eq!(console.ram(), reference.ram(), "{path}");
        assert_eq!(console.frame_buffer(), reference.frame_buffer(), "{path}");
    }
}
