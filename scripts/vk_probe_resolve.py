#!/usr/bin/env python3
"""vk_probe_resolve.py: variants of the frame generation's resolve shader that time its parts
(docs/FRAMEGEN.md, "On the GPU").

    scripts/vk_probe_resolve.py OUT [SHADERS]

writes OUT/<variant>/framegen/resolve.spv, compiled with glslangValidator from a changed copy
of src/vk/shaders/framegen/resolve.comp (or SHADERS/framegen/resolve.comp), for a build made
with -DUPF_VK_PROBE=ON, which loads it in place of its own when UPF_VK_SHADER_DIR=OUT/<variant>
is set. Time each with test_vk_framegen's resolve timing (the resolve alone from game vectors,
with a camera model, as from the flow, from 8-bit colours; 1920x1080 and 3840x2160):

    for v in OUT/*/; do UPF_VK_SHADER_DIR=$v UPF_VK_TEST_NO_VALIDATION=1 \\
        UPF_VK_RESOLVE_TIMING=200 build/tests/test_vk_framegen; done

The variants keep the bindings, the specialisation constants and the grid; their pictures are
wrong on purpose (but for `base`), only their times matter:
  base        the shader as it is (the same build's baseline)
  taps4       4 x 4 taps a window, not 6 x 6 (the loads and the sums of a Lanczos-2 fetch)
  taps24      the 6 x 6 window without its 12 outer corner taps (those with one coordinate
              on the window's edge and the other not in its middle two): 24 loads, not 36
              (only for a resolve before upf__fg_lanczos_tap, which made it the rule)
  half        each texel a uvec2 of two half pairs read from the same buffers (8 bytes a texel,
              not 16: the loads of RGBA16F linear frames); only for a shader whose linear
              frames are RGBA32F (before linear.glsl)
  half_taps4  both
  one         one frame's window: N's taps not read (B = A), 36 loads a pixel, not 72
  noweights   the Lanczos weights a tent (no sine, cosine or division)
  nosincos    the weights' sine and cosine replaced by a multiply-add (their divisions kept)
  plan        no samples: the positions and the weights (motion, visibility, camera) stored
  nocam       no camera model (the positions never on the camera's curve)
  camfast     the camera's positions with the hardware's reciprocals, not upf_rcp_rn
  nodecode    BYTES: a code decoded as code / 255, not looked up in the shared tables (only
              for a resolve that reads the 8-bit codes, before it read the linear frames)
"""
import sys

from vk_probe_common import compile_shader, probe_args, read_text

out, src, folder = probe_args()
base = read_text(folder, 'resolve.comp')
frames = read_text(folder, 'frames.glsl')
camera = read_text(folder, 'camera.glsl')


def sub(text, old, new, variant):
    if old not in text:
        sys.exit('vk_probe_resolve.py: %s: the shader no longer has %r' % (variant, old))
    return text.replace(old, new)


def inline(text, name, body):
    """text with `#include "name"` replaced by body (a changed copy of that file)"""
    return sub(text, '#include "%s"' % name, body, name)


def compile_to(text, variant):
    compile_shader(text, out, variant, 'resolve', src, 'vk_probe_resolve.py')


TAPS6 = ('    for (int j = 0; j < 6; j++)\n'
         '        for (int i = 0; i < 6; i++) {\n')
TAPS4 = ('    for (int j = 1; j < 5; j++)\n'
         '        for (int i = 1; i < 5; i++) {\n')
HALF_DECL = ('layout(set = 0, binding = 6, std430) readonly buffer Prev { uvec2 prev[]; };\n'
             'layout(set = 0, binding = 7, std430) readonly buffer Cur { uvec2 cur[]; };')
F_DECL = ('layout(set = 0, binding = 6, std430) readonly buffer Prev { vec4 prev[]; };\n'
          'layout(set = 0, binding = 7, std430) readonly buffer Cur { vec4 cur[]; };')
F_READ = '        return from_prev ? prev[i] : cur[i];'
H_READ = ('    {\n        const uvec2 h = from_prev ? prev[i] : cur[i];\n'
          '        return vec4(unpackHalf2x16(h.x), unpackHalf2x16(h.y));\n    }')


def half(text):
    text = sub(text, F_DECL, HALF_DECL, 'half')
    return inline(text, 'frames.glsl', sub(frames, F_READ, H_READ, 'half'))


compile_to(base, 'base')
compile_to(sub(base, TAPS6, TAPS4, 'taps4'), 'taps4')
if 'lanczos_tap' not in base:  # before the resolve's 24-tap window
    compile_to(sub(base, TAPS6, TAPS6 + (
        '            if ((i == 0 || i == 5 ? 2 : i == 1 || i == 4 ? 1 : 0) +\n'
        '                (j == 0 || j == 5 ? 2 : j == 1 || j == 4 ? 1 : 0) >= 3)\n'
        '                continue;\n'), 'taps24'), 'taps24')
if F_DECL in base:  # the linear frames RGBA32F (before linear.glsl packed them in 8 bytes)
    compile_to(half(base), 'half')
    compile_to(half(sub(base, TAPS6, TAPS4, 'half_taps4')), 'half_taps4')
compile_to(sub(base, '        B = sample_lanczos(false, bx, by, lo2, hi2);',
               '        B = A, lo2 = lo, hi2 = hi;', 'one'), 'one')
compile_to(sub(base, '        w[i] = 3.0 * a * b / (pi * pi * d * d);',
               '        w[i] = max(1.0 - abs(d) / 3.0, 0.0);', 'noweights'), 'noweights')
compile_to(sub(base, '    const float u = pi * f / 3.0, s3 = sin(u), c3 = cos(u);',
               '    const float u = pi * f / 3.0, s3 = u, c3 = 1.0 - u;', 'nosincos'), 'nosincos')
compile_to(sub(base, '            o = resolve_sample(a, b, wa, wb);',
               '            o = vec4(a, wa + wb, b.x);', 'plan'), 'plan')
compile_to(sub(base, 'cam[CAM_HAS] != 0.0;', 'cam[CAM_HAS] == 12345.0;', 'nocam'), 'nocam')
FAST = '#include "exact.glsl"\nfloat fast_rcp(float v) { return 1.0 / v; }\n'
compile_to(inline(base.replace('upf_rcp_rn(', 'fast_rcp('), 'camera.glsl',
                  sub(camera, '#include "exact.glsl"\n', FAST, 'camfast')
                  .replace('upf_rcp_rn(', 'fast_rcp(')), 'camfast')
if '#include "frames.glsl"' in base:  # the 8-bit codes decoded in the resolve
    compile_to(inline(base, 'frames.glsl',
                      sub(frames, '    return frame_table[(from_prev ? 0u : 256u) + code];',
                          '    return float(code) * (1.0 / 255.0);', 'nodecode')), 'nodecode')
