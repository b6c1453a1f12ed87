#!/bin/sh
# Builds roms/ppu_golden/golden.nes with ca65/ld65 (Debian/Ubuntu package: cc65).
# Usage: roms/ppu_golden/build.sh [output.nes]. Same sources, same bytes.
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
out=${1:-"$dir/golden.nes"}
for tool in ca65 ld65; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "build: $tool not found; install cc65 (the committed golden.nes works without it)" >&2
        exit 1
    }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ca65 -I "$dir" -o "$work/golden.o" "$dir/golden.s"
ld65 -C "$dir/golden.cfg" -o "$work/golden.nes" "$work/golden.o"
cp "$work/golden.nes" "$out"
echo "build: wrote $out"
