//! Memory hooks: which addresses scripts watch, and the bus wrapper that notices accesses to them.
//!
//! The CPU is generic over its bus, so the host steps it through [`Watched`], which delegates to
//! the console's bus and calls the hook right after each watched access, in the middle of the
//! instruction as FCEUX does. Without scripts nothing of this exists.

use nes::cpu::CpuBus;
use nes::Console;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Read,
    Write,
    Exec,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Read, Kind::Write, Kind::Exec];

    /// Registry table holding this kind's callbacks, keyed by address.
    pub fn table(self) -> &'static str {
        match self {
            Kind::Read => "nestor.hooks.read",
            Kind::Write => "nestor.hooks.write",
            Kind::Exec => "nestor.hooks.exec",
        }
    }
}

/// One bit per CPU address.
#[derive(Clone)]
pub struct Bitmap(Box<[u64; 1024]>);

impl Default for Bitmap {
    fn default() -> Self {
        Bitmap(Box::new([0; 1024]))
    }
}

impl Bitmap {
    #[inline]
    pub fn get(&self, addr: u16) -> bool {
        self.0[usize::from(addr >> 6)] & (1 << (addr & 63)) != 0
    }

    pub fn set(&mut self, addr: u16, on: bool) {
        let word = &mut self.0[usize::from(addr >> 6)];
        if on {
            *word |= 1 << (addr & 63);
        } else {
            *word &= !(1 << (addr & 63));
        }
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|&word| word == 0)
    }

    fn union(&mut self, other: &Bitmap) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a |= b;
        }
    }
}

#[derive(Clone, Default)]
pub struct Watch {
    pub read: Bitmap,
    pub write: Bitmap,
    pub exec: Bitmap,
}

impl Watch {
    pub fn of(&self, kind: Kind) -> &Bitmap {
        match kind {
            Kind::Read => &self.read,
            Kind::Write => &self.write,
            Kind::Exec => &self.exec,
        }
    }

    pub fn of_mut(&mut self, kind: Kind) -> &mut Bitmap {
        match kind {
            Kind::Read => &mut self.read,
            Kind::Write => &mut self.write,
            Kind::Exec => &mut self.exec,
        }
    }

    pub fn is_empty(&self) -> bool {
        Kind::ALL.iter().all(|&kind| self.of(kind).is_empty())
    }

    pub fn union(&mut self, other: &Watch) {
        for kind in Kind::ALL {
            self.of_mut(kind).union(other.of(kind));
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Access {
    pub kind: Kind,
    pub addr: u16,
    pub value: u8,
}

/// The bus as the CPU sees it while scripts run. The CPU steps on a copy of its registers, so
/// that the hook can be lent the whole console.
pub struct Watched<'a> {
    pub console: &'a mut Console,
    pub watch: &'a Watch,
    pub hook: &'a mut dyn FnMut(&mut Console, Access),
    /// An exec hook moved PC: the opcode is still fetched from here (FCEUX had fetched it before
    /// calling the hook), its operands from the new PC + 1.
    pub fetch_from: Option<u16>,
}

impl CpuBus for Watched<'_> {
    fn read(&mut self, addr: u16) -> u8 {
        self.cpu_read(addr).0
    }

    fn write(&mut self, addr: u16, value: u8) {
        self.cpu_write(addr, value);
    }

    /// A hook may move the lines (an untimed write, a state load).
    fn cpu_read(&mut self, addr: u16) -> (u8, bool) {
        let addr = self.fetch_from.take().unwrap_or(addr);
        let (value, lines_moved) = self.console.cpu_read(addr);
        if self.watch.read.get(addr) {
            let access = Access {
                kind: Kind::Read,
                addr,
                value,
            };
            // The hook may look at the PPU and the APU, which quiet cycles leave behind.
            self.console.catch_up();
            (self.hook)(self.console, access);
            return (value, true);
        }
        (value, lines_moved)
    }

    fn cpu_write(&mut self, addr: u16, value: u8) -> bool {
        let lines_moved = self.console.cpu_write(addr, value);
        if self.watch.write.get(addr) {
            let access = Access {
                kind: Kind::Write,
                addr,
                value,
            };
            // The hook may look at the PPU and the APU, which quiet cycles leave behind.
            self.console.catch_up();
            (self.hook)(self.console, access);
            return true;
        }
        lines_moved
    }

    fn nmi_line(&self) -> bool {
        self.console.nmi_line()
    }

    fn irq_line(&self) -> bool {
        self.console.irq_line()
    }

    fn dma_halted_last_read(&self) -> bool {
        self.console.dma_halted_last_read()
    }
}
