# A thin wrapper over CMake for the README's commands. Everything real is in CMakeLists.txt.
#
#   make            build (Release) into build/
#   make demo       build, then upscale the built-in frame and say where it went
#   make test       everything CI runs: -Werror build + tests, ASan/UBSan build + tests,
#                   and a short run of every fuzzer
#   make check      just the tests of the Release build (quick, while developing)
#   make install    install into PREFIX (default /usr/local)
#   make quality    remake docs/QUALITY.md (every upscaler against the references; then the
#                   real-games, temporal and frame generation sections, as
#                   `make quality-games`, `make quality-temporal` and `make quality-framegen`
#                   alone)
#   make bench      time the engines per pass (upframe bench)
#   make web        build the web page with Emscripten into build-web/site/ (docs/WEB.md;
#                   serve it with `python3 -m http.server -d build-web/site 8000`)

NPROC  ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX ?= /usr/local
FUZZ_SECONDS ?= 30
CMAKE_FLAGS ?=

# Optional: a folder of real game frames (V_lr_WxH.png beside V_ref_1920x1080.png) kept
# outside the repository (game art is not ours to ship); make quality scores them when present.
REAL_FRAMES ?= ../shared/data/real
# The same for frame generation: folders of consecutive game frames (f000.png .. f004.png).
REAL_FG ?= ../shared/data/real-fg
# Where the build has the Vulkan backend (CMake's UPF_VULKAN), the GPU engine's made frames are
# scored too, every one (the rendered pairs, the real clips and the HUD's: bench_framegen
# --backend vulkan, the first Vulkan device; it fails without one: FRAMEGEN_BACKEND=cpu scores
# the CPU path alone). On lavapipe that makes the run about 3 times longer (a subset, --pairs 1
# --scenes courtyard --paths pan,turn and two clips: 99 s cpu, 299 s vulkan, one after the
# other on the shared 2-CPU machine; the whole run took 1226 s there).
FRAMEGEN_BACKEND ?= $(shell grep -qs '^UPF_VULKAN:BOOL=ON' build/CMakeCache.txt && echo vulkan || echo cpu)
FRAMEGEN_QUALITY = ./build/bench/bench_framegen --out docs --command "make quality-framegen" \
	$$(test -d $(REAL_FG) && echo --real-fg $(REAL_FG)) --backend $(FRAMEGEN_BACKEND)

# Optional: real-game training and evaluation pairs, one folder per game (tools/gamedata makes
# them; not in the repository), and the leave-one-game-out model sets that score them
# (models/logo/<game>.upfm). make quality-games skips the games when GAMES is absent.
GAMES ?= ../data/gamedata
LOGO_MODELS ?= models/logo

.PHONY: all build demo test check test-release test-sanitize test-fuzz install clean quality \
        quality-temporal quality-games quality-framegen bench web

all: build

build:
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build build -j$(NPROC)

demo: build
	mkdir -p demo
	./build/upframe upscale builtin -o demo/upscaled.png --scale 2

check: build
	ctest --test-dir build --output-on-failure -j$(NPROC)

test: test-release test-sanitize test-fuzz
	@echo "make test: all passed"

test-release:
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DUPF_WERROR=ON $(CMAKE_FLAGS)
	cmake --build build -j$(NPROC)
	ctest --test-dir build --output-on-failure -j$(NPROC)

test-sanitize:
	cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUPF_WERROR=ON -DUPF_SANITIZE=ON $(CMAKE_FLAGS)
	cmake --build build-sanitize -j$(NPROC)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir build-sanitize --output-on-failure -j$(NPROC)

test-fuzz:
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUPF_WERROR=ON -DUPF_FUZZ=ON -DUPF_TESTS=OFF $(CMAKE_FLAGS)
	cmake --build build-fuzz -j$(NPROC)
	./scripts/fuzz.sh build-fuzz $(FUZZ_SECONDS)

quality: build
	./build/bench/bench_quality --out docs --command "make quality" --rendered models/rendered.upfm \
	  $$(test -d $(REAL_FRAMES) && echo --real $(REAL_FRAMES))
	$(MAKE) quality-games
	./build/bench/bench_temporal --out docs --long-frames 48 --command "make quality-temporal"
	$(FRAMEGEN_QUALITY)

quality-games: build
	@if test -d $(GAMES) || test -d $(REAL_FRAMES); then \
	  test -d $(GAMES) || echo "make quality-games: no game pairs in $(GAMES) (set GAMES=DIR)"; \
	  ./build/bench/bench_games --out docs --command "make quality-games" --steps 10,9,8,7,6,5,4 \
	    $$(test -d $(GAMES) && echo --games $(GAMES) --logo $(LOGO_MODELS)) \
	    $$(test -d $(REAL_FRAMES) && echo --real $(REAL_FRAMES)); \
	else echo "make quality-games: neither $(GAMES) nor $(REAL_FRAMES) is there; skipped"; fi

quality-temporal: build
	./build/bench/bench_temporal --out docs --long-frames 48 --command "make quality-temporal"

quality-framegen: build
	$(FRAMEGEN_QUALITY)

bench: build
	./build/upframe bench

# Debian's emcc runs on the system's node; where that node is not Debian's, it finds its
# acorn module only through NODE_PATH.
export NODE_PATH ?= /usr/share/nodejs
web:
	emcmake cmake -S web -B build-web -DUPF_WERROR=ON $(WEB_CMAKE_FLAGS)
	cmake --build build-web -j$(NPROC)
	@echo "make web: the site is in build-web/site (python3 -m http.server -d build-web/site 8000)"

install: build
	cmake --install build --prefix $(PREFIX)

clean:
	rm -rf build build-sanitize build-fuzz build-web
