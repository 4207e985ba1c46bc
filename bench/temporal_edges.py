#!/usr/bin/env python3
"""temporal_edges.py: how sharp the temporal engine's edges are, and how much of its error they
carry (issue 34, the moving camera), from the frames bench_temporal writes with --dump-frames
DIR (raw RGBA: the temporal engine's output, then the reference).

    bench_temporal --tune --ratios 2 --only-temporal --no-bias-table --paths orbit \\
        --ref-cache REFS --dump-frames DIR
    temporal_edges.py DIR

Per sequence of DIR (scene and path), frames 8 onward: the edges are the pixels whose
reference's luma gradient (BT.709 on the sRGB codes; Sobel, divided by 8: codes a pixel; edges
of the frame reflected) is above 16 codes. Printed: the output's gradient magnitude summed over
the edges over the reference's (1: as sharp; below: softer), the edges' share of the pixels and
of the squared error (RGB codes), and the squared error's sum over the edges and over the other
pixels, in millions. Needs python3-numpy (Debian)."""
import glob
import os
import re
import sys

import numpy as np

EDGE = 16.0


def luma(a):
    return 0.2126 * a[..., 0] + 0.7152 * a[..., 1] + 0.0722 * a[..., 2]


def gradient(lum):
    """Sobel magnitude, codes a pixel (the kernels divided by 8)."""
    p = np.pad(lum, 1, mode="reflect")
    h, w = lum.shape

    def at(dy, dx):
        return p[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]

    gx = (at(-1, 1) + 2 * at(0, 1) + at(1, 1) - at(-1, -1) - 2 * at(0, -1) - at(1, -1)) / 8
    gy = (at(1, -1) + 2 * at(1, 0) + at(1, 1) - at(-1, -1) - 2 * at(-1, 0) - at(-1, 1)) / 8
    return np.hypot(gx, gy)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: temporal_edges.py DIR (the frames of bench_temporal --dump-frames DIR)")
    name = re.compile(r"^([a-z]+)-([a-z]+)-([0-9.]+)x-(\d+)-(\d+)x(\d+)\.rgba$")
    sums = {}
    for fn in sorted(glob.glob(os.path.join(sys.argv[1], "*.rgba"))):
        m = name.match(os.path.basename(fn))
        if not m or int(m.group(4)) < 8:
            continue
        w, h = int(m.group(5)), int(m.group(6))
        a = np.fromfile(fn, np.uint8)
        if a.size != 2 * w * h * 4:
            sys.exit("%s: %d bytes, expected %d (two %dx%d RGBA images)" % (fn, a.size, 8 * w * h,
                                                                            w, h))
        a = a.reshape(2, h, w, 4)[..., :3].astype(np.float64)
        out, ref = a[0], a[1]
        g_out, g_ref = gradient(luma(out)), gradient(luma(ref))
        edge = g_ref > EDGE
        se = ((out - ref) ** 2).sum(-1)
        t = sums.setdefault("%s %s %sx" % m.group(1, 2, 3), np.zeros(6))
        t += (g_out[edge].sum(), g_ref[edge].sum(), se[edge].sum(), se.sum(), edge.sum(),
              edge.size)
    if not sums:
        sys.exit("%s: no frames 8 onward (bench_temporal --dump-frames DIR)" % sys.argv[1])
    print("sequence | gradient, output / reference | edges' share of pixels | of squared error "
          "| squared error, edges | other")
    for k, t in sorted(sums.items()):
        print("%s | %.3f | %.3f | %.3f | %.1f | %.1f" % (k, t[0] / t[1], t[4] / t[5], t[2] / t[3],
                                                         t[2] / 1e6, (t[3] - t[2]) / 1e6))


if __name__ == "__main__":
    main()
