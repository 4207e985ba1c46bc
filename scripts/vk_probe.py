#!/usr/bin/env python3
"""vk_probe.py: shader variants that time parts of a Vulkan pass (docs/PERFORMANCE.md, "What
bounds each pass"; docs/VULKAN.md, "Measuring the shaders").

    scripts/vk_probe.py OUT [SHADERS]

writes OUT/<variant>/spatial/<shader>.spv (and for `empty` framegen/ and temporal/ too),
compiled with glslangValidator from src/vk/shaders (or SHADERS), for a build made with -DUPF_VK_PROBE=ON, which
loads them in place of its own (shader "spatial/<shader>") when UPF_VK_SHADER_DIR=OUT/<variant>
is set (`upframe bench --backend vulkan` then times them).
The variants keep each pass's bindings, workgroup size and grid; their pictures are wrong on
purpose, only their times matter:
  empty      every pass an empty main(): the cost of launching its grid and its barrier (the
             spatial passes, and every frame generation and temporal shader: OUT/empty/
             framegen/*.spv, OUT/empty/temporal/*.spv)
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


def compile_to(text, name, variant, engine='spatial'):
    d = os.path.join(out, variant, engine)
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


# The empty variant of every shader: its workgroup-size lines
# (from the .comp, or the .glsl of its folder that it includes; each `#define` those lines
# name kept) before an empty main(): a pass's time is then its grids' launch and its barriers.
LOCAL = re.compile(r'^layout\((local_size_[^)]*)\) in;', re.M)
DEFINE = re.compile(r'^#define (\w+) .*$', re.M)
for engine in ['spatial', 'framegen', 'temporal']:
    folder = os.path.join(src, engine)
    for comp in sorted(f for f in os.listdir(folder) if f.endswith('.comp')):
        with open(os.path.join(folder, comp)) as f:
            text = f.read()
        for inc in re.findall(r'#include "(\w+\.glsl)"', text):
            if os.path.exists(os.path.join(folder, inc)):
                with open(os.path.join(folder, inc)) as f:
                    text += f.read()
        sizes = [m.group(0) for m in LOCAL.finditer(text)]
        if not sizes:
            sys.exit('vk_probe.py: %s/%s has no workgroup size' % (engine, comp))
        defines, need = [], list(sizes)  # the defines the sizes name, and those they name
        for m in reversed(list(DEFINE.finditer(text))):
            if any(re.search(r'\b%s\b' % m.group(1), line) for line in need):
                defines.insert(0, m.group(0))
                need.append(m.group(0))
        body = '#version 450\n%s\n%s\nvoid main() {}\n' % ('\n'.join(defines), '\n'.join(sizes))
        compile_to(body, comp[:-5], 'empty', engine)


def cut_at(text, marker, variant):
    """text up to marker, or None (and a note) where the shader no longer has it: the
    spatial variants below were written for an older compose, convert and detail."""
    if marker in text:
        return text[:text.index(marker)]
    print('vk_probe.py: %s not made (its shader no longer has %r)' % (variant,
                                                                      marker.strip().splitlines()[0]))
    return None


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
    head = cut_at(compose, marker, variant)
    if head is not None:
        compile_to(head + STORE.replace('@V', value), 'compose', variant)
ENCODE = ('o.rgb = vec3(upf_linear_to_srgb(clamp(o.r, 0.0, 1.0)),\n'
          '                         upf_linear_to_srgb(clamp(o.g, 0.0, 1.0)),\n'
          '                         upf_linear_to_srgb(clamp(o.b, 0.0, 1.0)));')
if cut_at(compose, ENCODE, 'c_noenc') is not None:
    compile_to(compose.replace(ENCODE, 'o.rgb = sqrt(clamp(o.rgb, 0.0, 1.0));'), 'compose',
               'c_noenc')

head = cut_at(read('convert'), '    /* The workgroup', 'cv_noreduce')
if head is not None:
    compile_to(head + '}\n', 'convert', 'cv_noreduce')

head = cut_at(read('detail_coopmat'), '    const uint sg = tid >> 5u', 'd_patch')
if head is not None:
    compile_to(head + '''    for (uint k = tid; k < 48u * 48u; k += uint(THREADS)) {
        ivec2 p = ivec2(gl_WorkGroupID.xy) * 48 + ivec2(int(k % 48u), int(k / 48u));
        if (p.x < pc.map_width && p.y < pc.map_height)
            detail_store(p, luma_patch[k % uint(patch_size() * patch_size())]);
    }
}
''', 'detail_coopmat', 'd_patch')
print('vk_probe.py: variants in %s' % out)
