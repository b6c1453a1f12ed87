//! Bad images are refused with a reason, never a panic.
use nes::{Console, RomError};

#[test]
fn hostile_headers_do_not_panic() {
    // Every 16-byte header with a few PRG/CHR/flag combinations and a short body.
    for flags6 in [0u8, 0x04, 0x08, 0xFF] {
        for flags7 in [0u8, 0x08, 0x0C, 0xFF] {
            for prg in [0u8, 1, 2, 0xFF] {
                let mut img = vec![
                    b'N', b'E', b'S', 0x1A, prg, 1, flags6, flags7, 0xFF, 0xFF, 0xFF, 0xFF,
                ];
                img.resize(16 + 300, 0xEA);
                let r = Console::from_ines(&img);
                assert!(r.is_err(), "accepted {flags6:02X} {flags7:02X} {prg}");
                let _: RomError = r.err().unwrap();
            }
        }
    }
}
