//! The iNES and NES 2.0 header: the board's mapper, submapper and memory sizes.

use crate::region::Region;
use std::fmt;

pub(crate) const PRG_BANK: usize = 16 * 1024;
pub(crate) const CHR_BANK: usize = 8 * 1024;

/// Why an image could not be loaded. Each message names the problem in one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RomError {
    Empty,
    BadMagic,
    TruncatedHeader(usize),
    NoPrg,
    Truncated { expected: usize, actual: usize },
    UnsupportedMapper { mapper: u16, submapper: u8 },
    BadSize(&'static str),
}

impl fmt::Display for RomError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            RomError::Empty => write!(f, "the file is empty"),
            RomError::BadMagic => write!(f, "not an iNES file (missing the \"NES\\x1A\" magic)"),
            RomError::TruncatedHeader(n) => {
                write!(
                    f,
                    "the file is {n} bytes, shorter than the 16-byte iNES header"
                )
            }
            RomError::NoPrg => write!(f, "the header declares zero PRG-ROM banks"),
            RomError::Truncated { expected, actual } => write!(
                f,
                "the file is truncated: the header declares {expected} bytes, the file has {actual}"
            ),
            RomError::UnsupportedMapper { mapper, submapper } => {
                let name = board_name(*mapper).map_or(String::new(), |n| format!(" ({n})"));
                if crate::mapper::supported(*mapper) {
                    write!(
                        f,
                        "mapper {mapper}{name} is supported, but not its submapper {submapper}"
                    )
                } else {
                    write!(f, "mapper {mapper}{name} is not supported")
                }
            }
            RomError::BadSize(what) => write!(f, "unsupported {what} size in the header"),
        }
    }
}

impl std::error::Error for RomError {}

/// The common name of the board or chip behind a well-known iNES mapper number, for messages:
/// a user whose game does not load can look the board up. The supported boards' names come
/// from the board list.
fn board_name(mapper: u16) -> Option<&'static str> {
    crate::mapper::board_name(mapper).or(match mapper {
        20 => Some("Famicom Disk System"),
        73 => Some("VRC3"),
        75 => Some("VRC1"),
        79 => Some("NINA-03/06"),
        90 => Some("J.Y. Company"),
        105 => Some("NES-EVENT"),
        228 => Some("Action 52"),
        232 => Some("Camerica Quattro"),
        _ => None,
    })
}

/// What the header says about the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub mapper: u16,
    pub submapper: u8,
    pub nes2: bool,
    pub prg_rom_size: usize,
    pub chr_rom_size: usize,
    /// Volatile plus battery-backed PRG-RAM declared (iNES 1.0 declares none: see `prg_ram_size`).
    pub prg_ram_size: usize,
    pub prg_nvram_size: usize,
    pub chr_ram_size: usize,
    pub battery: bool,
    pub trainer: bool,
    /// Hard-wired mirroring: true = vertical (horizontal arrangement), false = horizontal.
    pub vertical_mirroring: bool,
    pub four_screen: bool,
    /// The board's one-screen solder pad: on UNROM 512 (mapper 30) byte 6's four-screen bit
    /// without the vertical bit ("UNROM 512", nametable configuration).
    pub one_screen: bool,
    /// The console the game is made for: NES 2.0's CPU/PPU timing field; None for iNES 1.0
    /// and for games that run on any.
    pub region: Option<Region>,
}

impl Header {
    pub fn parse(bytes: &[u8]) -> Result<Header, RomError> {
        if bytes.is_empty() {
            return Err(RomError::Empty);
        }
        if bytes.len() < 4 || &bytes[0..4] != b"NES\x1a" {
            return Err(if bytes.len() >= 4 || !b"NES\x1a".starts_with(bytes) {
                RomError::BadMagic
            } else {
                RomError::TruncatedHeader(bytes.len())
            });
        }
        if bytes.len() < 16 {
            return Err(RomError::TruncatedHeader(bytes.len()));
        }
        let h = &bytes[..16];
        let nes2 = h[7] & 0x0C == 0x08;
        let mut mapper = u16::from(h[6] >> 4);
        let (prg_rom_size, chr_rom_size, submapper);
        let (mut prg_ram_size, mut prg_nvram_size) = (0, 0);
        let chr_ram_size;
        if nes2 {
            mapper |= u16::from(h[7] & 0xF0) | (u16::from(h[8] & 0x0F) << 8);
            submapper = h[8] >> 4;
            prg_rom_size =
                nes2_rom_size(h[4], h[9] & 0x0F, PRG_BANK).ok_or(RomError::BadSize("PRG-ROM"))?;
            chr_rom_size =
                nes2_rom_size(h[5], h[9] >> 4, CHR_BANK).ok_or(RomError::BadSize("CHR-ROM"))?;
            prg_ram_size = shift_size(h[10] & 0x0F);
            prg_nvram_size = shift_size(h[10] >> 4);
            chr_ram_size = shift_size(h[11] & 0x0F) + shift_size(h[11] >> 4);
        } else {
            // Old dumps carry junk such as "DiskDude!" in bytes 7-15; trust byte 7 only if 12-15 are clear.
            if h[12..16].iter().all(|&b| b == 0) {
                mapper |= u16::from(h[7] & 0xF0);
            }
            submapper = 0;
            prg_rom_size = usize::from(h[4]) * PRG_BANK;
            chr_rom_size = usize::from(h[5]) * CHR_BANK;
            // iNES 1.0 cannot state CHR-RAM: 8 KiB without CHR-ROM, unless the board says
            // otherwise (`Board::read_header`).
            chr_ram_size = if chr_rom_size == 0 { CHR_BANK } else { 0 };
        }
        if prg_rom_size == 0 {
            return Err(RomError::NoPrg);
        }
        let mut header = Header {
            mapper,
            submapper,
            nes2,
            prg_rom_size,
            chr_rom_size,
            prg_ram_size,
            prg_nvram_size,
            chr_ram_size,
            battery: h[6] & 0x02 != 0,
            trainer: h[6] & 0x04 != 0,
            vertical_mirroring: h[6] & 0x01 != 0,
            four_screen: h[6] & 0x08 != 0,
            one_screen: false,
            region: if nes2 {
                Region::from_nes2_timing(h[12])
            } else {
                None
            },
        };
        crate::mapper::read_header(&mut header);
        Ok(header)
    }
}

/// NES 2.0 ROM size: 12-bit bank count, or exponent-multiplier form when the MSB nibble is $F.
fn nes2_rom_size(lsb: u8, msb: u8, unit: usize) -> Option<usize> {
    if msb == 0x0F {
        let exp = u32::from(lsb >> 2);
        let mul = usize::from(lsb & 3) * 2 + 1;
        // Anything past 1 GiB is not a real cartridge.
        (exp <= 30).then(|| (1usize << exp) * mul)
    } else {
        Some((usize::from(msb) << 8 | usize::from(lsb)) * unit)
    }
}

fn shift_size(n: u8) -> usize {
    if n == 0 {
        0
    } else {
        64 << n
    }
}

/// A ROM image for tests: an iNES header, then zeroed ROMs of the sizes it declares.
#[cfg(test)]
#[derive(Clone)]
pub(crate) struct TestImage {
    header: [u8; 16],
}

#[cfg(test)]
impl TestImage {
    /// iNES 1.0, `prg` 16 KiB banks of PRG-ROM, `chr` 8 KiB banks of CHR-ROM.
    pub fn new(mapper: u16, prg: u8, chr: u8) -> TestImage {
        let mut header = [0; 16];
        header[..4].copy_from_slice(b"NES\x1a");
        header[4] = prg;
        header[5] = chr;
        header[6] = (mapper as u8) << 4;
        header[7] = mapper as u8 & 0xF0;
        TestImage { header }
    }

    /// NES 2.0 with `submapper`, no RAM declared yet.
    pub fn nes2(mapper: u16, submapper: u8, prg: u8, chr: u8) -> TestImage {
        let mut image = TestImage::new(mapper, prg, chr);
        image.header[7] |= 0x08;
        image.header[8] = submapper << 4 | (mapper >> 8) as u8;
        image
    }

    /// Header byte `index` set to `val` (flags 6 bits, RAM sizes...).
    pub fn with(mut self, index: usize, val: u8) -> TestImage {
        self.header[index] = val;
        self
    }

    /// Byte 6's low nibble: mirroring, battery, trainer, four-screen.
    pub fn flags(self, bits: u8) -> TestImage {
        let byte = self.header[6] & 0xF0 | bits;
        self.with(6, byte)
    }

    pub fn header(&self) -> Header {
        Header::parse(&self.header).expect("a valid test header")
    }

    /// The header and the ROMs it declares, zeroed (even a header the parser refuses).
    pub fn image(&self) -> Vec<u8> {
        let [prg, chr] = [4, 5].map(|i| usize::from(self.header[i]));
        let mut image = self.header.to_vec();
        image.resize(16 + prg * PRG_BANK + chr * CHR_BANK, 0);
        image
    }
}
