#!/bin/bash
# minetest.sh: captures views of Minetest (minetest_game, map generator v7, fixed seed) at
# the given sizes, one game run per size, into RAW/WxH/vNNN.png.
#
# usage: minetest.sh RAW VIEWS WxH [WxH ...]
# The mod upf_capture (minetest/upf_capture) puts the camera at view 1..VIEWS in the same
# order each run and waits for this script to grab each frame (gd_grab_stable) before it
# moves on. The first size's run generates the map (RAW/world); every other size then runs
# at the same time on its own copy of that world (RAW/world-WxH), so that all sizes see the
# same generated map: Minetest's map generator places trees across map-chunk borders in the
# order the chunks happen to be generated, so two worlds of one seed differ. With
# GD_MAP_READY=1 (RAW/world already holds the map) every size runs on a copy at once.
# Settings: GD_SEED (the views' random draw) [1], GD_SETTLE (seconds after the camera moves,
# before the first grab) [3], GD_NICE [10], and lib.sh's GD_STABLE_GAP / GD_STABLE_TRIES.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
raw=$1 views=$2
shift 2
mkdir -p "$raw"
GD_LOG=${GD_LOG:-$raw/capture.log}
# What was captured, for the pairs' about.txt (its first line is quoted by bench_games).
{ echo "Minetest $(dpkg-query -W -f='${Version}' minetest 2>/dev/null) (Debian packages minetest," \
       "minetest-data; game minetest_game), engine LGPL-2.1+, minetest_game media mostly" \
       "CC-BY-SA-3.0 (/usr/share/doc/minetest/copyright)"
  echo "map generator v7, fixed_map_seed 20261202, views drawn by PcgRandom(${GD_SEED:-1})," \
       "time of day fixed per view, animations frozen; Xvfb + Mesa llvmpipe, fsaa 0, mip-mapping on"; } \
    > "$raw/about.txt"

# The mod's hand-over files: mt_at WORLD I (the camera stands at view I), mt_next WORLD I.
mt_at() { [ "$(cat "$1/upf_state" 2>/dev/null)" = "view $2" ]; }
mt_next() { echo "$2" > "$1/upf_next.tmp" && mv "$1/upf_next.tmp" "$1/upf_next"; }

# One run: the game at SIZE on world WORLD, every view grabbed into RAW/SIZE/.
run_size() {
    local size=$1 world=$2 w h conf t0 game n
    w=${size%x*} h=${size#*x}
    mkdir -p "$raw/$size" "$world/worldmods" "$raw/home-$size"
    printf 'gameid = minetest_game\nbackend = sqlite3\n' > "$world/world.mt"
    rm -rf "$world/worldmods/upf_capture"
    cp -r "$here/minetest/upf_capture" "$world/worldmods/"
    conf="$raw/minetest-$size.conf"
    { cat "$here/minetest/minetest.conf"
      echo "screen_w = $w"; echo "screen_h = $h"
      echo "upf_capture_views = $views"; echo "upf_capture_seed = ${GD_SEED:-1}"; } > "$conf"
    rm -f "$world/upf_state" "$world/upf_next"
    gd_xvfb_start "$w" "$h" || return 1
    t0=$(date +%s)
    DISPLAY=$GD_DISPLAY LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=llvmpipe HOME="$raw/home-$size" \
        nice -n "${GD_NICE:-10}" /usr/games/minetest --config "$conf" --go --world "$world" \
        > "$raw/minetest-$size.log" 2>&1 &
    game=$!
    gd_capture_views "minetest $size" "$views" "$game" "$raw/$size" "mt_at $world" "mt_next $world"
    for n in $(seq 120); do kill -0 $game 2>/dev/null || break; sleep 0.5; done
    kill $game 2>/dev/null; wait $game 2>/dev/null
    cp "$world/upf_views.txt" "$raw/$size/views.txt" 2>/dev/null
    gd_xvfb_stop
    gd_log "minetest $size: $views views in $(( $(date +%s) - t0 )) s"
}

if [ "${GD_MAP_READY:-0}" != 1 ]; then
    run_size "$1" "$raw/world"
    shift
fi
pids=""
for size in "$@"; do
    rm -rf "$raw/world-$size"
    cp -r "$raw/world" "$raw/world-$size"
    run_size "$size" "$raw/world-$size" &
    pids="$pids $!"
    sleep 2   # one Xvfb at a time picks its display
done
for p in $pids; do wait "$p"; done
