#!/bin/bash
# vk_gpu_run.sh: the Vulkan backend on a GPU machine that has a Vulkan driver but no
# validation layer (docs/PERFORMANCE.md, "Vulkan"): every variant against the CPU engine
# (test_vk_spatial, test_vk_passes, vk_host), then `upframe bench --backend vulkan` (the
# spatial and temporal rows into bench.txt, frame generation's into framegen.txt).
#
#   scripts/vk_gpu_run.sh BIN LIB OUT [FRAMES]
#
# BIN holds upframe, test_vk_spatial, test_vk_passes, test_vk_runner, test_vk_temporal,
# test_vk_framegen, test_vk_interpolate, test_vk_interpolate_tool, vk_host, vk_temporal_host and
# vk_interpolate_host from a build (those present are run); LIB the shared
# libraries they need there (libupframe.so.0, libspng.so.0, libjpeg.so.62); OUT receives
# machine.txt, the tests' logs, bench.txt and framegen.txt. FRAMES: bench frames (default 500).
set -u
bin=$1 lib=$2 out=$3 frames=${4:-500}
export LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ! ls /usr/share/vulkan/icd.d/*nvidia* /etc/vulkan/icd.d/*nvidia* >/dev/null 2>&1 &&
   [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
{
  echo "== machine"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total \
    --format=csv 2>/dev/null
  nproc; grep -m1 "model name" /proc/cpuinfo; head -1 /etc/os-release
  "$bin/upframe" --version
} 2>&1 | tee "$out/machine.txt"
export UPF_VK_TEST_NO_VALIDATION=1
for t in test_vk_spatial test_vk_passes test_vk_runner test_vk_temporal test_vk_framegen \
         test_vk_interpolate test_vk_interpolate_tool; do
  [ -x "$bin/$t" ] || continue
  echo "== $t"
  timeout 300 "$bin/$t" > "$out/$t.txt" 2>&1
  echo "rc=$?" >> "$out/$t.txt"
  grep -E "variant|detail \(|checks|rc=" "$out/$t.txt" | tail -24
done
for h in vk_host vk_temporal_host; do
  [ -x "$bin/$h" ] && { echo "== $h"; timeout 60 "$bin/$h" 2>&1 | tail -1; }
done
if [ -x "$bin/vk_interpolate_host" ]; then  # reads a sequence the scene renderer writes
  echo "== vk_interpolate_host"
  "$bin/upframe" render courtyard --size 96x54 --frames 6 --path turn --quiet -o "$out/seq" &&
    timeout 60 "$bin/vk_interpolate_host" "$out/seq" 2>&1 | tail -1
fi
echo "== bench"; timeout 400 "$bin/upframe" bench --backend vulkan --frames "$frames" \
  --no-framegen 2>&1 | tee "$out/bench.txt"
echo "== bench: frame generation"; timeout 400 "$bin/upframe" bench --backend vulkan \
  --frames "$frames" --no-spatial --no-temporal 2>&1 | tee "$out/framegen.txt"
