#!/bin/sh
# bench_cli.sh: the whole `upframe upscale` command, PNG in and PNG out at x2, against OpenCV's
# Lanczos-4 resize with its own PNG read and write, in the same run, alternating, N times each.
# Prints each run's wall and CPU times, their medians, and upframe's over OpenCV's (the ratio
# is what to compare: the machine may be shared and noisy; say so beside any figure; CPU time
# is what sharing inflates least).
#
#   bench/bench_cli.sh [-n RUNS] [-u UPFRAME] [-b BASELINE] [-- extra upscale options] [IN.png]
#
# -b BASELINE: another upframe binary (an earlier build) timed the same way in the same runs,
# between the two, with its medians and upframe / baseline (what a change gained, the same
# machine at the same moments).
# IN.png: default a 1920x1080 frame rendered by `upframe render street` (a game-like frame).
# upframe is timed as a whole process (start to exit: reading, the engine's creation and run,
# writing, everything): wall clock, and user + system CPU time from /usr/bin/time (GNU time;
# without it no CPU time). OpenCV is timed inside Python from cv2.imread to the end of
# cv2.imwrite (its default PNG settings: zlib level 1, Sub filter, Z_RLE), wall clock and
# time.process_time; Python's start and `import cv2` are not counted, which favours OpenCV. PYTHON picks the interpreter (one
# with cv2: Debian's python3-opencv is /usr/bin/python3). Writes into a temporary folder,
# removed at the end.
set -eu
RUNS=7
UPFRAME=
BASE=
while [ $# -gt 0 ]; do
    case "$1" in
    -n) RUNS=$2; shift 2 ;;
    -u) UPFRAME=$2; shift 2 ;;
    -b) BASE=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "bench_cli.sh: unknown option $1" >&2; exit 1 ;;
    *) break ;;
    esac
done
EXTRA=
IN=
for a in "$@"; do
    case "$a" in
    *.png) IN=$a ;;
    *) EXTRA="$EXTRA $a" ;;
    esac
done
HERE=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$UPFRAME" ] || UPFRAME=$HERE/build/upframe
PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import cv2' 2>/dev/null; then
    if /usr/bin/python3 -c 'import cv2' 2>/dev/null; then PYTHON=/usr/bin/python3; else
        echo "bench_cli.sh: no cv2 in $PYTHON (install python3-opencv, or set PYTHON)" >&2
        exit 1
    fi
fi
[ -x "$UPFRAME" ] || { echo "bench_cli.sh: no $UPFRAME (build it, or give -u)" >&2; exit 1; }
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "bench_cli.sh: no baseline $BASE" >&2; exit 1; }
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT INT TERM
if [ -z "$IN" ]; then
    "$UPFRAME" render street --size 1920x1080 -o "$TMPD/frame" --quiet
    IN=$TMPD/frame/0000.final.png
fi
cat > "$TMPD/cv.py" <<'EOF'
import sys, time
import cv2
t, c = time.perf_counter(), time.process_time()
a = cv2.imread(sys.argv[1], cv2.IMREAD_UNCHANGED)
b = cv2.resize(a, None, fx=2, fy=2, interpolation=cv2.INTER_LANCZOS4)
if not cv2.imwrite(sys.argv[2], b):
    sys.exit("cv2.imwrite failed")
print("%.4f %.4f" % (time.perf_counter() - t, time.process_time() - c))
EOF
now() { date +%s.%N; }
echo "bench_cli.sh: $IN x2, $RUNS runs each, alternating"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "upframe: $UPFRAME upscale IN -o OUT.png --scale 2$EXTRA"
[ -z "$BASE" ] || echo "baseline: $BASE (the same options)"
echo "opencv:  $("$PYTHON" -c 'import cv2; print(cv2.__version__)') (cv2.imread, cv2.resize INTER_LANCZOS4, cv2.imwrite)"
: > "$TMPD/u.txt"
: > "$TMPD/c.txt"
: > "$TMPD/uc.txt"
: > "$TMPD/cc.txt"
: > "$TMPD/b.txt"
: > "$TMPD/bc.txt"
TIME=
[ -x /usr/bin/time ] && /usr/bin/time -f %U /bin/true > /dev/null 2>&1 && TIME=/usr/bin/time
# One upframe run of binary $1 writing $2: sets u (wall) and uc (CPU).
run_upframe() {
    t0=$(now)
    # shellcheck disable=SC2086
    if [ -n "$TIME" ]; then
        $TIME -f "%U %S" -o "$TMPD/time.txt" "$1" upscale "$IN" -o "$2" --scale 2 -q $EXTRA
    else
        "$1" upscale "$IN" -o "$2" --scale 2 -q $EXTRA
        echo "0 0" > "$TMPD/time.txt"
    fi
    t1=$(now)
    u=$(awk "BEGIN { print $t1 - $t0 }")
    uc=$(awk '{ print $1 + $2 }' "$TMPD/time.txt")
}
i=0
while [ "$i" -lt "$RUNS" ]; do
    btext=
    if [ -n "$BASE" ]; then
        run_upframe "$BASE" "$TMPD/b.png"
        echo "$u" >> "$TMPD/b.txt"
        echo "$uc" >> "$TMPD/bc.txt"
        btext=$(printf ', baseline %.3f s (CPU %.2f s)' "$u" "$uc")
    fi
    run_upframe "$UPFRAME" "$TMPD/u.png"
    set -- $("$PYTHON" "$TMPD/cv.py" "$IN" "$TMPD/c.png")
    c=$1 cc=$2
    printf 'run %d: upframe %.3f s (CPU %.2f s), opencv %.3f s (CPU %.2f s)%s\n' "$((i + 1))" \
        "$u" "$uc" "$c" "$cc" "$btext"
    echo "$u" >> "$TMPD/u.txt"
    echo "$c" >> "$TMPD/c.txt"
    echo "$uc" >> "$TMPD/uc.txt"
    echo "$cc" >> "$TMPD/cc.txt"
    i=$((i + 1))
done
median() { sort -g "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
mu=$(median "$TMPD/u.txt")
mc=$(median "$TMPD/c.txt")
printf 'median wall: upframe %.3f s (%d bytes), opencv %.3f s (%d bytes); upframe / opencv = %.2f\n' \
    "$mu" "$(stat -c %s "$TMPD/u.png")" "$mc" "$(stat -c %s "$TMPD/c.png")" \
    "$(awk "BEGIN { print $mu / $mc }")"
if [ -n "$TIME" ]; then
    muc=$(median "$TMPD/uc.txt")
    mcc=$(median "$TMPD/cc.txt")
    printf 'median CPU: upframe %.2f s, opencv %.2f s; upframe / opencv = %.2f\n' "$muc" "$mcc" \
        "$(awk "BEGIN { print $muc / $mcc }")"
fi
if [ -n "$BASE" ]; then
    mb=$(median "$TMPD/b.txt")
    printf 'median wall: baseline %.3f s (%d bytes); upframe / baseline = %.3f, baseline / opencv = %.2f\n' \
        "$mb" "$(stat -c %s "$TMPD/b.png")" "$(awk "BEGIN { print $mu / $mb }")" \
        "$(awk "BEGIN { print $mb / $mc }")"
    if [ -n "$TIME" ]; then
        mbc=$(median "$TMPD/bc.txt")
        printf 'median CPU: baseline %.2f s; upframe / baseline = %.3f, baseline / opencv = %.2f\n' \
            "$mbc" "$(awk "BEGIN { print $muc / $mbc }")" "$(awk "BEGIN { print $mbc / $mcc }")"
    fi
    if cmp -s "$TMPD/b.png" "$TMPD/u.png"; then echo "outputs: the same bytes"
    else echo "outputs: different bytes"; fi
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
