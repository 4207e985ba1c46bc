#!/usr/bin/env python3
"""vk_probe.py: shader variants that time parts of a Vulkan pass (docs/PERFORMANCE.md, "What
bounds each pass"; docs/VULKAN.md, "Measuring the shaders").

    scripts/vk_probe.py OUT [SHADERS]

writes OUT/<variant>/spatial/<shader>.spv, compiled with glslangValidator from
src/vk/shaders/spatial (or SHADERS/spatial), for a build made with -DUPF_VK_PROBE=ON, which
loads them in place of its own (shader "spatial/<shader>") when UPF_VK_SHADER_DIR=OUT/<variant>
is set (`upframe bench --backend vulkan` then times them).
The variants keep each pass's bindings, workgroup size and grid; their pictures are wrong on
purpose, only their times matter:
  empty      every pass an empty main(): the cost of launching its grid and its barrier
  c_store    compose stores a constant: launch, grid and the destination's writes
  c_s1       compose up to its taps (phase 1), then a store
  c_s12      ... and the vertical sums and the map's samples (phase 2)
  c_s123     ... and o and its luma (phase 3); the full pass adds the sharpen, the tone map
             undone and the store
  c_noenc    compose storing a square root instead of the sRGB curve (two pow a channel)
  cv_noreduce  convert without the frame's range (its reduction and atomics)
  d_patch    detail_coopmat loads the luma patch and stores it, no network
The differences between consecutive compose variants are the phases' costs.
"""
import os
import re
import subprocess
import sys

out = sys.argv[1]
src = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), '..',
                                                          'src', 'vk', 'shaders')


def compile_to(text, name, variant):
    d = os.path.join(out, variant, 'spatial')
    os.makedirs(d, exist_ok=True)
    comp = os.path.join(d, name + '.comp')
    with open(comp, 'w') as f:
        f.write(text)
    r = subprocess.run(['glslangValidator', '-V', '--target-env', 'vulkan1.1',
                        '-I' + os.path.join(src, 'spatial'), '-I' + src,
                        '-o', os.path.join(d, name + '.spv'), comp],
                       capture_output=True, text=True)
    os.remove(comp)
    if r.returncode:
        sys.exit('%s/%s: %s%s' % (variant, name, r.stdout, r.stderr))


def read(name):
    with open(os.path.join(src, 'spatial', name + '.comp')) as f:
        return f.read()


SIZE = re.compile(r'layout\(local_size_x = (\w+), local_size_y = (\d+), local_size_z = 1\) in;')
for name in ['convert', 'smaa_edges', 'smaa_weights', 'smaa_blend', 'detail', 'detail_coopmat',
             'compose']:
    m = SIZE.search(read(name))
    x = m.group(1)
    if not x.isdigit():  # detail_coopmat: THREADS (32 * SUBGROUPS)
        x = str(32 * int(re.search(r'#define SUBGROUPS (\d+)', read(name)).group(1)))
    compile_to('#version 450\nlayout(local_size_x = %s, local_size_y = %s) in;\n'
               'void main() {}\n' % (x, m.group(2)), name, 'empty')

compose = read('compose')
STORE = ('    for (int r = 0; r < PPT; r++) {\n'
         '        const ivec2 lq = ivec2(int(gl_LocalInvocationIndex % uint(TILE_X)),\n'
         '                               int(gl_LocalInvocationIndex / uint(TILE_X)) + r * ROWS);\n'
         '        const ivec2 q = tile + lq;\n'
         '        if (q.x < pc.out_width && q.y < pc.out_height)\n'
         '            imageStore(dst, ivec2(pc.dst_x, pc.dst_y) + q, @V);\n'
         '    }\n}\n')
for variant, marker, value in [
        ('c_store', '    /* 1. The taps', 'vec4(0.25)'),
        ('c_s1', '    /* 2. The vertical sums', 'vec4(base_w[lq.x][0], base_w[AX + lq.y][0], 0, 1)'),
        ('c_s12', '    /* 3. o and its luma', 'vsum[lq.y][lq.x] + dsamp[r]'),
        ('c_s123', '    /* 4. The sharpen', 'own[r] + vec4(lum[lq.y + 1][lq.x + 1])')]:
    compile_to(compose[:compose.index(marker)] + STORE.replace('@V', value), 'compose', variant)
ENCODE = ('o.rgb = vec3(upf_linear_to_srgb(clamp(o.r, 0.0, 1.0)),\n'
          '                         upf_linear_to_srgb(clamp(o.g, 0.0, 1.0)),\n'
          '                         upf_linear_to_srgb(clamp(o.b, 0.0, 1.0)));')
assert ENCODE in compose
compile_to(compose.replace(ENCODE, 'o.rgb = sqrt(clamp(o.rgb, 0.0, 1.0));'), 'compose', 'c_noenc')

convert = read('convert')
compile_to(convert[:convert.index('    /* The workgroup')] + '}\n', 'convert', 'cv_noreduce')

detail = read('detail_coopmat')
cut = detail.index('    const uint sg = tid >> 5u')
compile_to(detail[:cut] + '''    for (uint k = tid; k < 48u * 48u; k += uint(THREADS)) {
        ivec2 p = ivec2(gl_WorkGroupID.xy) * 48 + ivec2(int(k % 48u), int(k / 48u));
        if (p.x < pc.map_width && p.y < pc.map_height)
            detail_store(p, luma_patch[k % uint(patch_size() * patch_size())]);
    }
}
''', 'detail_coopmat', 'd_patch')
print('vk_probe.py: variants in %s' % out)
