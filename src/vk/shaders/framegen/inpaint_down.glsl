/* inpaint_down.glsl: the inpaint's down step at one pixel (CPU reference:
 * src/framegen/inpaint.c, down_row), shared by inpaint.comp (its down steps) and resolve.comp
 * (the colour pyramid's level 1 from the pixels its workgroup resolved). The includer includes
 * exact.glsl first. Reads and writes nothing. */

/* a pixel from its children c[k] (valid where ok[k]): the alpha-weighted mean, alpha their
 * sum capped at 1, (0, 0, 0, 0) without any; alpha 1 on the coarsest level (no information
 * at all is black). `precise`, in the CPU's order; the divisions correctly rounded. */
vec4 inpaint_down(vec4 c[4], bool ok[4], bool coarsest)
{
    precise vec4 sum = vec4(0.0);
    for (int k = 0; k < 4; k++)
        if (ok[k])
            sum += vec4(c[k].rgb * c[k].a, c[k].a);
    precise vec4 o = vec4(0.0);
    if (sum.a > 0.0)
        o = vec4(upf_fdiv_rn(sum.r, sum.a), upf_fdiv_rn(sum.g, sum.a),
                 upf_fdiv_rn(sum.b, sum.a), sum.a < 1.0 ? sum.a : 1.0);
    if (coarsest)
        o.a = 1.0;
    return o;
}
