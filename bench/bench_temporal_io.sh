#!/bin/sh
# bench_temporal_io.sh: what `upframe temporal`'s reading ahead and writing behind
# (tools/sequence/pipeline.c) saves: the same command with and without --serial-io, in the
# same run, alternating, N times each. Prints each run's wall and CPU times, their medians and
# overlapped / serial (the ratio is what to compare: the machine may be shared and noisy; say
# so beside any figure).
#
#   bench/bench_temporal_io.sh [-n RUNS] [-u UPFRAME] [-f FRAMES] [-s WxH] [-o WxH]
#                              [-- extra temporal options]
#
# The input: FRAMES (default 4) frames of `upframe render street --path pan --jitter halton`
# at -s (default 1920x1080) with the kept output size -o (default 3840x2160); the command:
# `upframe temporal IN -o OUT --size WxH -q` (WxH: -o). Timed as a whole process with /usr/bin/time (GNU time): wall, and user +
# system CPU time. Writes into a temporary folder, removed at the end.
set -eu
RUNS=3
FRAMES=4
SIZE=1920x1080
OUTSIZE=3840x2160
UPFRAME=
while [ $# -gt 0 ]; do
    case "$1" in
    -n) RUNS=$2; shift 2 ;;
    -u) UPFRAME=$2; shift 2 ;;
    -f) FRAMES=$2; shift 2 ;;
    -s) SIZE=$2; shift 2 ;;
    -o) OUTSIZE=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "bench_temporal_io.sh: unknown option $1" >&2; exit 1 ;;
    esac
done
EXTRA=
for a in "$@"; do EXTRA="$EXTRA $a"; done
HERE=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$UPFRAME" ] || UPFRAME=$HERE/build/upframe
[ -x "$UPFRAME" ] || { echo "bench_temporal_io.sh: no $UPFRAME (build it, or give -u)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_temporal_io.sh: needs GNU time (/usr/bin/time)" >&2; exit 1; }
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT INT TERM
"$UPFRAME" render street --size "$SIZE" --frames "$FRAMES" --jitter halton \
    --output-size "$OUTSIZE" --path pan --quiet -o "$TMPD/in"
echo "bench_temporal_io.sh: $FRAMES frames of $SIZE -> $OUTSIZE, $RUNS runs each, alternating"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: $UPFRAME temporal IN -o OUT --size $OUTSIZE -q$EXTRA [--serial-io]"
: > "$TMPD/o.txt"; : > "$TMPD/s.txt"; : > "$TMPD/oc.txt"; : > "$TMPD/sc.txt"
one() { # one run: $1 = o (overlapped) or s (serial); prints "wall cpu"
    rm -rf "$TMPD/out"
    flag=
    [ "$1" = s ] && flag=--serial-io
    # shellcheck disable=SC2086
    /usr/bin/time -f "%e %U %S" -o "$TMPD/time.txt" "$UPFRAME" temporal "$TMPD/in" \
        -o "$TMPD/out" --size "$OUTSIZE" -q $flag $EXTRA
    awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$TMPD/time.txt"
}
i=0
while [ "$i" -lt "$RUNS" ]; do
    # shellcheck disable=SC2046
    set -- $(one o) $(one s)
    printf 'run %d: overlapped %.2f s (CPU %.2f s), --serial-io %.2f s (CPU %.2f s)\n' \
        "$((i + 1))" "$1" "$2" "$3" "$4"
    echo "$1" >> "$TMPD/o.txt"; echo "$2" >> "$TMPD/oc.txt"
    echo "$3" >> "$TMPD/s.txt"; echo "$4" >> "$TMPD/sc.txt"
    i=$((i + 1))
done
median() { sort -g "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
mo=$(median "$TMPD/o.txt"); ms=$(median "$TMPD/s.txt")
printf 'median wall: overlapped %.2f s, --serial-io %.2f s; overlapped / serial = %.3f\n' \
    "$mo" "$ms" "$(awk "BEGIN { print $mo / $ms }")"
printf 'median CPU: overlapped %.2f s, --serial-io %.2f s\n' "$(median "$TMPD/oc.txt")" \
    "$(median "$TMPD/sc.txt")"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
