#!/usr/bin/env python3
"""test_bench_temporal_peer.py: bench_temporal's --dump-inputs and --peer (how a peer such as
AMD's FSR 2 is measured, docs/QUALITY.md) on two tiny sequences (courtyard still and pan,
128x72, 10 frames, 2x):
- with --dump-inputs the tables are the same bytes as without it (the elapsed time aside);
- each frame's inputs are there, the sidecar says the render and output sizes, the jitter the
  engine was given, and reset on frame 0 only;
- `upframe temporal` run on the dumped inputs, scored with --peer, gives the temporal engine's
  own row, number for number: the dump carries everything the engine got (the jitter's sign,
  depth, motion, camera), so a peer fed from it is fed what our engine is;
- a missing peer frame, or one of the wrong size, is an error that names the file and what
  was expected.

  test_bench_temporal_peer.py --bench PATH/bench_temporal --upframe PATH/upframe --tmp DIR
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

from png_write import write_png

SEQS = ["courtyard-still-2x-10f", "courtyard-pan-2x-10f"]


def bench(args, extra):
    cmd = [args.bench, "--size", "128x72", "--spp", "2", "--frames", "10", "--ratios", "2",
           "--only-temporal", "--no-bias-table", "--scenes", "courtyard", "--paths", "still,pan",
           "--threads", "2"] + extra
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def ok(p, what):
    if p.returncode != 0:
        sys.exit("%s failed (exit %d): %s" % (what, p.returncode, p.stderr[-2000:]))
    return p.stdout


def without_time(text):
    """The tables without the last line's elapsed seconds."""
    return re.sub(r", \d+ threads, \d+ s\.", ", N threads, T s.", text)


def rows(text, name):
    """{path: the numbers of upscaler `name`'s row} from the 2x table."""
    out, path = {}, None
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 6 or not re.match(r"^-?\d", cells[2] if len(cells) > 2 else ""):
            continue
        path = cells[0] or path
        if cells[1] == name:
            out[path] = cells[2:]
    return out


def check_dump(inputs):
    for seq in SEQS:
        d = os.path.join(inputs, seq)
        for n in range(10):
            for tail in ("color.pfm", "depth.pfm", "motion.pfm", "json"):
                if not os.path.isfile(os.path.join(d, "%04d.%s" % (n, tail))):
                    sys.exit("--dump-inputs: %s/%04d.%s missing" % (d, n, tail))
            with open(os.path.join(d, "%04d.json" % n)) as f:
                side = json.load(f)
            if (side["width"], side["height"]) != (64, 36) or \
                    (side["output_width"], side["output_height"]) != (128, 72):
                sys.exit("--dump-inputs: %s/%04d.json: sizes %s" % (d, n, side))
            if side["reset"] != (n == 0) or side["depth"] != "reversed" or \
                    abs(side["frame_time_ms"] - 1000 / 30) > 1e-9:
                sys.exit("--dump-inputs: %s/%04d.json: reset/depth/frame time %s" % (d, n, side))
            if not all(-0.5 <= j < 0.5 for j in side["jitter"]) or side["jitter"] == [0, 0]:
                sys.exit("--dump-inputs: %s/%04d.json: jitter %s" % (d, n, side["jitter"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--upframe", required=True)
    ap.add_argument("--tmp", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.tmp, ignore_errors=True)
    inputs, peer = os.path.join(args.tmp, "inputs"), os.path.join(args.tmp, "peer")
    os.makedirs(peer)
    plain = ok(bench(args, []), "bench_temporal")
    dumped = ok(bench(args, ["--dump-inputs", inputs]), "bench_temporal --dump-inputs")
    if without_time(plain) != without_time(dumped):
        sys.exit("--dump-inputs changed the tables")
    check_dump(inputs)
    for seq in SEQS:
        ok(subprocess.run([args.upframe, "temporal", os.path.join(inputs, seq), "-o",
                           os.path.join(peer, seq), "--size", "128x72", "-q"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
           "upframe temporal on " + seq)
    scored = ok(bench(args, ["--peer", "cli=" + peer]), "bench_temporal --peer")
    ours, theirs = rows(scored, "temporal"), rows(scored, "cli")
    if sorted(ours) != ["pan", "still"] or ours != theirs:
        sys.exit("the peer fed from the dump does not score as the engine:\n%s\n%s\n%s" %
                 (ours, theirs, scored))
    # a frame of the wrong size, then a missing one
    bad = os.path.join(peer, SEQS[0], "0009.png")
    write_png(bad, 64, 36)
    p = bench(args, ["--peer", "cli=" + peer])
    if p.returncode == 0 or "0009.png is 64x36; expected the output size, 128x72" not in p.stderr:
        sys.exit("a peer frame of the wrong size: exit %d, %s" % (p.returncode, p.stderr))
    os.remove(bad)
    p = bench(args, ["--peer", "cli=" + peer])
    if p.returncode == 0 or "0009.png" not in p.stderr or "expected frame 9 of sequence " \
            "courtyard-still-2x-10f: an 8-bit sRGB PNG of 128x72" not in p.stderr:
        sys.exit("a missing peer frame: exit %d, %s" % (p.returncode, p.stderr))
    print("bench_temporal --dump-inputs / --peer: ok (%s)" % ", ".join(
        "%s %s dB" % (k, v[0]) for k, v in sorted(ours.items())))


if __name__ == "__main__":
    main()
