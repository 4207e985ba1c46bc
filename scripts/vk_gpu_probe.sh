#!/bin/bash
# vk_gpu_probe.sh: one call on a lent GPU machine (docs/PERFORMANCE.md), within a time budget:
# what the engines cost and where, from what scripts/vk_gpu_stage.sh gathered. In order, each
# step only while the budget lasts (the most wanted first, as a call may be the session's one):
#   1. the machine; every frame generation pipeline's statistics (registers, binary size,
#      shared memory: UPF_VK_PIPELINE_STATS=1)
#   2. frame generation, `upframe bench --backend vulkan --frames 500 --no-spatial
#      --no-temporal` (1080p and 4K)
#   3. the flow's dispatches at 1080p and 4K (UPF_VK_FLOW_TIMING=100 test_vk_flow)
#   4. each engine variant's bench at 1080p (100 frames; vk_probe_engine.py), the flow's
#      dispatches with `fast`, then each flow variant's at 1080p
#   5. the launch floors at 1080p (the `empty` shaders), each prepare variant's bench at 1080p
#      (100 frames), each resolve variant (UPF_VK_RESOLVE_TIMING=200 test_vk_framegen), the
#      bench's resolve column at 1080p with the resolve's plan, one and taps4 variants
#   6. the temporal engine (`--no-spatial --no-framegen`), the GPU tests (without the
#      validation layer, which the machine lacks)
# A line a step on stdout (the device tool returns the last 12000 characters), every log in
# OUT/res.tgz (the tool returns at most 8 files).
#
#   bash DEST/vk_gpu_probe.sh OUT [BUDGET_S]     (default budget 500 s)
set -u
B=$(cd "$(dirname "$0")" && pwd); OUT=$1; BUDGET=${2:-500}
O=$(mktemp -d)
export LD_LIBRARY_PATH=$B/lib UPF_VK_TEST_NO_VALIDATION=1
if ! ls /usr/share/vulkan/icd.d/*nvidia* /etc/vulkan/icd.d/*nvidia* >/dev/null 2>&1 &&
   [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
S=$(date +%s)
left() { echo $(( BUDGET - ($(date +%s) - S) )); }
mark() { echo "[$(( $(date +%s) - S ))s] $*"; }
finish() { tar -czf "$OUT/res.tgz" -C "$O" .; exit 0; }
trap finish TERM
U=$B/bin/upframe
bench() { # NAME TIMEOUT ARGS...: upframe bench --backend vulkan into O/NAME.txt
  local name=$1 t=$2; shift 2
  [ "$(left)" -gt $(( t / 2 )) ] || return 1
  timeout "$t" "$U" bench --backend vulkan "$@" > "$O/$name.txt" 2>&1
}
bench_variants() { # FAMILY LABEL COLUMN MIN_LEFT: each variant of var/FAMILY, the bench at
  # 1080p (100 frames) into O/FAMILY_VARIANT.txt while more than MIN_LEFT s are left; a line
  # of each row's COLUMN (5: prepare, 17: a made frame) at factor 2
  local v n
  for v in "$B"/var/"$1"/*/; do
    [ "$(left)" -gt "$4" ] || break
    n=$(basename "$v")
    UPF_VK_SHADER_DIR=$v bench "$1_$n" 60 --frames 100 --no-spatial --no-temporal \
      --size 1920x1080 --scale 1 &&
      echo "$2 $n: $(awk -v c="$3" '$1=="1920x1080" && $3=="2" && $4=="time" \
        {printf "%s %s; ", $2, $c}' "$O/$1_$n.txt")"
  done
}
flow_line() { # the flow timing's level-0 rows and total at 1080p
  awk '$2=="3:0"||$2=="4:0"||$2=="5:0"{printf "%s +%s; ", $2, $4}
       /^flow at 1920x1080:.*median/{print $4}' "$1"
}

{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader
  nproc; "$U" --version; date -u; } > "$O/machine.txt" 2>&1
cat "$O/machine.txt"
mark stats
UPF_VK_PIPELINE_STATS=1 bench stats 60 --frames 20 --no-spatial --no-temporal --size 1920x1080 \
  --scale 1 && grep 'pipeline stats' "$O/stats.txt" | sort -u > "$O/stats_lines.txt"
mark frame generation
bench fg 200 --frames 500 --no-spatial --no-temporal &&
  grep -E 'made frame|further phase' "$O/fg.txt"
mark flow
if [ "$(left)" -gt 120 ]; then
  UPF_VK_FLOW_TIMING=100 timeout 90 "$B/bin/test_vk_flow" > "$O/flow.txt" 2>&1
  grep -E '^flow at .*median' "$O/flow.txt"
fi
mark engine variants
bench_variants engine engine 17 120
if [ -d "$B/var/engine/fast" ] && [ "$(left)" -gt 60 ]; then
  UPF_VK_SHADER_DIR=$B/var/engine/fast UPF_VK_FLOW_TIMING=100:1920x1080 timeout 40 \
    "$B/bin/test_vk_flow" > "$O/flow_engine_fast.txt" 2>&1
  echo "flow fast: $(flow_line "$O/flow_engine_fast.txt")"
fi
mark flow variants
for v in "$B"/var/flow/*/; do
  [ "$(left)" -gt 150 ] || break
  n=$(basename "$v")
  UPF_VK_SHADER_DIR=$v UPF_VK_FLOW_TIMING=100:1920x1080 timeout 40 "$B/bin/test_vk_flow" \
    > "$O/flow_$n.txt" 2>&1
  echo "flow $n: $(flow_line "$O/flow_$n.txt")"
done
mark floors and prepare
UPF_VK_SHADER_DIR=$B/var/empty bench empty 60 --frames 100 --no-spatial --no-temporal \
  --size 1920x1080 --scale 1
bench_variants prep prepare 5 90
mark resolve
for v in "$B"/var/resolve/*/; do
  [ "$(left)" -gt 60 ] || break
  n=$(basename "$v")
  UPF_VK_SHADER_DIR=$v UPF_VK_RESOLVE_TIMING=200 timeout 40 "$B/bin/test_vk_framegen" \
    > "$O/resolve_$n.txt" 2>&1
  echo "resolve $n: $(grep -iE 'resolve' "$O/resolve_$n.txt" | tail -1)"
done
# the same shader alone runs near its bytes' floor, in the bench's chain 3 to 4 times that:
# which part of it the courtyard's pair costs (the bench's resolve column, 1080p)
for n in plan one taps4; do
  [ -d "$B/var/resolve/$n" ] && [ "$(left)" -gt 90 ] || continue
  UPF_VK_SHADER_DIR=$B/var/resolve/$n bench "resres_$n" 60 --frames 100 --no-spatial \
    --no-temporal --size 1920x1080 --scale 1 &&
    echo "resolve in the bench, $n: $(awk '$1=="1920x1080" && $3=="2" && $4=="time" \
      {printf "%s %s; ", $2, $12}' "$O/resres_$n.txt")"
done
mark temporal
bench temporal 120 --frames 500 --no-spatial --no-framegen &&
  grep -E '^[0-9]+x[0-9]+->' "$O/temporal.txt" | head -12
mark tests
for t in test_vk_flow test_vk_framegen test_vk_interpolate test_vk_temporal; do
  l=$(left); [ "$l" -gt 40 ] || break
  timeout $(( l - 30 )) "$B/bin/$t" > "$O/$t.txt" 2>&1; echo "rc=$?" >> "$O/$t.txt"
  echo "$t: $(grep -E 'checks|rc=' "$O/$t.txt" | tail -2 | tr '\n' ' ')"
done
mark done
finish
