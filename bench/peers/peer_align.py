#!/usr/bin/python3
"""peer_align.py: does a peer's output line up with the reference? Reads the references that
`bench_temporal --dump-frames DIR` writes (DIR/SCENE-PATH-RATIOx-NN-WxH.rgba: the temporal
engine's frame, then the reference, raw 8-bit sRGB RGBA) and a peer's PNGs for the same
sequence (PEER/SCENE-PATH-RATIOx-Nf/NNNN.png, what `bench_temporal --peer` reads), and prints
the PSNR (8-bit sRGB RGB, frames 8 onward, a 4-pixel border left out) of the peer and of our
temporal engine against the reference with the picture shifted by (dx, dy) output pixels
(bilinear for fractions). A picture in line with the reference peaks at (0, 0); a wrong
jitter sign or motion direction shows as a peak elsewhere or as a lower PSNR everywhere.

  peer_align.py FRAMES_DIR PEER_SEQ_DIR SEQ_PREFIX [--shifts 0.5,1]
  e.g. peer_align.py /tmp/df /tmp/fsr2/courtyard-still-2x-16f courtyard-still-2x
"""
import glob
import math
import re
import sys

import cv2
import numpy as np


def psnr(a, b):
    d = (a[4:-4, 4:-4].astype(np.float64) - b[4:-4, 4:-4]) / 255.0
    return -10 * math.log10(max(np.mean(d * d), 1e-12))


def shifted(img, dx, dy):
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(img.astype(np.float32), m, (img.shape[1], img.shape[0]),
                          flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def main():
    frames_dir, peer_dir, prefix = sys.argv[1:4]
    steps = [0.5, 1.0]
    if len(sys.argv) > 5 and sys.argv[4] == "--shifts":
        steps = [float(s) for s in sys.argv[5].split(",")]
    offs = sorted({0.0} | {s for s in steps} | {-s for s in steps})
    shifts = [(dx, dy) for dy in offs for dx in offs if dx == 0 or dy == 0]
    rows = {s: [[], []] for s in shifts}
    for fn in sorted(glob.glob(f"{frames_dir}/{prefix}-*.rgba")):
        m = re.search(r"-(\d+)-(\d+)x(\d+)\.rgba$", fn)
        n, w, h = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if n < 8:
            continue
        raw = np.fromfile(fn, np.uint8).reshape(2, h, w, 4)[:, :, :, :3]
        ours, ref = raw[0], raw[1]
        peer = cv2.imread(f"{peer_dir}/{n:04d}.png", cv2.IMREAD_COLOR)
        if peer is None or peer.shape[:2] != (h, w):
            sys.exit(f"peer_align: {peer_dir}/{n:04d}.png missing or not {w}x{h}")
        peer = cv2.cvtColor(peer, cv2.COLOR_BGR2RGB)
        for s in shifts:
            rows[s][0].append(psnr(ref, shifted(peer, *s)))
            rows[s][1].append(psnr(ref, shifted(ours, *s)))
    print(f"{prefix}: PSNR against the reference with the picture shifted by (dx, dy) output px")
    print("   dx    dy   peer  temporal")
    for s in shifts:
        p, o = np.mean(rows[s][0]), np.mean(rows[s][1])
        print(f"{s[0]:5.2f} {s[1]:5.2f}  {p:5.2f}  {o:5.2f}")


if __name__ == "__main__":
    main()
