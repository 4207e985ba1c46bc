#!/bin/sh
# train_all.sh: renders the training data once and trains the seven models of the spatial
# engine's network, then packs them into one model file (tools/train/README.md).
#
#   tools/train/train_all.sh [OUT_DIR]        (default: train-run)
#
# Settings come from the environment (defaults in brackets):
#   UPFRAME   the upframe binary [build/upframe]
#   DATA      the data folder [OUT_DIR/data]; rendered only if it has no manifest.txt
#   VIEWS [1600]  SPP [64]  DATA_SEED [1]              (upframe train data)
#   STEPS [60000]  BATCH [256]  LR [0.005]  SEED [1]  VALIDATION [0.1]
#   TRAIN_FLAGS ["--mirror --cubic-base"]              (more upframe train options)
#   THREADS [0: one per CPU]
# Writes OUT_DIR/stepS.upfm and OUT_DIR/stepS.log for S = 4..10, OUT_DIR/default.upfm (the
# seven packed), OUT_DIR/data.log and OUT_DIR/report.txt (each model's summary and the
# commands, for models/README.md). Copy default.upfm to models/default.upfm to build it in.
set -eu

OUT=${1:-train-run}
UPFRAME=${UPFRAME:-build/upframe}
DATA=${DATA:-$OUT/data}
VIEWS=${VIEWS:-1600}
SPP=${SPP:-64}
DATA_SEED=${DATA_SEED:-1}
STEPS=${STEPS:-60000}
BATCH=${BATCH:-256}
LR=${LR:-0.005}
SEED=${SEED:-1}
VALIDATION=${VALIDATION:-0.1}
TRAIN_FLAGS=${TRAIN_FLAGS:---mirror --cubic-base}
THREADS=${THREADS:-0}
CODE=$(git describe --always --dirty 2>/dev/null || echo unknown)

threads_opt=""
[ "$THREADS" -gt 0 ] && threads_opt="--threads $THREADS"
mkdir -p "$OUT"
report="$OUT/report.txt"
: >"$report"

if [ ! -f "$DATA/manifest.txt" ]; then
    cmd="$UPFRAME train data --views $VIEWS --seed $DATA_SEED --spp $SPP -o $DATA $threads_opt"
    echo "\$ $cmd" | tee -a "$report"
    start=$(date +%s)
    $cmd | tee "$OUT/data.log" | tee -a "$report"
    echo "(data: $(( $(date +%s) - start )) s)" | tee -a "$report"
else
    echo "using the data in $DATA ($(grep '^data=' "$DATA/manifest.txt"))" | tee -a "$report"
fi

for s in 4 5 6 7 8 9 10; do
    cmd="$UPFRAME train --step $s --data $DATA --steps $STEPS --batch $BATCH --lr $LR"
    cmd="$cmd --seed $SEED --validation $VALIDATION $TRAIN_FLAGS $threads_opt --code $CODE"
    cmd="$cmd --log-every 1000 -o $OUT/step$s.upfm"
    echo | tee -a "$report"
    echo "\$ $cmd" | tee -a "$report"
    $cmd >"$OUT/step$s.log"
    grep -v '^step ' "$OUT/step$s.log" | tee -a "$report"
done

$UPFRAME model pack "$OUT"/step4.upfm "$OUT"/step5.upfm "$OUT"/step6.upfm "$OUT"/step7.upfm \
    "$OUT"/step8.upfm "$OUT"/step9.upfm "$OUT"/step10.upfm -o "$OUT/default.upfm"
echo | tee -a "$report"
echo "packed the seven into $OUT/default.upfm (code $CODE)" | tee -a "$report"
