"""vk_probe_common.py: what the probe scripts (vk_probe_prepare.py, vk_probe_resolve.py,
vk_probe_flow.py) share: compiling a changed copy of one frame generation shader into
OUT/VARIANT/framegen/NAME.spv, the layout UPF_VK_SHADER_DIR=OUT/VARIANT reads in a build made
with -DUPF_VK_PROBE=ON, and changing a shader's text."""
import os
import subprocess
import sys


def compile_shader(text, out, variant, name, src, tool):
    """text (a changed NAME.comp) compiled as OUT/VARIANT/framegen/NAME.spv; its #includes
    resolve against SRC/framegen and SRC; exits with the compiler's message (tool: the
    calling script's name) on an error."""
    folder = os.path.join(src, 'framegen')
    d = os.path.join(out, variant, 'framegen')
    os.makedirs(d, exist_ok=True)
    comp = os.path.join(d, name + '.comp')
    with open(comp, 'w') as f:
        f.write(text)
    r = subprocess.run(['glslangValidator', '-V', '--target-env', 'vulkan1.1', '-I' + folder,
                        '-I' + src, '-o', os.path.join(d, name + '.spv'), comp],
                       capture_output=True, text=True)
    os.remove(comp)
    if r.returncode:
        sys.exit('%s: %s: %s%s' % (tool, variant, r.stdout, r.stderr))


def probe_args():
    """OUT and SHADERS from the command line (SHADERS: the repository's src/vk/shaders when
    not given): (out, src, the framegen folder)."""
    out = sys.argv[1]
    src = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), '..',
                                                              'src', 'vk', 'shaders')
    return out, src, os.path.join(src, 'framegen')


def read_text(folder, name):
    with open(os.path.join(folder, name)) as f:
        return f.read()


class Missing(Exception):
    """A variant's text is not in the shader (the shader changed since the variant was made)."""


def sub(text, old, new, count=1):
    """text with old replaced by new; Missing unless old occurs at least count times."""
    if text.count(old) < count:
        raise Missing(old)
    return text.replace(old, new)


def chain(*fs):
    """The text changes fs applied in order, as one."""
    def f(t):
        for g in fs:
            t = g(t)
        return t
    return f
