#!/usr/bin/env python3
"""vk_probe_engine.py: variants of every frame generation shader at once, for timing only: what
the engine's exact arithmetic and its camera model cost in each pass (issue 33;
docs/PERFORMANCE.md). The probes of one pass (vk_probe_prepare.py, vk_probe_resolve.py,
vk_probe_flow.py) change one shader; these change a rule that every shader keeps.

    scripts/vk_probe_engine.py OUT [SHADERS]

writes OUT/<variant>/framegen/<pass>.spv for each src/vk/shaders/framegen/*.comp, compiled
from a changed copy of the shader folder, for a build made with -DUPF_VK_PROBE=ON, which loads
them in place of its own when UPF_VK_SHADER_DIR=OUT/<variant> is set. Time each with the bench
(every pass's column) and the flow's dispatches:

    for v in OUT/*/; do UPF_VK_SHADER_DIR=$v build/upframe bench --backend vulkan \\
        --frames 100 --no-spatial --no-temporal --size 1920x1080 --scale 1; done
    UPF_VK_SHADER_DIR=OUT/fma UPF_VK_FLOW_TIMING=100:1920x1080 build/tests/test_vk_flow

Their pictures differ from the CPU's (but for `base`): the tests' word-for-word checks fail,
only the times matter.
  base      the shaders as they are (the same build's baseline)
  fma       no `precise`: the compiler may fuse a multiply and an add and reorder sums, as it
            would in a shader that need not match the CPU bit for bit
  fastdiv   exact.glsl's correctly rounded reciprocal, quotients and square root replaced by
            the device's own (1.0 / s, a / b, sqrt)
  nocam     the camera model never applied (splat, fill and resolve as without a model; the
            flow path and a host's matrices fit or give one)
  fast      fma and fastdiv
"""
import os
import shutil
import tempfile

from vk_probe_common import chain, compile_shader, probe_args, sub

out, src, folder = probe_args()


def no_precise(files):
    """each change takes the shader folder's texts by path and returns them changed"""
    for name, text in files.items():
        if name.startswith('framegen/'):
            files[name] = text.replace('precise ', '')
    return files


FAST = {'float upf_rcp_rn(float s)\n{\n': '    return 1.0 / s;\n',
        'float upf_div_rn(uint c, uint d)\n{\n': '    return float(c) / float(d);\n',
        'float upf_fdiv_rn(float a, float b)\n{\n': '    return a / b;\n',
        'float upf_sqrt_rn(float x)\n{\n': '    return sqrt(x);\n'}


def fast_div(files):
    t = files['exact.glsl']
    for head, body in FAST.items():
        t = sub(t, head, head + body)
    files['exact.glsl'] = t
    return files


def no_camera(files):
    for name, old, new in (('framegen/fill.comp', 'cam[CAM_HAS] != 0.0;', 'false;'),
                           ('framegen/resolve.comp', 'cam[CAM_HAS] != 0.0;', 'false;'),
                           ('framegen/splat.glsl', 'cam[CAM_HAS] != 0.0;', 'false;'),
                           ('framegen/splat.comp', 'if (cam[CAM_HAS] == 0.0)', 'if (true)')):
        files[name] = sub(files[name], old, new)
    return files


def read_all(root):
    files = {}
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith(('.comp', '.glsl')):
                p = os.path.join(d, n)
                with open(p) as f:
                    files[os.path.relpath(p, root)] = f.read()
    return files


VARIANTS = [('base', None), ('fma', no_precise), ('fastdiv', fast_div), ('nocam', no_camera),
            ('fast', chain(no_precise, fast_div))]
original = read_all(src)
for name, change in VARIANTS:
    files = dict(original)
    if change:
        files = change(files)
    tmp = tempfile.mkdtemp()
    try:
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
            with open(os.path.join(tmp, rel), 'w') as f:
                f.write(text)
        for rel in sorted(files):
            if rel.startswith('framegen/') and rel.endswith('.comp'):
                compile_shader(files[rel], out, name, os.path.basename(rel)[:-5], tmp,
                               'vk_probe_engine.py')
    finally:
        shutil.rmtree(tmp)
print('vk_probe_engine.py: %s in %s' % (' '.join(n for n, _ in VARIANTS), out))
