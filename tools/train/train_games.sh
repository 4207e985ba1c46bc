#!/bin/sh
# train_games.sh: trains the spatial engine's models on real-game pairs (tools/train/README.md,
# "Real games"): for every arm (a set of `upframe train` flags), one leave-one-game-out set per
# game (trained on all the other games) at the ratios the evaluation scores, and one set on all
# the games at every ratio the data has. All runs go side by side, one thread each.
#
#   tools/train/train_games.sh GAMES_DIR OUT_DIR
#
# GAMES_DIR/<game>/NAME.target.png with NAME.input-sS.png (the trainer's layout, one folder per
# game). Settings from the environment (defaults in brackets):
#   UPFRAME      the upframe binary [build/upframe]
#   ARMS         "name=flags;name=flags" ["lanczos=--sqrt-lanczos-base --no-smaa --window-mean"]
#   LOGO_STEPS   steps of the leave-one-out sets ["8 6 4"]
#   ALL_STEPS    steps of the sets on all games [every step that all the games have inputs for]
#   ITER [12000]  BATCH [256]  LR [0.005]  SEED [1]  VALIDATION [0.05]  EXTRA ["--mirror"]
#   JOBS         runs at a time [one per CPU]
#   EXTRA_DATA   a folder of more pairs (rendered ones, say) added to every training folder [none]
# Writes OUT_DIR/<arm>/logo-<game>.upfm (the models that never saw <game>), OUT_DIR/<arm>/all.upfm,
# each run's log beside its model (OUT_DIR/<arm>/<set>/stepS.log) and OUT_DIR/report.txt (the
# commands and each run's summary lines, for models/README.md).
set -eu

GAMES=${1:?usage: train_games.sh GAMES_DIR OUT_DIR}
OUT=${2:?usage: train_games.sh GAMES_DIR OUT_DIR}
UPFRAME=${UPFRAME:-build/upframe}
ARMS=${ARMS:-lanczos=--sqrt-lanczos-base --no-smaa --window-mean}
LOGO_STEPS=${LOGO_STEPS:-8 6 4}
ITER=${ITER:-12000}
BATCH=${BATCH:-256}
LR=${LR:-0.005}
SEED=${SEED:-1}
VALIDATION=${VALIDATION:-0.05}
EXTRA=${EXTRA:---mirror}
JOBS=${JOBS:-$(getconf _NPROCESSORS_ONLN)}
EXTRA_DATA=${EXTRA_DATA:-}
CODE=${CODE:-$(git describe --always --dirty 2>/dev/null || echo unknown)}

mkdir -p "$OUT/data"
report="$OUT/report.txt"
: >"$report"
games=$(cd "$GAMES" && for g in *; do [ -d "$g" ] && echo "$g"; done)

# The steps every game has inputs for (a pair must have its step's input).
if [ -z "${ALL_STEPS:-}" ]; then
    ALL_STEPS=""
    for s in 4 5 6 7 8 9 10; do
        ok=1
        for g in $games; do
            ls "$GAMES/$g"/*.input-s$s.png >/dev/null 2>&1 || ok=0
        done
        [ $ok = 1 ] && ALL_STEPS="$ALL_STEPS $s"
    done
fi

# A training folder of links: the pairs of the games named, as <game>__NAME.*.
link_games() {
    dir=$1
    shift
    mkdir -p "$dir"
    for g in "$@"; do
        for f in "$GAMES/$g"/*.png; do
            ln -sf "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$dir/${g}__$(basename "$f")"
        done
    done
    if [ -n "$EXTRA_DATA" ]; then
        for f in "$EXTRA_DATA"/*.png; do
            ln -sf "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$dir/extra__$(basename "$f")"
        done
    fi
}

link_games "$OUT/data/all" $games
for g in $games; do
    link_games "$OUT/data/logo-$g" $(echo "$games" | grep -vx "$g")
done

# The job list: one line per run, "arm set step".
jobs="$OUT/jobs.txt"
: >"$jobs"
echo "$ARMS" | tr ';' '\n' | while IFS= read -r arm; do
    name=${arm%%=*}
    for s in $ALL_STEPS; do echo "$name all $s" >>"$jobs"; done
    for g in $games; do
        for s in $LOGO_STEPS; do echo "$name logo-$g $s" >>"$jobs"; done
    done
done
echo "games: $(echo $games); arms: $ARMS; $(wc -l <"$jobs") runs, $JOBS at a time" | tee -a "$report"

# One run: its flags are the arm's.
run_one() {
    name=$1 set=$2 s=$3
    flags=$(echo "$ARMS" | tr ';' '\n' | grep "^$name=" | head -n 1 | cut -d= -f2-)
    mkdir -p "$OUT/$name/$set"
    cmd="$UPFRAME train --step $s --data $OUT/data/$set --steps $ITER --batch $BATCH --lr $LR"
    cmd="$cmd --seed $SEED --validation $VALIDATION $EXTRA $flags --threads 1 --code $CODE"
    cmd="$cmd --log-every 1000 -o $OUT/$name/$set/step$s.upfm"
    echo "\$ $cmd" >"$OUT/$name/$set/step$s.log"
    $cmd >>"$OUT/$name/$set/step$s.log" 2>&1 || echo "FAILED: $cmd" >>"$OUT/$name/$set/step$s.log"
}
export OUT ARMS UPFRAME ITER BATCH LR SEED VALIDATION EXTRA CODE
start=$(date +%s)
# xargs starts each run as its own shell with this script's function body.
xargs -P "$JOBS" -L 1 sh -c "$(sed -n '/^run_one() {/,/^}/p' "$0"); run_one \"\$@\"" _ <"$jobs"
echo "training: $(( $(date +%s) - start )) s" | tee -a "$report"

# Pack each set; the reports.
for d in "$OUT"/*/; do
    name=$(basename "$d")
    [ "$name" = data ] && continue
    for set in "$d"*/; do
        set=$(basename "$set")
        models=$(ls "$OUT/$name/$set"/step*.upfm 2>/dev/null || true)
        [ -n "$models" ] && $UPFRAME model pack $models -q -o "$OUT/$name/$set.upfm"
        for log in "$OUT/$name/$set"/step*.log; do
            echo | tee -a "$report" >/dev/null
            head -n 1 "$log" >>"$report"
            grep -v '^step \|^\$' "$log" >>"$report" || true
        done
    done
done
echo "packed; code $CODE" | tee -a "$report"
