; PPUMASK timing ROM: every frame, from the NMI on, writes PPUMASK at timed points of the
; picture, one write a line. tests/mask_timing.rs finds the dot of each write and checks on
; its line the pixel where each bit's effect begins.
;
; Scene: every background tile solid colour 1 ($16 on a $02 backdrop; colours 2 and 3 and the
; other palettes are $16 too), so stopped, restarted or stale background fetches all draw the
; same; sprite 0, solid colour 1 of sprite palette 0
; ($2A), at X 0 on lines SPRITE_TOP to SPRITE_TOP + 7. Each frame starts with PPUMASK $1E
; (background and sprites, in the left columns too, no colour effects).

.include "nes.inc"

oam_page   = $0200
SPRITE_TOP = 60
MASK_START = $1E

ines_header 1, 0, $01  ; 16 KiB PRG-ROM, CHR-RAM, mapper 0, vertical mirroring

.segment "CODE"
reset:
    start_up

    ; Tile 1: low plane all set, high plane clear.
    lda #$00
    sta PPUADDR
    lda #$10
    sta PPUADDR
    ldx #8
    lda #$FF
@low_plane:
    sta PPUDATA
    dex
    bne @low_plane
    ldx #8
    lda #$00
@high_plane:
    sta PPUDATA
    dex
    bne @high_plane

    ; Nametable 0: 960 tiles 1 (3 x 256 + 192), then 64 attribute bytes 0.
    lda #$20
    sta PPUADDR
    lda #$00
    sta PPUADDR
    lda #1
    ldy #3
    ldx #0
@tiles:
    sta PPUDATA
    dex
    bne @tiles
    dey
    bne @tiles
    ldx #192
@tiles_rest:
    sta PPUDATA
    dex
    bne @tiles_rest
    lda #0
    ldx #64
@attributes:
    sta PPUDATA
    dex
    bne @attributes

    ; Backdrop $02, colours 1-3 of every background palette $16 (the serial input of skipped
    ; reloads draws colour 2, stale attributes other palettes), sprite colour 1 $2A.
    lda #$3F
    sta PPUADDR
    lda #$00
    sta PPUADDR
    ldx #0
@palettes:
    txa
    and #3
    beq @backdrop
    lda #$16
    bne @entry
@backdrop:
    lda #$02
@entry:
    sta PPUDATA
    inx
    cpx #16
    bne @palettes
    lda #$3F
    sta PPUADDR
    lda #$11
    sta PPUADDR
    lda #$2A
    sta PPUDATA

    ; Sprite 0 (Y is the line above the first it shows on), the rest off screen.
    ldx #0
    lda #$FF
@hide_sprites:
    sta oam_page,x
    inx
    bne @hide_sprites
    lda #SPRITE_TOP - 1
    sta oam_page
    lda #1
    sta oam_page + 1
    lda #0
    sta oam_page + 2
    sta oam_page + 3

    lda #$80
    sta PPUCTRL
@forever:
    jmp @forever

; Every frame: sprites, scroll, the starting mask, then the timed writes.
nmi:
    lda #0
    sta OAMADDR
    lda #>oam_page
    sta OAMDMA
    bit PPUSTATUS
    lda #0
    sta PPUSCROLL
    sta PPUSCROLL
    lda #$80
    sta PPUCTRL
    lda #MASK_START
    sta PPUMASK
    ; Into the picture: 5 x 1284 cycles.
    ldy #5
    ldx #0
@to_picture:
    dex
    bne @to_picture
    dey
    bne @to_picture
    ; Each write waits 5 x delay + 18 cycles after the last one.
    ldy #0
@next:
    ldx delays,y
@wait:
    dex
    bne @wait
    lda masks,y
    sta PPUMASK
    iny
    cpy #masks_end - masks
    bne @next
irq:
    rti

.segment "RODATA"
; The writes in order, and the delay (see above) before each.
masks:
    .byte $1F                   ; greyscale
    .byte $1E
    .byte $3E                   ; red emphasis
    .byte $5E                   ; green emphasis
    .byte $9E                   ; blue emphasis
    .byte $FF                   ; all three and greyscale
    .byte $1E
    .byte $1C                   ; background hidden in the left columns
    .byte $1E
    .byte $1A                   ; sprites hidden in the left columns (sprite 0's lines)
    .byte $1E
    .byte $16                   ; background off, sprites on
    .byte $1E
    .byte $06                   ; rendering off
    .byte $1E                   ; and on again
masks_end:
; A delay of 42 is two lines and two dots, 32 a line and a half, 110 five lines less a dot, 51
; a line and a half the other way: the left-column writes land on dots 0-9 of their lines.
delays:
    .byte 42, 42, 42, 42, 42, 42, 42, 32, 42, 110, 42, 51, 42, 42, 42

.segment "VECTORS"
    .word nmi, reset, irq
