//! The CPU's address space and the one place where time advances.
//!
//! $0000-$1FFF 2 KiB RAM (mirrored), $2000-$3FFF PPU registers (mirrored every 8),
//! $4000-$4017 APU and I/O, $4018-$401F test mode (open bus), $4020-$FFFF cartridge.

use crate::apu::Apu;
use crate::cartridge::Cartridge;
use crate::controller::Controller;
use crate::cpu::CpuBus;
use crate::ppu::Ppu;

#[derive(Clone)]
pub struct Bus {
    pub ram: [u8; 0x800],
    pub ppu: Ppu,
    pub apu: Apu,
    pub cart: Cartridge,
    pub pads: [Controller; 2],
    /// CPU cycles since power-on.
    pub cycles: u64,
    /// The data-bus latch: what a read of an undriven address returns.
    pub open_bus: u8,
}

impl Bus {
    pub fn new(cart: Cartridge) -> Bus {
        Bus {
            ram: [0; 0x800],
            ppu: Ppu::default(),
            apu: Apu::default(),
            cart,
            pads: Default::default(),
            cycles: 0,
            open_bus: 0,
        }
    }

    /// One CPU cycle of everything else: three PPU dots and one APU cycle.
    fn tick(&mut self) {
        self.cycles += 1;
        self.cart.cpu_clock();
        for _ in 0..3 {
            self.ppu.step(&mut self.cart);
        }
        self.apu.step();
    }

    fn read_mem(&mut self, addr: u16) -> u8 {
        match addr {
            0x0000..=0x1FFF => self.ram[usize::from(addr & 0x7FF)],
            0x2000..=0x3FFF => self.ppu.read_register(addr & 7, &mut self.cart),
            0x4015 => self.apu.read_status() | (self.open_bus & 0x20),
            0x4016 | 0x4017 => {
                let port = usize::from(addr & 1);
                // Only D0-D4 are driven; the upper bits keep the open-bus value.
                (self.open_bus & 0xE0) | self.pads[port].read()
            }
            0x4000..=0x401F => self.open_bus,
            _ => self.cart.cpu_read(addr).unwrap_or(self.open_bus),
        }
    }

    fn write_mem(&mut self, addr: u16, val: u8) {
        match addr {
            0x0000..=0x1FFF => self.ram[usize::from(addr & 0x7FF)] = val,
            0x2000..=0x3FFF => self.ppu.write_register(addr & 7, val, &mut self.cart),
            0x4016 => {
                for pad in &mut self.pads {
                    pad.write_strobe(val & 1 != 0);
                }
            }
            0x4000..=0x4017 => self.apu.write_register(addr, val),
            0x4018..=0x401F => {}
            _ => self.cart.cpu_write(addr, val, self.cycles),
        }
    }

    /// What a CPU read would return, with no side effect on any device.
    pub fn peek(&self, addr: u16) -> u8 {
        match addr {
            0x0000..=0x1FFF => self.ram[usize::from(addr & 0x7FF)],
            0x2000..=0x3FFF => self.ppu.peek_register(addr & 7, &self.cart),
            0x4015 => self.apu.peek_status() | (self.open_bus & 0x20),
            0x4016 | 0x4017 => (self.open_bus & 0xE0) | self.pads[usize::from(addr & 1)].peek(),
            0x4000..=0x401F => self.open_bus,
            _ => self.cart.cpu_peek(addr).unwrap_or(self.open_bus),
        }
    }

    /// A write with its side effects (registers, mappers) but taking no CPU time.
    pub fn write_untimed(&mut self, addr: u16, val: u8) {
        self.write_mem(addr, val);
    }
}

impl CpuBus for Bus {
    fn read(&mut self, addr: u16) -> u8 {
        self.tick();
        let val = self.read_mem(addr);
        self.open_bus = val;
        val
    }

    fn write(&mut self, addr: u16, val: u8) {
        self.tick();
        self.open_bus = val;
        self.write_mem(addr, val);
    }

    fn nmi_line(&self) -> bool {
        self.ppu.nmi_line()
    }

    fn irq_line(&self) -> bool {
        self.apu.irq_line() || self.cart.irq()
    }
}
