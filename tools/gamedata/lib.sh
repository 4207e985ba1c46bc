# lib.sh: shell functions shared by the per-game capture scripts of tools/gamedata (sourced).
#
# gd_xvfb_start W H        starts Xvfb on a free display at W x H x 24; sets GD_DISPLAY, GD_XVFB_PID
# gd_xvfb_stop             stops that Xvfb (by its PID)
# gd_grab_stable OUT.png   captures the screen until two captures taken GD_STABLE_GAP seconds
#                          apart are equal (the animation-state check within one run); writes
#                          OUT.png and sets GD_GRAB_SUM (the screen's checksum), or returns 1
#                          after GD_STABLE_TRIES tries
# gd_log TEXT              appends a time-stamped line to $GD_LOG and prints it
# gd_capture_views NAME VIEWS PID DIR AT NEXT
#                          the per-view loop of one game run (process PID): for I in 1..VIEWS,
#                          waits until the command `AT I` succeeds (the game's camera stands
#                          at view I), sleeps GD_SETTLE seconds, grabs DIR/vNNN.png with
#                          gd_grab_stable, then runs `NEXT I+1` (the game moves on); logs each
#                          view under NAME; drops a view whose frame is the view before's to the
#                          byte (a game that had not drawn the new view yet); stops when PID
#                          ends or after GD_VIEW_WAIT seconds without reaching a view
# gd_game_user             prints the setpriv prefix that runs a game as nobody when this
#                          script runs as root (some games refuse to run as root), else nothing

GD_STABLE_GAP=${GD_STABLE_GAP:-1.5}
GD_STABLE_TRIES=${GD_STABLE_TRIES:-12}
GD_SETTLE=${GD_SETTLE:-3}
GD_VIEW_WAIT=${GD_VIEW_WAIT:-600}

gd_log() {
    local line
    line="$(date -u +%H:%M:%S) $*"
    echo "$line"
    [ -n "${GD_LOG:-}" ] && echo "$line" >> "$GD_LOG"
    return 0
}

gd_xvfb_start() {
    local w=$1 h=$2 d
    for d in $(seq 90 140); do
        [ -e "/tmp/.X$d-lock" ] || [ -e "/tmp/.X11-unix/X$d" ] && continue
        Xvfb ":$d" -screen 0 "${w}x${h}x24" -nolisten tcp +extension GLX >/dev/null 2>&1 &
        GD_XVFB_PID=$!
        GD_DISPLAY=":$d"
        local t
        for t in $(seq 50); do
            xdpyinfo -display "$GD_DISPLAY" >/dev/null 2>&1 && return 0
            kill -0 "$GD_XVFB_PID" 2>/dev/null || break
            sleep 0.2
        done
    done
    echo "gd_xvfb_start: no Xvfb display could be started" >&2
    return 1
}

gd_xvfb_stop() {
    [ -n "${GD_XVFB_PID:-}" ] && kill "$GD_XVFB_PID" 2>/dev/null && wait "$GD_XVFB_PID" 2>/dev/null
    GD_XVFB_PID=
    return 0
}

gd_grab_stable() {
    local out=$1 tmp a b n
    tmp=$(mktemp -d)
    a="$tmp/a.xwd"
    b="$tmp/b.xwd"
    xwd -root -silent -display "$GD_DISPLAY" > "$a" || { rm -rf "$tmp"; return 1; }
    for n in $(seq "$GD_STABLE_TRIES"); do
        sleep "$GD_STABLE_GAP"
        xwd -root -silent -display "$GD_DISPLAY" > "$b" || break
        if cmp -s "$a" "$b"; then
            GD_GRAB_SUM=$(md5sum < "$b")
            convert "xwd:$b" -alpha off -depth 8 "png24:$out"
            rm -rf "$tmp"
            return 0
        fi
        mv "$b" "$a"
    done
    rm -rf "$tmp"
    return 1
}

gd_capture_views() {
    local name=$1 views=$2 pid=$3 dir=$4 at=$5 next=$6 i n t1 last=""
    mkdir -p "$dir"
    for i in $(seq "$views"); do
        n=0
        until $at "$i"; do
            sleep 0.5; n=$((n + 1))
            if [ $n -gt $((GD_VIEW_WAIT * 2)) ] || ! kill -0 "$pid" 2>/dev/null; then
                gd_log "$name: the game never reached view $i"
                return 1
            fi
        done
        sleep "$GD_SETTLE"
        t1=$(date +%s)
        if gd_grab_stable "$dir/v$(printf %03d "$i").png"; then
            if [ "$GD_GRAB_SUM" = "$last" ]; then
                # The screen still shows the view before (the game had not drawn this one).
                rm -f "$dir/v$(printf %03d "$i").png"
                gd_log "$name view $i: DROPPED, the same frame as view $((i - 1))"
            else
                gd_log "$name view $i: captured in $(( $(date +%s) - t1 )) s"
            fi
            last=$GD_GRAB_SUM
        else
            gd_log "$name view $i: DROPPED, the frame never stood still"
        fi
        $next $((i + 1))
    done
    return 0
}

gd_game_user() {
    [ "$(id -u)" = 0 ] && echo "setpriv --reuid=nobody --regid=nogroup --clear-groups"
    return 0
}
