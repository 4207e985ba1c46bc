#!/usr/bin/env python3
"""vk_prepare_passes.py: the shared-memory passes of prepare's histogram counting
(src/vk/shaders/framegen/prepare.comp, step 0) on a pair of frames, for each layout of its
counters (docs/FRAMEGEN.md, "Why prepare became slower").

    upframe render courtyard --seed 1 --size 1920x1080 --path walk --time 1 --frames 2 -o DIR
    scripts/vk_prepare_passes.py DIR/0000.color.pfm DIR/0001.color.pfm

(the bench's pair: `upframe bench` renders that scene, seed, path and times). Reads the two
linear colour frames (PFM, RGB float); writes a table to stdout. A model, not a measurement: a
warp's shared-memory access takes one pass per distinct 4-byte word in its busiest bank of 32
(loads and stores; lanes on one word share it), and its atomics either the same (model M: the
hardware merges a word's lanes) or one pass per lane in the busiest bank (model S: same-word
atomics one after another). Each pixel's bin is taken from its float colour as prepare.comp
takes it (Rec. 709 luma clamped to [0, 1], its root as a 12-bit code, 32 bins), without the
linear frames' rounding to 12 mantissa bits (which can move a pixel only at a bin's edge).
Counted per frame pair: clearing the counters, each pixel's two atomics (one a frame), adding
the copies up (each region's bins) and the whole frame's bins, for workgroups of 16 x 16
pixels, warps of 32 invocations (two rows of 16), frames of 64 x 64 or more (2 x 2 region
slots a workgroup). Layouts: `copies8` (e34420a: 8 copies of a counter side by side), `copies4`,
`one` (b5b50e0 and now: one counter), `pcopies8` (8 copies, copy after copy, at a stride of
the counters' number + 1).
"""
import math
import struct
import sys

BINS, TILE, GROUP, BANKS = 32, 16, 256, 32
SMS, CLOCK = 132, 1.98e9  # an H100 SXM: its SMs and its highest clock (the fewest us)


def read_pfm(path):
    """width, height and the RGB floats of a PFM (its header: PF, W, H, scale; < 0: little
    endian), rows bottom to top as stored"""
    with open(path, 'rb') as f:
        data = f.read()
    parts, at = [], 0
    while len(parts) < 4:  # whitespace-separated, then one whitespace byte
        while data[at:at + 1].isspace():
            at += 1
        end = at
        while end < len(data) and not data[end:end + 1].isspace():
            end += 1
        parts.append(data[at:end].decode('ascii', 'replace'))
        at = end
    at += 1
    if parts[0] != 'PF':
        sys.exit('vk_prepare_passes.py: %s: not an RGB PFM (it starts %r)' % (path, parts[0]))
    w, h = int(parts[1]), int(parts[2])
    if len(data) < at + 12 * w * h:
        sys.exit('vk_prepare_passes.py: %s: %d x %d, but only %d bytes of pixels' %
                 (path, w, h, len(data) - at))
    order = '<' if float(parts[3]) < 0 else '>'
    return w, h, struct.unpack(order + 'f' * (3 * w * h), data[at:at + 12 * w * h])


def bins_of(w, h, v):
    """each pixel's bin, rows top to bottom (a PFM stores them bottom to top)"""
    out = bytearray(w * h)
    for y in range(h):
        row = (h - 1 - y) * w * 3
        for x in range(w):
            r, g, b = v[row + 3 * x], v[row + 3 * x + 1], v[row + 3 * x + 2]
            bad = any(math.isnan(c) or math.isinf(c) for c in (r, g, b))
            lum = 0.0 if bad else (0.2126 * r + 0.7152 * g) + 0.0722 * b
            lum = min(max(lum, 0.0), 1.0)
            code = math.floor(math.sqrt(lum) * 4095.0 + 0.5) / 4096.0
            out[y * w + x] = min(max(int(code * BINS), 0), BINS - 1)
    return out


def passes(addrs, serial=False):
    """passes of one warp-wide access to these word addresses (one a lane, None: inactive)"""
    words, lanes = {}, {}
    for a in addrs:
        if a is not None:
            words.setdefault(a % BANKS, set()).add(a)
            lanes[a % BANKS] = lanes.get(a % BANKS, 0) + 1
    if not words:
        return 0
    return max(lanes.values()) if serial else max(len(s) for s in words.values())


class Layout:
    def __init__(self, name, copies, by_copy):
        self.name, self.copies, self.by_copy = name, copies, by_copy
        self.used = 2 * 4 * BINS  # counters: 2 frames x 2 x 2 slots x 32 bins

    def addr(self, counter, copy):
        if self.by_copy:
            return copy * (self.used + 1) + counter
        return counter * self.copies + copy

    def words(self):
        return (self.used + 1) * self.copies if self.by_copy else self.used * self.copies

    def fixed(self):
        """a workgroup's passes besides its atomics: the clear, the copies' sums, the whole
        frame's bins (the same in every workgroup)"""
        n = 0
        for warp in range(GROUP // 32):
            for j in range(0, self.words(), GROUP):
                n += passes([j + 32 * warp + l if j + 32 * warp + l < self.words() else None
                             for l in range(32)])
            for c in range(self.copies):  # each region's bins: lane k sums counter k's copies
                n += passes([self.addr(32 * warp + l, c) for l in range(32)])
        for warp in range(2):  # the whole frame's 64 bins: lane k, every slot and copy
            for s in range(4):
                for c in range(self.copies):
                    k = [32 * warp + l for l in range(32)]
                    n += passes([self.addr((kk // BINS * 4 + s) * BINS + kk % BINS, c)
                                 for kk in k])
        return n


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    frames = []
    for p in sys.argv[1:]:
        w, h, v = read_pfm(p)
        frames.append(bins_of(w, h, v))
    if w < 4 * TILE or h < 4 * TILE:
        sys.exit('vk_prepare_passes.py: frames under 64 x 64 keep more region slots')
    layouts = [Layout('copies8', 8, False), Layout('copies4', 4, False),
               Layout('one', 1, False), Layout('pcopies8', 8, True)]
    atom = {(lay.name, s): 0 for lay in layouts for s in (False, True)}
    gx, gy = (w + TILE - 1) // TILE, (h + TILE - 1) // TILE
    distinct = warps = 0
    for wy in range(gy):
        for wx in range(gx):
            ox, oy = wx * TILE, wy * TILE
            for f in range(2):
                for warp in range(GROUP // 32):
                    counters = []
                    for lane in range(32):
                        x, y = ox + lane % TILE, oy + 2 * warp + lane // TILE
                        if x >= w or y >= h:
                            counters.append(None)
                            continue
                        sx = x * 4 // w - ox * 4 // w
                        sy = y * 4 // h - oy * 4 // h
                        counters.append(((f * 2 + sy) * 2 + sx) * BINS + frames[f][y * w + x])
                    live = [c for c in counters if c is not None]
                    if not live:
                        continue
                    warps += 1
                    distinct += len(set(live))
                    for lay in layouts:
                        a = [None if c is None else lay.addr(c, (32 * warp + l) % lay.copies)
                             for l, c in enumerate(counters)]
                        for s in (False, True):
                            atom[(lay.name, s)] += passes(a, s)
    groups = gx * gy
    print('%d x %d, %d workgroups, %d warp atomics: %.2f distinct counters a warp atomic'
          % (w, h, groups, warps, distinct / warps))
    print('%-9s %6s %9s %9s %9s %12s %12s' % ('layout', 'words', 'fixed/wg', 'atomM/wg',
                                              'atomS/wg', 'us M/S', 'at'))
    for lay in layouts:
        fx = lay.fixed()
        m, s = atom[(lay.name, False)], atom[(lay.name, True)]
        tm = (fx * groups + m) / SMS / CLOCK * 1e6
        ts = (fx * groups + s) / SMS / CLOCK * 1e6
        print('%-9s %6d %9d %9.1f %9.1f %5.1f / %4.1f %12s' % (
            lay.name, lay.words(), fx, m / groups, s / groups, tm, ts,
            '%d SMs, %.2f GHz' % (SMS, CLOCK / 1e9)))


main()
