#!/bin/sh
# fsr2.sh: AMD FSR 2 beside the temporal engine on bench_temporal's evaluation sequences
# (docs/QUALITY.md, "AMD FSR 2 beside the temporal engine"). Runs, in WORK_DIR:
#   1. bench_temporal --dump-inputs: every sequence's inputs (jittered colour, depth, motion,
#      camera), and its references into a cache;
#   2. the FSR 2 driver (bench/peers/fsr2_driver.cpp, built against FSR 2's own sources
#      outside this repository) on each sequence, writing PNGs;
#   3. bench_temporal --peer "FSR 2=...": the same sequences scored with FSR 2 as one more
#      row of the tables and one more column of the crops (WORK_DIR/docs/QUALITY.md and
#      WORK_DIR/docs/quality/*.png).
# Not run by CI. Needs the driver binary (FSR2_DRIVER), a Vulkan device (lavapipe will do) and
# ImageMagick (the crops).
#
#   FSR2_DRIVER=/path/to/fsr2_driver bench/peers/fsr2.sh BUILD_DIR WORK_DIR [SCENES [PATHS]]
#
# SCENES and PATHS are bench_temporal's lists (default: all of the evaluation set); the
# 48-frame still and pan sequences are added for the scenes given.
set -eu
BUILD=${1:?usage: FSR2_DRIVER=... fsr2.sh BUILD_DIR WORK_DIR [SCENES [PATHS]]}
WORK=${2:?usage: FSR2_DRIVER=... fsr2.sh BUILD_DIR WORK_DIR [SCENES [PATHS]]}
SCENES=${3:-courtyard,forest,street,interior}
PATHS=${4:-still,pan,orbit,walk,turn,cut}
DRIVER=${FSR2_DRIVER:?set FSR2_DRIVER to the fsr2_driver binary}
NAME=${FSR2_NAME:-FSR 2.2.1}
BENCH="$BUILD/bench/bench_temporal"
[ -x "$BENCH" ] || { echo "fsr2.sh: $BENCH not built (cmake --build $BUILD --target bench_temporal)" >&2; exit 1; }
[ -x "$DRIVER" ] || { echo "fsr2.sh: FSR2_DRIVER=$DRIVER is not an executable" >&2; exit 1; }
mkdir -p "$WORK/inputs" "$WORK/fsr2" "$WORK/docs"
ARGS="--ratios 2 --only-temporal --no-bias-table --long-frames 48 --scenes $SCENES --paths $PATHS --ref-cache $WORK/refs"

echo "fsr2.sh: 1. inputs" >&2
"$BENCH" $ARGS --dump-inputs "$WORK/inputs" > "$WORK/dump.md"

echo "fsr2.sh: 2. FSR 2" >&2
for seq in "$WORK"/inputs/*/; do
    seq=$(basename "$seq")
    mkdir -p "$WORK/fsr2/$seq"
    "$DRIVER" "$WORK/inputs/$seq" "$WORK/fsr2/$seq" ${FSR2_ARGS:-}
done

echo "fsr2.sh: 3. scores" >&2
"$BENCH" $ARGS --peer "$NAME=$WORK/fsr2" --out "$WORK/docs" \
    --command "FSR2_DRIVER=... bench/peers/fsr2.sh $BUILD $WORK $SCENES $PATHS" 2> "$WORK/scores.log"
grep -E 'thin crossings' "$WORK/scores.log" || true
# The crops without the per-frame upscalers' columns (empty with --only-temporal): the
# reference, temporal, temporal + fill and FSR 2, as WORK_DIR/docs/quality/fsr2-*.png.
for f in "$WORK"/docs/quality/temporal-*-2x.png; do
    out="$WORK/docs/quality/fsr2-${f##*/temporal-}"
    col=388 # one column of bench_temporal's sheets (CW * Z + 4, both kinds of crop)
    h=$(identify -format %h "$f")
    convert "$f" -crop ${col}x$h+0+0 +repage \( "$f" -crop $((3 * col))x$h+$((3 * col))+0 +repage \) \
        +append -strip "$out"
done
echo "fsr2.sh: tables in $WORK/docs/QUALITY.md, crops in $WORK/docs/quality/" >&2
