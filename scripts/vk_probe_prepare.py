#!/usr/bin/env python3
"""vk_probe_prepare.py: variants of the frame generation's prepare shader, each undoing one of
the changes that made it slower on an H100 (issue 33; docs/FRAMEGEN.md, "On the GPU": 57 -> 87
us from vectors at 1920x1080 between b5b50e0 and e34420a, 79 -> 142 on the flow path, 48 -> 91
from 8-bit colours).

    scripts/vk_probe_prepare.py OUT [SHADERS]

writes OUT/<variant>/framegen/prepare.spv, compiled with glslangValidator from a changed copy of
src/vk/shaders/framegen/prepare.comp (or SHADERS/framegen/prepare.comp), for a build made with
-DUPF_VK_PROBE=ON, which loads it in place of its own when UPF_VK_SHADER_DIR=OUT/<variant> is
set. Time each with the bench's prepare column (--scale 1: the 1920x1080 rows alone):

    for v in OUT/*/; do UPF_VK_SHADER_DIR=$v UPF_VK_TEST_NO_VALIDATION=1 build/upframe bench \\
        --backend vulkan --frames 100 --no-spatial --no-temporal --size 1920x1080 --scale 1; done

A variant is made only where the shader still has what it changes (a note names the others):
since 98e02de prepare.comp keeps one counter, so the copies' variants need e34420a's shaders
(git archive e34420a src/vk/shaders | tar -x -C DIR, then SHADERS = DIR/src/vk/shaders); both,
prior, agg and old are made from either.
Exact variants (the CPU's surfaces word for word: test_vk_framegen and test_vk_interpolate pass
with UPF_VK_SHADER_DIR=OUT/<variant> on lavapipe):
  base       the shader as it is (the same build's baseline)
  nocopies   one shared counter a bin and region slot, not 8 copies (b6fb90b undone: the
             counts 4 KB a workgroup again, not 8, no copies to clear and add up)
  copies4    4 copies (1 where a workgroup keeps more than 2 x 2 region slots)
  pcopies    the 8 copies laid out copy after copy (a copy's counters at a stride of the
             counters' number + 1), not a counter's copies side by side: adding the copies
             up reads consecutive words in a warp's lanes (no bank conflicts; side by side a
             lane's neighbour is 8 words on, 8 lanes a bank), and a warp's same-bin atomics
             still fall on 8 banks
  nobracket  every pixel's bin from the correctly rounded root (f140b40 / 3fa4bb5 undone)
  both       nocopies and nobracket
  gtables    8-bit frames: the decode tables read from global memory, not staged in shared
             memory (496a9a8 undone; only the vec8 rows change)
  prior      nocopies, nobracket and gtables: vecpass38's three prepare changes undone
  agg        the shared counts one atomic per distinct (region slot, bin) of a subgroup, with
             the subgroup's count of it (subgroup ballots), one counter a bin as nocopies
Variants for timing only (their pictures differ from the CPU's):
  noround    linear values not rounded to 12 mantissa bits before packing (021f100's rounding;
             the packing then truncates: values up to an ulp of 12 bits off)
  nocode     luma not rounded to 12-bit codes (f670527: the root itself, a plain 2x2 mean)
  old        prior, noround and nocode: every change since b5b50e0 undone but the 8-byte linear
             layout (what the host's buffers now hold)
  nohist     no histogram counting (no shared atomics, no workgroup's adds to the surface): the
             most any change of the counting can give
"""
import os

from vk_probe_common import Missing, chain, compile_shader, probe_args, read_text, sub

out, src, folder = probe_args()
base = read_text(folder, 'prepare.comp')


def compile_to(text, variant):
    compile_shader(text, out, variant, 'prepare', src, 'vk_probe_prepare.py')


COPIES_RET = '    return sides.x * sides.y <= 4 ? COPIES : COPIES / 4;'
COUNTS = 'shared uint counts[2 * 4 * BINS * COPIES];'


def nocopies(t):
    t = sub(t, COUNTS, 'shared uint counts[2 * SLOTS_MAX * BINS];')
    return sub(t, COPIES_RET, '    return 1;')


ONE = 'shared uint counts[2 * SLOTS_MAX * BINS];'


def one_counter(t):
    """nocopies, or t itself where it keeps one counter already (since 98e02de)"""
    return t if ONE in t and COUNTS not in t else nocopies(t)


def copies4(t):
    return sub(t, '#define COPIES 8\n', '#define COPIES 4\n')


def pcopies(t):
    t = sub(t, COUNTS, 'shared uint counts[(2 * 4 * BINS + 1) * COPIES];')
    t = sub(t, '(((f * sides.y + sy) * sides.x + sx) * BINS + bin) * copies + copy]',
            'copy * (2 * sides.x * sides.y * BINS + 1) + ((f * sides.y + sy) * sides.x + sx) * BINS'
            ' + bin]')
    t = sub(t, 'k < used * copies; k += GROUP)', 'k < (used + 1) * copies; k += GROUP)')
    t = sub(t, 'n += counts[k * copies + c];', 'n += counts[c * (used + 1) + k];')
    return sub(t, 'n += counts[((k / BINS * slots + s) * BINS + k % BINS) * copies + c];',
               'n += counts[c * (used + 1) + (k / BINS * slots + s) * BINS + k % BINS];')


def nobracket(t):
    return sub(t, '    return lo == hi ? lo : bin_of(luma_value(upf_sqrt_rn(l)));',
               '    return bin_of(luma_value(upf_sqrt_rn(l)));')


def gtables(t):
    t = sub(t, '    for (int k = me; BYTES && k < TABLE; k += GROUP)\n'
               '        tables[k] = table_at(uint(k));\n', '')
    t = sub(t, 'shared float tables[TABLE];', '')
    t = sub(t, '0.5 * (tables[k - 1] + tables[k])',
            '0.5 * (table_at(uint(k - 1)) + table_at(uint(k)))')
    for c in 'rgb':
        t = sub(t, 'tables[table + k.%s]' % c, 'table_at(table + k.%s)' % c)
    return t


def noround(t):
    return sub(t, 'return vec4(linear_round(c.rgb), 1.0);', 'return vec4(c.rgb, 1.0);')


def nocode(t):
    t = sub(t, 'float luma_value(float root)\n{\n    return luma_code(root);\n}',
            'float luma_value(float root)\n{\n    return root;\n}')
    return sub(t, '    precise float k = 0.25 * (c[0] + c[1] + c[2] + c[3]) * 4096.0 + 0.5;\n'
                  '    precise float r = floor(k) * (1.0 / 4096.0);\n',
               '    precise float r = 0.25 * (c[0] + c[1] + c[2] + c[3]);\n')


ATOM = ('    atomicAdd(counts[(((f * sides.y + sy) * sides.x + sx) * BINS + bin) * copies + copy],'
        ' 1u);\n')
ATOM1 = '    atomicAdd(counts[((f * sides.y + sy) * sides.x + sx) * BINS + bin], 1u);\n'
KEY = '((f * sides.y + sy) * sides.x + sx) * BINS + bin'


def atom_of(t):
    """the pixel's shared atomic as t writes it, and its counter"""
    if ATOM in t:
        return ATOM, '(%s) * copies + copy' % KEY
    if ATOM1 in t:
        return ATOM1, KEY
    raise Missing(ATOM1)


def agg(t):
    t = one_counter(t)
    atom, key = atom_of(t)
    t = sub(t, '#extension GL_EXT_samplerless_texture_functions : require\n',
            '#extension GL_EXT_samplerless_texture_functions : require\n'
            '#extension GL_KHR_shader_subgroup_ballot : require\n')
    # frame() runs only for the pixels inside the frame: the loop takes the subgroup's active
    # invocations, each distinct counter once (its first invocation adds their number)
    return sub(t, atom,
               '    const uint key = uint(%s);\n' % key +
               '    for (;;) {\n'
               '        const uint first = subgroupBroadcastFirst(key);\n'
               '        if (key == first) {\n'
               '            const uint n = subgroupBallotBitCount(subgroupBallot(true));\n'
               '            if (subgroupElect())\n'
               '                atomicAdd(counts[first], n);\n'
               '            break;\n'
               '        }\n'
               '    }\n')


def nohist(t):
    t = sub(t, atom_of(t)[0], '')
    t = sub(t, '    for (int k = me; k < used; k += GROUP) {', '    for (int k = me; k < 0; k++) {')
    return sub(t, '    for (int k = me; k < 2 * BINS; k += GROUP) {',
               '    for (int k = me; k < 0; k++) {')


VARIANTS = [('base', lambda t: t), ('nocopies', nocopies), ('copies4', copies4),
            ('pcopies', pcopies), ('nobracket', nobracket),
            ('both', chain(one_counter, nobracket)), ('gtables', gtables),
            ('prior', chain(one_counter, nobracket, gtables)), ('agg', agg),
            ('noround', noround), ('nocode', nocode),
            ('old', chain(one_counter, nobracket, gtables, noround, nocode)), ('nohist', nohist)]
only = os.environ.get('VARIANTS', '').split()
made = []
for name, make in VARIANTS:
    if only and name not in only:
        continue
    try:
        compile_to(make(base), name)
        made.append(name)
    except Missing as e:
        print('vk_probe_prepare.py: %s not made (the shader no longer has %r)' %
              (name, str(e).strip().splitlines()[0]))
print('vk_probe_prepare.py: %s in %s' % (' '.join(made), out))
