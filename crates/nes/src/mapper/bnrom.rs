//! Mapper 34, two boards. BNROM: a 32 KiB PRG bank chosen by any write to $8000-$FFFF, 8 KiB
//! CHR-RAM. NINA-001 (AVE): registers at $7FFD (32 KiB PRG bank), $7FFE and $7FFF (4 KiB CHR
//! banks at $0000 and $1000), which the PRG-RAM beneath also stores. NES 2.0 names the board
//! (submapper 1 NINA-001, 2 BNROM); otherwise only NINA-001 has more than 8 KiB of CHR-ROM.

use super::{Board, CpuTarget, Mirroring, Needs};
use crate::header::{Header, RomError};
use crate::state::{fields, Field, StateIo};

#[derive(Clone, Debug)]
pub struct Bnrom {
    prg_bank: u8,
    /// NINA-001's CHR banks; BNROM's CHR is unbanked.
    chr_banks: [u8; 2],
    nina001: bool,
    mirroring: Mirroring,
}

impl Field for Bnrom {
    fn visit(&mut self, io: &mut StateIo) {
        let Bnrom {
            prg_bank,
            chr_banks,
            nina001: _,
            mirroring: _,
        } = self;
        fields!(io, prg_bank, chr_banks);
    }
}

impl Board for Bnrom {
    const VARIANTS: &'static [(u16, u8)] = &[(34, 0), (34, 1), (34, 2)];

    fn new(header: &Header) -> Result<Bnrom, RomError> {
        let nina001 = match header.submapper {
            1 => true,
            2 => false,
            0 => header.chr_rom_size > 0x2000,
            submapper => {
                return Err(RomError::UnsupportedMapper {
                    mapper: header.mapper,
                    submapper,
                })
            }
        };
        Ok(Bnrom {
            prg_bank: 0,
            chr_banks: [0, 1],
            nina001,
            mirroring: Mirroring::hardwired(header),
        })
    }

    fn needs(&self) -> Needs {
        Needs {
            low_registers: self.nina001,
            ..Needs::default()
        }
    }

    fn map_cpu(&self, addr: u16) -> CpuTarget {
        match addr {
            0x8000..=0xFFFF => {
                CpuTarget::PrgRom(usize::from(self.prg_bank) * 0x8000 + usize::from(addr & 0x7FFF))
            }
            0x6000..=0x7FFF => CpuTarget::PrgRam(usize::from(addr - 0x6000)),
            _ => CpuTarget::None,
        }
    }

    fn map_chr(&self, addr: u16) -> usize {
        if self.nina001 {
            let bank = self.chr_banks[usize::from(addr >> 12) & 1] & 0x0F;
            usize::from(bank) * 0x1000 + usize::from(addr & 0x0FFF)
        } else {
            usize::from(addr & 0x1FFF)
        }
    }

    fn mirroring(&self) -> Mirroring {
        self.mirroring
    }

    fn write_register(&mut self, _addr: u16, val: u8, _cpu_cycle: u64) {
        if !self.nina001 {
            self.prg_bank = val;
        }
    }

    fn write_low(&mut self, addr: u16, val: u8) {
        if !self.nina001 {
            return;
        }
        match addr {
            0x7FFD => self.prg_bank = val & 1,
            0x7FFE => self.chr_banks[0] = val,
            0x7FFF => self.chr_banks[1] = val,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::TestImage;

    fn board(chr_banks: u8, nes2_submapper: Option<u8>) -> Bnrom {
        let image = match nes2_submapper {
            Some(submapper) => TestImage::nes2(34, submapper, 8, chr_banks),
            None => TestImage::new(34, 8, chr_banks),
        };
        Bnrom::new(&image.header()).unwrap()
    }

    #[test]
    fn the_variant_follows_the_submapper_else_the_chr_size() {
        assert!(!board(0, None).nina001, "CHR-RAM: BNROM");
        assert!(!board(1, None).nina001, "8 KiB CHR-ROM: BNROM");
        assert!(board(2, None).nina001, "16 KiB CHR-ROM: NINA-001");
        assert!(board(0, Some(1)).nina001);
        assert!(!board(2, Some(2)).nina001);
        assert_eq!(
            Bnrom::new(&TestImage::nes2(34, 3, 8, 0).header()).err(),
            Some(RomError::UnsupportedMapper {
                mapper: 34,
                submapper: 3
            })
        );
    }

    #[test]
    fn each_variant_has_its_own_registers() {
        let mut bnrom = board(0, None);
        bnrom.write_low(0x7FFD, 1);
        assert_eq!(bnrom.map_cpu(0x8000), CpuTarget::PrgRom(0));
        bnrom.write_register(0x8000, 3, 0);
        assert_eq!(bnrom.map_cpu(0x8000), CpuTarget::PrgRom(3 * 0x8000));

        let mut nina = board(4, None);
        nina.write_register(0x8000, 3, 0);
        assert_eq!(nina.map_cpu(0x8000), CpuTarget::PrgRom(0));
        nina.write_low(0x7FFD, 1);
        nina.write_low(0x7FFE, 5);
        nina.write_low(0x7FFF, 2);
        assert_eq!(nina.map_cpu(0x8000), CpuTarget::PrgRom(0x8000));
        assert_eq!(nina.map_chr(0x0010), 5 * 0x1000 + 0x10);
        assert_eq!(nina.map_chr(0x1010), 2 * 0x1000 + 0x10);
    }
}
