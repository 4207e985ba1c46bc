#!/usr/bin/env python3
"""vk_probe_flow.py: variants of the optical flow's level-0 shaders, the two passes that bound a
made frame from flow (issue 33; docs/PERFORMANCE.md: at 1920x1080 on an H100 refine 0.368 ms and
choose 0.242 of the flow's 0.97, where their bytes and arithmetic come to some tens of
microseconds).

    scripts/vk_probe_flow.py OUT [SHADERS]

writes OUT/<variant>/framegen/flow_refine.spv or flow_choose.spv, compiled from a changed copy
of src/vk/shaders/framegen/flow_refine.comp or flow_choose.comp (and flow_choose_sad.glsl), for
a build made with -DUPF_VK_PROBE=ON, which loads it in place of its own when
UPF_VK_SHADER_DIR=OUT/<variant> is set. Time each with the flow's prefix times:

    for v in OUT/*/; do UPF_VK_SHADER_DIR=$v UPF_VK_FLOW_TIMING=100:1920x1080 \\
        UPF_VK_TEST_NO_VALIDATION=1 build/tests/test_vk_flow; done

Measured on an H200 on 2026-12-07 (docs/PERFORMANCE.md, "Main on an H200, 2026-12-07 (18:51
UTC)"): rf_global halved refine and is the shader since (so rf_global and rf_both are no longer
made); every choose variant was slower than the shader.

Exact variants (the CPU's vectors word for word: test_vk_flow passes with
UPF_VK_SHADER_DIR=OUT/<variant> on lavapipe):
  base        the shaders as they are (the same build's baseline)
  rf_roll     refine's tile loads in rolled loops ([[dont_unroll]]): NVIDIA unrolls the two
              tiles' 17 and 49 loads a lane, twice (inside the frame and clamped) and for
              each direction's buffer, a large binary each workgroup fetches
  rf_global   refine without the other frame's 20 x 20 window in shared memory: the bilinear
              samples read the buffer (the same texels); 4.3 KB of shared memory a workgroup
              instead of 17.3 KB, so up to 32 workgroups an SM, not 13
  rf_both     rf_roll and rf_global
  ch_nogrid   choose's SAD always reads each sample's four texels (the same texels as the 5 x 5
              grid's; 64 loads, not 25, but one code path, not two)
  ch_roll     ch_nogrid in rolled loops over the 16 samples
  ch_kmajor   choose's lanes candidate-major: lane t takes quad t % 64 and candidate t / 64
              (64 quads and 320 lanes a workgroup), so that a warp's 32 lanes sample one
              candidate of 32 neighbouring quads (mostly the same block's vector: each load
              touches a run of a row) rather than 5 candidates of 6 quads (5 vectors)
  ch_kmajor48 the same with 48 quads and 256 lanes (t % 48, t / 48)
  ch_cell     choose by cells (scripts/vk_probe/flow_choose_cell.comp, its own text: the 16
              quads between the same four block centres share five candidates, so a cell's
              per-pixel differences are made once per candidate, 500 bilinear samples where
              its quads take 1280, and each quad sums its 16)
Variants for timing only (their vectors differ from the CPU's):
  rf_steps0   refine's tiles, median and gradients, no Lucas-Kanade step
  rf_steps1   one step instead of three
  ch_own      choose computes the SAD of the quad's own block's vector alone (a fifth of the
              samples): what the four other candidates cost
"""
import os

from vk_probe_common import Missing, chain, compile_shader, probe_args, read_text, sub

out, src, folder = probe_args()
refine = read_text(folder, 'flow_refine.comp')
choose = read_text(folder, 'flow_choose.comp')
sad = read_text(folder, 'flow_choose_sad.glsl')


STAGE = '        [[unroll]] for (int i = int(lane); i < SIDE_ * SIDE_; i += LANES)'


def rf_roll(t):
    return sub(t, STAGE, STAGE.replace('[[unroll]]', '[[dont_unroll]]'), 2)


WIN_IF = '    if (ua >= wx && ua + 1 < wx + WS && va >= wy && va + 1 < wy + WS) {'


def rf_global(t):
    # the window's loads and its test go; mismatch reads the buffer (the same texels)
    t = sub(t, WIN_IF, '    if (false) {')
    t = sub(t, '        a = r_win[blk][r0], b = r_win[blk][r0 + 1];\n'
               '        c = r_win[blk][r0 + WSP], e = r_win[blk][r0 + WSP + 1];\n', '')
    t = sub(t, '        const int r0 = (va - wy) * WSP + ua - wx;\n', '')
    t = sub(t, 'shared float r_win[BLOCKS][WS * WSP];', '')
    return sub(t, '    if (valid) {\n        if (d == 0) {\n'
                  '            STAGE_TILE(r_win[blk], luma_prev, WS, WSP, wx, wy)\n'
                  '        } else {\n'
                  '            STAGE_TILE(r_win[blk], luma_cur, WS, WSP, wx, wy)\n'
                  '        }\n    }\n', '')


def rf_steps(n):
    return lambda t: sub(t, 'for (int it = 0; it < pc.refine; it++) {',
                         'for (int it = 0; it < min(pc.refine, %d); it++) {' % n)


def with_sad(t, s):
    return sub(t, '#include "flow_choose_sad.glsl"', s, 2)


def ch_nogrid(t):
    return with_sad(t, sub(sad, '    bool grid = true;', '    bool grid = false;'))


def ch_roll(t):
    s = sub(sad, '    bool grid = true;', '    bool grid = false;')
    s = sub(s, '        [[unroll]] for (int r = 0; r < 4; r++)\n'
               '            [[unroll]] for (int c = 0; c < 4; c++) {\n'
               '                const float a',
            '        [[dont_unroll]] for (int r = 0; r < 4; r++)\n'
            '            [[dont_unroll]] for (int c = 0; c < 4; c++) {\n'
            '                const float a')
    return with_sad(t, s)


def ch_kmajor(quads, lanes):
    def f(t):
        t = sub(t, 'layout(local_size_x = 256) in;', 'layout(local_size_x = %d) in;' % lanes)
        t = sub(t, '#define QUADS 48 /* quads a workgroup, 5 lanes each */',
                '#define QUADS %d' % quads)
        t = sub(t, '#define LANES 256', '#define LANES %d' % lanes)
        t = sub(t, 'q = t / 5, k = t - 5 * q;', 'q = t % QUADS, k = t / QUADS;')
        t = sub(t, '    const int at = 5 * q;\n', '')
        t = sub(t, 'const bool valid = q < QUADS &&', 'const bool valid = q < QUADS && k < 5 &&')
        for x in ('own', 'c', 'best'):
            t = sub(t, '[at + %s]' % x, '[(%s) * QUADS + q]' % x)
        return t
    return f


def ch_own(t):
    return sub(t, '        s_sad[t] = past ? 0.0 : quad_sad(d, x0, y0, 2 * q, m);',
               '        s_sad[t] = past ? 0.0 : k == own ? quad_sad(d, x0, y0, 2 * q, m) : inf();')


VARIANTS = [('base', None, None), ('rf_roll', 'flow_refine', rf_roll),
            ('rf_global', 'flow_refine', rf_global),
            ('rf_both', 'flow_refine', chain(rf_roll, rf_global)),
            ('rf_steps0', 'flow_refine', rf_steps(0)), ('rf_steps1', 'flow_refine', rf_steps(1)),
            ('ch_nogrid', 'flow_choose', ch_nogrid), ('ch_roll', 'flow_choose', ch_roll),
            ('ch_kmajor', 'flow_choose', ch_kmajor(64, 320)),
            ('ch_kmajor48', 'flow_choose', ch_kmajor(48, 256)),
            ('ch_own', 'flow_choose', ch_own),
            ('ch_cell', 'flow_choose', lambda t: read_text(
                os.path.join(os.path.dirname(os.path.abspath(__file__)), 'vk_probe'),
                'flow_choose_cell.comp'))]
only = os.environ.get('VARIANTS', '').split()
made = []
for name, shader, make in VARIANTS:
    if only and name not in only:
        continue
    try:
        if shader is None:  # the base: both shaders as they are
            compile_shader(refine, out, name, 'flow_refine', src, 'vk_probe_flow.py')
            compile_shader(choose, out, name, 'flow_choose', src, 'vk_probe_flow.py')
        else:
            text = refine if shader == 'flow_refine' else choose
            compile_shader(make(text), out, name, shader, src, 'vk_probe_flow.py')
        made.append(name)
    except Missing as e:
        print('vk_probe_flow.py: %s not made (the shader no longer has %r)' %
              (name, str(e).strip().splitlines()[0]))
print('vk_probe_flow.py: %s in %s' % (' '.join(made), out))
