#!/bin/sh
# Builds roms/mask_timing/mask_timing.nes with ca65/ld65 (Debian/Ubuntu package: cc65).
# Usage: roms/mask_timing/build.sh [output.nes]. Same sources, same bytes.
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
out=${1:-"$dir/mask_timing.nes"}
for tool in ca65 ld65; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "build: $tool not found; install cc65 (the committed mask_timing.nes works without it)" >&2
        exit 1
    }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ca65 -o "$work/mask_timing.o" "$dir/mask_timing.s"
ld65 -C "$dir/mask_timing.cfg" -o "$work/mask_timing.nes" "$work/mask_timing.o"
cp "$work/mask_timing.nes" "$out"
echo "build: wrote $out"
