#!/bin/bash
# pairs.sh: turns one game's raw captures (RAW/3840x2160/vNNN.png and the native renders
# RAW/WxH/vNNN.png at the input sizes, written by a per-game script such as minetest.sh)
# into checked training pairs in the trainer's layout (tools/train/README.md):
#
#   OUT/vNNN.target.png     the 3840x2160 capture box-filtered 4x4 to 960x540 (16-bit PNG; the
#                           mean of the 8-bit sRGB-encoded values, as a game's own supersampling
#                           into an 8-bit framebuffer averages them)
#   OUT/vNNN.input-sS.png   the native render at step S: 80S x 45S, the reference being 12/S
#                           times it on each axis (S = 10 9 8 7 6 5 4: 800x450 (1.2x), 720x405,
#                           640x360 (1.5x), 560x315, 480x270 (2x), 400x225, 320x180 (3x));
#                           every such size RAW holds is used
#   OUT/checks.txt          one line per input: `upf-gamedata check` against the reference
#   OUT/about.txt           RAW/about.txt (package, version, licence, settings), when the game
#                           script wrote one; a later RAW's new lines are added to it
#
# A view is kept only when all of its inputs pass the check (alignment by phase correlation,
# content by blurred PSNR: upf-gamedata check); otherwise none of its files is written and
# the log says which input failed and why. With GD_PARTIAL=1 a view is kept with the inputs
# that pass (at least one; the trainer and bench_games use a view at the steps it has), the
# others left out. Views already in OUT are not done again. A view
# missing one of the sizes RAW holds is left out (its game run stopped early).
#
# usage: pairs.sh RAW OUT        (UPF_GAMEDATA: the checker binary [build/upf-gamedata];
#                                 GD_PREFIX: put before each view's name in OUT, to add a
#                                 second capture of one game to the same folder [none];
#                                 GD_PARTIAL=1: keep the inputs that pass [0: all or none])
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
# The input sizes RAW holds, as "WxH:S" (the step S: W = 80 S, H = 45 S).
pairs=""
for s in 10 9 8 7 6 5 4; do
    [ -d "$raw/$((80 * s))x$((45 * s))" ] && pairs="$pairs $((80 * s))x$((45 * s)):$s"
done
[ -n "$pairs" ] || { echo "pairs.sh: $raw holds no input size (80S x 45S, S = 4..10)" >&2; exit 1; }
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
    have=1
    for pair in $pairs; do [ -e "$raw/${pair%:*}/$v.png" ] || have=0; done
    [ $have = 1 ] || continue
    grep -q "^$name " "$raw/dropped.txt" 2>/dev/null && continue
    "$bin" reduce "$hi" 4 "$tmp/$v.target.png" || { gd_log "$v: reduce failed"; continue; }
    ok=1 lines="" passed=""
    for pair in $pairs; do
        size=${pair%:*} s=${pair#*:}
        line=$("$bin" check "$raw/$size/$v.png" "$tmp/$v.target.png")
        rc=$?
        lines="$lines$name s$s $line"$'\n'
        if [ $rc = 0 ]; then
            passed="$passed $pair"
        else
            [ "${GD_PARTIAL:-0}" = 1 ] || ok=0
            gd_log "$name s$s ($size): DROPPED: $line"
        fi
    done
    [ -n "$passed" ] || ok=0
    if [ $ok = 1 ]; then
        for pair in $passed; do
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
