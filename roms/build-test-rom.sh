#!/bin/sh
# Builds one of the project's test ROMs with ca65/ld65 (Debian/Ubuntu package: cc65): NAME.nes
# from NAME.s and NAME.cfg beside it, with roms/ on the include path (nes.inc).
# Usage: roms/build-test-rom.sh roms/ppu_golden/golden [output.nes]. Same sources, same bytes.
set -eu
roms=$(cd "$(dirname "$0")" && pwd)
name=$1
out=${2:-"$name.nes"}
for tool in ca65 ld65; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "build: $tool not found; install cc65 (the committed $name.nes works without it)" >&2
        exit 1
    }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ca65 -I "$roms" -I "$(dirname "$name")" -o "$work/rom.o" "$name.s"
ld65 -C "$name.cfg" -o "$work/rom.nes" "$work/rom.o"
cp "$work/rom.nes" "$out"
echo "build: wrote $out"
