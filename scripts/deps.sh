#!/bin/sh
# deps.sh: installs the Debian 12 packages upframe needs, and only those that are missing.
#
#   scripts/deps.sh          what building and `make demo` need
#   scripts/deps.sh --test   also what `make test` needs (clang for the fuzzers; Emscripten,
#                            Chromium and Python for the web page's build and browser test)
#   scripts/deps.sh --web    also what `make web` needs (Emscripten)
#   scripts/deps.sh --bench  also the yardsticks the benchmarks time or score against
#                            (ImageMagick; OpenCV's DIS optical flow for make quality-framegen)
#
# Runs apt-get only when something is absent (as root, or through sudo).
set -eu

# The Vulkan backend builds with the Vulkan headers and loader (libvulkan-dev) and Debian's
# glslang (glslangValidator); its tests run on Mesa's lavapipe (mesa-vulkan-drivers) under the
# Khronos validation layer, and check the shaders with spirv-val (spirv-tools).
build_pkgs="gcc g++ make cmake pkg-config libspng-dev zlib1g-dev libjpeg62-turbo-dev libvulkan-dev glslang-tools"
test_pkgs="clang libclang-rt-14-dev mesa-vulkan-drivers vulkan-validationlayers spirv-tools"
bench_pkgs="imagemagick python3-opencv python3-numpy"
# The web page (docs/WEB.md): Debian's Emscripten builds it (it brings its own clang, binaryen
# and node); the browser test drives Debian's Chromium from Python's standard library.
web_pkgs="emscripten"
test_pkgs="$test_pkgs $web_pkgs chromium python3"

want="$build_pkgs"
for arg in "$@"; do
    case "$arg" in
    --test) want="$want $test_pkgs" ;;
    --bench) want="$want $bench_pkgs" ;;
    --web) want="$want $web_pkgs" ;;
    --all) want="$want $test_pkgs $bench_pkgs" ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "deps.sh: unknown option '$arg' (expected --test, --web, --bench or --all)" >&2; exit 1 ;;
    esac
done

missing=""
for p in $want; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    echo "deps.sh: all needed packages are installed"
    exit 0
fi

echo "deps.sh: installing:$missing"
if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "deps.sh: need root (or sudo) to install:$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing
