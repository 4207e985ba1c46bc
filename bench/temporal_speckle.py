#!/usr/bin/env python3
"""temporal_speckle.py: where the temporal engine's error sits in a band of a still sequence
(issue 35, the speckle on the courtyard's railing), from the frames bench_temporal writes with
--dump-frames DIR (raw RGBA: the temporal engine's output, then the reference).

    bench_temporal --tune --ratios 2 --only-temporal --no-bias-table --scenes courtyard \\
        --paths still --ref-cache REFS --dump-frames DIR
    temporal_speckle.py DIR courtyard still 2 X0 X1 Y0 Y1

Per row of the band x0..x1, frames 8..15, luma (BT.709 on the sRGB codes): the error's mean
over the frames (what stays in place) and its deviation (what changes from frame to frame),
the output's mean frame-to-frame change, and the period-2 comb along x (the mean of
(-1)^x times p - (left + right) / 2) of the output and of the reference. Then, over the whole
frame, the pixels where the output's comb (over the frames' mean, 9 pixels along x; then the
same along y) is above 4 codes and the reference's below 1.5. Last, the jitter's part in it: of the 16 Halton(2,3)
phases (src/temporal/jitter.c: index i + 1), those with jx < 0 put their sample into the even
output column of a render pixel at 2x, the others into the odd one; for a horizontal edge at
height t in a render pixel, the share of each half's frames that sample above it. Needs
python3-numpy (Debian)."""
import glob
import sys

import numpy as np


def luma(a):
    return 0.2126 * a[..., 0] + 0.7152 * a[..., 1] + 0.0722 * a[..., 2]


def comb(img):
    """Signed period-2 component along x of each pixel (image width - 2 columns)."""
    s = img[..., 1:-1] - 0.5 * (img[..., :-2] + img[..., 2:])
    return s * (-1.0) ** np.arange(s.shape[-1])


def radical_inverse(n, b):
    r, f = 0.0, 1.0
    while n > 0:
        f /= b
        r += f * (n % b)
        n //= b
    return r


def jitter_halves(phases=16):
    """Largest difference, over edge heights t, between the share of the jx < 0 frames and of
    the jx >= 0 frames whose jy lies below t; and the t where it is largest."""
    p = [(radical_inverse(i + 1, 2) - 0.5, radical_inverse(i + 1, 3) - 0.5) for i in range(phases)]
    a = [y for x, y in p if x < 0]
    b = [y for x, y in p if x >= 0]
    best = (0.0, 0.0)
    for k in range(1, 200):
        t = -0.5 + k / 200
        d = abs(sum(y < t for y in a) / len(a) - sum(y < t for y in b) / len(b))
        best = max(best, (d, t))
    share = sum(abs(sum(y < -0.5 + k / 200 for y in a) / len(a) -
                    sum(y < -0.5 + k / 200 for y in b) / len(b)) for k in range(1, 200)) / 199
    return best, share


def main():
    if len(sys.argv) != 9:
        sys.exit(__doc__)
    d, scene, path, ratio = sys.argv[1:5]
    x0, x1, y0, y1 = map(int, sys.argv[5:9])
    files = sorted(glob.glob(f"{d}/{scene}-{path}-{ratio}x-*.rgba"))
    if len(files) < 16:
        sys.exit(f"temporal_speckle: {len(files)} frames of {scene}-{path}-{ratio}x in {d}, expected 16")
    size = files[0].rsplit("-", 1)[1][:-5]
    w, h = map(int, size.split("x"))
    frames = [np.fromfile(f, np.uint8).reshape(2, h, w, 4)[..., :3].astype(float) for f in files]
    out = np.array([luma(f[0]) for f in frames])[8:16]
    ref = np.array([luma(f[1]) for f in frames])[8:16]
    print("row | error: |mean| over frames, deviation | step out, ref | comb out, ref")
    for y in range(y0, y1):
        o, r = out[:, y, x0:x1], ref[:, y, x0:x1]
        e = o - r
        print(f"{y} | {np.abs(e.mean(0)).mean():5.2f} {e.std(0).mean():5.2f} | "
              f"{np.abs(np.diff(o, axis=0)).mean():5.2f} {np.abs(np.diff(r, axis=0)).mean():5.2f} | "
              f"{np.abs(comb(o).mean(-1)).mean():5.2f} {np.abs(comb(r).mean(-1)).mean():5.2f}")
    box = np.ones(9) / 9
    for axis, o, r in (("x", out.mean(0), ref.mean(0)), ("y", out.mean(0).T, ref.mean(0).T)):
        co = np.apply_along_axis(lambda v: np.convolve(v, box, "same"), 1, comb(o))
        cr = np.apply_along_axis(lambda v: np.convolve(v, box, "same"), 1, comb(r))
        m = (np.abs(co) > 4) & (np.abs(cr) < 1.5)
        print(f"whole frame: a comb along {axis} above 4 codes where the reference's is below "
              f"1.5: {m.sum()} pixels ({100.0 * m.sum() / m.size:.2f}%)")
    (d, t), mean = jitter_halves()
    print(f"jitter: the halves' shares below an edge differ by {mean:.3f} on average over the "
          f"edge's height, at most {d:.3f} (t = {t:+.3f})")


if __name__ == "__main__":
    main()
