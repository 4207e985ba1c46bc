#!/bin/sh
# fit_limit.sh: how much can the spatial engine's network shape gain on real-game frames at
# all? (models/README.md, "The limit of this network shape"). Three measurements, each scored
# by bench_games on the captured views, against the engine's base without a network:
#
#   fit      one network per game, trained on every view of that game and scored on those same
#            views: what the shape can represent for one game's frames (memorising them allowed);
#   fitall   one network trained on every view of every game, scored on all of them: the same
#            for one network that has to serve several games, as a shipped model does;
#   fold     one network per game and half of its views (every other view, sorted by name),
#            scored on the other half, both ways: a model made for one game, on views of that
#            game it never saw.
#
# The shipped models are scored on games they never saw (bench_games --logo, docs/QUALITY.md);
# these three are the upper bounds that score is measured against.
#
#   tools/train/fit_limit.sh GAMES_DIR OUT_DIR
#
# GAMES_DIR/<game>/NAME.target.png with NAME.input-sS.png (the layout of tools/gamedata/).
# Settings from the environment (defaults in brackets):
#   UPFRAME  the upframe binary [build/upframe]    BENCH  bench_games [build/bench/bench_games]
#   STEPS ["6 4"]  ITER [12000]  BATCH [256]  LR [0.002]  SEED [1]  JOBS [one per CPU]
#   FLAGS ["--sqrt-lanczos-base --no-smaa --mirror --transpose"]
#   STRENGTHS  the detail strengths scored besides 1 ["0.25,0.5"]
# Writes OUT_DIR/<measurement>/... (data links, models, logs), OUT_DIR/<measurement>.tsv (every
# view's scores) and prints, per measurement, ratio and upscaler, the mean over the games of each
# game's mean PSNR (dB) / SSIM / FLIP.
set -eu

GAMES=${1:?usage: fit_limit.sh GAMES_DIR OUT_DIR}
OUT=${2:?usage: fit_limit.sh GAMES_DIR OUT_DIR}
UPFRAME=${UPFRAME:-build/upframe}
BENCH=${BENCH:-build/bench/bench_games}
STEPS=${STEPS:-6 4}
ITER=${ITER:-12000}
BATCH=${BATCH:-256}
LR=${LR:-0.002}
SEED=${SEED:-1}
JOBS=${JOBS:-$(getconf _NPROCESSORS_ONLN)}
FLAGS=${FLAGS:---sqrt-lanczos-base --no-smaa --mirror --transpose}
STRENGTHS=${STRENGTHS:-0.25,0.5}
CODE=${CODE:-$(git describe --always --dirty 2>/dev/null || echo unknown)}

GAMES=$(cd "$GAMES" && pwd)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
games=$(cd "$GAMES" && for g in *; do [ -d "$g" ] && echo "$g"; done)
[ -n "$games" ] || { echo "fit_limit.sh: no game folders in $GAMES" >&2; exit 1; }
steplist=$(echo "$STEPS" | tr -s ' ' ',')

# link_views GAME DEST PARITY: links the views of GAME (all of them for PARITY "all", else the
# even- or odd-numbered ones in name order) into DEST, with the game's about.txt.
link_views() {
    src=$GAMES/$1
    mkdir -p "$2"
    if [ -f "$src/about.txt" ]; then ln -sf "$src/about.txt" "$2/about.txt"; fi
    i=0
    for t in "$src"/*.target.png; do # a glob expands in name order
        n=$(basename "$t" .target.png)
        if [ "$3" = all ] || [ $((i % 2)) = "$3" ]; then
            for f in "$src/$n".*; do ln -sf "$f" "$2/$(basename "$f")"; done
        fi
        i=$((i + 1))
    done
}

# The data folders: OUT/data/<set> for training, OUT/view/half<k>/<game> for scoring halves.
mkdir -p "$OUT/data/fitall"
for g in $games; do
    link_views "$g" "$OUT/data/fit-$g" all
    link_views "$g" "$OUT/data/fold0-$g" 0
    link_views "$g" "$OUT/data/fold1-$g" 1
    link_views "$g" "$OUT/view/half0/$g" 0
    link_views "$g" "$OUT/view/half1/$g" 1
    for f in "$GAMES/$g"/*.png; do ln -sf "$f" "$OUT/data/fitall/${g}__$(basename "$f")"; done
done

# One line per run: SET STEP; run side by side, one thread each, no validation split (every
# view is either trained on or scored, by the design of each measurement).
jobs="$OUT/jobs.txt"
: >"$jobs"
for s in $STEPS; do
    echo "fitall $s" >>"$jobs"
    for g in $games; do printf 'fit-%s %s\nfold0-%s %s\nfold1-%s %s\n' "$g" "$s" "$g" "$s" "$g" "$s" >>"$jobs"; done
done
export UPFRAME OUT ITER BATCH LR SEED FLAGS CODE
total=$(wc -l <"$jobs")
echo "fit_limit.sh: $total training runs, $JOBS at a time"
# shellcheck disable=SC2016
xargs -P "$JOBS" -L 1 sh -c '
    set -e
    mkdir -p "$OUT/models/$0"
    $UPFRAME train --step "$1" --data "$OUT/data/$0" --steps "$ITER" --batch "$BATCH" --lr "$LR" \
        --seed "$SEED" --validation 0 $FLAGS --threads 1 --code "$CODE" -q \
        -o "$OUT/models/$0/step$1.upfm" >"$OUT/models/$0/step$1.log" 2>&1 ||
        { echo "fit_limit.sh: run $0 step $1 failed, see $OUT/models/$0/step$1.log" >&2; exit 255; }
    echo "fit_limit.sh: trained $0 step $1"
' <"$jobs"

# pack SET DEST: the set's step models into one file.
pack() {
    files=""
    for s in $STEPS; do files="$files $OUT/models/$1/step$s.upfm"; done
    # shellcheck disable=SC2086
    $UPFRAME model pack $files -o "$2" >/dev/null
}

# The model folders bench_games --logo reads (<game>.upfm scores <game>).
mkdir -p "$OUT/sets/fit" "$OUT/sets/fitall" "$OUT/sets/fold0" "$OUT/sets/fold1"
pack fitall "$OUT/sets/fitall.upfm"
for g in $games; do
    pack "fit-$g" "$OUT/sets/fit/$g.upfm"
    cp "$OUT/sets/fitall.upfm" "$OUT/sets/fitall/$g.upfm"
    pack "fold0-$g" "$OUT/sets/fold0/$g.upfm"
    pack "fold1-$g" "$OUT/sets/fold1/$g.upfm"
done

score() { # GAMES_DIR SETS TSV [--engine-only]
    $BENCH --out "$OUT" --games "$1" --logo "$2" --steps "$steplist" --strengths "$STRENGTHS" \
        ${4:+"$4"} --no-doc --tsv "$3" >"$3.log" 2>&1 ||
        { echo "fit_limit.sh: bench_games failed, see $3.log" >&2; exit 1; }
}
score "$GAMES" "$OUT/sets/fit" "$OUT/fit.tsv" # with the classic filters, once
score "$GAMES" "$OUT/sets/fitall" "$OUT/fitall.tsv" --engine-only
score "$OUT/view/half1" "$OUT/sets/fold0" "$OUT/fold-a.tsv" --engine-only # trained on half 0
score "$OUT/view/half0" "$OUT/sets/fold1" "$OUT/fold-b.tsv" --engine-only
cat "$OUT/fold-a.tsv" "$OUT/fold-b.tsv" >"$OUT/fold.tsv"

# The summary: each game's mean over its views, then the mean over the games.
for m in fit fitall fold; do
    echo "== $m"
    awk -F '\t' 'NF >= 7 {
        k = $3 "\t" $4 "\t" $1; n[k]++; p[k] += $5; s[k] += $6; f[k] += $7
    } END {
        for (k in n) {
            split(k, a, "\t"); r = a[1] "\t" a[2]
            gp[r] += p[k] / n[k]; gs[r] += s[k] / n[k]; gf[r] += f[k] / n[k]; gn[r]++
        }
        for (r in gn) {
            split(r, a, "\t")
            printf "%sx\t%-44s %.3f / %.4f / %.4f\n", a[1], a[2], gp[r] / gn[r], gs[r] / gn[r], gf[r] / gn[r]
        }
    }' "$OUT/$m.tsv" | sort
done
