#!/bin/sh
# Builds roms/quadfall.nes from roms/*.s with ca65/ld65 (Debian/Ubuntu package: cc65).
# Usage: scripts/build-rom.sh [output.nes]   (default: roms/quadfall.nes)
# The build is reproducible: same sources, same bytes.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-"$root/roms/quadfall.nes"}

for tool in ca65 ld65; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "build-rom: $tool not found; install the cc65 assembler (Debian/Ubuntu: apt-get install cc65)." >&2
        echo "build-rom: the committed roms/quadfall.nes works without it." >&2
        exit 1
    fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ca65 -I "$root/roms" -o "$work/quadfall.o" "$root/roms/quadfall.s"
ld65 -C "$root/roms/quadfall.cfg" -o "$work/quadfall.nes" -m "$work/quadfall.map" "$work/quadfall.o"
size=$(wc -c <"$work/quadfall.nes")
if [ "$size" -ne 49168 ]; then
    echo "build-rom: expected a 49168-byte image, got $size bytes" >&2
    exit 1
fi
cp "$work/quadfall.nes" "$out"
echo "build-rom: wrote $out"
