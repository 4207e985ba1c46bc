#!/bin/sh
# fuzz.sh: runs every libFuzzer harness of a fuzz build for a while.
#
#   scripts/fuzz.sh BUILD_DIR SECONDS
#
# BUILD_DIR was configured with -DUPF_FUZZ=ON and clang (`make test-fuzz` does that). For each
# reader (png, jpeg, pfm, model, image: the front door, sidecar, sequence) it first replays
# the saved crashers (fuzz/crashers/<reader>/), then fuzzes for SECONDS on a copy of the
# seed corpus in BUILD_DIR/fuzz-run/<reader>/corpus (kept
# between runs, so what one run finds seeds the next), with the reader's dictionary. Findings
# go to BUILD_DIR/fuzz-run/<reader>/artifacts/ and the log to .../log.txt. Prints executions,
# time and coverage per fuzzer; exits 1 if any fuzzer crashed, leaked, timed out or ran out of
# memory (copy the artifact into fuzz/crashers/<reader>/ once fixed: it becomes a regression
# test), 2 on a usage error.
set -eu

if [ $# -ne 2 ]; then
    echo "usage: $0 BUILD_DIR SECONDS" >&2
    exit 2
fi
build=$1
seconds=$2
case "$seconds" in
'' | *[!0-9]*) echo "fuzz.sh: SECONDS is '$seconds'; expected a whole number" >&2; exit 2 ;;
esac
src=$(cd "$(dirname "$0")/.." && pwd)

status=0
for reader in png jpeg pfm model image sidecar sequence; do
    bin=$build/fuzz/fuzz_$reader
    if [ ! -x "$bin" ]; then
        echo "fuzz.sh: $bin not found; expected a build configured with -DUPF_FUZZ=ON" >&2
        exit 2
    fi
    run=$build/fuzz-run/$reader
    mkdir -p "$run/corpus" "$run/artifacts"
    cp "$src/fuzz/corpus/$reader/"* "$run/corpus/"
    if [ "$reader" = image ]; then # the front door starts from every image reader's seeds
        cp "$src/fuzz/corpus/png/"* "$src/fuzz/corpus/jpeg/"* "$src/fuzz/corpus/pfm/"* "$run/corpus/"
    fi
    log=$run/log.txt
    # -rss_limit_mb: libFuzzer's default, stated; -timeout: seconds one input may take.
    opts="-rss_limit_mb=2048 -timeout=20 -print_final_stats=1 -artifact_prefix=$run/artifacts/"
    dict=$reader
    case $reader in sidecar | sequence) dict=json ;; esac # one JSON dictionary for both
    if [ -f "$src/fuzz/$dict.dict" ]; then
        opts="$opts -dict=$src/fuzz/$dict.dict"
    fi

    crashers=$(find "$src/fuzz/crashers/$reader" -type f ! -name '.*' 2>/dev/null | sort)
    if [ -n "$crashers" ]; then
        # shellcheck disable=SC2086
        if ! "$bin" $opts $crashers >"$run/replay.txt" 2>&1; then
            echo "fuzz.sh: $reader: a saved crasher fails again; see $run/replay.txt" >&2
            tail -n 20 "$run/replay.txt" >&2
            status=1
            continue
        fi
    fi

    rc=0
    # shellcheck disable=SC2086
    "$bin" $opts -max_total_time="$seconds" "$run/corpus" >"$log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -n 1)
    echo "fuzz.sh: $reader: ${execs:-?} executions in ${seconds} s (${speed:-?}/s, peak ${rss:-?} MB), $cov"
    if [ "$rc" -ne 0 ]; then
        echo "fuzz.sh: $reader: FAILED (exit $rc); artifacts in $run/artifacts/, log $log:" >&2
        grep -E 'ERROR|SUMMARY|fuzz invariant|Test unit written' "$log" | head -n 20 >&2 || true
        status=1
    fi
done
exit $status
