#!/bin/sh
# vk_gpu_stage.sh: gathers what one call on a lent GPU machine needs to time the frame
# generation and temporal engines and the probe variants (scripts/vk_gpu_probe.sh runs it
# there): a -DUPF_VK_PROBE=ON build's upframe and GPU tests, the shared libraries they load, and
# every probe family's shader variants, compiled here.
#
#   scripts/vk_gpu_stage.sh BUILD DEST
#
# BUILD: a build directory configured with -DUPF_VK_PROBE=ON (built here: upframe_tool and the
# GPU tests); DEST (under an ignored folder such as .device/, which the device tool carries):
# DEST/bin, DEST/lib, DEST/var/{empty,prep/*,flow/*,resolve/*,engine/*} and DEST/vk_gpu_probe.sh.
set -eu
build=$1 dest=$2
root=$(cd "$(dirname "$0")/.." && pwd)
grep -q '^UPF_VK_PROBE:BOOL=ON' "$build/CMakeCache.txt" ||
    { echo "vk_gpu_stage.sh: $build is not a -DUPF_VK_PROBE=ON build" >&2; exit 1; }
cmake --build "$build" -j"$(nproc)" --target upframe_tool test_vk_flow test_vk_framegen \
    test_vk_interpolate test_vk_temporal >/dev/null
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib" "$dest/var"
cp "$build/upframe" "$build/tests/test_vk_flow" "$build/tests/test_vk_framegen" \
    "$build/tests/test_vk_interpolate" "$build/tests/test_vk_temporal" "$dest/bin/"
# the libraries the device machine may lack (its Vulkan loader comes from the device's notes)
for l in $(ldd "$build/upframe" | awk '/libspng|libjpeg/ {print $3}'); do cp -L "$l" "$dest/lib/"; done
python3 "$root/scripts/vk_probe.py" "$dest/var" >/dev/null
find "$dest/var" -mindepth 1 -maxdepth 1 ! -name empty -exec rm -rf {} +
python3 "$root/scripts/vk_probe_prepare.py" "$dest/var/prep"
python3 "$root/scripts/vk_probe_flow.py" "$dest/var/flow"
python3 "$root/scripts/vk_probe_resolve.py" "$dest/var/resolve" >/dev/null
python3 "$root/scripts/vk_probe_engine.py" "$dest/var/engine"
cp "$root/scripts/vk_gpu_probe.sh" "$dest/"
du -sh "$dest"
