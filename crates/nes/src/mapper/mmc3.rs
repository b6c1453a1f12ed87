//! MMC3 (mapper 4, TxROM): 8 KiB PRG and 1/2 KiB CHR banks, switchable mirroring, PRG-RAM
//! protection, and a scanline counter clocked by filtered rising edges of PPU A12. TxSROM
//! (mapper 118) wires CHR A17 to CIRAM A10 instead: each nametable takes its page from bit 7
//! of the CHR bank that the same slot of $0000-$0FFF uses. TQROM (mapper 119) has 8 KiB of
//! CHR-RAM beside its CHR-ROM: bit 6 of a CHR bank number selects the RAM.

use super::{chr_two_2k_four_1k, Board, CpuTarget, Mirroring, Needs};
use crate::cartridge::wrap;
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

const BANK_8K: usize = 8 * 1024;

/// A rising edge of A12 clocks the counter only after A12 stayed low this many CPU cycles. The
/// 8-9 dot low gap between the last prefetch and the next line's first pattern fetch (about three
/// cycles) must not count when the background uses $1000, while $2006 toggles four cycles apart
/// must: mmc3_test_2's A12 and scanline-timing ROMs pin it between the two.
const A12_FILTER_CYCLES: u8 = 4;

/// A rise of A12 at most this many dots after it fell cannot pass the filter: the four M2
/// edges between take at least ten dots (an edge before every three or four). The PPU tells
/// the board of such rises, and of the falls before them, without stopping the CPU's quiet
/// cycles there (`Ppu::bus_quiet_dots`).
pub(crate) const A12_UNCOUNTED_DOTS: u16 = 3 * (A12_FILTER_CYCLES as u16 - 1);

#[derive(Clone, Debug)]
pub struct Mmc3 {
    bank_select: u8,
    banks: [u8; 8],
    mirroring: Mirroring,
    /// $A001: bit 7 enables PRG-RAM, bit 6 makes it read-only.
    prg_ram_protect: u8,
    prg_banks: usize,
    counter: ScanlineCounter,
    /// TxSROM: nametables from CHR bank bit 7, $A000 mirroring unconnected.
    txsrom: bool,
    /// TQROM: the CHR-ROM's size, where the CHR-RAM begins.
    tqrom_chr_ram: Option<usize>,
}

impl Field for Mmc3 {
    fn visit(&mut self, io: &mut StateIo) {
        let Mmc3 {
            bank_select,
            banks,
            mirroring,
            prg_ram_protect,
            prg_banks: _,
            counter,
            txsrom: _,
            tqrom_chr_ram: _,
        } = self;
        fields!(io, bank_select, banks, mirroring, prg_ram_protect, counter);
    }
}

/// MMC3's scanline counter, clocked by filtered rising edges of PPU A12; Taito's TC0690 has
/// one too.
#[derive(Clone, Debug)]
pub(super) struct ScanlineCounter {
    latch: u8,
    counter: u8,
    reload: bool,
    enabled: bool,
    irq: bool,
    /// MMC3A (NES 2.0 submapper 4): a counter reloaded to zero by itself raises no IRQ.
    old_behaviour: bool,
    a12: A12Filter,
}

impl Field for ScanlineCounter {
    fn visit(&mut self, io: &mut StateIo) {
        let ScanlineCounter {
            latch,
            counter,
            reload,
            enabled,
            irq,
            old_behaviour: _,
            a12,
        } = self;
        fields!(io, latch, counter, reload, enabled, irq, a12);
    }
}

/// The rising edges of PPU A12 that follow at least [`A12_FILTER_CYCLES`] CPU cycles of A12
/// low: one a scanline while rendering, as the counters of MMC3 and RAMBO-1 see them.
#[derive(Clone, Debug, Default)]
pub(super) struct A12Filter {
    high: bool,
    /// CPU cycles (M2 falling edges) seen while A12 was low.
    low_cycles: u8,
}

impl Field for A12Filter {
    fn visit(&mut self, io: &mut StateIo) {
        let A12Filter { high, low_cycles } = self;
        fields!(io, high, low_cycles);
    }
}

impl A12Filter {
    /// `n` CPU cycles (M2 falling edges).
    pub(super) fn cpu_clocks(&mut self, n: u8) {
        if !self.high {
            self.low_cycles = self.low_cycles.saturating_add(n);
        }
    }

    /// The PPU put `addr` on its address bus: whether A12 rose past the filter.
    pub(super) fn rises(&mut self, addr: u16) -> bool {
        let high = addr & 0x1000 != 0;
        let rise = high && !self.high && self.low_cycles >= A12_FILTER_CYCLES;
        if high != self.high {
            self.low_cycles = 0;
        }
        self.high = high;
        rise
    }
}

impl ScanlineCounter {
    pub(super) fn new(old_behaviour: bool) -> ScanlineCounter {
        ScanlineCounter {
            latch: 0,
            counter: 0,
            reload: false,
            enabled: false,
            irq: false,
            old_behaviour,
            a12: A12Filter::default(),
        }
    }

    /// What a board with this counter needs: the A12 filter counts CPU cycles.
    pub(super) const NEEDS: Needs = Needs {
        cpu_clock: true,
        irq: true,
        ppu_bus: true,
        ppu_a12_only: true,
        low_registers: false,
        ppu_reads: false,
        ppu_registers: false,
        audio: false,
        prg_reads: false,
    };

    pub(super) fn irq(&self) -> bool {
        self.irq
    }

    /// The value the counter reloads from.
    pub(super) fn set_latch(&mut self, val: u8) {
        self.latch = val;
    }

    /// Empties the counter: the next clock reloads it.
    pub(super) fn reload(&mut self) {
        self.counter = 0;
        self.reload = true;
    }

    /// Disabling also acknowledges.
    pub(super) fn enable(&mut self, enabled: bool) {
        self.enabled = enabled;
        self.irq &= enabled;
    }

    /// `n` CPU cycles (M2 falling edges) for the A12 filter.
    pub(super) fn cpu_clocks(&mut self, n: u8) {
        self.a12.cpu_clocks(n);
    }

    /// The PPU put `addr` on its address bus.
    pub(super) fn ppu_address(&mut self, addr: u16) {
        if self.a12.rises(addr) {
            self.clock();
        }
    }

    fn clock(&mut self) {
        let before = self.counter;
        let reloaded = self.reload;
        if self.counter == 0 || self.reload {
            self.counter = self.latch;
        } else {
            self.counter -= 1;
        }
        self.reload = false;
        let fire = self.counter == 0 && (!self.old_behaviour || before != 0 || reloaded);
        if fire && self.enabled {
            self.irq = true;
        }
    }
}

impl Board for Mmc3 {
    fn read_header(header: &mut Header) {
        // TQROM's 8 KiB of CHR-RAM beside its CHR-ROM, which iNES 1.0 cannot state.
        if !header.nes2 && header.mapper == 119 {
            header.chr_ram_size = 0x2000;
        }
    }

    const VARIANTS: &'static [(u16, u8)] = &[(4, 0), (4, 4), (118, 0), (119, 0)];

    fn new(header: &Header) -> Result<Mmc3, RomError> {
        Ok(Mmc3 {
            bank_select: 0,
            banks: [0, 2, 4, 5, 6, 7, 0, 1],
            mirroring: Mirroring::hardwired(header),
            prg_ram_protect: 0x80,
            prg_banks: (header.prg_rom_size / BANK_8K).max(2),
            counter: ScanlineCounter::new(header.submapper == 4),
            txsrom: header.mapper == 118,
            tqrom_chr_ram: (header.mapper == 119 && header.chr_rom_size > 0)
                .then_some(header.chr_rom_size),
        })
    }

    fn needs(&self) -> Needs {
        ScanlineCounter::NEEDS
    }

    fn irq(&self) -> bool {
        self.counter.irq()
    }

    fn prg_ram_writable(&self, _addr: u16) -> bool {
        self.prg_ram_protect & 0x40 == 0
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        match addr {
            0x6000..=0x7FFF if self.prg_ram_protect & 0x80 != 0 => {
                CpuTarget::PrgRam(usize::from(addr - 0x6000))
            }
            0x8000..=0xFFFF => {
                let second_last = self.prg_banks - 2;
                let swap = self.bank_select & 0x40 != 0;
                let bank = match (addr >> 13) & 3 {
                    0 if swap => second_last,
                    0 => usize::from(self.banks[6]),
                    1 => usize::from(self.banks[7]),
                    2 if swap => usize::from(self.banks[6]),
                    2 => second_last,
                    _ => self.prg_banks - 1,
                };
                CpuTarget::PrgRom((bank % self.prg_banks) * BANK_8K + usize::from(addr & 0x1FFF))
            }
            _ => CpuTarget::None,
        }
    }

    fn map_chr(&self, addr: u16) -> usize {
        let banks = std::array::from_fn(|i| self.banks[i]);
        let offset = chr_two_2k_four_1k(addr, banks, self.bank_select & 0x80 != 0);
        match self.tqrom_chr_ram {
            Some(rom) if offset & 0x40 << 10 != 0 => rom + (offset & 0x1FFF),
            Some(rom) => wrap(offset & 0xFFFF, rom),
            None => offset,
        }
    }

    fn write_register(&mut self, addr: u16, val: u8, _cpu_cycle: u64) {
        match (addr & 0xE000, addr & 1) {
            (0x8000, 0) => self.bank_select = val,
            (0x8000, _) => self.banks[usize::from(self.bank_select & 7)] = val,
            (0xA000, 0) => {
                self.mirroring = if val & 1 == 0 {
                    Mirroring::Vertical
                } else {
                    Mirroring::Horizontal
                }
            }
            (0xA000, _) => self.prg_ram_protect = val,
            (0xC000, 0) => self.counter.set_latch(val),
            (0xC000, _) => self.counter.reload(),
            (_, bit) => self.counter.enable(bit == 1),
        }
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn nametable_page(&self, table: usize) -> usize {
        if self.txsrom {
            (self.map_chr(table as u16 * 0x400) >> 17) & 1
        } else {
            self.mirroring.page(table)
        }
    }

    fn cpu_clock(&mut self) {
        self.counter.cpu_clocks(1);
    }

    fn cpu_clocks(&mut self, n: u8) {
        self.counter.cpu_clocks(n);
    }

    fn ppu_address(&mut self, addr: u16) -> bool {
        self.counter.ppu_address(addr);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    #[test]
    fn txsrom_nametables_follow_chr_bank_bit_7() {
        let mut m = Mmc3::new(&TestImage::new(118, 8, 8).header()).unwrap();
        let pages = |m: &Mmc3| [0, 1, 2, 3].map(|table| m.nametable_page(table));
        m.write_register(0x8000, 0, 0);
        m.write_register(0x8001, 0x80, 0); // R0: $2000-$27FF on page 1
        m.write_register(0x8000, 1, 0);
        m.write_register(0x8001, 0x02, 0);
        assert_eq!(pages(&m), [1, 1, 0, 0]);
        m.write_register(0xA000, 1, 0);
        assert_eq!(pages(&m), [1, 1, 0, 0], "$A000 is not connected");
        // Inverted CHR mode: R2-R5 cover $0000-$0FFF, one nametable each.
        for (reg, bank) in [(2, 0x80), (3, 0x00), (4, 0x81), (5, 0x01)] {
            m.write_register(0x8000, 0x80 | reg, 0);
            m.write_register(0x8001, bank, 0);
        }
        assert_eq!(pages(&m), [1, 0, 1, 0]);
    }

    fn mmc3(submapper: u8) -> Mmc3 {
        Mmc3::new(&TestImage::nes2(4, submapper, 8, 16).header()).unwrap()
    }

    /// A scanline's worth of A12 activity: low long enough, then a rise.
    fn scanline(m: &mut Mmc3) {
        m.ppu_address(0x0000);
        for _ in 0..A12_FILTER_CYCLES {
            m.cpu_clock();
        }
        m.ppu_address(0x1000);
    }

    #[test]
    fn prg_banking_modes() {
        let mut m = mmc3(0);
        m.write_register(0x8000, 6, 0);
        m.write_register(0x8001, 3, 0);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(3 * BANK_8K));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(14 * BANK_8K));
        m.write_register(0x8000, 0x46, 0);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(14 * BANK_8K));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(3 * BANK_8K));
        assert_eq!(m.map_cpu(0xE000), CpuTarget::PrgRom(15 * BANK_8K));
    }

    #[test]
    fn counter_fires_after_latch_plus_one_edges_and_filters_fast_toggles() {
        let mut m = mmc3(0);
        m.write_register(0xC000, 2, 0);
        m.write_register(0xC001, 0, 0);
        m.write_register(0xE001, 0, 0);
        scanline(&mut m); // reload to 2
        scanline(&mut m); // 1
        assert!(!m.irq());
        // A12 toggling without enough M2 cycles low is filtered out.
        m.ppu_address(0x0000);
        for _ in 1..A12_FILTER_CYCLES {
            m.cpu_clock();
        }
        m.ppu_address(0x1000);
        assert!(!m.irq());
        scanline(&mut m); // 0: IRQ
        assert!(m.irq());
        m.write_register(0xE000, 0, 0);
        assert!(!m.irq());
    }

    #[test]
    fn latch_zero_fires_every_edge_except_on_mmc3a() {
        for (submapper, fires) in [(0, true), (4, false)] {
            let mut m = mmc3(submapper);
            m.write_register(0xC000, 0, 0);
            m.write_register(0xE001, 0, 0);
            for _ in 0..2 {
                scanline(&mut m); // counter 0 reloads 0
                assert_eq!(m.irq(), fires, "submapper {submapper}");
                m.counter.irq = false;
            }
        }
    }
}
