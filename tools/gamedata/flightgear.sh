#!/bin/bash
# flightgear.sh: captures aerial views of FlightGear's scenery (the Debian package's own
# scenery of Oahu or western Iceland) at the given sizes, one simulator run per size, into
# RAW/WxH/vNNN.png.
#
# usage: flightgear.sh RAW VIEWS WxH [WxH ...]
# The views (latitude, longitude, altitude above sea level, heading, pitch) are drawn once
# into RAW/views.txt (awk's srand(GD_SEED); a later call reuses that file, so every size sees
# the same views) over GD_AREA's box. Each run flies FlightGear's null flight model (the
# position is whatever the properties say) with the simulation and its clock frozen at a
# fixed date and time, no clouds, no weather fetch, no AI traffic, no HUD, panel, menu bar or
# aircraft model, random objects, vegetation and buildings off, fixed-function rendering
# (shader quality 0), no multisampling. The script moves the camera through the simulator's
# telnet property server and, since a frame at a new place can take seconds to draw (the
# screen meanwhile still shows the last one), waits until three frames have completed there
# (the property /sim/time/steady-clock-sec changes once a frame) and grabs with a gap of at
# least twice the last frame's time. The first size runs alone, then every other size at once.
# Settings: GD_AREA (oahu or iceland) [oahu], GD_SEED [1], GD_NICE [10], GD_PORT (the first
# telnet port) [5501], GD_SETTLE [8], GD_STABLE_GAP (the least gap) [3], and lib.sh's
# GD_STABLE_TRIES and GD_VIEW_WAIT [here 1500].
set -u
here=$(cd "$(dirname "$0")" && pwd)
# Scenery tiles load in the simulator's own threads, at times slower than two frames at once
# when several runs share the machine: longer waits than lib.sh's defaults.
GD_SETTLE=${GD_SETTLE:-8}
GD_STABLE_GAP=${GD_STABLE_GAP:-3}
. "$here/lib.sh"
raw=$1 views=$2
shift 2
area=${GD_AREA:-oahu}
# Box (latitude, longitude), altitude range (ft above sea level, above the box's highest
# ground: Ka'ala 4025 ft on Oahu; in Iceland's box, from Reykjavik east to Hengill, Esja
# 3000 ft) and the date and time (UTC; mid-afternoon local sun).
case $area in
    oahu) box="21.28 21.62 -158.22 -157.70" alt="4800 8000" date=2021:06:22:00:30:00 ;;
    iceland) box="63.90 64.30 -22.00 -20.50" alt="5500 9000" date=2021:06:21:15:30:00 ;;
    *) echo "flightgear.sh: GD_AREA must be oahu or iceland" >&2; exit 2 ;;
esac
GD_VIEW_WAIT=${GD_VIEW_WAIT:-1500}
mkdir -p "$raw"
GD_LOG=${GD_LOG:-$raw/capture.log}
{ echo "FlightGear $(dpkg-query -W -f='${Version}' flightgear 2>/dev/null) (Debian packages" \
       "flightgear, flightgear-data-base $(dpkg-query -W -f='${Version}' flightgear-data-base 2>/dev/null))," \
       "engine GPL-2+, data and scenery GPL-2+ (/usr/share/doc/flightgear-data-base/copyright)"
  echo "area $area, views drawn by awk srand(${GD_SEED:-1}) into views.txt, date $date UTC," \
       "simulation and clock frozen, no clouds, no AI traffic, random objects off, shader" \
       "quality 0, no multisampling; Xvfb + Mesa llvmpipe"; } > "$raw/about.txt"
if [ ! -e "$raw/views.txt" ]; then
    # shellcheck disable=SC2086
    awk -v n="$views" -v seed="${GD_SEED:-1}" -v box="$box" -v alt="$alt" 'BEGIN {
        split(box, b, " "); split(alt, a, " "); srand(seed)
        for (i = 1; i <= n; i++)
            printf "%.5f %.5f %.0f %.1f %.1f\n", b[1] + rand() * (b[2] - b[1]),
                b[3] + rand() * (b[4] - b[3]), a[1] + rand() * (a[2] - a[1]),
                rand() * 360, -(12 + rand() * 30)
    }' > "$raw/views.txt"
fi

# fg_get PORT PROP...: prints each property's value (the telnet server's data mode answers
# one line a get, once a frame); fg_set PORT PROP VALUE...: sets them.
fg_get() {
    local port=$1 fd line p
    shift
    exec {fd}<>"/dev/tcp/127.0.0.1/$port" || return 1
    printf 'data\r\n' >&"$fd"
    for p in "$@"; do
        printf 'get %s\r\n' "$p" >&"$fd"
        IFS= read -r -t 120 line <&"$fd" || { exec {fd}<&-; return 1; }
        echo "${line%$'\r'}"
    done
    printf 'quit\r\n' >&"$fd"
    exec {fd}<&-
}
fg_set() {
    local port=$1 fd line
    shift
    exec {fd}<>"/dev/tcp/127.0.0.1/$port" || return 1
    printf 'data\r\n' >&"$fd"
    while [ $# -ge 2 ]; do printf 'set %s %s\r\n' "$1" "$2" >&"$fd"; shift 2; done
    printf 'get /sim/time/steady-clock-sec\r\n' >&"$fd"
    IFS= read -r -t 120 line <&"$fd"
    printf 'quit\r\n' >&"$fd"
    exec {fd}<&-
}

# fg_at PORT I: puts the camera at view I (the first call) and succeeds once three frames
# have completed there; sets GD_STABLE_GAP from the last frame's time.
fg_cur="" fg_frames=0 fg_clock=""
fg_at() {
    local port=$1 i=$2 v clock dt
    if [ "$fg_cur" != "$i" ]; then
        [ "$(fg_get "$port" /sim/sceneryloaded 2>/dev/null)" = true ] || return 1
        read -r -a v < <(sed -n "${i}p" "$raw/views.txt")
        fg_set "$port" /position/latitude-deg "${v[0]}" /position/longitude-deg "${v[1]}" \
            /position/altitude-ft "${v[2]}" /orientation/heading-deg "${v[3]}" \
            /orientation/pitch-deg "${v[4]}" /orientation/roll-deg 0 2>/dev/null || return 1
        fg_cur=$i fg_frames=0 fg_clock=""
        return 1
    fi
    clock=$(fg_get "$port" /sim/time/steady-clock-sec 2>/dev/null) || return 1
    [ "$clock" != "$fg_clock" ] && fg_frames=$((fg_frames + 1)) fg_clock=$clock
    [ $fg_frames -ge 4 ] || return 1
    dt=$(fg_get "$port" /sim/time/delta-realtime-sec 2>/dev/null) || return 1
    GD_STABLE_GAP=$(awk -v dt="$dt" -v g="$gap0" 'BEGIN { x = 2 * dt + 0.5; print (x > g ? x : g) }')
    return 0
}
gap0=$GD_STABLE_GAP

# One run: the simulator at SIZE (telnet port PORT), every view grabbed into RAW/SIZE/.
run_size() {
    local size=$1 port=$2 home t0 game v
    home="$raw/home-$size"
    mkdir -p "$raw/$size" "$home"
    read -r -a v < <(sed -n 1p "$raw/views.txt")
    gd_xvfb_start "${size%x*}" "${size#*x}" || return 1
    t0=$(date +%s)
    DISPLAY=$GD_DISPLAY LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=llvmpipe HOME="$home" \
        FG_HOME="$home" XDG_RUNTIME_DIR="$home" DBUS_FATAL_WARNINGS=0 \
        nice -n "${GD_NICE:-10}" /usr/games/fgfs --aircraft=ufo --fdm=null \
        --lat="${v[0]}" --lon="${v[1]}" --altitude="${v[2]}" --heading="${v[3]}" \
        --pitch="${v[4]}" --enable-freeze --enable-clock-freeze --start-date-gmt="$date" \
        --season=summer --disable-hud --disable-panel --disable-sound --disable-splash-screen \
        --disable-ai-traffic --disable-real-weather-fetch --disable-clouds --disable-clouds3d \
        --disable-random-objects --disable-random-vegetation --disable-random-buildings \
        --visibility=30000 --geometry="$size" --telnet="$port" \
        --prop:/sim/menubar/visibility=false --prop:/sim/rendering/draw-mask/aircraft=false \
        --prop:/sim/rendering/shaders/quality-level=0 \
        --prop:/sim/rendering/multi-sample-buffer=false --prop:/sim/view-name-popup=false \
        > "$raw/fgfs-$size.log" 2>&1 &
    game=$!
    gd_capture_views "flightgear $size" "$views" "$game" "$raw/$size" "fg_at $port" true
    kill $game 2>/dev/null; wait $game 2>/dev/null
    cp "$raw/views.txt" "$raw/$size/views.txt"
    gd_xvfb_stop
    gd_log "flightgear $size: $views views in $(( $(date +%s) - t0 )) s"
}

port=${GD_PORT:-5501}
run_size "$1" "$port"
shift
pids=""
for size in "$@"; do
    port=$((port + 1))
    run_size "$size" "$port" &
    pids="$pids $!"
    sleep 2   # one Xvfb at a time picks its display
done
for p in $pids; do wait "$p"; done
