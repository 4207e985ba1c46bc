#!/usr/bin/python3
"""dis_interpolate.py: the yardstick bench_framegen measures upframe's optical-flow path
against: OpenCV's DIS optical flow (Kroeger et al. 2016, "Fast optical flow using dense
inverse search"), MEDIUM preset, computed both ways on the grey frames; each frame warped
toward the phase t with cv2.remap (bilinear, edges repeated) along its own flow, and the two
averaged with weights 1 - t and t.

    dis_interpolate.py JOBS      JOBS: a text file, one job a line: A.png B.png T OUT.png

For a pixel p, flow_ab(p) says where p of A is in B, flow_ba(p) where p of B is in A. The
frame at t takes A at p - t flow_ab(p) and B at p - (1 - t) flow_ba(p) (each flow read at p:
the usual backward-warping approximation).
"""
import sys

import cv2
import numpy as np


def warp(img, flow, s):
    h, w = flow.shape[:2]
    gx, gy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    return cv2.remap(img, gx - s * flow[..., 0], gy - s * flow[..., 1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)


def main():
    dis = cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_MEDIUM)
    with open(sys.argv[1]) as f:
        jobs = [line.split() for line in f if line.strip()]
    for a_path, b_path, t, out in jobs:
        t = float(t)
        a = cv2.imread(a_path, cv2.IMREAD_COLOR)
        b = cv2.imread(b_path, cv2.IMREAD_COLOR)
        ga = cv2.cvtColor(a, cv2.COLOR_BGR2GRAY)
        gb = cv2.cvtColor(b, cv2.COLOR_BGR2GRAY)
        fab = dis.calc(ga, gb, None)
        fba = dis.calc(gb, ga, None)
        wa = warp(a.astype(np.float32), fab, t)
        wb = warp(b.astype(np.float32), fba, 1.0 - t)
        m = (1.0 - t) * wa + t * wb
        cv2.imwrite(out, np.clip(np.rint(m), 0, 255).astype(np.uint8))


if __name__ == "__main__":
    main()
