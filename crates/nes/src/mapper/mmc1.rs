//! MMC1 (mapper 1, SxROM): a 5-bit serial shift register loaded through writes to $8000-$FFFF,
//! feeding four registers selected by address bits 14-13 of the fifth write.
//!
//! Boards with 8 KiB of CHR-RAM leave the CHR register's upper outputs (CHR A13-A16) free and
//! wire them to other chips: SNROM disables PRG-RAM with A16, SOROM banks its 16 KiB PRG-RAM
//! with A15, SXROM its 32 KiB with A15 and A14, and SUROM/SXROM pick the 256 KiB half of a 512 KiB
//! PRG-ROM with A16. In 8 KiB CHR mode the first CHR register drives those lines; in 4 KiB mode
//! the one PPU A12 selects, so the PRG side switches as the PPU renders unless a game keeps both
//! equal (the MMC1_A12 demo does not). The mapper then watches the PPU's address bus.

use super::{Board, CpuTarget, Mirroring, Needs};
use crate::cartridge::wrap;
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Mmc1 {
    shift: u8,
    shift_count: u8,
    /// Mirroring (bits 0-1), PRG mode (2-3), CHR 4 KiB mode (4).
    control: u8,
    /// CHR bank registers for PPU $0000 and $1000.
    chr_bank: [u8; 2],
    prg_bank: u8,
    prg_banks: usize,
    /// 8 KiB PRG-RAM banks: 2 on SOROM (the second battery-backed), 4 on SXROM.
    prg_ram_banks: usize,
    /// SNROM: CHR A16 disables PRG-RAM (8 KiB CHR-RAM, at most 256 KiB PRG, one RAM chip).
    snrom: bool,
    /// SEROM/SHROM (NES 2.0 submapper 5): 32 KiB PRG wired straight, the PRG register ignored.
    fixed_prg: bool,
    /// The board wires CHR A14-A16 to its PRG side (SNROM, SOROM, SUROM, SXROM).
    prg_side_wired: bool,
    /// PPU A12 at the PPU's last access: the CHR register it selects drives CHR A13-A16.
    a12_high: bool,
    /// The cycle of the last register write: MMC1 ignores a write on the very next cycle
    /// (the second write of a read-modify-write instruction such as `INC $8000`).
    last_write_cycle: Option<u64>,
}

impl Field for Mmc1 {
    fn visit(&mut self, io: &mut StateIo) {
        let Mmc1 {
            shift,
            shift_count,
            control,
            chr_bank,
            prg_bank,
            prg_banks: _,
            prg_ram_banks: _,
            snrom: _,
            fixed_prg: _,
            prg_side_wired: _,
            a12_high,
            last_write_cycle,
        } = self;
        fields!(io, shift, control, chr_bank, prg_bank, a12_high);
        io.checked(shift_count, "MMC1 shift count", |&n| n < 5);
        io.counter(last_write_cycle, "MMC1 write cycle");
    }
}

const BANK_16K: usize = 16 * 1024;
const BANK_8K: usize = 8 * 1024;
const BANK_4K: usize = 4 * 1024;
/// PRG-ROM banks (16 KiB) reachable without the SUROM outer bank.
const INNER_BANKS: usize = 16;
/// The CHR register bits on CHR A14-A16, the lines boards wire to their PRG side.
const PRG_SIDE_LINES: u8 = 0x1C;

impl Mmc1 {
    /// The CHR register driving the upper CHR address lines.
    fn chr_outputs(&self) -> u8 {
        if self.control & 0x10 != 0 {
            self.chr_bank[usize::from(self.a12_high)]
        } else {
            self.chr_bank[0]
        }
    }

    fn prg_ram_enabled(&self) -> bool {
        // MMC1B and later: bit 4 of the PRG register disables PRG-RAM; SNROM adds CHR A16.
        self.prg_bank & 0x10 == 0 && !(self.snrom && self.chr_outputs() & 0x10 != 0)
    }

    fn prg_ram_bank(&self) -> usize {
        // PRG-RAM A13 is CHR A15 (SOROM and SXROM), A14 is CHR A14 (SXROM only).
        let lines = usize::from(self.chr_outputs());
        let bank = (lines >> 3) & 1 | ((lines >> 2) & 1) << 1;
        bank & (self.prg_ram_banks - 1)
    }

    /// The 16 KiB PRG-ROM bank at $8000 (`high` false) or $C000.
    fn prg_rom_bank(&self, high: bool) -> usize {
        // SUROM/SXROM: CHR A16 selects the 256 KiB half; the "fixed" banks are its first and last.
        let outer = if self.prg_banks > INNER_BANKS {
            usize::from(self.chr_outputs() & 0x10)
        } else {
            0
        };
        let bank = usize::from(self.prg_bank & 0x0F);
        let inner = match (self.control >> 2) & 3 {
            0 | 1 => (bank & !1) | usize::from(high),
            2 if high => bank,
            2 => 0,
            _ if high => INNER_BANKS - 1,
            _ => bank,
        };
        wrap(outer | inner, self.prg_banks)
    }
}

impl Board for Mmc1 {
    const VARIANTS: &'static [(u16, u8)] = &[(1, 0), (1, 5)];

    fn new(header: &Header) -> Result<Mmc1, RomError> {
        let prg_ram_size = header.prg_ram_size + header.prg_nvram_size;
        let prg_banks = (header.prg_rom_size / BANK_16K).max(1);
        let prg_ram_banks = (prg_ram_size / BANK_8K).max(1);
        let snrom = header.chr_rom_size == 0
            && header.prg_rom_size <= INNER_BANKS * BANK_16K
            && prg_ram_size <= BANK_8K;
        Ok(Mmc1 {
            shift: 0,
            shift_count: 0,
            // Power-on: PRG mode 3 (last bank fixed at $C000) so the reset vector is reachable.
            control: 0x0C,
            chr_bank: [0; 2],
            prg_bank: 0,
            prg_banks,
            prg_ram_banks,
            snrom,
            fixed_prg: header.submapper == 5,
            prg_side_wired: snrom || prg_ram_banks > 1 || prg_banks > INNER_BANKS,
            a12_high: false,
            last_write_cycle: None,
        })
    }

    fn needs(&self) -> Needs {
        Needs {
            ppu_bus: self.prg_side_wired,
            // A12 moves the PRG side only; CHR follows the address anyway.
            ppu_a12_only: true,
            ..Needs::default()
        }
    }

    fn write_register(&mut self, addr: u16, val: u8, cpu_cycle: u64) {
        let consecutive = self.last_write_cycle.is_some_and(|c| c + 1 == cpu_cycle);
        self.last_write_cycle = Some(cpu_cycle);
        if consecutive {
            return;
        }
        if val & 0x80 != 0 {
            self.shift = 0;
            self.shift_count = 0;
            self.control |= 0x0C;
            return;
        }
        self.shift |= (val & 1) << self.shift_count;
        self.shift_count += 1;
        if self.shift_count == 5 {
            let value = self.shift;
            match addr & 0xE000 {
                0x8000 => self.control = value,
                0xA000 => self.chr_bank[0] = value,
                0xC000 => self.chr_bank[1] = value,
                _ => self.prg_bank = value,
            }
            self.shift = 0;
            self.shift_count = 0;
        }
    }

    /// Whether PPU A12 now moves the PRG side: 4 KiB CHR mode with the two registers differing
    /// on the wired lines. Only then must the mapper see the PPU's accesses as they happen.
    fn watches_ppu_bus(&self) -> bool {
        self.prg_side_wired
            && self.control & 0x10 != 0
            && (self.chr_bank[0] ^ self.chr_bank[1]) & PRG_SIDE_LINES != 0
    }

    /// The PPU put `addr` on its bus; returns whether the PRG side's mapping changed.
    #[inline]
    fn ppu_address(&mut self, addr: u16) -> bool {
        let high = addr & 0x1000 != 0;
        let moved = high != self.a12_high && self.watches_ppu_bus();
        self.a12_high = high;
        moved
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        match addr {
            0x6000..=0x7FFF if self.prg_ram_enabled() => {
                CpuTarget::PrgRam(self.prg_ram_bank() * BANK_8K + usize::from(addr - 0x6000))
            }
            0x8000..=0xFFFF if self.fixed_prg => CpuTarget::PrgRom(usize::from(addr & 0x7FFF)),
            0x8000..=0xFFFF => CpuTarget::PrgRom(
                self.prg_rom_bank(addr >= 0xC000) * BANK_16K + usize::from(addr & 0x3FFF),
            ),
            _ => CpuTarget::None,
        }
    }

    fn map_chr(&self, addr: u16) -> usize {
        let offset = usize::from(addr & 0x0FFF);
        let high = addr & 0x1000 != 0;
        let bank = if self.control & 0x10 != 0 {
            self.chr_bank[usize::from(high)]
        } else {
            (self.chr_bank[0] & !1) | u8::from(high)
        };
        usize::from(bank) * BANK_4K + offset
    }

    fn mirroring(&self) -> Mirroring {
        match self.control & 3 {
            0 => Mirroring::SingleLow,
            1 => Mirroring::SingleHigh,
            2 => Mirroring::Vertical,
            _ => Mirroring::Horizontal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    /// A full five-write register load, two cycles apart.
    fn load(m: &mut Mmc1, addr: u16, value: u8, cycle: &mut u64) {
        for i in 0..5 {
            *cycle += 2;
            m.write_register(addr, (value >> i) & 1, *cycle);
        }
    }

    /// An NES 2.0 MMC1 board: PRG-ROM and PRG-RAM in KiB, CHR-ROM in 8 KiB banks (0: CHR-RAM).
    fn board(prg_kib: usize, chr_rom_banks: u8, prg_ram_kib: usize, submapper: u8) -> Mmc1 {
        let ram_shift = |kib: usize| (kib * 1024 / 64).trailing_zeros() as u8;
        let image = TestImage::nes2(1, submapper, (prg_kib / 16) as u8, chr_rom_banks)
            .with(10, if prg_ram_kib > 0 { ram_shift(prg_ram_kib) } else { 0 })
            .with(11, if chr_rom_banks == 0 { 7 } else { 0 });
        Mmc1::new(&image.header()).unwrap()
    }

    fn rom_bank(m: &Mmc1, addr: u16) -> usize {
        match m.map_cpu(addr) {
            CpuTarget::PrgRom(off) => off / BANK_16K,
            other => panic!("{addr:04X} maps to {other:?}"),
        }
    }

    #[test]
    fn prg_modes_and_chr_4k() {
        let mut m = board(128, 8, 8, 0);
        let mut cycle = 0;
        load(&mut m, 0xE000, 3, &mut cycle);
        assert_eq!((rom_bank(&m, 0x8000), rom_bank(&m, 0xC000)), (3, 7));
        load(&mut m, 0x8000, 0x10 | 0x08 | 0x02, &mut cycle); // fix first, 4K CHR
        assert_eq!((rom_bank(&m, 0x8000), rom_bank(&m, 0xC000)), (0, 3));
        assert_eq!(m.mirroring(), Mirroring::Vertical);
        load(&mut m, 0x8000, 0x00, &mut cycle); // 32K mode ignores bit 0
        assert_eq!((rom_bank(&m, 0x8000), rom_bank(&m, 0xFFFF)), (2, 3));
        load(&mut m, 0xC000, 5, &mut cycle);
        load(&mut m, 0x8000, 0x10, &mut cycle);
        assert_eq!(m.map_chr(0x1004), 5 * BANK_4K + 4);
    }

    #[test]
    fn write_on_next_cycle_is_ignored() {
        let mut m = board(32, 1, 0, 0);
        m.write_register(0x8000, 0x01, 10);
        m.write_register(0x8000, 0x80, 11); // ignored: consecutive
        assert_eq!(m.shift_count, 1);
        m.write_register(0x8000, 0x80, 13);
        assert_eq!((m.shift_count, m.control & 0x0C), (0, 0x0C));
    }

    #[test]
    fn surom_outer_bank_moves_the_fixed_banks_too() {
        let mut m = board(512, 0, 8, 0);
        let mut cycle = 0;
        load(&mut m, 0xE000, 2, &mut cycle);
        assert_eq!((rom_bank(&m, 0x8000), rom_bank(&m, 0xC000)), (2, 15));
        load(&mut m, 0xA000, 0x10, &mut cycle);
        assert_eq!((rom_bank(&m, 0x8000), rom_bank(&m, 0xC000)), (18, 31));
        load(&mut m, 0x8000, 0x08, &mut cycle); // fixed first bank: the outer half's first
        assert_eq!((rom_bank(&m, 0x8000), rom_bank(&m, 0xC000)), (16, 18));
        // The second CHR register does not take part.
        load(&mut m, 0xC000, 0x00, &mut cycle);
        load(&mut m, 0x8000, 0x18, &mut cycle);
        assert_eq!(rom_bank(&m, 0x8000), 16);
    }

    #[test]
    fn prg_ram_banked_through_chr_lines() {
        let ram_bank = |m: &Mmc1| match m.map_cpu(0x6000) {
            CpuTarget::PrgRam(off) => off / BANK_8K,
            other => panic!("$6000 maps to {other:?}"),
        };
        let mut cycle = 0;
        let mut sorom = board(256, 0, 16, 0);
        load(&mut sorom, 0xA000, 0x04, &mut cycle);
        assert_eq!(ram_bank(&sorom), 0);
        load(&mut sorom, 0xA000, 0x08, &mut cycle);
        assert_eq!(ram_bank(&sorom), 1);
        let mut sxrom = board(512, 0, 32, 0);
        for (chr_lines, bank) in [(0x00, 0), (0x08, 1), (0x04, 2), (0x0C, 3)] {
            load(&mut sxrom, 0xA000, 0x10 | chr_lines, &mut cycle);
            assert_eq!((ram_bank(&sxrom), rom_bank(&sxrom, 0xC000)), (bank, 31));
        }
    }

    #[test]
    fn in_4k_chr_mode_ppu_a12_picks_the_register_on_the_prg_side() {
        let mut cycle = 0;
        let mut surom = board(512, 0, 8, 0);
        load(&mut surom, 0xA000, 0x00, &mut cycle);
        load(&mut surom, 0xC000, 0x10, &mut cycle);
        // 8 KiB CHR mode: the first register only, whatever A12 does.
        assert!(!surom.ppu_address(0x1000));
        assert_eq!(rom_bank(&surom, 0xC000), 15);
        assert!(!surom.watches_ppu_bus());
        load(&mut surom, 0x8000, 0x1C, &mut cycle); // 4 KiB CHR mode
        assert!(surom.watches_ppu_bus());
        assert_eq!(
            rom_bank(&surom, 0xC000),
            31,
            "A12 high: the second register"
        );
        assert!(surom.ppu_address(0x0FF0));
        assert_eq!(rom_bank(&surom, 0xC000), 15);
        assert!(!surom.ppu_address(0x2000), "nametables keep A12 low");
        assert!(surom.ppu_address(0x1000));
        assert_eq!(rom_bank(&surom, 0xC000), 31);
        // Equal lines: A12 moves nothing on the PRG side.
        load(&mut surom, 0xA000, 0x11, &mut cycle);
        assert!(!surom.watches_ppu_bus());
        assert!(!surom.ppu_address(0x0000));

        // SNROM: the register A12 selects disables PRG-RAM with its bit 4.
        let mut snrom = board(256, 0, 8, 0);
        load(&mut snrom, 0x8000, 0x1C, &mut cycle);
        load(&mut snrom, 0xC000, 0x10, &mut cycle);
        snrom.ppu_address(0x0000);
        assert_eq!(snrom.map_cpu(0x6000), CpuTarget::PrgRam(0));
        snrom.ppu_address(0x1234);
        assert_eq!(snrom.map_cpu(0x6000), CpuTarget::None);
    }

    #[test]
    fn snrom_chr_a16_disables_prg_ram() {
        let mut cycle = 0;
        let mut snrom = board(256, 0, 8, 0);
        load(&mut snrom, 0xA000, 0x10, &mut cycle);
        assert_eq!(snrom.map_cpu(0x6000), CpuTarget::None);
        load(&mut snrom, 0xA000, 0x01, &mut cycle);
        assert_eq!(snrom.map_cpu(0x6000), CpuTarget::PrgRam(0));
        load(&mut snrom, 0xE000, 0x10, &mut cycle); // MMC1B's own disable bit
        assert_eq!(snrom.map_cpu(0x6000), CpuTarget::None);
        // With CHR-ROM the line goes to the ROM, not the RAM.
        let mut skrom = board(256, 16, 8, 0);
        load(&mut skrom, 0xA000, 0x10, &mut cycle);
        assert_eq!(skrom.map_cpu(0x6000), CpuTarget::PrgRam(0));
    }

    #[test]
    fn serom_submapper_5_ignores_prg_banking() {
        let mut m = board(32, 4, 0, 5);
        let mut cycle = 0;
        load(&mut m, 0x8000, 0x0C, &mut cycle);
        load(&mut m, 0xE000, 1, &mut cycle);
        assert_eq!(m.map_cpu(0x8000), CpuTarget::PrgRom(0));
        assert_eq!(m.map_cpu(0xC000), CpuTarget::PrgRom(BANK_16K));
    }
}
