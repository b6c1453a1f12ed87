//! Run-ahead shows a press's effect exactly N frames sooner, and changes nothing else.

use nes::{Buttons, Console};
use session::Session;

/// A program whose backdrop shows the last buttons pressed on pad 1, four frames late: each
/// NMI writes the colour at the end of a four-frame queue ($13) to the backdrop, moves the
/// queue on, and puts the buttons it reads now (or the last ones, if none) at its start ($10).
/// Rendering stays off, so the whole picture is the backdrop.
fn delayed_buttons_rom() -> Vec<u8> {
    #[rustfmt::skip]
    let program: [u8; 0x70] = [
        0x78,             // C000 SEI
        0xD8,             // C001 CLD
        0xA2, 0xFF,       // C002 LDX #$FF
        0x9A,             // C004 TXS
        0xA9, 0x00,       // C005 LDA #0
        0x8D, 0x00, 0x20, // C007 STA $2000      NMI off
        0x8D, 0x01, 0x20, // C00A STA $2001      rendering off
        0x85, 0x00,       // C00D STA $00        last buttons
        0x85, 0x10,       // C00F STA $10        the queue
        0x85, 0x11,       // C011 STA $11
        0x85, 0x12,       // C013 STA $12
        0x85, 0x13,       // C015 STA $13
        0x2C, 0x02, 0x20, // C017 BIT $2002      wait for the PPU to warm up
        0x10, 0xFB,       // C01A BPL $C017
        0x2C, 0x02, 0x20, // C01C BIT $2002
        0x10, 0xFB,       // C01F BPL $C01C
        0xA9, 0x80,       // C021 LDA #$80
        0x8D, 0x00, 0x20, // C023 STA $2000      NMI on
        0x4C, 0x26, 0xC0, // C026 JMP $C026
        0xA9, 0x3F,       // C029 LDA #$3F       NMI: backdrop colour at $3F00
        0x8D, 0x06, 0x20, // C02B STA $2006
        0xA9, 0x00,       // C02E LDA #0
        0x8D, 0x06, 0x20, // C030 STA $2006
        0xA5, 0x13,       // C033 LDA $13
        0x29, 0x3F,       // C035 AND #$3F
        0x8D, 0x07, 0x20, // C037 STA $2007
        0xA9, 0x00,       // C03A LDA #0
        0x8D, 0x06, 0x20, // C03C STA $2006
        0x8D, 0x06, 0x20, // C03F STA $2006
        0xA5, 0x12,       // C042 LDA $12        the queue moves on
        0x85, 0x13,       // C044 STA $13
        0xA5, 0x11,       // C046 LDA $11
        0x85, 0x12,       // C048 STA $12
        0xA5, 0x10,       // C04A LDA $10
        0x85, 0x11,       // C04C STA $11
        0xA9, 0x01,       // C04E LDA #1         strobe pad 1
        0x8D, 0x16, 0x40, // C050 STA $4016
        0xA9, 0x00,       // C053 LDA #0
        0x8D, 0x16, 0x40, // C055 STA $4016
        0x85, 0x01,       // C058 STA $01
        0xA2, 0x08,       // C05A LDX #8
        0xAD, 0x16, 0x40, // C05C LDA $4016      8 buttons into $01
        0x4A,             // C05F LSR A
        0x26, 0x01,       // C060 ROL $01
        0xCA,             // C062 DEX
        0xD0, 0xF7,       // C063 BNE $C05C
        0xA5, 0x01,       // C065 LDA $01
        0xF0, 0x02,       // C067 BEQ $C06B      nothing held: the last buttons
        0x85, 0x00,       // C069 STA $00
        0xA5, 0x00,       // C06B LDA $00
        0x85, 0x10,       // C06D STA $10
        0x40,             // C06F RTI
    ];
    testrom::image::nrom(&program, [0xC029, 0xC000, 0xC06F], 0)
}

/// Frames from the one whose input first holds Right to the first picture that shows it.
fn latency(run_ahead: u8) -> u64 {
    let mut session = Session::new(Console::from_ines(&delayed_buttons_rom()).unwrap());
    session.set_run_ahead(run_ahead).unwrap();
    for _ in 0..30 {
        session.frame();
    }
    let before = session.picture()[0];
    session.set_pads([Buttons::RIGHT, 0]);
    for frames in 1..=20 {
        session.frame();
        if session.picture()[0] != before {
            return frames;
        }
    }
    panic!("the press never showed with run-ahead {run_ahead}");
}

#[test]
fn run_ahead_takes_exactly_its_frames_off_the_latency() {
    let without = latency(0);
    assert!(without >= 5, "the ROM shows a press {without} frames later");
    for n in 1..=session::MAX_RUN_AHEAD {
        assert_eq!(latency(n), without - u64::from(n), "run-ahead {n}");
    }
}

fn quadfall() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../roms/quadfall.nes"
    ))
    .unwrap()
}

/// Buttons held for runs of 1 to 8 frames, as a player's are (a fixed pseudo-random sequence):
/// some frames reuse the frames run ahead, others throw them away.
fn player_pads(frames: usize) -> Vec<[u8; 2]> {
    let choices = [
        0,
        0,
        Buttons::START,
        Buttons::LEFT,
        Buttons::RIGHT,
        Buttons::DOWN,
        Buttons::A,
    ];
    let mut seed = 0x2545_f491_u32;
    let mut pads = Vec::new();
    while pads.len() < frames {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let held = choices[(seed >> 16) as usize % choices.len()];
        let run = 1 + (seed >> 8) as usize % 8;
        pads.extend(std::iter::repeat_n([held, 0], run));
    }
    pads.truncate(frames);
    pads
}

#[test]
fn running_ahead_changes_neither_the_machine_nor_its_sound() {
    let pads = player_pads(900);
    let mut plain = Session::new(Console::from_ines(&quadfall()).unwrap());
    let mut pictures = Vec::new();
    let mut hashes = Vec::new();
    let mut sounds = Vec::new();
    for &frame_pads in &pads {
        plain.set_pads(frame_pads);
        plain.frame();
        pictures.push(plain.picture().to_vec());
        hashes.push(plain.console().hash());
        sounds.push(plain.samples().to_vec());
    }
    for n in 1..=session::MAX_RUN_AHEAD {
        let n_frames = usize::from(n);
        let mut ahead = Session::new(Console::from_ines(&quadfall()).unwrap());
        ahead.set_run_ahead(n).unwrap();
        let mut shown_ahead = 0;
        for (frame, &frame_pads) in pads.iter().enumerate() {
            ahead.set_pads(frame_pads);
            ahead.frame();
            assert_eq!(
                ahead.console().hash(),
                hashes[frame],
                "run-ahead {n}, frame {frame}"
            );
            assert_eq!(
                ahead.samples(),
                sounds[frame],
                "run-ahead {n}, frame {frame}"
            );
            // The picture shown is the one the machine makes N frames later, when the
            // buttons stay as they are until then.
            let later = frame + n_frames;
            if later < pads.len() && pads[frame..=later].iter().all(|&p| p == frame_pads) {
                assert!(
                    ahead.picture() == pictures[later],
                    "run-ahead {n}, frame {frame}"
                );
                shown_ahead += 1;
            }
        }
        assert!(
            shown_ahead > 100,
            "run-ahead {n}: {shown_ahead} frames compared"
        );
    }
}

#[test]
fn changing_the_machine_throws_the_frames_run_ahead_away() {
    let mut ahead = Session::new(Console::from_ines(&quadfall()).unwrap());
    let mut plain = Session::new(Console::from_ines(&quadfall()).unwrap());
    ahead.set_run_ahead(2).unwrap();
    for frame in 0..400 {
        for session in [&mut ahead, &mut plain] {
            if frame == 150 {
                session.console_mut().reset();
            }
            if frame == 200 {
                session.reset();
            }
            if frame == 250 {
                session.power_cycle();
            }
            session.frame();
        }
        assert_eq!(
            ahead.console().hash(),
            plain.console().hash(),
            "frame {frame}"
        );
    }
}

#[test]
fn run_ahead_is_at_most_four_frames() {
    let mut session = Session::new(Console::from_ines(&quadfall()).unwrap());
    assert!(session.set_run_ahead(5).is_err());
    assert!(session.set_run_ahead(4).is_ok());
}
