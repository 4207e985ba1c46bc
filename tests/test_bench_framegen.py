#!/usr/bin/env python3
"""test_bench_framegen.py: bench_framegen --backend vulkan on a tiny input (one rendered pair
of 64x64 at 1 sample per pixel, the HUD's two pairs, one made-up clip of 96x64) against
--backend cpu on the same input:
- the CPU path's tables are the same bytes with the GPU path on as without it;
- "The GPU path" has its rendered, real-clip (t = 1/2, 1/3, 2/3) and HUD tables;
- every row of its bar table gives both paths' numbers, each consistent with itself (a - b
  is the difference printed), and "met by both" says what the numbers say (yes only where
  both meet the bar; otherwise which path misses it);
- the GPU's made frames are within the mean absolute difference 0.001 of the CPU's.
Exit 77 (skipped) where the bench finds no Vulkan device.

  test_bench_framegen.py --bench PATH/bench_framegen --tmp DIR
"""
import argparse
import os
import re
import subprocess
import sys

from png_write import write_png


def make_clip(folder):
    """Five frames of a smooth pattern moving 2 pixels right a frame (a fixed time step)."""
    os.makedirs(folder, exist_ok=True)
    for k in range(5):
        def rgb(x, y, k=k):
            u = x - 2 * k
            return ((u * 7 + y * 3) % 256, (u * u // 5 + y * 11) % 256, (y * 5 + 40) % 256)
        write_png(os.path.join(folder, "f%03d.png" % k), 96, 64, rgb)


def run(bench, backend, clips):
    args = [bench, "--size", "64x64", "--spp", "1", "--pairs", "1", "--scenes", "courtyard",
            "--paths", "pan", "--real-fg", clips, "--threads", "2", "--backend", backend]
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        if backend == "vulkan" and "use --backend cpu" in p.stderr:
            print("no Vulkan device: skipped")
            sys.exit(77)
        sys.exit("bench_framegen --backend %s failed (exit %d)" % (backend, p.returncode))
    return p.stdout


DIFF = re.compile(r"^(-?[\d.]+) - (-?[\d.]+) = ([+-][\d.]+) dB$")
PHASE = re.compile(r"^(-?[\d.]+) vs (-?[\d.]+) \(([+-][\d.]+) dB\)$")
EXACT = re.compile(r"^([\d.]+)% exact$")
RULE = re.compile(r"^([\d.]+) / 255 \(rule off: [\d.]+\)$")


def meets(name, cell):
    """Whether one path's cell meets the bar `name`, checking the cell's own arithmetic."""
    m = DIFF.match(cell)
    if m:
        a, b, d = map(float, m.groups())
        assert abs((a - b) - d) <= 0.011, "%s: %s is not a - b" % (name, cell)
        return d >= float(re.search(r">= ([\d.]+) dB", name).group(1))
    m = PHASE.match(cell)
    if m:
        a, b, d = map(float, m.groups())
        assert abs((a - b) - d) <= 0.011, "%s: %s is not a - b" % (name, cell)
        return abs(d) <= float(re.search(r"within ([\d.]+) dB", name).group(1))
    m = EXACT.match(cell)
    if m:
        return float(m.group(1)) == 100.0
    m = RULE.match(cell)
    if m:
        return float(m.group(1)) <= 1.0
    raise AssertionError("%s: cannot read %r" % (name, cell))


def check_bars(gpu):
    rows = [r for r in gpu.split("\n") if r.startswith("| ") and r.count(" | ") == 3]
    bars = [r for r in rows if r.split(" | ")[0][2:] not in ("bar",)]
    names = []
    for r in bars:
        name, cpu, g, met = [c.strip() for c in r.strip("| \n").split(" | ")]
        names.append(name)
        if "mean absolute difference" in name:
            assert cpu == "-", r
            mad = float(g.split(" ")[0])
            want = "yes" if mad <= 0.001 else "**no**"
            assert met == want, "%s: printed %r, the numbers say %r" % (name, met, want)
            assert mad <= 0.001, "the GPU's frames differ from the CPU's: " + r
            continue
        c_ok, g_ok = meets(name, cpu), meets(name, g)
        want = ("yes" if c_ok and g_ok else "**no** (the GPU path)" if c_ok else
                "**no** (the CPU path)" if g_ok else "**no** (both paths)")
        assert met == want, "%s: printed %r, the numbers say %r" % (name, met, want)
    for need in ("vectors - blend >= 6 dB", "vectors - optical flow >= 2 dB",
                 "optical flow - blend >= 3 dB", "t = 1/3 within 0.5 dB", "t = 2/3 within 0.5 dB",
                 "HUD pixels equal the HUD exactly", "still-pixel rule keeps a still HUD",
                 "rendered pairs: the GPU's made frames", "real clips (and the cuts",
                 "the HUD's pairs: the GPU's made frames"):
        assert any(need in n for n in names), "no bar row for %r" % need
    return len(bars)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--tmp", required=True)
    a = ap.parse_args()
    clips = os.path.join(a.tmp, "clips")
    make_clip(os.path.join(clips, "tiny"))
    cpu, vk = run(a.bench, "cpu", clips), run(a.bench, "vulkan", clips)
    # the last line (machine, threads, seconds) differs; all before the GPU path is the same
    strip = lambda s: re.sub(r"\n[^\n]*threads, \d+ s\.\n*$", "\n", s)
    head, sep, gpu = strip(vk).partition("### The GPU path")
    assert sep, "no GPU section"
    assert "### The GPU path" not in cpu, "a GPU section without --backend vulkan"
    assert head == strip(cpu), "the CPU path's tables differ with --backend vulkan"
    real = re.search(r"\| tiny \| 1/2 \| 3 \|.*\n\|  \| 1/3 \| 2 \|.*\n\|  \| 2/3 \| 2 \|", gpu)
    assert real, "no real clip rows at t = 1/2, 1/3, 2/3 in the GPU path"
    assert "| motion vectors, HUD-less frames + the HUD layer |" in gpu, "no GPU HUD table"
    n = check_bars(gpu)
    print("bench_framegen: the CPU tables unchanged, %d bars of the GPU path consistent" % n)


if __name__ == "__main__":
    main()
