#!/bin/sh
# Takes the pictures of docs/desktop.md's menus: the real window under Xvfb with the AI playing
# Quadfall, each menu opened with xdotool as a person would, saved as small PNGs.
# Usage: scripts/menu-screenshots.sh [nestor binary] [output folder]
#   (defaults: target/release/nestor, docs/images)
# Needs the Debian packages xvfb, xdotool, imagemagick and mesa-vulkan-drivers. The config,
# saves and states go to a temporary folder, not yours.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
nestor=${1:-"$root/target/release/nestor"}
out=${2:-"$root/docs/images"}
for tool in Xvfb xdotool import convert; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "menu-screenshots: $tool not found (xvfb, xdotool, imagemagick)" >&2
        exit 1
    }
done
[ -x "$nestor" ] || {
    echo "menu-screenshots: $nestor not found; build it with cargo build --release" >&2
    exit 1
}
mkdir -p "$out"
work=$(mktemp -d)
display=:$((200 + $$ % 500))
Xvfb "$display" -screen 0 1024x768x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill $app $pulse "$xvfb" 2>/dev/null; rm -rf "$work"' EXIT
app= pulse=
export DISPLAY="$display" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data"
unset WAYLAND_DISPLAY
# A sound server with a null sink (as the GUI tests use), so that Audio lists its devices.
pulse=
if command -v pulseaudio >/dev/null 2>&1; then
    export HOME="$work/home" XDG_RUNTIME_DIR="$work/run"
    mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
    printf 'pcm.!default { type pulse }\nctl.!default { type pulse }\n' >"$HOME/.asoundrc"
    pulseaudio -n --daemonize=no --exit-idle-time=-1 --use-pid-file=no --disable-shm=yes \
        --load=module-native-protocol-unix --load="module-null-sink sink_name=null" \
        >/dev/null 2>&1 &
    pulse=$!
fi
sleep 2
# Messages off: the pictures show the menus, not the last action.
mkdir -p "$work/config/nestor"
printf '[video]\nmessages = false\n' >"$work/config/nestor/config.toml"
"$nestor" >"$work/stdout.txt" 2>"$work/stderr.txt" &
app=$!
window=
for _ in $(seq 100); do
    window=$(xdotool search --name '^nestor - ' 2>/dev/null | head -1) && [ -n "$window" ] && break
    sleep 0.5
done
[ -n "$window" ] || { echo "menu-screenshots: no window" >&2; cat "$work/stderr.txt" >&2; exit 1; }
xdotool windowfocus --sync "$window"
# The AI plays for a while, and its state is saved in slot 1 for the Load state picture.
sleep 12
xdotool key shift+F1
sleep 6

# shot NAME SIZE TITLE_X [ITEM_Y]: opens the menu whose title is at TITLE_X, rests the pointer on
# the item at ITEM_Y (its submenu opens), and keeps the top-left WIDTHxHEIGHT of the window.
shot() {
    name=$1 size=$2 title_x=$3 item_y=${4:-}
    xdotool mousemove --window "$window" "$title_x" 5
    sleep 0.5
    xdotool click 1
    sleep 0.7
    if [ -n "$item_y" ]; then
        xdotool mousemove --window "$window" "$((title_x + 15))" "$item_y"
        sleep 0.8
    fi
    import -window "$window" "$work/$name.png"
    convert "$work/$name.png" -crop "$size+0+0" +repage -strip -colors 64 "PNG8:$out/menu-$name.png"
    # Closed again: a press held a moment outside it.
    xdotool mousemove --window "$window" 700 700 mousedown 1
    sleep 0.2
    xdotool mouseup 1
    sleep 0.5
}

# Title positions and item rows at the default 3x scale.
shot file 300x120 19
shot emulation 560x560 68 277
shot video 420x330 125
shot audio 480x200 169 127
shot input 420x80 211
shot ai 600x240 243 130
shot tools 480x180 276
ls -l "$out"/menu-*.png
