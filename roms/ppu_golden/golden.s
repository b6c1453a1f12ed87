; PPU golden-image ROM: draws one fixed picture every frame. tests/ppu_golden/main.rs computes
; the same picture from the scene described here and compares the emulator's frame with it
; pixel for pixel.
;
; Scene:
; - nametable 0: tile 1 + ((column/4 + row/2) & 3), attribute palette (block x + block y) & 3;
;   nametable 1 (vertical mirroring, to its right): tile 4 + ((column + row) & 1), attributes
;   $E4 (palettes 0 1 / 2 3 in each 4x4-tile block);
; - top of the frame: scroll X 13, Y 21 from nametable 0, PPUMASK $1C (background hidden in
;   the left 8 pixels, sprites shown there), no emphasis;
; - sprite 0 (8x16) at Y 99: the NMI handler polls its hit (line 100), waits into that line's
;   horizontal blank, sets blue emphasis, then scroll X 200 from nametable 1. Emphasis starts
;   on line 101; the new X scroll on line 102 (t is copied to v at dot 257);
; - 8x16 sprites from both pattern tables with every flip, a palette each, background priority
;   and overlaps (table `sprites` below).

.include "nes.inc"

oam_page  = $0200
temp      = $00

; PPUCTRL: NMI on, 8x16 sprites, background from $0000, nametable 0 or 1.
CTRL_TOP    = $A0
CTRL_BOTTOM = $A1
MASK_TOP    = $1C
MASK_BOTTOM = $9C               ; + blue emphasis
SCROLL_X_TOP    = 13
SCROLL_Y        = 21
SCROLL_X_BOTTOM = 200
; Delay loop count that puts the PPUMASK write in the horizontal blank of the hit line.
HBLANK_DELAY = 15

ines_header 1, 1, $01  ; 16 KiB PRG-ROM, 8 KiB CHR-ROM, mapper 0, vertical mirroring

.segment "CODE"
reset:
    start_up

    ; Palettes.
    lda #$3F
    sta PPUADDR
    lda #$00
    sta PPUADDR
    ldx #0
@palette:
    lda palettes,x
    sta PPUDATA
    inx
    cpx #32
    bne @palette

    ; Nametable 0 tiles.
    lda #$20
    sta PPUADDR
    lda #$00
    sta PPUADDR
    ldy #0                      ; row
@nt0_row:
    ldx #0                      ; column
@nt0_column:
    tya
    lsr a
    sta temp
    txa
    lsr a
    lsr a
    clc
    adc temp
    and #3
    clc
    adc #1
    sta PPUDATA
    inx
    cpx #32
    bne @nt0_column
    iny
    cpy #30
    bne @nt0_row

    ; Nametable 0 attributes: palette (block x + block y) & 3 in all four quadrants.
    ldy #0                      ; block row
@at0_row:
    ldx #0                      ; block column
@at0_column:
    stx temp
    tya
    clc
    adc temp
    and #3
    sty temp
    tay
    lda quadruple,y
    ldy temp
    sta PPUDATA
    inx
    cpx #8
    bne @at0_column
    iny
    cpy #8
    bne @at0_row

    ; Nametable 1 ($2400) tiles: a checkerboard of tiles 4 and 5.
    ldy #0
@nt1_row:
    ldx #0
@nt1_column:
    stx temp
    tya
    clc
    adc temp
    and #1
    clc
    adc #4
    sta PPUDATA
    inx
    cpx #32
    bne @nt1_column
    iny
    cpy #30
    bne @nt1_row
    lda #$E4
    ldx #64
@at1:
    sta PPUDATA
    dex
    bne @at1

    ; Sprites: the table, then $FF (off screen) for the rest of OAM.
    ldx #0
@copy_sprites:
    lda sprites,x
    sta oam_page,x
    inx
    cpx #sprites_end - sprites
    bne @copy_sprites
    lda #$FF
@hide_sprites:
    sta oam_page,x
    inx
    bne @hide_sprites

    lda #CTRL_TOP
    sta PPUCTRL
@forever:
    jmp @forever

; Every frame: sprites, top scroll and mask, then the split under sprite 0.
nmi:
    pha
    txa
    pha
    lda #0
    sta OAMADDR
    lda #>oam_page
    sta OAMDMA
    bit PPUSTATUS               ; reset the write toggle
    lda #CTRL_TOP
    sta PPUCTRL
    lda #SCROLL_X_TOP
    sta PPUSCROLL
    lda #SCROLL_Y
    sta PPUSCROLL
    lda #MASK_TOP
    sta PPUMASK
    ; The hit flag of the last frame clears at the pre-render line.
@wait_clear:
    bit PPUSTATUS
    bvs @wait_clear
@wait_hit:
    bit PPUSTATUS
    bvc @wait_hit
    ldx #HBLANK_DELAY
@delay:
    dex
    bne @delay
    lda #MASK_BOTTOM
    sta PPUMASK
    ; Horizontal scroll only: t is copied to v at dot 257 of the next line.
    lda #CTRL_BOTTOM
    sta PPUCTRL
    lda #SCROLL_X_BOTTOM
    sta PPUSCROLL
    pla
    tax
    pla
irq:
    rti

.segment "RODATA"
palettes:
    .byte $0F, $01, $11, $21,  $00, $06, $16, $26,  $00, $09, $19, $29,  $00, $0C, $1C, $2C
    .byte $0F, $05, $15, $25,  $00, $08, $18, $28,  $00, $0A, $1A, $2A,  $00, $03, $13, $23
quadruple:
    .byte $00, $55, $AA, $FF

; Y, tile, attributes, X. Tile $10 is sprite A from pattern table 0 (even tile number), $21
; is sprite B from table 1 (odd). Attributes: bit 7 V flip, 6 H flip, 5 behind background,
; 0-1 palette.
sprites:
    .byte  99, $10, $00,  40     ; 0: sprite 0, polled for the split
    .byte  30, $10, $40,  60     ; 1: H flip
    .byte  30, $10, $81,  80     ; 2: V flip, palette 1
    .byte  30, $10, $C2, 100     ; 3: both flips, palette 2
    .byte  30, $21, $03, 120     ; 4: table 1, palette 3
    .byte  34, $21, $02,  64     ; 5: overlaps sprite 1, which wins where both are opaque
    .byte  60, $21, $21, 160     ; 6: behind the background
    .byte  60, $10, $23,   3     ; 7: behind, half in the clipped left 8 pixels
    .byte 150, $10, $41, 200     ; 8: below the split (emphasis, new scroll)
    .byte 236, $21, $00, 248     ; 9: clipped by the bottom and right edges
sprites_end:

.segment "VECTORS"
    .word nmi, reset, irq

.include "chr.s"
