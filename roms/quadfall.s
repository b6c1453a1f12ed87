; Quadfall: a falling-blocks game for the NES, written for the nestor project.
;
; It keeps the RAM layout, the play-state machine and the ROM table addresses of NES Tetris
; (see the RAM section below), and the same instructions at the code addresses scripts hook, so
; tools written for that game work on this one. The rules follow the documented behaviour; the
; code, graphics and sounds are Quadfall's own.
; Assemble with scripts/build-rom.sh (ca65/ld65).

.include "chr.s"

; ---------------------------------------------------------------------------------------------
; Hardware

.include "nes.inc"
APUSTATUS = $4015
JOY1      = $4016
JOY2      = $4017

; MMC1 registers, written one bit at a time through the serial port.
MMC1_CONTROL = $9FFF
MMC1_CHR0    = $BFFF
MMC1_CHR1    = $DFFF
MMC1_PRG     = $FFF0

CHR_MENUS  = 0
CHR_INGAME = 3

; Buttons as the game stores them (bit 7..0).
BUTTON_A      = $80
BUTTON_B      = $40
BUTTON_SELECT = $20
BUTTON_START  = $10
BUTTON_UP     = $08
BUTTON_DOWN   = $04
BUTTON_LEFT   = $02
BUTTON_RIGHT  = $01

EMPTY_TILE   = $EF
BLANK_TILE   = $FF
CURTAIN_TILE = $4F
WALL_TILE    = $80
CURSOR_TILE  = $81
LOGO_TILE    = $82
NO_PIECE     = $13

; ---------------------------------------------------------------------------------------------
; RAM. Addresses from $17 on are fixed by the NES Tetris RAM map; $02-$16 are Quadfall's own.

tmp1             = $00
tmp2             = $01
ptr              = $02     ; 2 bytes
ppu_ctrl_shadow  = $04
ppu_mask_shadow  = $05
render_flags     = $06     ; HUD parts the NMI must redraw
mode_entered     = $07     ; gameMode whose screen is on display
menu_cursor      = $08
oam_index        = $09
paused           = $0A
title_timer      = $0B     ; 2 bytes
nmi_tmp1         = $0D
nmi_tmp2         = $0E
demo_buttons     = $10
lines_div10      = $11     ; 2 bytes
sound_ptr        = $13     ; 2 bytes
box_col          = $15
box_row          = $16

rng              = $17     ; 2 bytes, big-endian LFSR
spawn_id         = $19
spawn_count      = $1A
vblank_flag      = $33

; The active player's state ($40-$5F); $60-$7F holds player 1's saved copy.
tetrimino_x      = $40
tetrimino_y      = $41
current_piece    = $42
level            = $44
fall_timer       = $45
autorepeat_x     = $46
start_level      = $47
play_state       = $48
vram_row         = $49
completed_row    = $4A     ; 4 bytes
autorepeat_y     = $4E
hold_down_points = $4F
lines            = $50     ; 2 bytes
clear_column     = $52
score            = $53     ; 3 bytes
completed_lines  = $56
line_index       = $57
curtain_row      = $58
player1          = $60
player1_start_level = $67

game_mode_state  = $A7
general_counter  = $A8
row_y            = $A9
square_count     = $AA
square_offset    = $AB
original_value   = $AE
drop_speed       = $AF
frame_counter    = $B1     ; 2 bytes
newly_pressed    = $B5
held_buttons     = $B6
playfield_addr   = $B8     ; 2 bytes
render_mode      = $BD
number_of_players = $BE
next_piece       = $BF
game_mode        = $C0
game_type        = $C1
sleep_counter    = $C3
demo_held        = $CE
demo_repeats     = $CF
demo_recording   = $D0
demo_ptr         = $D1     ; 2 bytes
demo_index       = $D3
pad1_new         = $F5
pad2_new         = $F6
pad1_held        = $F7
pad2_held        = $F8

oam              = $0200
statistics       = $03F0
playfield        = $0400
sfx_ptr_lo       = $0680   ; 3 channels each: pulse 1, pulse 2, noise
sfx_ptr_hi       = $0683
sfx_timer        = $0686
sfx_request_alt  = $06F0
sfx_request      = $06F1

; game modes
MODE_LEGAL      = 0
MODE_TITLE      = 1
MODE_GAME_TYPE  = 2
MODE_LEVEL_MENU = 3
MODE_PLAY       = 4
MODE_DEMO       = 5
MODE_START_DEMO = 6

; render modes
RENDER_SCREEN = 0
RENDER_MENUS  = 1
RENDER_PLAY   = 3

; play states
STATE_CONTROL  = 1
STATE_LOCK     = 2
STATE_CLEARING = 4
STATE_CURTAIN  = $0A

; render_flags bits
HUD_SCORE   = $01
HUD_LINES   = $02
HUD_STATS   = $04
HUD_PALETTE = $08

; sound effects (sfx_request)
SFX_MENU_MOVE   = 1
SFX_MENU_SELECT = 2
SFX_SHIFT       = 3
SFX_TETRIS      = 4
SFX_ROTATE      = 5
SFX_LEVEL_UP    = 6
SFX_LOCK        = 7
SFX_CLEARING    = 9
SFX_LINE        = $0A
SFX_ALT_CURTAIN = 2        ; sfx_request_alt

TITLE_IDLE_FRAMES = 600
LEGAL_MIN_FRAMES  = 120

; Text: digits and letters are tiles $00-$23, so BCD digits are tile numbers.
.charmap $20, BLANK_TILE
.repeat 10, i
  .charmap $30 + i, i
.endrepeat
.repeat 26, i
  .charmap $41 + i, $0A + i
.endrepeat
.charmap '-', $24
.charmap '.', $25
.charmap '!', $26
.charmap '?', $27
.charmap ':', $28
.charmap $27, $29
.charmap ',', $2A
.charmap '/', $2B
.charmap '(', $2C
.charmap ')', $2D
.charmap '+', $2E

; A string placed at nametable column x, row y.
.macro text col, row, str
  .byte >($2000 + (row) * 32 + (col)), <($2000 + (row) * 32 + (col)), .strlen(str)
  .byte str
.endmacro

; A run of one tile.
.macro run col, row, count, tile
  .byte >($2000 + (row) * 32 + (col)), <($2000 + (row) * 32 + (col)), count
  .res count, tile
.endmacro

; Writes A's low five bits to an MMC1 register, lowest bit first.
.macro mmc1_write reg
  sta reg
  lsr a
  sta reg
  lsr a
  sta reg
  lsr a
  sta reg
  lsr a
  sta reg
.endmacro

; ---------------------------------------------------------------------------------------------
.segment "HEADER"
  .byte $4E, $45, $53, $1A    ; "NES" (raw bytes: the charmap maps text to tiles)
  .byte 2             ; 2 x 16 KiB PRG-ROM
  .byte 2             ; 2 x 8 KiB CHR-ROM
  .byte $10           ; mapper 1, mirroring from the mapper
  .byte $00
  .res 8, 0

; ---------------------------------------------------------------------------------------------
; Tables at the addresses NES Tetris keeps them.

.segment "ROTATE"
; Rotation: per orientation ID, (counter-clockwise, clockwise).
rotation_table:
  .byte $03, $01,  $00, $02,  $01, $03,  $02, $00   ; T
  .byte $07, $05,  $04, $06,  $05, $07,  $06, $04   ; J
  .byte $09, $09,  $08, $08                         ; Z
  .byte $0A, $0A                                    ; O
  .byte $0C, $0C,  $0B, $0B                         ; S
  .byte $10, $0E,  $0D, $0F,  $0E, $10,  $0F, $0D   ; L
  .byte $12, $12,  $11, $11                         ; I

.segment "GRAVITY"
; Frames per row, levels 0-29 (29 and up fall a row a frame).
frames_per_drop:
  .byte 48, 43, 38, 33, 28, 23, 18, 13, 8, 6
  .byte 5, 5, 5, 4, 4, 4, 3, 3, 3, 2
  .byte 2, 2, 2, 2, 2, 2, 2, 2, 2, 1

.segment "ORIENT"
; The 19 orientations: four squares of (Y, tile, X), offsets from the piece's origin.
orientation_table:
  .byte $00,$7B,$FF, $00,$7B,$00, $00,$7B,$01, $FF,$7B,$00   ; 00 T up
  .byte $FF,$7B,$00, $00,$7B,$00, $00,$7B,$01, $01,$7B,$00   ; 01 T right
  .byte $00,$7B,$FF, $00,$7B,$00, $00,$7B,$01, $01,$7B,$00   ; 02 T down (spawn)
  .byte $FF,$7B,$00, $00,$7B,$FF, $00,$7B,$00, $01,$7B,$00   ; 03 T left
  .byte $FF,$7D,$00, $00,$7D,$00, $01,$7D,$FF, $01,$7D,$00   ; 04 J left
  .byte $FF,$7D,$FF, $00,$7D,$FF, $00,$7D,$00, $00,$7D,$01   ; 05 J up
  .byte $FF,$7D,$00, $FF,$7D,$01, $00,$7D,$00, $01,$7D,$00   ; 06 J right
  .byte $00,$7D,$FF, $00,$7D,$00, $00,$7D,$01, $01,$7D,$01   ; 07 J down (spawn)
  .byte $00,$7C,$FF, $00,$7C,$00, $01,$7C,$00, $01,$7C,$01   ; 08 Z horizontal (spawn)
  .byte $FF,$7C,$01, $00,$7C,$00, $00,$7C,$01, $01,$7C,$00   ; 09 Z vertical
  .byte $00,$7B,$FF, $00,$7B,$00, $01,$7B,$FF, $01,$7B,$00   ; 0A O (spawn)
  .byte $00,$7D,$00, $00,$7D,$01, $01,$7D,$FF, $01,$7D,$00   ; 0B S horizontal (spawn)
  .byte $FF,$7D,$00, $00,$7D,$00, $00,$7D,$01, $01,$7D,$01   ; 0C S vertical
  .byte $FF,$7C,$00, $00,$7C,$00, $01,$7C,$00, $01,$7C,$01   ; 0D L right
  .byte $00,$7C,$FF, $00,$7C,$00, $00,$7C,$01, $01,$7C,$FF   ; 0E L down (spawn)
  .byte $FF,$7C,$FF, $FF,$7C,$00, $00,$7C,$00, $01,$7C,$00   ; 0F L left
  .byte $FF,$7C,$01, $00,$7C,$FF, $00,$7C,$00, $00,$7C,$01   ; 10 L up
  .byte $FE,$7B,$00, $FF,$7B,$00, $00,$7B,$00, $01,$7B,$00   ; 11 I vertical
  .byte $00,$7B,$FE, $00,$7B,$FF, $00,$7B,$00, $00,$7B,$01   ; 12 I horizontal (spawn)
  .byte $00,$FF,$00, $00,$FF,$00, $00,$FF,$00, $00,$FF,$00   ; 13 none

.segment "ROWOFF"
; Playfield offset of each row (10 * y).
row_offset:
  .repeat 20, r
    .byte r * 10
  .endrepeat

.segment "COLORS"
; Piece colours per level mod 10: black, white, colour 2, colour 3.
level_colors:
  .byte $0F, $30, $21, $12
  .byte $0F, $30, $29, $1A
  .byte $0F, $30, $24, $14
  .byte $0F, $30, $2A, $12
  .byte $0F, $30, $2B, $15
  .byte $0F, $30, $22, $2B
  .byte $0F, $30, $00, $16
  .byte $0F, $30, $05, $13
  .byte $0F, $30, $16, $12
  .byte $0F, $30, $27, $16

.segment "TYPES"
; Piece type (T J Z O S L I = 0-6) of each orientation ID.
type_of_orientation:
  .byte 0, 0, 0, 0,  1, 1, 1, 1,  2, 2,  3,  4, 4,  5, 5, 5, 5,  6, 6
; Spawn orientation of each type; the eighth entry serves the demo's type 7.
spawn_table:
  .byte $02, $07, $08, $0A, $0B, $0E, $12, $02
; Spawn orientation of the piece type of each orientation ID.
spawn_of_orientation:
  .byte $02, $02, $02, $02,  $07, $07, $07, $07,  $08, $08,  $0A,  $0B, $0B
  .byte $0E, $0E, $0E, $0E,  $12, $12

.segment "POINTS"
; Points for 0-4 lines, 16-bit packed BCD, little-endian.
points_table:
  .word $0000, $0040, $0100, $0300, $1200

; ---------------------------------------------------------------------------------------------
.segment "CODE"

reset:
  sei
  cld
  ldx #$FF
  txs
  inc $8000                 ; the first (unmodified, bit 7 set) write resets the MMC1
  lda #$00
  sta PPUCTRL
  sta PPUMASK
  lda #$40
  sta JOY2                  ; no APU frame IRQ
  bit PPUSTATUS
@wait1:
  bit PPUSTATUS
  bpl @wait1
  lda #$00
  tax
@clear_ram:
  sta $00, x
  sta $0100, x
  sta $0300, x
  sta $0500, x
  sta $0600, x
  sta $0700, x
  inx
  bne @clear_ram
@wait2:
  bit PPUSTATUS
  bpl @wait2
  lda #$10                  ; 4 KiB CHR banks, 32 KiB PRG, one-screen mirroring
  mmc1_write MMC1_CONTROL
  lda #CHR_MENUS
  jsr set_chr_bank
  lda #$00
  mmc1_write MMC1_PRG
  ldx #$89                  ; the LFSR's seed, $8988
  stx rng
  dex
  stx rng + 1
  jsr clear_playfield
  lda #<playfield
  sta playfield_addr
  lda #>playfield
  sta playfield_addr + 1
  lda #1
  sta number_of_players
  lda #NO_PIECE
  sta current_piece
  sta player1 + current_piece - $40
  lda #$FF
  sta mode_entered
  jsr hide_sprites
  jsr init_sound
  lda #$80
  sta ppu_ctrl_shadow
  sta PPUCTRL

main_loop:
  jsr run_game_mode
  lda game_mode             ; the demo ends when its button table runs out
  cmp #MODE_DEMO
  bne @wait
  lda demo_ptr + 1
  cmp #$DF
  bne @wait
  lda #$DD
  sta demo_ptr + 1
  lda #MODE_TITLE
  sta game_mode
@wait:
  jsr wait_for_nmi
  jmp main_loop

; Sleeps until the next NMI, then starts the frame's sprite list empty.
wait_for_nmi:
  lda #0
  sta vblank_flag
@spin:
  lda vblank_flag
  beq @spin
hide_sprites:
  lda #$FF
  ldx #0
@hide:
  sta oam, x
  inx
  bne @hide
  stx oam_index
  rts

set_chr_bank:
  pha
  mmc1_write MMC1_CHR0
  pla
  mmc1_write MMC1_CHR1
  rts

clear_playfield:
  lda #EMPTY_TILE
  ldx #0
@fill:
  sta playfield, x
  sta playfield + $100, x
  inx
  bne @fill
  rts

; Dispatches on gameMode. A handler sees carry set on the first frame of its mode.
run_game_mode:
  lda game_mode
  asl a
  tax
  lda mode_handlers + 1, x
  pha
  lda mode_handlers, x
  pha
  lda game_mode
  cmp mode_entered
  beq @same
  sta mode_entered
  sec
  rts
@same:
  clc
  rts

mode_handlers:
  .addr legal_screen - 1, title_screen - 1, game_type_menu - 1, level_menu - 1
  .addr play_mode - 1, play_mode - 1, start_demo - 1

; ---------------------------------------------------------------------------------------------
; Screens and menus

legal_screen:
  bcc @run
  lda #<legal_text
  ldx #>legal_text
  jsr show_screen
  lda #LEGAL_MIN_FRAMES
  sta sleep_counter
  lda #$FF
  sta general_counter
  lda #0
  sta game_mode_state
  rts
@run:
  lda game_mode_state
  bne @skippable
  lda sleep_counter         ; counted down by the NMI; Start is ignored until it runs out
  bne @done
  inc game_mode_state
  rts
@skippable:
  lda pad1_new
  cmp #BUTTON_START
  beq @next
  dec general_counter
  bne @done
@next:
  inc game_mode
@done:
  rts

title_screen:
  bcc @run
  lda #<title_text
  ldx #>title_text
  jsr show_screen
  lda #0
  sta title_timer
  sta title_timer + 1
  rts
@run:
  lda pad1_new
  cmp #BUTTON_START
  bne @idle
  lda #SFX_MENU_SELECT
  sta sfx_request
  inc game_mode
  rts
@idle:
  inc title_timer
  bne @check
  inc title_timer + 1
@check:
  lda title_timer
  cmp #<TITLE_IDLE_FRAMES
  bne @done
  lda title_timer + 1
  cmp #>TITLE_IDLE_FRAMES
  bne @done
  lda #MODE_START_DEMO
  sta game_mode
@done:
  rts

game_type_menu:
  bcc @run
  lda #<game_type_text
  ldx #>game_type_text
  jsr show_screen
  lda #RENDER_MENUS
  sta render_mode
  lda #0
  sta game_type
  rts
@run:
  lda #12 * 8 - 1
  ldx #9 * 8
  jsr stage_cursor
  lda pad1_new
  cmp #BUTTON_START
  bne @back
  lda #SFX_MENU_SELECT
  sta sfx_request
  inc game_mode
  rts
@back:
  cmp #BUTTON_B
  bne @done
  dec game_mode
@done:
  rts

level_menu:
  bcc @run
  lda #<level_text
  ldx #>level_text
  jsr show_screen
  lda #RENDER_MENUS
  sta render_mode
  lda start_level
  cmp #10
  bcc @keep
  sbc #10
  cmp #10
  bcc @keep
  lda #0
@keep:
  sta menu_cursor
  rts
@run:
  lda pad1_new
  and #BUTTON_START
  bne @start
  lda pad1_new
  cmp #BUTTON_B
  bne @move
  dec game_mode
  rts
@move:
  ldx menu_cursor
  lsr a                     ; Right
  bcc @not_right
  cpx #4
  beq @not_right
  cpx #9
  beq @not_right
  inx
@not_right:
  lsr a                     ; Left
  bcc @not_left
  cpx #0
  beq @not_left
  cpx #5
  beq @not_left
  dex
@not_left:
  lsr a                     ; Down
  bcc @not_down
  cpx #5
  bcs @not_down
  inx
  inx
  inx
  inx
  inx
@not_down:
  lsr a                     ; Up
  bcc @moved
  cpx #5
  bcc @moved
  dex
  dex
  dex
  dex
  dex
@moved:
  cpx menu_cursor
  beq @draw
  stx menu_cursor
  lda #SFX_MENU_MOVE
  sta sfx_request
@draw:
  lda menu_cursor           ; cursor left of the digit: columns 11, 14, ... rows 10 and 13
  ldy #10 * 8 - 1
  cmp #5
  bcc @row
  sbc #5
  ldy #13 * 8 - 1
@row:
  sta tmp1
  asl a
  adc tmp1
  adc #10
  asl a
  asl a
  asl a
  tax
  tya
  jmp stage_cursor
@start:
  lda menu_cursor
  bit pad1_held             ; A held adds 10
  bpl @store
  clc
  adc #10
@store:
  sta start_level
  sta player1_start_level
  lda #SFX_MENU_SELECT
  sta sfx_request
  inc game_mode
  rts

start_demo:
  lda #0
  sta game_type
  sta start_level
  sta player1_start_level
  sta demo_index
  sta demo_held
  sta demo_repeats
  sta demo_ptr
  lda #$DD
  sta demo_ptr + 1
  lda #MODE_DEMO
  sta game_mode
  rts

; Sprite arrow at (X, A).
stage_cursor:
  ldy oam_index
  sta oam, y
  lda #CURSOR_TILE
  sta oam + 1, y
  lda #0
  sta oam + 2, y
  txa
  sta oam + 3, y
  tya
  clc
  adc #4
  sta oam_index
  rts

; Turns the picture and the NMI off for a redraw (the NMI, and with it the RNG, pauses).
screen_off:
  jsr wait_for_nmi
  lda #0
  sta PPUMASK
  sta ppu_mask_shadow
  sta PPUCTRL
  rts

screen_on:
  bit PPUSTATUS
  lda #$1E
  sta ppu_mask_shadow
  lda #$80
  sta ppu_ctrl_shadow
  sta PPUCTRL
  rts

; Clears the nametable, loads the palette and draws a list of strings (A/X = its address).
show_screen:
  sta ptr
  stx ptr + 1
  jsr screen_off
  lda #CHR_MENUS
  jsr set_chr_bank
  jsr clear_nametable
  jsr draw_strings
  lda #RENDER_SCREEN
  sta render_mode
  jmp screen_on

clear_nametable:
  lda #$20
  sta PPUADDR
  lda #$00
  sta PPUADDR
  lda #BLANK_TILE
  ldx #0
  ldy #4
@tiles:
  sta PPUDATA
  inx
  bne @tiles
  dey
  bne @tiles
  lda #$23                  ; attributes: palette 0 everywhere
  sta PPUADDR
  lda #$C0
  sta PPUADDR
  lda #0
  ldx #64
@attr:
  sta PPUDATA
  dex
  bne @attr
  lda #$3F
  sta PPUADDR
  lda #$00
  sta PPUADDR
  tax
@palette:
  lda base_palette, x
  sta PPUDATA
  inx
  cpx #32
  bne @palette
  rts

; Strings at ptr: (address high, address low, length, tiles...), ended by a zero byte.
draw_strings:
  ldy #0
@next:
  lda (ptr), y
  beq @done
  sta PPUADDR
  iny
  lda (ptr), y
  sta PPUADDR
  iny
  lda (ptr), y
  tax
  iny
@tile:
  lda (ptr), y
  sta PPUDATA
  iny
  bne @same_page
  inc ptr + 1
@same_page:
  dex
  bne @tile
  beq @next
@done:
  rts

; Draws a wall rectangle of WALL_TILE: X = left column, Y = top row, tmp1 = width, tmp2 = height.
draw_box:
  stx box_col
  sty box_row
  jsr box_address
  ldx tmp1                  ; top edge
  jsr wall_run
  lda box_row
  clc
  adc tmp2
  tay
  dey
  jsr box_address
  ldx tmp1                  ; bottom edge
  jsr wall_run
  lda #$04                  ; sides: VRAM address steps down a row
  sta PPUCTRL
  ldy box_row
  jsr box_address
  ldx tmp2
  jsr wall_run
  lda box_col
  clc
  adc tmp1
  sec
  sbc #1
  sta box_col
  ldy box_row
  jsr box_address
  ldx tmp2
  jsr wall_run
  lda #0
  sta PPUCTRL
  rts
box_address:                ; PPUADDR = $2000 + 32 * Y + box_col
  tya
  lsr a
  lsr a
  lsr a
  ora #$20
  sta PPUADDR
  tya
  asl a
  asl a
  asl a
  asl a
  asl a
  ora box_col
  sta PPUADDR
  rts
wall_run:
  lda #WALL_TILE
@tile:
  sta PPUDATA
  dex
  bne @tile
  rts

; ---------------------------------------------------------------------------------------------
; Play and demo (gameMode 4 and 5): one call per frame.

play_mode:
  bcc @frame
  jmp start_game
@frame:
  lda player1 + play_state - $40
  bne @playing
  lda #MODE_LEVEL_MENU      ; game over: back to the menus (the demo back to the title)
  ldx game_mode
  cpx #MODE_DEMO
  bne @to_menu
  lda #MODE_TITLE
@to_menu:
  sta game_mode
  rts
@playing:
  jsr copy_player_in
  inc fall_timer
  jsr run_play_state
  jsr stage_current_piece
  jsr copy_player_out
  jsr stage_next_piece
  jmp handle_pause

copy_player_in:
  ldx #$1F
@copy:
  lda player1, x
  sta $40, x
  dex
  bpl @copy
  rts

copy_player_out:
  ldx #$1F
@copy:
  lda $40, x
  sta player1, x
  dex
  bpl @copy
  rts

run_play_state:
  lda play_state
  asl a
  tax
  lda play_state_handlers + 1, x
  pha
  lda play_state_handlers, x
  pha
  rts

play_state_handlers:
  .addr unassign_piece - 1, control_piece - 1, lock_piece - 1, check_completed_rows - 1
  .addr no_action - 1, update_lines_and_score - 1, next_play_state - 1, next_play_state - 1
  .addr spawn_piece - 1, no_action - 1, update_curtain - 1, next_play_state - 1

unassign_piece:
  lda #NO_PIECE
  sta current_piece
no_action:
  rts

next_play_state:
  inc play_state
  rts

; Start pauses a game (not the demo) until Start is pressed again. The NMI keeps running.
handle_pause:
  lda game_mode
  cmp #MODE_PLAY
  bne @done
  lda play_state
  cmp #STATE_CURTAIN
  beq @done
  lda newly_pressed
  and #BUTTON_START
  beq @done
  lda #SFX_MENU_SELECT
  sta sfx_request
@paused:
  jsr wait_for_nmi
  jsr stage_pause_text
  lda newly_pressed
  and #BUTTON_START
  beq @paused
@done:
  rts

stage_pause_text:
  ldy #0
@letter:
  lda #14 * 8 - 1
  sta oam, y
  lda pause_tiles, y
  sta oam + 1, y
  lda #0
  sta oam + 2, y
  tya
  asl a
  adc #15 * 8
  sta oam + 3, y
  iny
  iny
  iny
  iny
  cpy #20
  bne @letter
  rts
pause_tiles:                ; P A U S E, every fourth byte
  .byte $19, 0, 0, 0, $0A, 0, 0, 0, $1E, 0, 0, 0, $1C, 0, 0, 0, $0E

; Draws the play screen and sets up a new game.
start_game:
  jsr screen_off
  lda #CHR_INGAME
  jsr set_chr_bank
  lda #<play_text
  sta ptr
  lda #>play_text
  sta ptr + 1
  jsr clear_nametable
  jsr draw_strings
  lda #$23
  sta PPUADDR
  lda #$C0
  sta PPUADDR
  ldx #0
@attr:
  lda play_attributes, x
  sta PPUDATA
  inx
  cpx #64
  bne @attr
  ldx #11                   ; playfield walls
  ldy #4
  lda #12
  sta tmp1
  lda #22
  sta tmp2
  jsr draw_box
  ldx #23                   ; next-piece box
  ldy #15
  lda #8
  sta tmp1
  lda #6
  sta tmp2
  jsr draw_box

  jsr clear_playfield
  lda #0                    ; completedLines and holdDownPoints carry over, as in the original
  sta tetrimino_y
  sta fall_timer
  sta autorepeat_x
  sta vram_row
  sta completed_row
  sta completed_row + 1
  sta completed_row + 2
  sta completed_row + 3
  sta lines
  sta lines + 1
  sta clear_column
  sta score
  sta score + 1
  sta score + 2
  sta line_index
  sta curtain_row
  sta spawn_id
  ldx #13
@stats:
  sta statistics, x
  dex
  bpl @stats
  lda #5
  sta tetrimino_x
  lda #STATE_CONTROL
  sta play_state
  lda #$A0                  ; the first piece waits 96 frames
  sta autorepeat_y
  lda player1_start_level
  sta start_level
  sta level
  jsr choose_next_piece
  sta current_piece
  jsr count_piece
  jsr choose_next_piece
  sta next_piece
  jsr copy_player_out
  lda #HUD_SCORE | HUD_LINES | HUD_STATS | HUD_PALETTE
  sta render_flags
  lda #RENDER_PLAY
  sta render_mode
  jmp screen_on

; --- play state 1: the player moves the piece: shift, then rotate, then drop.
control_piece:
  jsr shift_piece
  jsr rotate_piece
  jmp drop_piece

shift_piece:
  lda tetrimino_x
  sta original_value
  lda held_buttons          ; no shifting while Down is held
  and #BUTTON_DOWN
  bne @done
  lda newly_pressed
  and #BUTTON_LEFT | BUTTON_RIGHT
  bne @fresh_press
  lda held_buttons
  and #BUTTON_LEFT | BUTTON_RIGHT
  beq @done
  inc autorepeat_x          ; delayed auto shift: 16 frames, then every 6
  lda autorepeat_x
  cmp #16
  bmi @done
  lda #10
  sta autorepeat_x
  bne @move
@fresh_press:
  lda #0
  sta autorepeat_x
@move:
  lda held_buttons
  lsr a
  bcc @left
  inc tetrimino_x
  bne @try
@left:
  lsr a
  bcc @done
  dec tetrimino_x
@try:
  jsr is_position_valid
  bne @blocked
  lda #SFX_SHIFT
  sta sfx_request
  rts
@blocked:                   ; against a wall: the next held frame shifts at once
  lda original_value
  sta tetrimino_x
  lda #16
  sta autorepeat_x
@done:
  rts

rotate_piece:
  lda current_piece
  sta original_value
  asl a
  tax
  lda newly_pressed
  bmi @clockwise            ; A
  and #BUTTON_B
  beq @done
  bne @turn
@clockwise:
  inx
@turn:
  lda rotation_table, x
  sta current_piece
  jsr is_position_valid
  bne @blocked
  lda #SFX_ROTATE
  sta sfx_request
  rts
@blocked:
  lda original_value
  sta current_piece
@done:
  rts

; The drop code sits where NES Tetris has it, from the end of the rotation table to the gravity
; table: scripts hook the level check at $8977 (see roms/README.md).
DROP_AT       = $8914
DROP_SPEED_AT = $8973
.segment "DROP"
drop_piece:
  lda autorepeat_y
  bpl @not_waiting
  lda newly_pressed         ; first piece: hangs until autorepeatY counts up to 0 or Down
  and #BUTTON_DOWN
  bne @pressed
  inc autorepeat_y
@return:
  rts
@pressed:
  lda #0
  sta autorepeat_y
  beq @idle
@not_waiting:
  bne @soft_dropping
@idle:                      ; Down must be freshly pressed (alone) to start a soft drop
  lda held_buttons
  and #BUTTON_LEFT | BUTTON_RIGHT
  bne @gravity
  lda newly_pressed
  and #$0F
  cmp #BUTTON_DOWN
  bne @gravity
  inc autorepeat_y          ; 0 -> 1
  bne @gravity
@soft_dropping:
  lda held_buttons
  and #$0F
  cmp #BUTTON_DOWN
  beq @down_held
  lda #0
  sta autorepeat_y
  sta hold_down_points
  beq @gravity
@down_held:
  inc autorepeat_y
  lda autorepeat_y
  cmp #3
  bcc @gravity
  lda #1
  sta autorepeat_y
  inc hold_down_points
@drop:
  lda #0
  sta fall_timer
  lda tetrimino_y
  sta original_value
  inc tetrimino_y
  jsr is_position_valid
  beq @return
  lda original_value        ; supported: lock
  sta tetrimino_y
  lda #STATE_LOCK
  sta play_state
  jmp refresh_rows_from_piece
  .res DROP_SPEED_AT - DROP_AT - (* - drop_piece), $FF   ; filler up to $8973

; $8973: frames per row for the level, then a row down when the fall timer reaches it. At the
; CPX at $8977 X holds the level: a script that sets X to 29 or more there makes the piece fall
; a row every frame.
@gravity:
  lda #1
  ldx level
  cpx #29
  bcs @speed
  lda frames_per_drop, x
@speed:
  sta drop_speed
  lda fall_timer
  cmp drop_speed
  bpl @drop
  rts
.assert drop_piece = DROP_AT, lderror, "DROP must start at $8914 (roms/quadfall.cfg)"

.segment "CODE"

; Z set (A = 0) when all four squares of the piece are inside rows -2..19, columns 0..9 and on
; empty cells. Rows -1 and -2 read the $EF padding at $04EC-$04FF.
is_position_valid:
  jsr piece_origin
@square:
  lda orientation_table, x
  clc
  adc tetrimino_y
  clc
  adc #2
  cmp #22
  bcs @invalid
  jsr square_cell
  lda playfield, y
  cmp #EMPTY_TILE
  bcc @invalid
  lda orientation_table + 2, x
  clc
  adc tetrimino_x
  cmp #10
  bcs @invalid
  inx
  inx
  inx
  dec square_count
  bne @square
  lda #0
  rts
@invalid:
  lda #$FF
  rts

; general_counter = 10 * y + x of the piece; X = 12 * orientation; four squares to go.
piece_origin:
  lda tetrimino_y
  asl a
  sta general_counter
  asl a
  asl a
  adc general_counter
  adc tetrimino_x
  sta general_counter
  lda current_piece
  asl a
  asl a
  sta square_offset
  asl a
  adc square_offset
  tax
  lda #4
  sta square_count
  rts

; Y = playfield index (mod 256) of the square at X in the orientation table.
square_cell:
  lda orientation_table, x
  asl a
  sta square_offset
  asl a
  asl a
  clc
  adc square_offset
  clc
  adc general_counter
  clc
  adc orientation_table + 2, x
  tay
  rts

; Marks the rows from two above the piece down for copying to VRAM.
refresh_rows_from_piece:
  lda tetrimino_y
  sec
  sbc #2
  bpl @row
  lda #0
@row:
  cmp vram_row
  bpl @done
  sta vram_row
@done:
  rts

; --- play state 2: write the piece into the playfield (or end the game if it overlaps).
lock_piece:
  jsr is_position_valid
  beq @fits
  lda #SFX_ALT_CURTAIN
  sta sfx_request_alt
  lda #STATE_CURTAIN
  sta play_state
  lda #$F0
  sta curtain_row
  rts
@fits:
  lda vram_row              ; wait until the playfield is on screen
  cmp #$20
  bmi @done
  jsr piece_origin
@square:
  jsr square_cell
  lda orientation_table + 1, x
  sta playfield, y          ; rows -1/-2 land in the padding, unseen
  inx
  inx
  inx
  dec square_count
  bne @square
  lda #0
  sta line_index
  jsr refresh_rows_from_piece
  inc play_state
@done:
  rts

; --- play state 3: scan one row a frame, rows y-2 .. y+1 of the piece (from row 0).
check_completed_rows:
  lda vram_row
  cmp #$20
  bpl @scan
  rts
@scan:
  lda tetrimino_y
  sec
  sbc #2
  bpl @first
  lda #0
@first:
  clc
  adc line_index
  sta row_y
  asl a
  sta general_counter
  asl a
  asl a
  clc
  adc general_counter
  sta general_counter
  tay
  ldx #10
@cell:
  lda playfield, y
  cmp #EMPTY_TILE
  beq @incomplete
  iny
  dex
  bne @cell
  lda #SFX_LINE
  sta sfx_request
  inc completed_lines
  ldx line_index
  lda row_y
  sta completed_row, x
  ldy general_counter       ; move everything above down one row
@shift:
  dey
  lda playfield, y
  sta playfield + 10, y
  cpy #0
  bne @shift
  lda #EMPTY_TILE
  ldy #9
@top:
  sta playfield, y
  dey
  bpl @top
  lda #NO_PIECE
  sta current_piece
  jmp @next_row
@incomplete:
  ldx line_index
  lda #0
  sta completed_row, x
@next_row:
  inc line_index
  lda line_index
  cmp #4
  bmi @done
  lda #0                    ; redraw the whole playfield
  sta vram_row
  sta clear_column
  lda completed_lines
  cmp #4
  bne @not_four
  lda #SFX_TETRIS
  sta sfx_request
@not_four:
  inc play_state
  lda completed_lines
  bne @done
  inc play_state            ; nothing cleared: skip the animation
  lda #SFX_LOCK
  sta sfx_request
@done:
  rts

; --- play state 5: lines, level, score.
update_lines_and_score:
  ldx completed_lines
  beq @soft_drop
@line:
  inc lines
  lda lines
  and #$0F
  cmp #$0A
  bmi @level
  lda lines
  clc
  adc #6
  sta lines
  and #$F0
  cmp #$A0
  bcc @level
  lda lines
  and #$0F
  sta lines
  inc lines + 1
@level:
  lda lines
  and #$0F
  bne @next_line
  lda lines + 1             ; lines / 10, as packed BCD ...
  sta lines_div10 + 1
  lda lines
  sta lines_div10
  ldy #4
@shift:
  lsr lines_div10 + 1
  ror lines_div10
  dey
  bne @shift
  lda level                 ; ... compared with the binary level, as documented
  cmp lines_div10
  bpl @next_line
  inc level
  lda #SFX_LEVEL_UP
  sta sfx_request
  lda render_flags
  ora #HUD_PALETTE
  sta render_flags
@next_line:
  dex
  bne @line
@soft_drop:
  lda hold_down_points      ; (rows - 1) added to the low score byte
  cmp #2
  bmi @points
  clc
  dec score
  adc score
  sta score
  and #$0F
  cmp #$0A
  bcc @high_digit
  lda score
  clc
  adc #6
  sta score
@high_digit:
  lda score
  and #$F0
  cmp #$A0
  bcc @points
  clc                       ; adds to the high digit alone: the low digit is lost, as documented
  adc #$60
  sta score
  inc score + 1
@points:
  jmp add_line_points

; The line points sit where NES Tetris has them, before the points table: scripts hook the
; INC at $9C35 (see roms/README.md).
.segment "SCORE"
; $9C2D. general_counter = level + 1 counts the additions of the points. At the INC at $9C35
; it and A hold the level: scripts lower it there to cap the additions (the published AI at 30).
add_line_points:
  lda #0
  sta hold_down_points
  lda level                 ; points x (level + 1), one level at a time
  sta general_counter
  inc general_counter
@add:
  lda completed_lines
  asl a
  tax
  lda points_table, x
  clc
  adc score
  sta score
  cmp #$A0
  bcc @middle
  clc
  adc #$60
  sta score
  inc score + 1
@middle:
  lda points_table + 1, x
  clc
  adc score + 1
  sta score + 1
  and #$0F
  cmp #$0A
  bcc @middle_high
  lda score + 1
  clc
  adc #6
  sta score + 1
@middle_high:
  lda score + 1
  and #$F0
  cmp #$A0
  bcc @top
  lda score + 1
  clc
  adc #$60
  sta score + 1
  inc score + 2
@top:
  lda score + 2
  and #$0F
  cmp #$0A
  bcc @top_high
  lda score + 2
  clc
  adc #6
  sta score + 2
@top_high:
  lda score + 2
  and #$F0
  cmp #$A0
  bcc @counted
  lda #$99                  ; capped at 999999
  sta score
  sta score + 1
  sta score + 2
@counted:
  dec general_counter
  bne @add
  lda #0
  sta completed_lines
  lda render_flags
  ora #HUD_SCORE | HUD_LINES
  sta render_flags
  inc play_state
  rts

.segment "CODE"

; --- play state 8: the next piece enters at (5, 0) once the playfield is on screen.
spawn_piece:
  lda vram_row
  cmp #$20
  bmi @done
  lda #0
  sta fall_timer
  sta tetrimino_y
  lda #STATE_CONTROL
  sta play_state
  lda #5
  sta tetrimino_x
  ldx next_piece
  lda spawn_of_orientation, x
  sta current_piece
  jsr count_piece
  jsr choose_next_piece
  sta next_piece
  lda #0                    ; Down held from the last piece does not drop this one
  sta autorepeat_y
@done:
  rts

; Adds one to the statistics counter of the current piece's type (2-byte BCD).
count_piece:
  ldx current_piece
  lda type_of_orientation, x
  asl a
  tax
  inc statistics, x
  lda statistics, x
  and #$0F
  cmp #$0A
  bcc @done
  lda statistics, x
  clc
  adc #6
  sta statistics, x
  cmp #$A0
  bcc @done
  lda #0
  sta statistics, x
  inc statistics + 1, x
@done:
  lda render_flags
  ora #HUD_STATS
  sta render_flags
  rts

; Returns in A the spawn orientation of the next piece: from the table at $DF00 in the demo,
; otherwise from the RNG (with the re-roll on a repeat or on index 7).
choose_next_piece:
  lda game_mode
  cmp #MODE_DEMO
  bne @random
  ldx demo_index
  inc demo_index
  lda demo_pieces, x
  lsr a
  lsr a
  lsr a
  lsr a
  and #7
  tax
  lda spawn_table, x
  rts
@random:
  inc spawn_count
  lda rng
  clc
  adc spawn_count
  and #7
  cmp #7
  beq @reroll
  tax
  lda spawn_table, x
  cmp spawn_id
  bne @chosen
@reroll:
  jsr step_rng
  lda rng
  and #7
  clc
  adc spawn_id
@mod7:
  cmp #7
  bcc @index
  sbc #7
  bcs @mod7
@index:
  tax
  lda spawn_table, x
@chosen:
  sta spawn_id
  rts

; The 16-bit Fibonacci LFSR: shift right, feeding in bit 1 xor bit 9.
step_rng:
  lda rng
  eor rng + 1
  and #2
  cmp #2                    ; carry = the feedback bit
  ror rng
  ror rng + 1
  rts

; --- play state $0A: the curtain falls one row every 4 frames, then Start ends the game.
update_curtain:
  lda curtain_row
  cmp #20
  beq @finished
  lda frame_counter
  and #3
  bne @done
  ldx curtain_row
  bmi @advance
  ldy row_offset, x
  lda #NO_PIECE
  sta current_piece
  lda #CURTAIN_TILE
  ldx #10
@fill:
  sta playfield, y
  iny
  dex
  bne @fill
  lda curtain_row
  sta vram_row
@advance:
  inc curtain_row
@done:
  rts
@finished:
  lda pad1_new
  cmp #BUTTON_START
  bne @done
  lda #0
  sta play_state
  sta pad1_new
  sta newly_pressed
  rts

; --- sprites
stage_current_piece:
  lda current_piece
  cmp #NO_PIECE
  beq @done
  jsr piece_origin
  ldy oam_index
@square:
  lda orientation_table, x
  clc
  adc tetrimino_y
  bmi @hidden               ; rows -1/-2 are above the visible playfield
  asl a
  asl a
  asl a
  adc #5 * 8 - 1
  sta oam, y
  lda orientation_table + 1, x
  sta oam + 1, y
  lda #2
  sta oam + 2, y
  lda orientation_table + 2, x
  clc
  adc tetrimino_x
  asl a
  asl a
  asl a
  adc #12 * 8
  sta oam + 3, y
  iny
  iny
  iny
  iny
@hidden:
  inx
  inx
  inx
  dec square_count
  bne @square
  sty oam_index
@done:
  rts

stage_next_piece:
  lda next_piece
  cmp #NO_PIECE
  bcs @done
  asl a
  asl a
  sta tmp1
  asl a
  adc tmp1
  tax
  ldy oam_index
  lda #4
  sta tmp2
@square:
  lda orientation_table, x
  asl a
  asl a
  asl a
  clc
  adc #17 * 8 - 1
  sta oam, y
  lda orientation_table + 1, x
  sta oam + 1, y
  lda #2
  sta oam + 2, y
  lda orientation_table + 2, x
  asl a
  asl a
  asl a
  clc
  adc #27 * 8 - 4
  sta oam + 3, y
  iny
  iny
  iny
  iny
  inx
  inx
  inx
  dec tmp2
  bne @square
  sty oam_index
@done:
  rts

; ---------------------------------------------------------------------------------------------
; NMI: picture updates, then frame counter, RNG, controllers and sound.

nmi:
  pha
  txa
  pha
  tya
  pha
  lda #0
  sta OAMADDR
  lda #>oam
  sta OAMDMA
  lda render_mode
  cmp #RENDER_PLAY
  bne @scroll
  jsr render_play
@scroll:
  lda ppu_ctrl_shadow
  sta PPUCTRL
  lda #0
  sta PPUSCROLL
  sta PPUSCROLL
  lda ppu_mask_shadow
  sta PPUMASK
  lda sleep_counter
  beq @counted
  dec sleep_counter
@counted:
  inc frame_counter
  bne @rng
  inc frame_counter + 1
@rng:
  jsr step_rng
  lda #1
  sta vblank_flag
  jsr poll_buttons
  lda pad1_new
  sta newly_pressed
  lda pad1_held
  sta held_buttons
  jsr update_sound
  pla
  tay
  pla
  tax
  pla
irq:
  rti

render_play:
  lda play_state
  cmp #STATE_CLEARING
  bne @rows
  jsr animate_line_clear
  jmp @palette
@rows:
  lda vram_row
  pha
  jsr copy_row_to_vram
  jsr copy_row_to_vram
  jsr copy_row_to_vram
  jsr copy_row_to_vram
  pla
  cmp #$20                  ; HUD only on frames without a row copy (vblank time)
  bne @palette
  jsr render_hud
@palette:
  lda vram_row              ; the NMI's changes go to player 1's copy too
  sta player1 + vram_row - $40
  lda play_state
  sta player1 + play_state - $40
  lda clear_column
  sta player1 + clear_column - $40
  lda render_flags
  and #HUD_PALETTE
  beq @flash
  eor render_flags
  sta render_flags
  jsr load_level_palette
@flash:
  lda #$3F                  ; a Tetris flashes the background
  sta PPUADDR
  lda #$00
  sta PPUADDR
  ldx #$0F
  lda completed_lines
  cmp #4
  bne @color
  lda frame_counter
  and #3
  bne @color
  ldx #$30
@color:
  stx PPUDATA
  rts

copy_row_to_vram:
  ldx vram_row
  cpx #20
  bpl @done
  lda playfield_row_hi, x
  sta PPUADDR
  lda playfield_row_lo, x
  sta PPUADDR
  ldy row_offset, x
  .repeat 10, i
    lda playfield + i, y
    sta PPUDATA
  .endrepeat
  inc vram_row
  lda vram_row
  cmp #20
  bmi @done
  lda #$20
  sta vram_row
@done:
  rts

; Every 4th frame blanks two more columns (from the middle out) of each completed row.
animate_line_clear:
  lda frame_counter
  and #3
  bne @done
  ldx #3
@row:
  ldy completed_row, x
  beq @next
  lda playfield_row_hi, y
  sta PPUADDR
  lda playfield_row_lo, y
  clc
  adc #4
  sec
  sbc clear_column
  sta PPUADDR
  lda #BLANK_TILE
  sta PPUDATA
  lda playfield_row_hi, y
  sta PPUADDR
  lda playfield_row_lo, y
  clc
  adc #5
  adc clear_column
  sta PPUADDR
  lda #BLANK_TILE
  sta PPUDATA
@next:
  dex
  bpl @row
  inc clear_column
  lda clear_column
  cmp #5
  bmi @done
  inc play_state
@done:
  rts

load_level_palette:
  lda level
@mod10:
  cmp #10
  bcc @index
  sbc #10
  bcs @mod10
@index:
  asl a
  asl a
  tax
  lda #$3F
  sta PPUADDR
  lda #$08
  sta PPUADDR
  jsr @four
  lda #$3F
  sta PPUADDR
  lda #$18
  sta PPUADDR
@four:
  lda level_colors, x
  sta PPUDATA
  lda level_colors + 1, x
  sta PPUDATA
  lda level_colors + 2, x
  sta PPUDATA
  lda level_colors + 3, x
  sta PPUDATA
  rts

; Redraws one stale part of the HUD a frame.
render_hud:
  lda render_flags
  lsr a
  bcs @score
  lsr a
  bcs @lines
  lsr a
  bcs @stats
  rts
@score:
  lda #$20
  sta PPUADDR
  lda #$D8
  sta PPUADDR
  lda score + 2
  jsr put_bcd
  lda score + 1
  jsr put_bcd
  lda score
  jsr put_bcd
  lda #HUD_SCORE
  bne @clear
@lines:
  lda #$21
  sta PPUADDR
  lda #$38
  sta PPUADDR
  lda lines + 1             ; the hundreds byte counts on past 9 as a tile
  sta PPUDATA
  lda lines
  jsr put_bcd
  lda #$21
  sta PPUADDR
  lda #$98
  sta PPUADDR
  lda level
  jsr put_decimal
  lda #HUD_LINES
  bne @clear
@stats:
  ldx #0
@stat:
  lda stat_address_hi, x
  sta PPUADDR
  lda stat_address_lo, x
  sta PPUADDR
  txa
  asl a
  tay
  lda statistics + 1, y
  sta PPUDATA
  lda statistics, y
  jsr put_bcd
  inx
  cpx #7
  bne @stat
  lda #HUD_STATS
@clear:
  eor #$FF
  and render_flags
  sta render_flags
  rts

put_bcd:
  pha
  lsr a
  lsr a
  lsr a
  lsr a
  sta PPUDATA
  pla
  and #$0F
  sta PPUDATA
  rts

; Three decimal digits of the binary value in A.
put_decimal:
  ldx #0
@hundreds:
  cmp #100
  bcc @tens_start
  sbc #100
  inx
  bne @hundreds
@tens_start:
  stx PPUDATA
  ldx #0
@tens:
  cmp #10
  bcc @ones
  sbc #10
  inx
  bne @tens
@ones:
  stx PPUDATA
  sta PPUDATA
  rts

; Controllers. In the demo the recorded (buttons, frames) pairs at ($D1) stand in for player 1;
; with $D0 = $FF the demo records instead, writing pairs through ($D1),X.
poll_buttons:
  lda game_mode
  cmp #MODE_DEMO
  beq @demo
  jmp read_pads
@demo:
  lda demo_recording
  cmp #$FF
  beq @record
  jsr read_pads
  lda pad1_new
  cmp #BUTTON_START
  beq @quit
  lda demo_repeats
  beq @next_pair
  dec demo_repeats
  lda #0
  sta pad1_new
  beq @hold
@next_pair:
  ldx #0
  lda (demo_ptr, x)
  sta demo_buttons
  jsr advance_demo_ptr
  lda demo_held
  eor demo_buttons
  and demo_buttons
  sta pad1_new
  lda demo_buttons
  sta demo_held
  ldx #0
  lda (demo_ptr, x)
  sta demo_repeats
  jsr advance_demo_ptr
  lda demo_ptr + 1
  cmp #$DF
  beq @done
@hold:
  lda demo_held
  sta pad1_held
@done:
  rts
@quit:
  lda #$DD
  sta demo_ptr + 1
  lda #0
  sta frame_counter + 1
  lda #MODE_TITLE
  sta game_mode
  rts
@record:
  jsr read_pads
  lda pad1_held
  cmp demo_held
  beq @same
  jmp record_demo_pair
@same:
  inc demo_repeats
  rts

; Demo recording's stores sit where the published recorder (RecordDemo.lua) hooks them.
.segment "RECORD"
; $9B84: a new button state ends the held one; its (buttons, frames) pair goes through ($D1),X
; into the demo table, in ROM. The recorder hooks the loads at $9B86 (buttons) and $9B8D
; (frames) and moves PC onto the operand of the following `STA ($D1,X)`, skipping the store.
record_demo_pair:
  ldx #0
  lda demo_held
  sta (demo_ptr, x)
  jsr advance_demo_ptr
  lda demo_repeats
  sta (demo_ptr, x)
  jsr advance_demo_ptr
  lda demo_ptr + 1
  cmp #$DF
  beq @done
  lda pad1_held
  sta demo_held
  lda #0
  sta demo_repeats
@done:
  rts

.segment "CODE"

advance_demo_ptr:
  inc demo_ptr
  bne @done
  inc demo_ptr + 1
@done:
  rts

; Reads both pads: $F5/$F6 newly pressed, $F7/$F8 held (player 1, player 2).
read_pads:
  lda #1
  sta JOY1
  lda #0
  sta JOY1
  ldx #8
@bit:
  lda JOY1
  lsr a
  rol nmi_tmp1
  lda JOY2
  lsr a
  rol nmi_tmp2
  dex
  bne @bit
  lda nmi_tmp1
  eor pad1_held
  and nmi_tmp1
  sta pad1_new
  lda nmi_tmp1
  sta pad1_held
  lda nmi_tmp2
  eor pad2_held
  and nmi_tmp2
  sta pad2_new
  lda nmi_tmp2
  sta pad2_held
  rts

; ---------------------------------------------------------------------------------------------
; Sound effects: a list of notes per effect on pulse 1, pulse 2 or noise.

init_sound:
  lda #$0F
  sta APUSTATUS
  lda #$08                  ; sweep off
  sta $4001
  sta $4005
  lda #$30
  sta $4000
  sta $4004
  sta $400C
  rts

update_sound:
  lda sfx_request
  beq @alt
  jsr start_effect
  lda #0
  sta sfx_request
@alt:
  lda sfx_request_alt
  beq @step
  clc
  adc #11                   ; alternate effects follow the ten regular ones
  jsr start_effect
  lda #0
  sta sfx_request_alt
@step:
  ldx #2
@channel:
  lda sfx_timer, x
  beq @next
  dec sfx_timer, x
  bne @next
  jsr play_note
@next:
  dex
  bpl @channel
  rts

; A = effect number (1-10 regular, 13 curtain).
start_effect:
  tay
  ldx effect_channel, y
  lda effect_lo, y
  sta sfx_ptr_lo, x
  lda effect_hi, y
  sta sfx_ptr_hi, x
; Plays the next note of channel X: (volume/duty, period low, period high, frames); $FF ends.
play_note:
  lda sfx_ptr_lo, x
  sta sound_ptr
  lda sfx_ptr_hi, x
  sta sound_ptr + 1
  stx nmi_tmp1
  lda #0
  sta sfx_timer, x
  lda channel_register, x
  tax
  ldy #0
  lda (sound_ptr), y
  cmp #$FF
  beq @silence
  sta $4000, x
  iny
  lda (sound_ptr), y
  sta $4002, x
  iny
  lda (sound_ptr), y
  sta $4003, x
  iny
  lda (sound_ptr), y
  ldx nmi_tmp1
  sta sfx_timer, x
  lda sound_ptr
  clc
  adc #4
  sta sfx_ptr_lo, x
  lda sound_ptr + 1
  adc #0
  sta sfx_ptr_hi, x
  rts
@silence:
  lda #$30
  sta $4000, x
  ldx nmi_tmp1
  rts

; ---------------------------------------------------------------------------------------------
.segment "DEMO"
.include "demo_buttons.s"   ; $DD00: (buttons, frames) pairs
.segment "DEMOPIECES"
.include "demo_pieces.s"    ; $DF00: piece types

; ---------------------------------------------------------------------------------------------
.segment "RODATA"

base_palette:
  .byte $0F, $30, $10, $00,  $0F, $30, $27, $16,  $0F, $30, $21, $12,  $0F, $30, $10, $00
  .byte $0F, $30, $27, $16,  $0F, $30, $10, $00,  $0F, $30, $21, $12,  $0F, $30, $10, $00

play_attributes:
  .byte $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00, $AA, $AA, $22, $00, $00
  .byte $00, $00, $00, $AA, $AA, $22, $00, $00, $00, $00, $00, $AA, $AA, $22, $00, $00
  .byte $00, $00, $00, $AA, $AA, $22, $00, $00, $00, $00, $00, $AA, $AA, $22, $00, $00
  .byte $00, $00, $00, $0A, $0A, $02, $00, $00, $00, $00, $00, $00, $00, $00, $00, $00

; VRAM address of each playfield row: columns 12-21, rows 5-24.
playfield_row_lo:
  .repeat 20, r
    .byte <($2000 + (r + 5) * 32 + 12)
  .endrepeat
playfield_row_hi:
  .repeat 20, r
    .byte >($2000 + (r + 5) * 32 + 12)
  .endrepeat

; Statistics digits: column 5, rows 7, 9, ... 19.
stat_address_lo:
  .repeat 7, i
    .byte <($2000 + (7 + 2 * i) * 32 + 5)
  .endrepeat
stat_address_hi:
  .repeat 7, i
    .byte >($2000 + (7 + 2 * i) * 32 + 5)
  .endrepeat

legal_text:
  text 12, 5, "QUADFALL"
  text 5, 9, "A FALLING BLOCKS GAME"
  text 5, 11, "MADE FOR THE NESTOR"
  text 5, 12, "EMULATOR PROJECT."
  text 5, 15, "FREE SOFTWARE:"
  text 5, 16, "MIT OR APACHE-2.0"
  text 5, 19, "OWN CODE, ART AND SOUND."
  text 5, 23, "PLEASE WAIT..."
  .byte 0

title_text:
  run 6, 6, 20, LOGO_TILE
  text 8, 9, "Q U A D F A L L"
  run 6, 12, 20, LOGO_TILE
  text 10, 17, "PUSH START"
  text 6, 25, "NESTOR PROJECT 2026"
  .byte 0

game_type_text:
  text 11, 6, "GAME TYPE"
  text 11, 12, "A-TYPE"
  text 6, 20, "START: GO   B: BACK"
  .byte 0

level_text:
  text 13, 6, "LEVEL"
  text 11, 10, "0  1  2  3  4"
  text 11, 13, "5  6  7  8  9"
  text 4, 19, "HOLD A WITH START: +10"
  text 6, 22, "START: GO   B: BACK"
  .byte 0

play_text:
  text 12, 1, "QUADFALL"
  text 2, 5, "STATS"
  text 2, 7, "T"
  text 2, 9, "J"
  text 2, 11, "Z"
  text 2, 13, "O"
  text 2, 15, "S"
  text 2, 17, "L"
  text 2, 19, "I"
  text 24, 5, "SCORE"
  text 24, 8, "LINES"
  text 24, 11, "LEVEL"
  text 24, 14, "NEXT"
  .byte 0

; Sound effects.
channel_register:
  .byte $00, $04, $0C

effect_channel:             ; 0 unused, 1-10 regular, 11-12 unused, 13 curtain
  .byte 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 0, 1
effect_lo:
  .byte <sfx_blip, <sfx_blip, <sfx_select, <sfx_shift, <sfx_tetris, <sfx_rotate
  .byte <sfx_level_up, <sfx_lock, <sfx_blip, <sfx_clearing, <sfx_line, <sfx_blip, <sfx_blip
  .byte <sfx_curtain
effect_hi:
  .byte >sfx_blip, >sfx_blip, >sfx_select, >sfx_shift, >sfx_tetris, >sfx_rotate
  .byte >sfx_level_up, >sfx_lock, >sfx_blip, >sfx_clearing, >sfx_line, >sfx_blip, >sfx_blip
  .byte >sfx_curtain

.macro note volume, period, frames
  .byte volume, <(period), >(period), frames
.endmacro

sfx_blip:
  note $B8, $07E, 3
  .byte $FF
sfx_select:
  note $B8, $0A9, 4
  note $B8, $054, 6
  .byte $FF
sfx_shift:
  note $36, $060, 2
  .byte $FF
sfx_rotate:
  note $76, $050, 2
  note $74, $040, 2
  .byte $FF
sfx_tetris:
  note $BA, $0D5, 5
  note $BA, $0A9, 5
  note $BA, $08E, 5
  note $BA, $06A, 6
  note $B6, $06A, 6
  note $B3, $06A, 6
  .byte $FF
sfx_level_up:
  note $B9, $08E, 4
  note $B9, $06A, 4
  note $B9, $054, 8
  .byte $FF
sfx_lock:
  note $38, $006, 3
  note $34, $008, 2
  .byte $FF
sfx_clearing:
  note $3A, $003, 3
  note $38, $005, 3
  note $36, $007, 3
  note $34, $009, 3
  .byte $FF
sfx_line:
  note $B8, $06A, 3
  note $B8, $05F, 3
  .byte $FF
sfx_curtain:
  note $BA, $0D5, 8
  note $BA, $0FD, 8
  note $BA, $13F, 8
  note $B8, $17C, 8
  note $B6, $1AB, 16
  .byte $FF

; ---------------------------------------------------------------------------------------------
.segment "VECTORS"
  .addr nmi, reset, irq

.segment "CHARS"
  .repeat 4
    tile_bank
  .endrepeat
