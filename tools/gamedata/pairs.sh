#!/bin/bash
# pairs.sh: turns one game's raw captures (RAW/3840x2160/vNNN.png, RAW/640x360/vNNN.png,
# RAW/480x270/vNNN.png, RAW/320x180/vNNN.png, written by a per-game script such as
# minetest.sh) into checked training pairs in the trainer's layout (tools/train/README.md):
#
#   OUT/vNNN.target.png     the 3840x2160 capture box-filtered 4x4 to 960x540 (16-bit PNG; the
#                           mean of the 8-bit sRGB-encoded values, as a game's own supersampling
#                           into an 8-bit framebuffer averages them)
#   OUT/vNNN.input-s8.png   the native 640x360 render (1.5x)
#   OUT/vNNN.input-s6.png   the native 480x270 render (2x)
#   OUT/vNNN.input-s4.png   the native 320x180 render (3x)
#   OUT/checks.txt          one line per input: `upf-gamedata check` against the reference
#   OUT/about.txt           RAW/about.txt (package, version, licence, settings), when the game
#                           script wrote one; a later RAW's new lines are added to it
#
# A view is kept only when all three inputs pass the check (alignment by phase correlation,
# content by blurred PSNR: upf-gamedata check); otherwise none of its files is written and
# the log says which input failed and why. Views already in OUT are not done again.
#
# usage: pairs.sh RAW OUT        (UPF_GAMEDATA: the checker binary [build/upf-gamedata];
#                                 GD_PREFIX: put before each view's name in OUT, to add a
#                                 second capture of one game to the same folder [none])
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
raw=${1:?usage: pairs.sh RAW OUT} out=${2:?usage: pairs.sh RAW OUT}
bin=${UPF_GAMEDATA:-build/upf-gamedata}
GD_LOG=${GD_LOG:-$raw/pairs.log}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kept=0 dropped=0
# about.txt: RAW's lines that OUT's does not have yet are added (a second capture of one game
# adds its settings line; the first line, the package, stays first).
if [ -e "$raw/about.txt" ]; then
    touch "$out/about.txt"
    grep -vxF -f "$out/about.txt" "$raw/about.txt" >> "$out/about.txt"
fi
for hi in "$raw"/3840x2160/v*.png; do
    [ -e "$hi" ] || continue
    v=$(basename "$hi" .png)
    name=${GD_PREFIX:-}$v
    [ -e "$out/$name.target.png" ] && { kept=$((kept + 1)); continue; }
    [ -e "$raw/320x180/$v.png" ] && [ -e "$raw/480x270/$v.png" ] && [ -e "$raw/640x360/$v.png" ] ||
        continue
    grep -q "^$name " "$raw/dropped.txt" 2>/dev/null && continue
    "$bin" reduce "$hi" 4 "$tmp/$v.target.png" || { gd_log "$v: reduce failed"; continue; }
    ok=1 lines=""
    for pair in 640x360:8 480x270:6 320x180:4; do
        size=${pair%:*} s=${pair#*:}
        line=$("$bin" check "$raw/$size/$v.png" "$tmp/$v.target.png")
        rc=$?
        lines="$lines$name s$s $line"$'\n'
        [ $rc = 0 ] || { ok=0; gd_log "$name s$s ($size): DROPPED: $line"; }
    done
    if [ $ok = 1 ]; then
        for pair in 640x360:8 480x270:6 320x180:4; do
            cp "$raw/${pair%:*}/$v.png" "$out/$name.input-s${pair#*:}.png"
        done
        mv "$tmp/$v.target.png" "$out/$name.target.png"
        printf '%s' "$lines" >> "$out/checks.txt"
        kept=$((kept + 1))
    else
        printf '%s' "$lines" >> "$raw/dropped.txt"
        rm -f "$tmp/$v.target.png"
        dropped=$((dropped + 1))
    fi
done
gd_log "pairs $out: $kept views kept, $dropped dropped this run"
