//! Tiny cartridge images for tests that need a program of a few bytes.

/// An iNES image of an NROM board: `program` at $8000 (PRG is one 16 KiB bank, mirrored at
/// $C000, filled with NOPs), the NMI, reset and IRQ vectors, and 8 KiB of blank CHR ROM.
/// `flags6` is header byte 6 (0x02: battery-backed PRG-RAM at $6000).
pub fn nrom(program: &[u8], [nmi, reset, irq]: [u16; 3], flags6: u8) -> Vec<u8> {
    let mut image = vec![b'N', b'E', b'S', 0x1A, 1, 1, flags6];
    image.resize(16, 0);
    let mut prg = vec![0xEA; 0x4000];
    prg[..program.len()].copy_from_slice(program);
    for (slot, vector) in [nmi, reset, irq].into_iter().enumerate() {
        prg[0x3FFA + 2 * slot..][..2].copy_from_slice(&vector.to_le_bytes());
    }
    image.extend(prg);
    image.resize(image.len() + 0x2000, 0);
    image
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machine_runs_the_program_from_the_reset_vector() {
        // LDA #$5A; STA $10; JMP $8004 (here)
        let image = nrom(
            &[0xA9, 0x5A, 0x85, 0x10, 0x4C, 0x04, 0x80],
            [0x8004, 0x8000, 0x8004],
            0,
        );
        assert_eq!(image.len(), 16 + 0x4000 + 0x2000);
        let mut console = nes::Console::from_ines(&image).unwrap();
        console.run_frame();
        assert_eq!(console.peek(0x0010), 0x5A);
        assert_eq!(console.peek(0xFFFC), 0x00);
        assert_eq!(console.peek(0xFFFD), 0x80);
    }
}
