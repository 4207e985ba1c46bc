#!/bin/bash
# 0ad.sh: captures views of 0 A.D. (a skirmish map, observer, simulation paused) at the given
# sizes, one game run per size, into RAW/WxH/vNNN.png.
#
# usage: 0ad.sh RAW VIEWS WxH [WxH ...]
# The GUI mod upf_capture (0ad/upf_capture) puts the camera at view 1..VIEWS of the map in the
# same order each run (drawn from GD_SEED and the map's size) and waits for this script to
# grab each frame (gd_grab_stable) before it moves on: the mod prints "upf_capture view I" to
# the game's standard output (RAW/0ad-WxH.log) and reads the next view's number from
# upf/next.txt in its own folder. The first size runs alone, then every other size at once.
# Settings: GD_MAP (the map, as 0 A.D.'s -autostart takes it) [skirmishes/gallic_fields_3p],
# GD_SEED (the views' random draw) [1], GD_NICE [10], and lib.sh's GD_SETTLE,
# GD_STABLE_GAP, GD_STABLE_TRIES. 0 A.D. refuses to run as root: as root the game runs as
# nobody (its home folders RAW/home-WxH are made writable for it).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
raw=$1 views=$2
shift 2
map=${GD_MAP:-skirmishes/gallic_fields_3p}
mkdir -p "$raw"
GD_LOG=${GD_LOG:-$raw/capture.log}
{ echo "0 A.D. $(dpkg-query -W -f='${Version}' 0ad 2>/dev/null) (Debian packages 0ad, 0ad-data" \
       "$(dpkg-query -W -f='${Version}' 0ad-data 2>/dev/null)), engine GPL-2+, art CC-BY-SA-3.0" \
       "(/usr/share/doc/0ad-data/copyright)"
  echo "map $map, observer, simulation paused from the session's start, views drawn by" \
       "xorshift32(${GD_SEED:-1}); GUI hidden, particles, silhouettes and post-processing off," \
       "antialiasing disabled; Xvfb + Mesa llvmpipe"; } > "$raw/about.txt"

zad_at() { grep -q "^upf_capture view $2 " "$1" 2>/dev/null; }
zad_next() { echo "$2" > "$1.tmp" && mv "$1.tmp" "$1"; }

# One run: the game at SIZE, every view grabbed into RAW/SIZE/.
run_size() {
    local size=$1 w h home mod log t0 game n
    w=${size%x*} h=${size#*x}
    home="$raw/home-$size"
    mod="$home/.local/share/0ad/mods/upf_capture"
    log="$raw/0ad-$size.log"
    rm -rf "$mod"
    mkdir -p "$raw/$size" "$(dirname "$mod")"
    cp -r "$here/0ad/upf_capture" "$mod"
    mkdir -p "$mod/upf"
    printf '{"views": %d, "seed": %d}\n' "$views" "${GD_SEED:-1}" > "$mod/upf/settings.json"
    echo 1 > "$mod/upf/next.txt"
    chmod -R a+rwX "$home"
    gd_xvfb_start "$w" "$h" || return 1
    t0=$(date +%s)
    # shellcheck disable=SC2046
    DISPLAY=$GD_DISPLAY LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=llvmpipe HOME="$home" \
        nice -n "${GD_NICE:-10}" $(gd_game_user) /usr/games/pyrogenesis -mod=public \
        -mod=upf_capture -quickstart -nosound -autostart="$map" -autostart-player=-1 \
        -autostart-disable-replay -xres="$w" -yres="$h" -conf=windowed:true \
        -conf=pauseonfocusloss:false -conf=gui.splashscreen.enable:false -conf=particles:false \
        -conf=silhouettes:false -conf=postproc:false -conf=antialiasing:disabled \
        -conf=sharpening:disabled > "$log" 2>&1 &
    game=$!
    gd_capture_views "0ad $size" "$views" "$game" "$raw/$size" "zad_at $log" \
        "zad_next $mod/upf/next.txt"
    for n in $(seq 120); do kill -0 $game 2>/dev/null || break; sleep 0.5; done
    kill $game 2>/dev/null; wait $game 2>/dev/null
    grep "^upf_capture view" "$log" > "$raw/$size/views.txt"
    gd_xvfb_stop
    gd_log "0ad $size: $views views in $(( $(date +%s) - t0 )) s"
}

run_size "$1"
shift
pids=""
for size in "$@"; do
    run_size "$size" &
    pids="$pids $!"
    sleep 2   # one Xvfb at a time picks its display
done
for p in $pids; do wait "$p"; done
