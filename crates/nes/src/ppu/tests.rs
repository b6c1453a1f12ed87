//! Register and rendering behaviour checked directly against the PPU, dot by dot.

use super::*;
use crate::xorshift::XorShift;

/// NROM with 8 KiB CHR-RAM (so tests can write patterns), vertical mirroring.
fn cart() -> Cartridge {
    let mut img = vec![b'N', b'E', b'S', 0x1A, 1, 0, 1, 0];
    img.resize(16 + 16384, 0);
    Cartridge::from_ines(&img).unwrap()
}

fn run_to(ppu: &mut Ppu, cart: &mut Cartridge, scanline: u16, dot: u16) {
    let mut guard = 0;
    while (ppu.scanline, ppu.dot) != (scanline, dot) {
        ppu.step(cart);
        guard += 1;
        assert!(guard < 200_000, "never reached {scanline}:{dot}");
    }
}

fn set_addr(ppu: &mut Ppu, cart: &mut Cartridge, addr: u16) {
    ppu.write_register(6, (addr >> 8) as u8, cart);
    ppu.write_register(6, addr as u8, cart);
}

/// Writes PPUMASK and runs the dots until it takes effect.
fn write_mask(ppu: &mut Ppu, cart: &mut Cartridge, val: u8) {
    ppu.write_register(1, val, cart);
    for _ in 0..MASK_DELAY {
        ppu.step(cart);
    }
}

fn write_vram(ppu: &mut Ppu, cart: &mut Cartridge, addr: u16, bytes: &[u8]) {
    set_addr(ppu, cart, addr);
    for &b in bytes {
        ppu.write_register(7, b, cart);
    }
}

#[test]
fn vblank_is_set_at_241_1_and_cleared_at_pre_render_dot_1() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    run_to(&mut ppu, &mut cart, VBLANK_LINE, 1);
    assert_eq!(ppu.peek_register(2, &cart) & 0x80, 0);
    ppu.step(&mut cart); // runs 241:1
    run_to(&mut ppu, &mut cart, VBLANK_LINE, 3);
    assert_eq!(ppu.peek_register(2, &cart) & 0x80, 0x80);
    run_to(&mut ppu, &mut cart, PRE_RENDER_LINE, 1);
    assert_eq!(ppu.peek_register(2, &cart) & 0x80, 0x80);
    ppu.step(&mut cart);
    assert_eq!(ppu.peek_register(2, &cart) & 0x80, 0);
}

#[test]
fn reading_status_clears_vblank_and_the_write_toggle() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    run_to(&mut ppu, &mut cart, 250, 0);
    ppu.write_register(6, 0x21, &mut cart);
    assert_eq!(ppu.read_register(2, &mut cart) & 0x80, 0x80);
    assert_eq!(ppu.read_register(2, &mut cart) & 0x80, 0);
    // The toggle was reset: these two writes form a whole address.
    set_addr(&mut ppu, &mut cart, 0x2345);
    assert_eq!(ppu.v, 0x2345);
}

#[test]
fn status_read_on_the_dot_before_vblank_cancels_flag_and_nmi() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    ppu.write_register(0, ctrl::NMI, &mut cart);
    run_to(&mut ppu, &mut cart, VBLANK_LINE, 1);
    assert_eq!(ppu.read_register(2, &mut cart) & 0x80, 0);
    run_to(&mut ppu, &mut cart, VBLANK_LINE, 10);
    assert_eq!(ppu.peek_register(2, &cart) & 0x80, 0);
    assert!(!ppu.nmi_line());
}

#[test]
fn status_read_after_the_set_sees_the_flag_and_drops_the_nmi_line() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    ppu.write_register(0, ctrl::NMI, &mut cart);
    run_to(&mut ppu, &mut cart, VBLANK_LINE, 2);
    assert!(ppu.nmi_line());
    assert_eq!(ppu.read_register(2, &mut cart) & 0x80, 0x80);
    assert!(!ppu.nmi_line());
}

#[test]
fn enabling_nmi_during_vblank_raises_the_line() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    run_to(&mut ppu, &mut cart, 245, 0);
    assert!(!ppu.nmi_line());
    ppu.write_register(0, ctrl::NMI, &mut cart);
    assert!(ppu.nmi_line());
    ppu.write_register(0, 0, &mut cart);
    assert!(!ppu.nmi_line());
}

#[test]
fn odd_frames_skip_a_dot_only_with_rendering_on() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    let frame_len = |ppu: &mut Ppu, cart: &mut Cartridge| {
        let (start, mut dots) = (ppu.frame, 0);
        while ppu.frame == start {
            ppu.step(cart);
            dots += 1;
        }
        dots
    };
    frame_len(&mut ppu, &mut cart);
    assert_eq!(frame_len(&mut ppu, &mut cart), 89342);
    assert_eq!(frame_len(&mut ppu, &mut cart), 89342);
    ppu.write_register(1, mask::BG, &mut cart);
    let pair = [
        frame_len(&mut ppu, &mut cart),
        frame_len(&mut ppu, &mut cart),
    ];
    assert!(pair == [89342, 89341] || pair == [89341, 89342], "{pair:?}");
}

#[test]
fn scroll_and_address_writes_fill_t_v_and_fine_x() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    ppu.write_register(0, 0x03, &mut cart);
    assert_eq!(ppu.t & 0x0C00, 0x0C00);
    ppu.write_register(5, 0x7D, &mut cart); // coarse X 15, fine X 5
    assert_eq!((ppu.t & 0x1F, ppu.fine_x), (15, 5));
    ppu.write_register(5, 0x5E, &mut cart); // coarse Y 11, fine Y 6
    assert_eq!(ppu.t, 0x6000 | 0x0C00 | 11 << 5 | 15);
    ppu.write_register(6, 0xFF, &mut cart); // bit 14 is cleared
    ppu.write_register(6, 0x12, &mut cart);
    assert_eq!((ppu.t, ppu.v), (0x3F12, 0x3F12));
}

#[test]
fn data_reads_are_buffered_except_palette_which_buffers_the_nametable_below() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    write_vram(&mut ppu, &mut cart, 0x2400, &[0x11, 0x22, 0x33]);
    write_vram(&mut ppu, &mut cart, 0x2F05, &[0xAB]);
    write_vram(&mut ppu, &mut cart, 0x3F05, &[0x2A]);

    set_addr(&mut ppu, &mut cart, 0x2400);
    ppu.read_register(7, &mut cart); // stale buffer
    assert_eq!(ppu.read_register(7, &mut cart), 0x11);
    assert_eq!(ppu.read_register(7, &mut cart), 0x22);

    set_addr(&mut ppu, &mut cart, 0x3F05);
    assert_eq!(ppu.read_register(7, &mut cart) & 0x3F, 0x2A);
    set_addr(&mut ppu, &mut cart, 0x2000);
    assert_eq!(ppu.read_register(7, &mut cart), 0xAB);
}

#[test]
fn palette_mirrors_greyscale_and_increment_32() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    write_vram(&mut ppu, &mut cart, 0x3F10, &[0x21]);
    write_vram(&mut ppu, &mut cart, 0x3F14, &[0x35]);
    assert_eq!(ppu.palette[0], 0x21);
    assert_eq!(ppu.palette[4], 0x35);
    set_addr(&mut ppu, &mut cart, 0x3F00);
    assert_eq!(ppu.read_register(7, &mut cart) & 0x3F, 0x21);
    // $3F20-$3FFF mirror the 32 entries.
    set_addr(&mut ppu, &mut cart, 0x3FE4);
    assert_eq!(ppu.read_register(7, &mut cart) & 0x3F, 0x35);
    write_mask(&mut ppu, &mut cart, mask::GREYSCALE);
    set_addr(&mut ppu, &mut cart, 0x3F04);
    assert_eq!(ppu.read_register(7, &mut cart) & 0x3F, 0x30);

    ppu.write_register(0, ctrl::INCREMENT_32, &mut cart);
    set_addr(&mut ppu, &mut cart, 0x2000);
    ppu.write_register(7, 1, &mut cart);
    assert_eq!(ppu.v, 0x2020);
}

#[test]
fn oam_writes_increment_and_attribute_bits_2_to_4_read_zero() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    ppu.write_register(3, 0xFE, &mut cart);
    for b in [0x11, 0xFF, 0x44, 0x55] {
        ppu.write_register(4, b, &mut cart);
    }
    assert_eq!(ppu.oam_addr, 2);
    assert_eq!((ppu.oam[0xFE], ppu.oam[0xFF]), (0x01, 0xFF));
    ppu.write_register(3, 0x01, &mut cart);
    assert_eq!(ppu.read_register(4, &mut cart), 0x55);
    ppu.write_register(3, 0x00, &mut cart);
    assert_eq!(ppu.read_register(4, &mut cart), 0x44);
    ppu.write_register(3, 0xFF, &mut cart);
    assert_eq!(ppu.read_register(4, &mut cart), 0xFF);
    ppu.write_register(3, 0x02, &mut cart);
    ppu.write_register(4, 0xFF, &mut cart);
    assert_eq!(ppu.oam[2], 0xE3);
}

#[test]
fn oam_writes_while_rendering_only_step_the_sprite_index() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    ppu.write_register(1, mask::SPRITES, &mut cart);
    run_to(&mut ppu, &mut cart, PRE_RENDER_LINE, 330);
    ppu.write_register(3, 0x01, &mut cart);
    ppu.write_register(4, 0x8C, &mut cart);
    // AccuracyCoin's "Address $2004 behavior" A: the byte index is cleared too.
    assert_eq!(ppu.oam_addr, 0x04);
    assert_eq!(ppu.oam[1], 0, "nothing is written");
}

#[test]
fn stopping_rendering_mid_line_corrupts_an_oam_row_when_it_restarts() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    for (i, byte) in ppu.oam.iter_mut().enumerate() {
        *byte = i as u8;
    }
    ppu.write_register(1, mask::SPRITES, &mut cart);
    // Taking effect at dot 10, where the secondary OAM clear is at address 4.
    run_to(&mut ppu, &mut cart, 0, 10 - u16::from(MASK_DELAY));
    ppu.write_register(1, 0, &mut cart);
    run_to(&mut ppu, &mut cart, 10, 0);
    assert_eq!(ppu.oam[32], 32, "nothing happens while rendering is off");
    write_mask(&mut ppu, &mut cart, mask::SPRITES);
    ppu.step(&mut cart);
    assert_eq!(&ppu.oam[32..40], &[0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!((ppu.oam[31], ppu.oam[40]), (31, 40));
}

#[test]
fn open_bus_latch_keeps_written_values_then_decays() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    ppu.write_register(0, 0x5A, &mut cart);
    assert_eq!(ppu.read_register(5, &mut cart), 0x5A);
    // $2002 drives only bits 5-7.
    assert_eq!(ppu.read_register(2, &mut cart) & 0x1F, 0x1A);
    for _ in 0..(DECAY_FRAMES as usize + 1) * 89342 {
        ppu.step(&mut cart);
    }
    assert_eq!(ppu.read_register(0, &mut cart), 0);
}

/// A background of tile 1 (solid colour 1) everywhere except tile 0 (transparent) at
/// column 0, with palette entry 1 = $16 and backdrop $0F.
fn background_scene(ppu: &mut Ppu, cart: &mut Cartridge) {
    write_vram(ppu, cart, 0x0010, &[0xFF; 8]);
    let mut nametable = [1u8; 32 * 30];
    for row in 0..30 {
        nametable[row * 32] = 0;
    }
    write_vram(ppu, cart, 0x2000, &nametable);
    write_vram(ppu, cart, 0x2400, &[1; 32 * 30]);
    write_vram(ppu, cart, 0x3F00, &[0x0F, 0x16]);
    set_addr(ppu, cart, 0x2000);
    ppu.write_register(0, 0, cart);
}

/// Draws a whole frame, scrolled to the top-left of nametable 0.
fn render_frame(ppu: &mut Ppu, cart: &mut Cartridge) {
    set_addr(ppu, cart, 0x2000);
    run_to(ppu, cart, PRE_RENDER_LINE, 0);
    run_to(ppu, cart, 240, 0);
}

#[test]
fn background_draws_tiles_and_fine_x_scrolls_them() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    background_scene(&mut ppu, &mut cart);
    ppu.write_register(1, mask::BG | mask::BG_LEFT, &mut cart);
    render_frame(&mut ppu, &mut cart);
    let row = |ppu: &Ppu, y: usize| ppu.frame_buffer[y * WIDTH..(y + 1) * WIDTH].to_vec();
    for y in [0, 100, 239] {
        let line = row(&ppu, y);
        assert!(line[..8].iter().all(|&p| p == 0x0F), "line {y}: {line:?}");
        assert!(line[8..].iter().all(|&p| p == 0x16), "line {y}");
    }
    // Fine X 3: the transparent column moves 3 pixels left.
    ppu.write_register(5, 3, &mut cart);
    ppu.write_register(5, 0, &mut cart);
    render_frame(&mut ppu, &mut cart);
    let line = row(&ppu, 50);
    assert!(line[..5].iter().all(|&p| p == 0x0F));
    assert!(line[5..].iter().all(|&p| p == 0x16));
    // Left clipping hides the background in the first 8 pixels.
    ppu.write_register(1, mask::BG | 0xE0, &mut cart);
    render_frame(&mut ppu, &mut cart);
    let line = row(&ppu, 50);
    assert!(line[..8].iter().all(|&p| p == 0x0F | 7 << 6));
    assert!(line[8..].iter().all(|&p| p == 0x16 | 7 << 6));
}

#[test]
fn rendering_off_shows_the_backdrop_or_the_palette_entry_at_v() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    background_scene(&mut ppu, &mut cart);
    render_frame(&mut ppu, &mut cart);
    assert!(ppu.frame_buffer.iter().all(|&p| p == 0x0F));
    set_addr(&mut ppu, &mut cart, 0x3F01);
    run_to(&mut ppu, &mut cart, PRE_RENDER_LINE, 0);
    run_to(&mut ppu, &mut cart, 240, 0);
    assert!(ppu.frame_buffer.iter().all(|&p| p == 0x16));
}

fn place_sprite(ppu: &mut Ppu, index: usize, y: u8, tile: u8, attr: u8, x: u8) {
    ppu.oam[index * 4..index * 4 + 4].copy_from_slice(&[y, tile, attr, x]);
}

#[test]
fn sprites_draw_one_line_below_their_y_with_flips_and_priority() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    background_scene(&mut ppu, &mut cart);
    // Tile 2: only the top-left pixel set (colour 3).
    write_vram(
        &mut ppu,
        &mut cart,
        0x0020,
        &[0x80, 0, 0, 0, 0, 0, 0, 0, 0x80],
    );
    write_vram(&mut ppu, &mut cart, 0x3F11, &[0x11, 0x12, 0x13]);
    ppu.oam = [0xFF; 256];
    place_sprite(&mut ppu, 1, 20, 2, 0, 16); // plain
    place_sprite(&mut ppu, 2, 40, 2, 0xC0, 16); // both flips: pixel at bottom-right
    place_sprite(&mut ppu, 3, 60, 2, 0x20, 16); // behind the opaque background
    place_sprite(&mut ppu, 4, 80, 2, 0x20, 0); // behind, but the background is clear there
    ppu.write_register(
        1,
        mask::RENDERING | mask::BG_LEFT | mask::SPRITES_LEFT,
        &mut cart,
    );
    render_frame(&mut ppu, &mut cart);
    let at = |x: usize, y: usize| ppu.frame_buffer[y * WIDTH + x];
    assert_eq!(at(16, 21), 0x13);
    assert_eq!(at(16, 20), 0x16);
    assert_eq!(at(23, 48), 0x13);
    assert_eq!(at(16, 41), 0x16);
    assert_eq!(at(16, 61), 0x16);
    assert_eq!(at(0, 81), 0x13);
}

#[test]
fn sprite0_hit_needs_both_pixels_opaque_and_not_x_255() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    background_scene(&mut ppu, &mut cart);
    write_vram(&mut ppu, &mut cart, 0x0020, &[0x80]);
    ppu.oam = [0xFF; 256];
    ppu.write_register(
        1,
        mask::RENDERING | mask::BG_LEFT | mask::SPRITES_LEFT,
        &mut cart,
    );

    // Over the transparent column: no hit.
    place_sprite(&mut ppu, 0, 30, 2, 0, 0);
    render_frame(&mut ppu, &mut cart);
    assert_eq!(ppu.peek_register(2, &cart) & 0x40, 0);

    // At x=255 over opaque background: still no hit.
    place_sprite(&mut ppu, 0, 30, 2, 0, 255);
    render_frame(&mut ppu, &mut cart);
    assert_eq!(ppu.peek_register(2, &cart) & 0x40, 0);

    // Over opaque background: hit on the dot of the pixel (x=100 on line 31 is dot 101).
    place_sprite(&mut ppu, 0, 30, 2, 0, 100);
    run_to(&mut ppu, &mut cart, 31, 101);
    assert_eq!(ppu.peek_register(2, &cart) & 0x40, 0);
    ppu.step(&mut cart);
    assert_eq!(ppu.peek_register(2, &cart) & 0x40, 0x40);
    // Cleared at the pre-render line.
    run_to(&mut ppu, &mut cart, PRE_RENDER_LINE, 2);
    assert_eq!(ppu.peek_register(2, &cart) & 0x40, 0);
}

#[test]
fn nine_sprites_on_a_line_set_overflow_and_only_eight_draw() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    write_vram(&mut ppu, &mut cart, 0x0020, &[0xFF]);
    write_vram(&mut ppu, &mut cart, 0x3F00, &[0x0F]);
    write_vram(&mut ppu, &mut cart, 0x3F11, &[0x20]);
    ppu.oam = [0xFF; 256];
    for i in 0..9 {
        place_sprite(&mut ppu, i, 50, 2, 0, (i * 10) as u8);
    }
    ppu.write_register(1, mask::SPRITES | mask::SPRITES_LEFT, &mut cart);
    render_frame(&mut ppu, &mut cart);
    assert_eq!(ppu.peek_register(2, &cart) & 0x20, 0x20);
    let at = |x: usize| ppu.frame_buffer[51 * WIDTH + x];
    assert_eq!(at(70), 0x20);
    assert_eq!(at(80), 0x0F);

    // Eight only: no overflow.
    ppu.oam[8 * 4] = 0xFF;
    run_to(&mut ppu, &mut cart, 0, 0);
    render_frame(&mut ppu, &mut cart);
    assert_eq!(ppu.peek_register(2, &cart) & 0x20, 0);
}

#[test]
fn tall_sprites_take_their_table_from_the_tile_number() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    // Tile $03 in 8x16 mode: top half tile $02 at $1000, bottom half tile $03 at $1000.
    write_vram(&mut ppu, &mut cart, 0x1020, &[0x80]);
    write_vram(&mut ppu, &mut cart, 0x1030, &[0x01]);
    write_vram(&mut ppu, &mut cart, 0x3F00, &[0x0F]);
    write_vram(&mut ppu, &mut cart, 0x3F11, &[0x20]);
    ppu.oam = [0xFF; 256];
    place_sprite(&mut ppu, 0, 100, 3, 0, 40);
    ppu.write_register(0, ctrl::SPRITE_8X16, &mut cart);
    ppu.write_register(1, mask::SPRITES, &mut cart);
    render_frame(&mut ppu, &mut cart);
    let at = |x: usize, y: usize| ppu.frame_buffer[y * WIDTH + x];
    assert_eq!(at(40, 101), 0x20);
    assert_eq!(at(47, 109), 0x20);
    assert_eq!(at(47, 101), 0x0F);
}

/// The frame buffer's pixel at (`x`, `y`).
fn pixel_at(ppu: &Ppu, x: usize, y: usize) -> u16 {
    ppu.frame_buffer[y * WIDTH + x]
}

/// Writes PPUMASK so that it takes effect on dot `dot` of line `line`.
fn mask_at(ppu: &mut Ppu, cart: &mut Cartridge, line: u16, dot: u16, val: u8) {
    run_to(ppu, cart, line, dot - u16::from(MASK_DELAY));
    ppu.write_register(1, val, cart);
}

#[test]
fn mask_bits_reach_the_picture_at_their_own_dots() {
    let bg = mask::BG | mask::BG_LEFT;
    // Each write at dot 100 (dots 0-99 have run); pixel x is chosen on dot x + 1 and sent to
    // the video output on dot x + 4.
    let line_after = |val: u8| {
        let (mut ppu, mut cart) = (Ppu::default(), cart());
        background_scene(&mut ppu, &mut cart);
        write_mask(&mut ppu, &mut cart, bg);
        set_addr(&mut ppu, &mut cart, 0x2000);
        run_to(&mut ppu, &mut cart, 10, 100);
        ppu.write_register(1, val, &mut cart);
        run_to(&mut ppu, &mut cart, 11, 0);
        (95..104).map(|x| pixel_at(&ppu, x, 10)).collect::<Vec<_>>()
    };
    let red = u16::from(mask::EMPHASIS_RED) << 1;
    let blue = 0x100;
    // Rendering off: the pixel chosen on the dot after the write's shows the backdrop.
    assert_eq!(line_after(0)[4..7], [0x16, 0x0F, 0x0F]);
    // Greyscale and blue emphasis act on the output from that dot, three pixels earlier.
    let grey_blue = line_after(bg | mask::GREYSCALE | 0x80);
    assert_eq!(grey_blue[0..3], [0x16, 0x16, 0x10 | blue]);
    // Red (and green) emphasis from the write's own dot, one pixel earlier still.
    let red_grey = line_after(bg | mask::GREYSCALE | mask::EMPHASIS_RED);
    assert_eq!(red_grey[0..3], [0x16, 0x16 | red, 0x10 | red]);
}

/// Tile 2 with only its top-left pixel set (colour 3), drawn as $13, and sprite 0 at
/// (`x`, `y`) with no other sprite.
fn one_pixel_sprite(ppu: &mut Ppu, cart: &mut Cartridge, x: u8, y: u8) {
    write_vram(ppu, cart, 0x0020, &[0x80, 0, 0, 0, 0, 0, 0, 0, 0x80]);
    write_vram(ppu, cart, 0x3F11, &[0x11, 0x12, 0x13]);
    ppu.oam = [0xFF; 256];
    place_sprite(ppu, 0, y, 2, 0, x);
    set_addr(ppu, cart, 0x2000);
}

#[test]
fn a_sprite_left_loaded_in_forced_blank_draws_as_soon_as_rendering_returns() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    background_scene(&mut ppu, &mut cart);
    one_pixel_sprite(&mut ppu, &mut cart, 100, 20);
    let on = mask::RENDERING | mask::BG_LEFT | mask::SPRITES_LEFT;
    write_mask(&mut ppu, &mut cart, on);
    // Off after line 20's sprite fetches, so dot 340 passes in forced blank and the slot,
    // left drawing, does not count down from X again.
    mask_at(&mut ppu, &mut cart, 20, 300, 0);
    mask_at(&mut ppu, &mut cart, 21, 50, on);
    run_to(&mut ppu, &mut cart, 22, 0);
    assert_eq!(pixel_at(&ppu, 49, 21), 0x13);
    assert_eq!(pixel_at(&ppu, 100, 21), 0x16);
}

#[test]
fn sprite_x_counters_keep_counting_in_forced_blank() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    background_scene(&mut ppu, &mut cart);
    one_pixel_sprite(&mut ppu, &mut cart, 100, 20);
    let on = mask::RENDERING | mask::BG_LEFT | mask::SPRITES_LEFT;
    write_mask(&mut ppu, &mut cart, on);
    mask_at(&mut ppu, &mut cart, 21, 20, 0);
    mask_at(&mut ppu, &mut cart, 21, 60, on);
    run_to(&mut ppu, &mut cart, 22, 0);
    assert_eq!(pixel_at(&ppu, 100, 21), 0x13);
    // Off across the sprite's X: its counter ran out unseen, and the unshifted row is drawn
    // when rendering returns.
    mask_at(&mut ppu, &mut cart, 21, 90, 0);
    mask_at(&mut ppu, &mut cart, 21, 120, on);
    run_to(&mut ppu, &mut cart, 22, 0);
    assert_eq!(pixel_at(&ppu, 119, 21), 0x13);
    assert_eq!(pixel_at(&ppu, 100, 21), 0x0F);
}

#[test]
fn skipped_background_reloads_draw_the_high_planes_serial_input() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    // Every tile transparent; colour 2 of palette 0 is $22.
    write_vram(&mut ppu, &mut cart, 0x3F00, &[0x0F, 0x21, 0x22]);
    set_addr(&mut ppu, &mut cart, 0x2000);
    write_mask(&mut ppu, &mut cart, mask::BG | mask::BG_LEFT);
    // Off for dots 120-137: the reloads at 121, 129 and 137 are skipped, and the shifters
    // reach the reload at 145 after 14 shifts instead of 8, six of them shifting in 1s.
    mask_at(&mut ppu, &mut cart, 10, 120, 0);
    mask_at(&mut ppu, &mut cart, 10, 138, mask::BG | mask::BG_LEFT);
    run_to(&mut ppu, &mut cart, 11, 0);
    let line: Vec<u16> = (144..154).map(|x| pixel_at(&ppu, x, 10)).collect();
    assert_eq!(
        line,
        [0x0F, 0x0F, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x0F, 0x0F]
    );
}

#[test]
fn oam_bus_after_eight_sprites_alternates_primary_reads_with_secondary_slot_0() {
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    ppu.oam = [0xFF; 256];
    for i in 0..9 {
        place_sprite(&mut ppu, i, 50, 0, 0, 0);
    }
    // Sprite 8, the ninth in range, and the Y byte of sprite 9 after it.
    ppu.oam[0x21..0x25].copy_from_slice(&[0xA1, 0xA2, 0xA3, 0xB4]);
    write_mask(&mut ppu, &mut cart, mask::SPRITES);
    // Dot 130 finds sprite 8 in range (overflow); the odd dots after it read its other three
    // bytes, then sprite 9's Y; the even dots read secondary OAM's slot 0 (sprite 0's Y).
    let mut bus = vec![];
    for dot in 131..=138 {
        run_to(&mut ppu, &mut cart, 50, dot);
        bus.push(ppu.peek_register(4, &cart));
    }
    assert_eq!(bus, [50, 0xA1, 50, 0xA2, 50, 0xA3, 50, 0xB4]);
    assert_eq!(ppu.peek_register(2, &cart) & 0x20, 0x20);
}

/// Runs the render part's current line dot by dot: the reference for whole lines.
#[test]
fn an_address_copy_between_a_fetchs_two_dots_reads_a_hybrid_address() {
    // A second $2006 write before dot `write_dot` of line 10 lands 3 dots on; the nametable
    // fetch of dots 185-186 is at $2039 (coarse X 25, coarse Y 1) before the write.
    let second: Vec<u8> = (0..0x400).map(|i| i as u8 ^ 0x55).collect();
    for (write_dot, tile) in [
        // Before the fetch's address dot: the new v's byte, $25C0.
        (182, 0xC0 ^ 0x55),
        // Between its two dots: $25 from the new v, $39 from the address latch.
        (183, 0x39 ^ 0x55),
        // After its read dot: the old v's byte.
        (184, 0x11),
    ] {
        let (mut ppu, mut cart) = (Ppu::default(), cart());
        write_vram(&mut ppu, &mut cart, 0x2000, &[0x11; 0x400]);
        write_vram(&mut ppu, &mut cart, 0x2400, &second);
        set_addr(&mut ppu, &mut cart, 0x2000);
        ppu.write_register(1, mask::BG, &mut cart);
        run_to(&mut ppu, &mut cart, 10, write_dot);
        set_addr(&mut ppu, &mut cart, 0x25C0);
        assert_ne!(ppu.v, 0x25C0, "v is copied later");
        run_to(&mut ppu, &mut cart, 10, 187);
        assert_eq!(ppu.v, 0x25C0);
        assert_eq!(ppu.bg.tile, tile, "second write before dot {write_dot}");
    }
}

fn render_line_by_dots(ppu: &mut Ppu, cart: &mut Cartridge) {
    let line = ppu.render_line;
    while ppu.render_line == line {
        ppu.render_step(cart);
    }
}

/// Everything a save state holds of the PPU, the frame buffer included.
fn ppu_state(ppu: &Ppu) -> Vec<u8> {
    let mut ppu = ppu.clone();
    StateIo::save(|io| ppu.visit(io))
}

/// A PPU with a random palette and OAM: sprites anywhere from spread over the screen to
/// crowded on a few lines.
fn random_palette_and_sprites(random: &mut XorShift) -> Ppu {
    let mut ppu = Ppu::default();
    ppu.palette
        .iter_mut()
        .for_each(|b| *b = random.byte() & 0x3F);
    let sprite_rows = random.byte().max(1);
    for (i, b) in ppu.oam.iter_mut().enumerate() {
        *b = random.byte();
        if i % 4 == 0 {
            *b %= sprite_rows;
        }
    }
    ppu
}

#[test]
fn overflow_possible_counts_what_sprite_in_range_sees() {
    let mut random = XorShift(0x2545_F491_4F6C_DD1D);
    let (mut crowded, mut sparse) = (0, 0);
    for _ in 0..2_000 {
        // All 256 bytes as Y, crowded (every byte near the line) to sparse.
        let mut ppu = Ppu::default();
        let spread = random.byte().max(1);
        let base = random.byte();
        for b in &mut ppu.oam {
            *b = base.wrapping_add(random.byte() % spread);
        }
        ppu.ppu_ctrl = random.byte() & ctrl::SPRITE_8X16;
        ppu.render_line = u16::from(random.byte()) % 262;
        let in_range = ppu.oam.iter().filter(|&&y| ppu.sprite_in_range(y)).count();
        assert_eq!(
            ppu.overflow_possible(),
            in_range >= 9,
            "{in_range} in range"
        );
        if in_range >= 9 {
            crowded += 1;
        } else {
            sparse += 1;
        }
    }
    assert!(
        crowded > 100 && sparse > 100,
        "{crowded} crowded, {sparse} sparse"
    );
}

#[test]
fn whole_lines_match_the_dot_by_dot_reference() {
    let mut random = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut lines_compared = 0;
    for _ in 0..400 {
        let mut cart = cart();
        cart.chr_mut().iter_mut().for_each(|b| *b = random.byte());
        // Nametables from a few tiles (plain areas, runs of one tile) up to all 256.
        let tiles = random.byte().max(1);
        cart.ciram_mut()
            .iter_mut()
            .for_each(|b| *b = random.byte() % tiles);
        let mut ppu = random_palette_and_sprites(&mut random);
        ppu.ppu_ctrl = random.byte();
        ppu.ppu_mask = random.byte();
        if random.byte() < 200 {
            ppu.ppu_mask |= mask::RENDERING;
        }
        ppu.v = random.word() & 0x7FFF;
        ppu.t = random.word() & 0x7FFF;
        ppu.fine_x = random.byte() & 7;
        ppu.oam_addr = if random.byte() < 200 {
            0
        } else {
            random.byte()
        };
        ppu.skip_last_dot = random.byte() & 1 != 0;
        // A line before the ones compared runs dot by dot, so that the sprites are buffered.
        ppu.render_line = match random.byte() % 8 {
            0 => PRE_RENDER_LINE,
            _ => u16::from(random.byte()) % 240,
        };
        render_line_by_dots(&mut ppu, &mut cart);
        let (mut whole, mut whole_cart) = (ppu.clone(), cart.clone());
        for _ in 0..3 {
            // Where the machine would run the line as a whole (Ppu::catch_up).
            if !ppu.sprites.buffered && ppu.rendering_enabled() {
                break;
            }
            // Palette writes and colour bits between lines: the line colours follow them.
            let (entry, colour) = (usize::from(random.byte() & 0x1F), random.byte() & 0x3F);
            let colour_bits = random.byte() & (mask::GREYSCALE | mask::EMPHASIS);
            for ppu in [&mut ppu, &mut whole] {
                ppu.palette[entry] = colour;
                ppu.ppu_mask ^= colour_bits;
            }
            // The same line caught up to one to four dots in its middle first (as the end of
            // run_frame or a register access does), in runs, then past its end.
            let (mut peeked, mut peeked_cart) = (whole.clone(), whole_cart.clone());
            let mut dot = 0;
            for _ in 0..1 + random.byte() % 4 {
                if dot < 340 {
                    dot += 1 + random.word() % (340 - dot);
                    (peeked.scanline, peeked.dot) = (peeked.render_line, dot);
                    peeked.catch_up(&mut peeked_cart);
                }
            }
            (peeked.scanline, peeked.dot) = ((peeked.render_line + 1) % LINES_PER_FRAME, 0);
            peeked.catch_up(&mut peeked_cart);
            (peeked.scanline, peeked.dot) = (ppu.scanline, ppu.dot);
            whole.render_whole_line(&mut whole_cart);
            render_line_by_dots(&mut ppu, &mut cart);
            assert_eq!(ppu_state(&whole), ppu_state(&ppu));
            assert_eq!(ppu_state(&peeked), ppu_state(&ppu));
            assert_eq!(
                (whole.render_line, whole.render_dot),
                (ppu.render_line, ppu.render_dot)
            );
            lines_compared += 1;
        }
    }
    assert!(lines_compared > 600, "{lines_compared} lines compared");
}

/// MMC3 with 32 KiB of PRG-ROM and 32 KiB of random CHR-ROM.
fn mmc3_cart(random: &mut XorShift) -> Cartridge {
    let mut img = vec![b'N', b'E', b'S', 0x1A, 2, 4, 0x40, 0];
    img.resize(16 + 0x8000, 0);
    img.extend((0..0x8000).map(|_| random.byte()));
    Cartridge::from_ines(&img).unwrap()
}

/// What the CPU does in one cycle of [`a12_changes_match_lockstep`].
#[derive(Clone, Copy, Debug)]
enum Access {
    None,
    ReadPpu(u16),
    WritePpu(u16, u8),
    WriteMapper(u16, u8),
}

/// The bus's quiet cycles (NTSC: three dots each): planned after every full cycle
/// (`Bus::plan_quiet_cycles`), only counted, and run later (`Bus::catch_up`).
#[derive(Default)]
struct QuietCycles {
    planned: u64,
    owed: u64,
}

impl QuietCycles {
    /// Brings the PPU and the board up to the cycles counted, each cycle's M2 edge before its
    /// dots where the timing part runs one (`Bus::catch_up_a12_filter`).
    fn catch_up(&mut self, ppu: &mut Ppu, cart: &mut Cartridge) {
        while self.owed > 0 {
            let cycles = (u64::from(ppu.quiet_dots()) / 3).clamp(1, self.owed);
            cart.pass_quiet_cycles(cycles);
            ppu.run_many_dots(3 * cycles as u32, cart);
            self.owed -= cycles;
        }
    }

    fn plan(&mut self, ppu: &Ppu, cart: &Cartridge) {
        self.planned = if cart.quiet_cycles() {
            u64::from(ppu.bus_quiet_dots()) / 3
        } else {
            0
        };
    }
}

/// One CPU cycle as the bus runs it: the board's M2 clock, two dots, the access, one dot;
/// with no access, a cycle of those planned (`quiet`) is only counted
/// (`Bus::count_quiet_cycle`). `quiet` None: the reference, every cycle in full and the render
/// part caught up after every dot. Returns what a read read.
fn cpu_cycle(
    ppu: &mut Ppu,
    cart: &mut Cartridge,
    access: Access,
    cycle: u64,
    mut quiet: Option<&mut QuietCycles>,
) -> u8 {
    let dot_by_dot = quiet.is_none();
    let run_dots = |ppu: &mut Ppu, cart: &mut Cartridge, n: u16| {
        if dot_by_dot {
            (0..n).for_each(|_| ppu.step(cart));
        } else {
            ppu.run_dots(n, cart);
        }
    };
    if let Some(quiet) = quiet.as_deref_mut() {
        if matches!(access, Access::None) && quiet.planned > 0 {
            quiet.planned -= 1;
            quiet.owed += 1;
            return 0;
        }
        quiet.catch_up(ppu, cart);
    }
    cart.cpu_clock();
    run_dots(ppu, cart, 2);
    let val = match access {
        Access::None => 0,
        Access::ReadPpu(reg) => ppu.read_register(reg, cart),
        Access::WritePpu(reg, val) => {
            ppu.write_register(reg, val, cart);
            0
        }
        Access::WriteMapper(addr, val) => {
            ppu.catch_up(cart);
            cart.cpu_write(addr, val, cycle);
            ppu.cartridge_changed(cart);
            0
        }
    };
    run_dots(ppu, cart, 1);
    if let Some(quiet) = quiet {
        quiet.plan(ppu, cart);
    }
    val
}

/// A random access: mostly none; PPU registers (the scroll, the tables, the sprite size,
/// rendering on and off, $2002 polls, $2007 reads and writes during rendering), and MMC3's
/// IRQ and bank registers. A PPUMASK write turns rendering off if its byte is below `off`.
fn random_access(random: &mut XorShift, off: u8) -> Access {
    let val = random.byte();
    match random.word() % 400 {
        0..=1 => Access::WritePpu(0, val & 0x3B),
        2 => Access::WritePpu(
            1,
            if val < off {
                val & !mask::RENDERING
            } else {
                val
            },
        ),
        3..=5 => Access::ReadPpu(2),
        6 => Access::WritePpu(3, val),
        7 => Access::WritePpu(4, val),
        8 => Access::ReadPpu(4),
        9 => Access::WritePpu(5, val),
        10 => Access::WritePpu(6, val),
        11 => Access::ReadPpu(7),
        12 => Access::WritePpu(7, val),
        13 => Access::WriteMapper(0xC000, val % 12),
        14 => Access::WriteMapper(0xC001, val),
        15 => Access::WriteMapper(0xE000, val),
        16..=17 => Access::WriteMapper(0xE001, val),
        18 => Access::WriteMapper(0x8000, val),
        19 => Access::WriteMapper(0x8001, val),
        _ => Access::None,
    }
}

#[test]
fn a12_changes_match_lockstep() {
    // The board hears of A12's changes from the timing part, the render part runs behind in
    // whole lines and runs; the reference shows it every fetch in lockstep, dot by dot. Both
    // must agree on every cycle's IRQ line and read, and on everything a state holds.
    let irqs = compare_with_lockstep(XorShift(0x2545_F491_4F6C_DD1D), 40, 40, mmc3_cart);
    assert!(irqs > 200, "{irqs} IRQs");
}

#[test]
fn rendering_off_stretches_match_lockstep() {
    // The same with rendering mostly off: the render part runs the dots up to each access at
    // once (Ppu::render_idle_dots), the reference dot by dot.
    compare_with_lockstep(XorShift(0x9E37_79B9_7F4A_7C15), 30, 200, mmc3_cart);
}

#[test]
fn mid_line_accesses_match_the_dot_by_dot_reference() {
    // A board that watches nothing (NROM with CHR-RAM, which $2007 writes change): every
    // access with rendering on brings the render part to its dot in runs (Ppu::render_run)
    // and the line goes on in runs; the reference catches up after every dot.
    compare_with_lockstep(XorShift(0x3C6E_F372_FE94_F82B), 40, 40, |random| {
        let mut cart = cart();
        cart.chr_mut().iter_mut().for_each(|b| *b = random.byte());
        cart
    });
}

/// Random scenes (`scenes` of them, on carts from `make_cart`) run with random accesses
/// (PPUMASK writes turning rendering off if their byte is below `off`) both ways: as the bus
/// runs them (A12's changes told by the timing part) and dot by dot (in lockstep for a board
/// that follows A12), requiring the same reads and IRQ line every cycle and the same states
/// at random points and at the end; returns the IRQs seen.
fn compare_with_lockstep(
    mut random: XorShift,
    scenes: usize,
    off: u8,
    make_cart: fn(&mut XorShift) -> Cartridge,
) -> usize {
    let mut irqs = 0;
    let cart_state = |cart: &mut Cartridge| StateIo::save(|io| cart.visit(io));
    for scene in 0..scenes {
        let mut cart = make_cart(&mut random);
        cart.ciram_mut().iter_mut().for_each(|b| *b = random.byte());
        let mut ppu = random_palette_and_sprites(&mut random);
        // Both tables and sizes, rendering on unless a byte is below `off`.
        ppu.ppu_ctrl = random.byte() & 0x38;
        ppu.ppu_mask = random.byte()
            | if random.byte() >= off {
                mask::RENDERING
            } else {
                0
            };
        ppu.v = random.word() & 0x7FFF;
        ppu.t = random.word() & 0x7FFF;
        let line = u16::from(random.byte()) % LINES_PER_FRAME;
        (ppu.scanline, ppu.render_line) = (line, line);
        let mut lockstep = (ppu.clone(), cart.clone());
        lockstep.1.set_ppu_lockstep(true);
        assert!(!lockstep.1.follows_a12());
        for (addr, val) in [(0xC000, random.byte() % 8), (0xC001, 0), (0xE001, 0)] {
            cart.cpu_write(addr, val, 0);
            lockstep.1.cpu_write(addr, val, 0);
        }
        let mut irq = false;
        let mut quiet = QuietCycles::default();
        for cycle in 0..12_000 {
            let access = random_access(&mut random, off);
            let read = cpu_cycle(&mut ppu, &mut cart, access, cycle, Some(&mut quiet));
            let reference = cpu_cycle(&mut lockstep.0, &mut lockstep.1, access, cycle, None);
            let at = format!("scene {scene}, cycle {cycle}, {access:?}");
            assert_eq!(read, reference, "read, {at}");
            if random.byte() < 64 {
                // The end of an instruction: the bus catches up.
                quiet.catch_up(&mut ppu, &mut cart);
            }
            if random.byte() == 0 && random.byte() < 8 {
                // Looked at from outside (a debugger, a Lua script) in the middle of a line.
                quiet.catch_up(&mut ppu, &mut cart);
                ppu.catch_up(&mut cart);
                lockstep.0.catch_up(&mut lockstep.1);
                assert_eq!(ppu_state(&ppu), ppu_state(&lockstep.0), "{at}");
            }
            assert_eq!(cart.irq(), lockstep.1.irq(), "IRQ line, {at}");
            irqs += usize::from(cart.irq() && !irq);
            irq = cart.irq();
            if irq && random.byte() < 16 {
                // Acknowledged, some time after it rose (a write's full cycle, here untimed).
                quiet.catch_up(&mut ppu, &mut cart);
                for (ppu, cart) in [(&mut ppu, &mut cart), (&mut lockstep.0, &mut lockstep.1)] {
                    ppu.catch_up(cart);
                    cart.cpu_write(0xE000, 0, cycle);
                    cart.cpu_write(0xE001, 0, cycle);
                    ppu.cartridge_changed(cart);
                }
                quiet.plan(&ppu, &cart);
            }
        }
        quiet.catch_up(&mut ppu, &mut cart);
        ppu.catch_up(&mut cart);
        lockstep.0.catch_up(&mut lockstep.1);
        assert_eq!(ppu_state(&ppu), ppu_state(&lockstep.0), "scene {scene}");
        assert!(
            cart_state(&mut cart) == cart_state(&mut lockstep.1),
            "scene {scene}: the board's state"
        );
    }
    irqs
}

#[test]
fn the_latch_decays_as_counting_every_bits_age_does() {
    // The reference: each bit's last drive high, and the latch's bits older than
    // DECAY_FRAMES faded, asked at every read.
    let mut random = XorShift(0x6A09_E667_F3BC_C908);
    let (mut ppu, mut cart) = (Ppu::default(), cart());
    let (mut latch, mut refreshed) = (0u8, [0u64; 8]);
    let fresh = |refreshed: &[u64; 8], frame: u64| {
        (0..8).fold(0u8, |acc, bit| {
            acc | u8::from(frame.saturating_sub(refreshed[bit]) < DECAY_FRAMES) << bit
        })
    };
    let mut faded = 0;
    for _ in 0..20_000 {
        match random.byte() {
            0..=7 => ppu.frame += u64::from(random.byte() % 40),
            8..=9 => {
                // A state load forgets when the latch was last driven.
                let state = ppu_state(&ppu);
                ppu = Ppu::default();
                StateIo::load(&state, |io| ppu.visit(io)).unwrap();
            }
            10..=99 => {
                let val = random.byte();
                let reg = [0, 3, 5, 6][usize::from(random.byte() % 4)];
                ppu.write_register(reg, val, &mut cart);
                latch = val;
                refreshed
                    .iter_mut()
                    .enumerate()
                    .filter(|(bit, _)| val >> bit & 1 != 0)
                    .for_each(|(_, at)| *at = ppu.frame);
            }
            _ => {
                // $2002 drives bits 5-7, with VBlank and the sprite flags clear here.
                let expected = latch & fresh(&refreshed, ppu.frame);
                faded += usize::from(expected != latch);
                assert_eq!(ppu.read_register(2, &mut cart), expected & 0x1F);
                latch = expected & 0x1F;
                assert_eq!(ppu.read_register(1, &mut cart), latch);
            }
        }
    }
    assert!(faded > 40, "{faded} reads saw bits faded");
}

#[test]
fn overflow_counted_once_a_line_matches_counting_every_time() {
    let mut random = XorShift(0xBB67_AE85_84CA_A73B);
    let mut ppu = Ppu::default();
    let (mut possible, mut impossible) = (0, 0);
    for _ in 0..20_000 {
        match random.byte() {
            0..=49 => {
                // A $2004 write outside rendering.
                ppu.oam_addr = random.byte();
                ppu.write_oam(random.byte() % 64);
            }
            50..=59 => ppu.ppu_ctrl ^= ctrl::SPRITE_8X16,
            60..=69 => ppu.sprites.oam_corruption = Some(random.byte() % 32),
            70..=79 => ppu.corrupt_oam(),
            80..=159 => ppu.render_line = u16::from(random.byte()) % LINES_PER_FRAME,
            _ => {
                let counted = ppu.overflow_counted();
                assert_eq!(counted, ppu.overflow_possible());
                possible += usize::from(counted);
                impossible += usize::from(!counted);
            }
        }
    }
    assert!(
        possible > 500 && impossible > 500,
        "{possible} / {impossible}"
    );
}

#[test]
fn a12_fetches_follow_the_fetch_pattern() {
    // Dots 1-256 and 321-336: nametable, attribute, then two pattern fetches a tile;
    // 257-320: two garbage nametable fetches then two pattern fetches a sprite slot;
    // 337-340: two nametable fetches.
    for background in [false, true] {
        for tables in [None, Some(0), Some(0xFF), Some(0x5A), Some(0x81)] {
            let fetches = A12Fetches::new(background, tables);
            for dot in (1..DOTS_PER_LINE).step_by(2) {
                let expected = match dot {
                    1..=256 | 321..=336 => Some(dot % 8 >= 5 && background),
                    257..=320 if (dot - 257) % 8 < 4 => Some(false),
                    257..=320 => tables.map(|t| t >> ((dot - 257) / 8) & 1 != 0),
                    _ => Some(false),
                };
                assert_eq!(
                    fetches.level(usize::from(dot / 2)),
                    expected,
                    "dot {dot}, {background}, {tables:?}"
                );
            }
        }
    }
}
