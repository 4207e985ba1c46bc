#!/bin/bash
# vk_temporal_grid.sh: what the temporal engine's workgroups of 16 x 16 save on a GPU
# (docs/TEMPORAL.md, "On the GPU"): the workgroups each dispatch launches before and after, with
# the launch cost they should take at 0.7 ns a workgroup (the H100's cost of an empty
# workgroup, whatever its size), then `upframe bench --backend vulkan --frames FRAMES
# --no-spatial --no-framegen` of both builds, alternated twice on the same card.
#
#   scripts/vk_temporal_grid.sh BEFORE AFTER LIB OUT [FRAMES]
#
# BEFORE and AFTER each hold an `upframe` and its libupframe.so.0 (the build with 8 x 8
# workgroups, main at 5c8c1a3, and this one); LIB the other shared libraries they need (as for
# scripts/vk_gpu_run.sh); OUT receives workgroups.txt, before.1.txt, after.1.txt, before.2.txt,
# after.2.txt. With PROBE=1 and both builds made with -DUPF_VK_PROBE=ON, it also times each
# build with every temporal shader an empty main() of its own workgroup size (8 x 8 before,
# 16 x 16 after; glslangValidator needed, or EMPTY_DIR holding e8/ and e16/ made elsewhere by
# `scripts/vk_temporal_grid.sh --empty EMPTY_DIR`): before.empty.txt, after.empty.txt, the cost
# of launching the grids and barriers;
# and the driver's statistics of each build's pipelines (registers, shared memory; one frame,
# UPF_VK_PIPELINE_STATS=1): before.stats.txt, after.stats.txt.
set -u
make_empty() { # DIR: DIR/e8/temporal/*.spv and DIR/e16/temporal/*.spv
  for s in 8 16; do
    [ -d "$1/e$s/temporal" ] && continue
    mkdir -p "$1/e$s/temporal"
    for n in camera_motion reconstruct_dilate reconstruct_dilate_camera disocclusion \
             disocclusion_reactive locks accumulate sharpen; do
      printf '#version 450\nlayout(local_size_x = %d, local_size_y = %d) in;\nvoid main() {}\n' \
        $s $s > "$1/e$s/temporal/$n.comp"
      glslangValidator -V --target-env vulkan1.1 -o "$1/e$s/temporal/$n.spv" \
        "$1/e$s/temporal/$n.comp" > /dev/null || { echo "no empty shaders"; return 1; }
    done
  done
}
if [ $# -lt 4 ] && [ "${1:-}" != --empty ]; then
  echo "usage: $0 BEFORE AFTER LIB OUT [FRAMES], or $0 --empty DIR" >&2
  exit 2
fi
if [ "$1" = --empty ]; then
  make_empty "$2"
  exit
fi
before=$1 after=$2 lib=$3 out=$4 frames=${5:-500}
mkdir -p "$out"
if ! ls /usr/share/vulkan/icd.d/*nvidia* /etc/vulkan/icd.d/*nvidia* >/dev/null 2>&1 &&
   [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi

# The bench's cases (render -> output) and the dispatches of a frame with the host's vectors
# (reconstruct, disocclusion, locks at render size; accumulate, sharpen at output size;
# camera+sharpen adds camera_motion at render size).
awk 'function g(n, s) { return int((n + s - 1) / s) }
BEGIN {
  split("1536 864 2048 1152 1280 720 2560 1440 1920 1080 3840 2160", c, " ")
  print "workgroups per dispatch (8 x 8 -> 16 x 16) and the launch cost at 0.7 ns a workgroup"
  printf "%-22s %16s %16s %24s %24s\n", "case", "render dispatch", "output dispatch",
         "vectors frame (5)", "camera frame (6)"
  for (k = 0; k < 3; k++) {
    rw = c[4 * k + 1]; rh = c[4 * k + 2]; ow = c[4 * k + 3]; oh = c[4 * k + 4]
    for (s = 8; s <= 16; s += 8) {
      r[s] = g(rw, s) * g(rh, s); o[s] = g(ow, s) * g(oh, s)
      v[s] = 3 * r[s] + 2 * o[s]; m[s] = 4 * r[s] + 2 * o[s]
    }
    printf "%-22s %7d -> %6d %7d -> %6d %9.1f -> %5.1f us %9.1f -> %5.1f us\n",
           rw "x" rh "->" ow "x" oh, r[8], r[16], o[8], o[16],
           v[8] * 0.7e-3, v[16] * 0.7e-3, m[8] * 0.7e-3, m[16] * 0.7e-3
  }
}' | tee "$out/workgroups.txt"

bench() { # DIR NAME [SHADER_DIR [FRAMES]]
  echo "== $2"
  env LD_LIBRARY_PATH="$1:$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    ${3:+UPF_VK_SHADER_DIR="$3"} timeout 400 "$1/upframe" bench --backend vulkan \
    --frames "${4:-$frames}" --no-spatial --no-framegen > "$out/$2.txt" 2>&1
  echo "rc=$?" >> "$out/$2.txt"
  grep -E "^[0-9]+x[0-9]+->|^case|rc=" "$out/$2.txt"
}
for round in 1 2; do
  bench "$before" before.$round
  bench "$after" after.$round
done

[ "${PROBE:-0}" = 1 ] || exit 0
empty=${EMPTY_DIR:-$out/empty}
make_empty "$empty" || exit 1
bench "$before" before.empty "$empty/e8"
bench "$after" after.empty "$empty/e16"
export UPF_VK_PIPELINE_STATS=1
bench "$before" before.stats "" 1
bench "$after" after.stats "" 1
for b in before after; do
  echo "== $b: the temporal pipelines"; grep "pipeline stats temporal/" "$out/$b.stats.txt" | sort -u
done
