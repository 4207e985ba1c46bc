/* mesh.c: building a scene's geometry: vertices, triangles and materials, the primitives
 * (quads, boxes, bars, cylinders, spheres, cards, stairs, height fields, a walking figure),
 * and the instances that move parts of it (their matrices at any time).
 *
 * Writes the scene's vertex, index, material and instance arrays. Shapes share vertex
 * positions computed by the same expression wherever their facets meet, so the rasteriser
 * (which is watertight for identical edges) leaves no cracks; winding is counter-clockwise
 * seen from the front. */
#include <math.h>
#include <string.h>

#include "scene/scene_internal.h"

void scene__build_fail(scene *s, upf_result r)
{
    if (!s->build_error)
        s->build_error = r == UPF_OK ? UPF_ERROR_INTERNAL : r;
}

/* Grows an array to hold at least `need` elements (doubling). */
static bool grow(scene *s, void **p, int *cap, int need, size_t elem, const char *what)
{
    if (need <= *cap)
        return true;
    int n = *cap ? *cap : 256;
    while (n < need)
        n *= 2;
    void *q = upf__alloc_array(s->ctx, (size_t)n, elem, what);
    if (!q) {
        scene__build_fail(s, UPF_ERROR_OUT_OF_MEMORY);
        return false;
    }
    if (*p)
        memcpy(q, *p, (size_t)*cap * elem);
    upf__free(s->ctx, *p);
    *p = q;
    *cap = n;
    return true;
}

int scene__add_material(scene *s, scene_material m)
{
    if (s->build_error)
        return 0;
    if (s->material_count >= SCENE_MAX_MATERIALS) {
        scene__build_fail(s, upf__fail(s->ctx, UPF_ERROR_INTERNAL, "scene %s: more than %d "
                                       "materials", s->def->name, SCENE_MAX_MATERIALS));
        return 0;
    }
    if (m.uv_scale[0] == 0.0f)
        m.uv_scale[0] = 1.0f;
    if (m.uv_scale[1] == 0.0f)
        m.uv_scale[1] = 1.0f;
    m.spec_cut = m.specular > 0.0f && m.shininess > 0.0f ? expf(logf(1e-4f) / m.shininess) : 2.0f;
    s->materials[s->material_count] = m;
    return s->material_count++;
}

int scene__simple_material(scene *s, int texture, vec3 tint)
{
    return scene__add_material(s, (scene_material){ .texture = texture, .tint = tint });
}

int scene__begin_instance(scene *s, int parent, const mat4 *base, scene_anim anim)
{
    if (s->build_error)
        return 0;
    if (s->instance_count >= 65535) {
        scene__build_fail(s, upf__fail(s->ctx, UPF_ERROR_INTERNAL, "scene: too many instances"));
        return 0;
    }
    int need = s->instance_count + 1;
    int cap = s->instance_cap;
    void *p = s->instances;
    if (!grow(s, &p, &cap, need, sizeof(scene_instance), "scene instances"))
        return 0;
    s->instances = p;
    s->instance_cap = cap;
    scene_instance *in = &s->instances[s->instance_count];
    in->parent = parent;
    in->base = base ? *base : m4_identity();
    in->anim = anim;
    s->current_instance = s->instance_count;
    return s->instance_count++;
}

void scene__end_instance(scene *s)
{
    s->current_instance = 0;
}

static int add_vertex(scene *s, vec3 p, vec3 n, float u, float v)
{
    if (s->build_error)
        return 0;
    if (s->vertex_count + 1 > s->vertex_cap) {
        int cap = s->vertex_cap ? 2 * s->vertex_cap : 1024;
        scene_vertex *pv = upf__alloc_array(s->ctx, (size_t)cap, sizeof(scene_vertex),
                                            "scene vertices");
        uint16_t *pi = upf__alloc_array(s->ctx, (size_t)cap, sizeof(uint16_t), "scene vertices");
        if (!pv || !pi) {
            upf__free(s->ctx, pv);
            upf__free(s->ctx, pi);
            scene__build_fail(s, UPF_ERROR_OUT_OF_MEMORY);
            return 0;
        }
        if (s->vertex_count) {
            memcpy(pv, s->verts, (size_t)s->vertex_count * sizeof(scene_vertex));
            memcpy(pi, s->vertex_instance, (size_t)s->vertex_count * sizeof(uint16_t));
        }
        upf__free(s->ctx, s->verts);
        upf__free(s->ctx, s->vertex_instance);
        s->verts = pv;
        s->vertex_instance = pi;
        s->vertex_cap = cap;
    }
    scene_vertex *vx = &s->verts[s->vertex_count];
    vx->p[0] = p.x;
    vx->p[1] = p.y;
    vx->p[2] = p.z;
    vx->n[0] = n.x;
    vx->n[1] = n.y;
    vx->n[2] = n.z;
    vx->uv[0] = u;
    vx->uv[1] = v;
    s->vertex_instance[s->vertex_count] = (uint16_t)s->current_instance;
    return s->vertex_count++;
}

static void add_tri_indices(scene *s, int a, int b, int c, int material)
{
    if (s->build_error)
        return;
    if (s->tri_count + 1 > s->tri_cap) {
        int n = s->tri_cap ? 2 * s->tri_cap : 256;
        uint32_t *pi = upf__alloc_array(s->ctx, (size_t)n * 3, sizeof(uint32_t), "scene indices");
        uint16_t *pm = upf__alloc_array(s->ctx, (size_t)n, sizeof(uint16_t), "scene materials");
        if (!pi || !pm) {
            upf__free(s->ctx, pi);
            upf__free(s->ctx, pm);
            scene__build_fail(s, UPF_ERROR_OUT_OF_MEMORY);
            return;
        }
        if (s->tri_count) {
            memcpy(pi, s->indices, (size_t)s->tri_count * 3 * sizeof(uint32_t));
            memcpy(pm, s->tri_material, (size_t)s->tri_count * sizeof(uint16_t));
        }
        upf__free(s->ctx, s->indices);
        upf__free(s->ctx, s->tri_material);
        s->indices = pi;
        s->tri_material = pm;
        s->tri_cap = n;
    }
    s->indices[3 * s->tri_count + 0] = (uint32_t)a;
    s->indices[3 * s->tri_count + 1] = (uint32_t)b;
    s->indices[3 * s->tri_count + 2] = (uint32_t)c;
    s->tri_material[s->tri_count] = (uint16_t)material;
    s->tri_count++;
}

/* ---- transforms ---- */

static vec3 xf_point(const mat4 *xf, vec3 p)
{
    if (!xf)
        return p;
    dvec3 q = m4_point(xf, d3_from_v3(p));
    return v3((float)q.x, (float)q.y, (float)q.z);
}

/* Normals go through the inverse transpose of the upper 3x3 (exact for any affine map). */
static vec3 xf_normal(const mat4 *xf, vec3 n)
{
    if (!xf)
        return v3_normalize(n);
    mat4 inv = m4_inverse(xf);
    dvec3 r = d3(inv.m[0][0] * n.x + inv.m[1][0] * n.y + inv.m[2][0] * n.z,
                 inv.m[0][1] * n.x + inv.m[1][1] * n.y + inv.m[2][1] * n.z,
                 inv.m[0][2] * n.x + inv.m[1][2] * n.y + inv.m[2][2] * n.z);
    r = d3_normalize(r);
    return v3((float)r.x, (float)r.y, (float)r.z);
}

void scene__add_triangle(scene *s, const scene_vertex *a, const scene_vertex *b,
                         const scene_vertex *c, int material)
{
    const scene_vertex *v[3] = { a, b, c };
    int idx[3];
    for (int i = 0; i < 3; i++)
        idx[i] = add_vertex(s, v3(v[i]->p[0], v[i]->p[1], v[i]->p[2]),
                            v3(v[i]->n[0], v[i]->n[1], v[i]->n[2]), v[i]->uv[0], v[i]->uv[1]);
    add_tri_indices(s, idx[0], idx[1], idx[2], material);
}

void scene__add_quad(scene *s, const mat4 *xf, const vec3 p[4], const float uv[4][2],
                     int material)
{
    vec3 n = v3_normalize(v3_cross(v3_sub(p[1], p[0]), v3_sub(p[2], p[0])));
    vec3 nw = xf_normal(xf, n);
    int i[4];
    for (int k = 0; k < 4; k++)
        i[k] = add_vertex(s, xf_point(xf, p[k]), nw, uv[k][0], uv[k][1]);
    add_tri_indices(s, i[0], i[1], i[2], material);
    add_tri_indices(s, i[0], i[2], i[3], material);
}

void scene__add_box(scene *s, const mat4 *xf, vec3 half, int material, float uv_scale,
                    unsigned faces)
{
    /* Per face: outward normal n, tangent t (u) and up b (v grows downwards), t x b = n. */
    static const float axes[6][3][3] = {
        { { 1, 0, 0 }, { 0, 0, -1 }, { 0, 1, 0 } },
        { { -1, 0, 0 }, { 0, 0, 1 }, { 0, 1, 0 } },
        { { 0, 1, 0 }, { 1, 0, 0 }, { 0, 0, -1 } },
        { { 0, -1, 0 }, { 1, 0, 0 }, { 0, 0, 1 } },
        { { 0, 0, 1 }, { 1, 0, 0 }, { 0, 1, 0 } },
        { { 0, 0, -1 }, { -1, 0, 0 }, { 0, 1, 0 } },
    };
    float hs[3] = { half.x, half.y, half.z };
    for (int f = 0; f < 6; f++) {
        if (faces && !(faces & (1u << f)))
            continue;
        vec3 n = v3(axes[f][0][0], axes[f][0][1], axes[f][0][2]);
        vec3 t = v3(axes[f][1][0], axes[f][1][1], axes[f][1][2]);
        vec3 b = v3(axes[f][2][0], axes[f][2][1], axes[f][2][2]);
        /* The corners: each coordinate is exactly +-half (so faces meet bit-exactly). */
        static const float su[4] = { -1, 1, 1, -1 }, sv[4] = { -1, -1, 1, 1 };
        vec3 p[4];
        float uv[4][2];
        for (int k = 0; k < 4; k++) {
            float c[3];
            for (int a = 0; a < 3; a++) {
                float comp = (&n.x)[a] + su[k] * (&t.x)[a] + sv[k] * (&b.x)[a];
                c[a] = comp > 0.0f ? hs[a] : comp < 0.0f ? -hs[a] : 0.0f;
            }
            p[k] = v3(c[0], c[1], c[2]);
            uv[k][0] = v3_dot(p[k], t) * uv_scale;
            uv[k][1] = -v3_dot(p[k], b) * uv_scale;
        }
        vec3 nw = xf_normal(xf, n);
        int idx[4];
        for (int k = 0; k < 4; k++)
            idx[k] = add_vertex(s, xf_point(xf, p[k]), nw, uv[k][0], uv[k][1]);
        add_tri_indices(s, idx[0], idx[1], idx[2], material);
        add_tri_indices(s, idx[0], idx[2], idx[3], material);
    }
}

void scene__add_bar(scene *s, const mat4 *xf, vec3 a, vec3 b, float t, int material)
{
    vec3 d = v3_sub(b, a);
    float len = v3_length(d);
    if (!(len > 0.0f))
        return;
    d = v3_scale(d, 1.0f / len);
    vec3 up = fabsf(d.y) < 0.9f ? v3(0, 1, 0) : v3(1, 0, 0);
    vec3 side = v3_normalize(v3_cross(up, d));
    vec3 up2 = v3_cross(d, side);
    vec3 mid = v3_scale(v3_add(a, b), 0.5f);
    mat4 frame = { { { side.x, up2.x, d.x, mid.x },
                     { side.y, up2.y, d.y, mid.y },
                     { side.z, up2.z, d.z, mid.z },
                     { 0, 0, 0, 1 } } };
    mat4 m = xf ? m4_mul(xf, &frame) : frame;
    scene__add_box(s, &m, v3(0.5f * t, 0.5f * t, 0.5f * len), material, 1.0f, 0);
}

void scene__add_cylinder(scene *s, const mat4 *xf, float r0, float r1, float height,
                         int sides, bool caps, int material, float u_repeat, float uv_scale)
{
    if (sides < 3)
        sides = 3;
    /* The slope of the side changes the normal: n = (cos, (r0 - r1) / h, sin), normalised. */
    float slope = height > 0.0f ? (r0 - r1) / height : 0.0f;
    for (int i = 0; i < sides; i++) {
        int i0 = i, i1 = (i + 1) % sides;
        float a0 = 6.2831853f * (float)i0 / (float)sides;
        float a1 = 6.2831853f * (float)i1 / (float)sides;
        float c0 = cosf(a0), s0 = sinf(a0), c1 = cosf(a1), s1 = sinf(a1);
        vec3 pb0 = v3(r0 * c0, 0, -r0 * s0), pb1 = v3(r0 * c1, 0, -r0 * s1);
        vec3 pt0 = v3(r1 * c0, height, -r1 * s0), pt1 = v3(r1 * c1, height, -r1 * s1);
        vec3 n0 = xf_normal(xf, v3(c0, slope, -s0)), n1 = xf_normal(xf, v3(c1, slope, -s1));
        float u0 = u_repeat * (float)i / (float)sides, u1 = u_repeat * (float)(i + 1) / (float)sides;
        float vb = 0.0f, vt = -height * uv_scale;
        int a = add_vertex(s, xf_point(xf, pb0), n0, u0, vb);
        int b = add_vertex(s, xf_point(xf, pb1), n1, u1, vb);
        int c = add_vertex(s, xf_point(xf, pt1), n1, u1, vt);
        int d = add_vertex(s, xf_point(xf, pt0), n0, u0, vt);
        add_tri_indices(s, a, b, c, material);
        add_tri_indices(s, a, c, d, material);
        if (caps) {
            vec3 up = xf_normal(xf, v3(0, 1, 0)), down = xf_normal(xf, v3(0, -1, 0));
            int ct = add_vertex(s, xf_point(xf, v3(0, height, 0)), up, 0.5f, 0.5f);
            int t0 = add_vertex(s, xf_point(xf, pt0), up, 0.5f + 0.5f * c0, 0.5f - 0.5f * s0);
            int t1 = add_vertex(s, xf_point(xf, pt1), up, 0.5f + 0.5f * c1, 0.5f - 0.5f * s1);
            add_tri_indices(s, ct, t0, t1, material);
            int cb = add_vertex(s, xf_point(xf, v3(0, 0, 0)), down, 0.5f, 0.5f);
            int b0 = add_vertex(s, xf_point(xf, pb0), down, 0.5f + 0.5f * c0, 0.5f + 0.5f * s0);
            int b1 = add_vertex(s, xf_point(xf, pb1), down, 0.5f + 0.5f * c1, 0.5f + 0.5f * s1);
            add_tri_indices(s, cb, b1, b0, material);
        }
    }
}

void scene__add_sphere(scene *s, const mat4 *xf, float r, int segments, int rings,
                       int material)
{
    if (segments < 3)
        segments = 3;
    if (rings < 2)
        rings = 2;
    for (int j = 0; j < rings; j++) {
        float t0 = 3.14159265f * (float)j / (float)rings;
        float t1 = 3.14159265f * (float)(j + 1) / (float)rings;
        for (int i = 0; i < segments; i++) {
            int i0 = i, i1 = (i + 1) % segments;
            float p0 = 6.2831853f * (float)i0 / (float)segments;
            float p1 = 6.2831853f * (float)i1 / (float)segments;
            /* Poles: exactly (0, +-r, 0) so the fans close. */
            vec3 n[4];
            n[0] = j == 0 ? v3(0, 1, 0) : v3(sinf(t0) * cosf(p0), cosf(t0), -sinf(t0) * sinf(p0));
            n[1] = j + 1 == rings ? v3(0, -1, 0)
                                  : v3(sinf(t1) * cosf(p0), cosf(t1), -sinf(t1) * sinf(p0));
            n[2] = j + 1 == rings ? v3(0, -1, 0)
                                  : v3(sinf(t1) * cosf(p1), cosf(t1), -sinf(t1) * sinf(p1));
            n[3] = j == 0 ? v3(0, 1, 0) : v3(sinf(t0) * cosf(p1), cosf(t0), -sinf(t0) * sinf(p1));
            float us[4] = { (float)i / (float)segments, (float)i / (float)segments,
                            (float)(i + 1) / (float)segments, (float)(i + 1) / (float)segments };
            float vs[4] = { (float)j / (float)rings, (float)(j + 1) / (float)rings,
                            (float)(j + 1) / (float)rings, (float)j / (float)rings };
            int idx[4];
            for (int k = 0; k < 4; k++)
                idx[k] = add_vertex(s, xf_point(xf, v3_scale(n[k], r)), xf_normal(xf, n[k]),
                                    us[k], vs[k]);
            if (j > 0)
                add_tri_indices(s, idx[0], idx[1], idx[3], material);
            if (j + 1 < rings)
                add_tri_indices(s, idx[1], idx[2], idx[3], material);
        }
    }
}

void scene__add_card(scene *s, const mat4 *xf, float w, float h, int material)
{
    vec3 p[4] = { v3(-0.5f * w, 0, 0), v3(0.5f * w, 0, 0), v3(0.5f * w, h, 0), v3(-0.5f * w, h, 0) };
    float uv[4][2] = { { 0, 1 }, { 1, 1 }, { 1, 0 }, { 0, 0 } };
    scene__add_quad(s, xf, p, uv, material);
}

void scene__add_stairs(scene *s, const mat4 *xf, int steps, float rise, float run,
                       float width, int material, float uv_scale)
{
    for (int i = 0; i < steps; i++) {
        float top = rise * (float)(i + 1);
        mat4 m = m4_translate(0.0, 0.5 * top, -(double)run * (i + 0.5));
        mat4 mm = xf ? m4_mul(xf, &m) : m;
        /* no bottom face: the stairs stand on the floor */
        scene__add_box(s, &mm, v3(0.5f * width, 0.5f * top, 0.5f * run), material, uv_scale,
                       0x3bu);
    }
}

void scene__add_heightfield(scene *s, float x0, float z0, float x1, float z1, int nx, int nz,
                            float (*height)(void *priv, float x, float z), void *priv,
                            int material, float uv_scale)
{
    int base = s->vertex_count;
    float dx = (x1 - x0) / (float)nx, dz = (z1 - z0) / (float)nz;
    for (int j = 0; j <= nz; j++) {
        for (int i = 0; i <= nx; i++) {
            float x = x0 + dx * (float)i, z = z0 + dz * (float)j;
            float y = height(priv, x, z);
            /* normal from central differences of the height function */
            float e = 0.25f * fminf(dx, dz);
            float hx = height(priv, x + e, z) - height(priv, x - e, z);
            float hz = height(priv, x, z + e) - height(priv, x, z - e);
            vec3 n = v3_normalize(v3(-hx / (2 * e), 1.0f, -hz / (2 * e)));
            add_vertex(s, v3(x, y, z), n, x * uv_scale, z * uv_scale);
        }
    }
    for (int j = 0; j < nz; j++) {
        for (int i = 0; i < nx; i++) {
            int a = base + j * (nx + 1) + i, b = a + 1, c = a + nx + 1, d = c + 1;
            /* (x right, z towards the viewer): a b / c d; counter-clockwise seen from +y */
            add_tri_indices(s, a, c, d, material);
            add_tri_indices(s, a, d, b, material);
        }
    }
}

/* ---- instances ---- */

static mat4 anim_local(const scene_anim *a, const mat4 *base, double t)
{
    mat4 m;
    switch (a->kind) {
    case ANIM_SPIN:
    case ANIM_SWING: {
        double ang = a->phase + (a->kind == ANIM_SPIN
                                     ? a->rate * t
                                     : a->amp * sin(2.0 * SCENE_PI * t / a->period + a->phase2));
        mat4 tp = m4_translate(a->pivot.x, a->pivot.y, a->pivot.z);
        mat4 r = m4_rotate(a->axis, ang);
        mat4 tn = m4_translate(-a->pivot.x, -a->pivot.y, -a->pivot.z);
        m = m4_mul(&tp, &r);
        m = m4_mul(&m, &tn);
        break;
    }
    case ANIM_SLIDE: {
        double k = 0.5 * (1.0 - cos(2.0 * SCENE_PI * t / a->period + a->phase));
        dvec3 p = d3_add(a->a, d3_scale(d3_sub(a->b, a->a), k));
        m = m4_translate(p.x, p.y, p.z);
        break;
    }
    case ANIM_LINE: {
        double x = a->speed * t + a->phase;
        x -= a->length * floor(x / a->length);
        dvec3 p = d3_add(a->a, d3_scale(a->b, x));
        m = m4_translate(p.x, p.y, p.z);
        break;
    }
    case ANIM_CIRCLE: {
        mat4 tp = m4_translate(a->pivot.x, a->pivot.y, a->pivot.z);
        mat4 r = m4_rotate_y(a->phase + a->rate * t);
        mat4 tr = m4_translate(a->radius, 0, 0);
        double b = fabs(sin(2.0 * SCENE_PI * t / a->period));
        mat4 tb = m4_translate(a->bob.x * b, a->bob.y * b, a->bob.z * b);
        m = m4_mul(&tp, &r);
        m = m4_mul(&m, &tr);
        if (a->rate < 0) {
            mat4 flip = m4_rotate_y(SCENE_PI);
            m = m4_mul(&m, &flip);
        }
        m = m4_mul(&m, &tb);
        break;
    }
    case ANIM_FIXED:
    default:
        m = m4_identity();
        break;
    }
    return m4_mul(base, &m);
}

void scene__instance_matrices(const scene *s, double t, mat4 *out)
{
    for (int i = 0; i < s->instance_count; i++) {
        const scene_instance *in = &s->instances[i];
        mat4 local = anim_local(&in->anim, &in->base, t);
        out[i] = in->parent >= 0 ? m4_mul(&out[in->parent], &local) : local;
    }
}

/* ---- the figure ---- */

void scene__add_figure(scene *s, dvec3 center, double radius, double speed, double phase,
                       float scale, vec3 shirt, vec3 trousers, vec3 skin)
{
    int m_shirt = scene__simple_material(s, -1, shirt);
    int m_trousers = scene__simple_material(s, -1, trousers);
    int m_skin = scene__add_material(s, (scene_material){ .texture = -1, .tint = skin,
                                                          .specular = 0.2f, .shininess = 20 });
    int m_shoes = scene__add_material(s, (scene_material){ .texture = -1,
                                                           .tint = v3(0.03f, 0.025f, 0.02f),
                                                           .specular = 0.4f, .shininess = 40 });
    double k = scale;
    double step_period = 1.1 / (speed > 0 ? fmin(1.5, fmax(0.6, speed)) : 1.0); /* a gait cycle */
    double rate = speed / radius;
    scene_anim walk = { .kind = ANIM_CIRCLE, .pivot = center, .radius = radius, .rate = rate,
                        .phase = phase, .period = step_period, .bob = d3(0, 0.035 * k, 0) };
    mat4 S = m4_scale(k, k, k); /* the figure's size: applied to its geometry and pivots */
    int torso = scene__begin_instance(s, -1, NULL, walk);
    /* torso and hips, in units of a 1.8 m figure (local forward is -z) */
    mat4 m = m4_translate(0, 1.18, 0);
    m = m4_mul(&S, &m);
    scene__add_box(s, &m, v3(0.2f, 0.3f, 0.11f), m_shirt, 1.0f, 0);
    m = m4_translate(0, 0.86, 0);
    m = m4_mul(&S, &m);
    scene__add_box(s, &m, v3(0.18f, 0.06f, 0.1f), m_trousers, 1.0f, 0);
    scene__end_instance(s);
    /* head with a neck */
    scene_anim nod = { .kind = ANIM_SWING, .pivot = d3(0, 1.5 * k, 0), .axis = d3(0, 1, 0),
                       .amp = 0.25, .period = 4.0 * step_period, .phase2 = phase };
    scene__begin_instance(s, torso, NULL, nod);
    m = m4_translate(0, 1.53, 0);
    m = m4_mul(&S, &m);
    scene__add_box(s, &m, v3(0.05f, 0.05f, 0.05f), m_skin, 1.0f, 0);
    m = m4_translate(0, 1.68, 0);
    m = m4_mul(&S, &m);
    scene__add_sphere(s, &m, 0.11f, 10, 7, m_skin);
    scene__end_instance(s);
    /* arms and legs swing about the shoulders and hips, opposite sides in antiphase */
    for (int side = -1; side <= 1; side += 2) {
        scene_anim arm = { .kind = ANIM_SWING, .pivot = d3(0.26 * side * k, 1.44 * k, 0),
                           .axis = d3(1, 0, 0), .amp = 0.55, .period = step_period,
                           .phase2 = side > 0 ? 0.0 : SCENE_PI };
        scene__begin_instance(s, torso, NULL, arm);
        m = m4_translate(0.26 * side, 1.16, 0);
        m = m4_mul(&S, &m);
        scene__add_box(s, &m, v3(0.055f, 0.28f, 0.06f), m_shirt, 1.0f, 0);
        m = m4_translate(0.26 * side, 0.84, 0);
        m = m4_mul(&S, &m);
        scene__add_box(s, &m, v3(0.045f, 0.05f, 0.05f), m_skin, 1.0f, 0);
        scene__end_instance(s);
        scene_anim leg = { .kind = ANIM_SWING, .pivot = d3(0.1 * side * k, 0.84 * k, 0),
                           .axis = d3(1, 0, 0), .amp = 0.5, .period = step_period,
                           .phase2 = side > 0 ? SCENE_PI : 0.0 };
        scene__begin_instance(s, torso, NULL, leg);
        m = m4_translate(0.1 * side, 0.44, 0);
        m = m4_mul(&S, &m);
        scene__add_box(s, &m, v3(0.075f, 0.41f, 0.08f), m_trousers, 1.0f, 0);
        m = m4_translate(0.1 * side, 0.03, -0.05);
        m = m4_mul(&S, &m);
        scene__add_box(s, &m, v3(0.07f, 0.035f, 0.13f), m_shoes, 1.0f, 0);
        scene__end_instance(s);
    }
}

/* ---- compound shapes shared by the scenes ---- */

void scene__add_railing(scene *s, vec3 a, vec3 b, float height, float spacing, float bar,
                        int material)
{
    vec3 d = v3_sub(b, a);
    float len = v3_length(d);
    if (!(len > 0.0f) || !(spacing > 0.0f))
        return;
    int n = (int)(len / spacing);
    if (n < 1)
        n = 1;
    vec3 up = v3(0, height, 0);
    for (int i = 0; i <= n; i++) {
        vec3 p = v3_add(a, v3_scale(d, (float)i / (float)n));
        scene__add_bar(s, NULL, p, v3_add(p, up), bar, material);
    }
    /* a top rail and a lower one, slightly thicker */
    scene__add_bar(s, NULL, v3_add(a, v3(0, height, 0)), v3_add(b, v3(0, height, 0)), 1.8f * bar,
                   material);
    scene__add_bar(s, NULL, v3_add(a, v3(0, 0.12f * height, 0)),
                   v3_add(b, v3(0, 0.12f * height, 0)), 1.4f * bar, material);
}

void scene__add_lattice(scene *s, const mat4 *xf, float width, float height, float spacing,
                        float bar, int material)
{
    /* Bars along x - y = c and x + y = c, clipped to [0, width] x [0, height], in the local
     * xy plane; then a frame. */
    for (int dir = 0; dir < 2; dir++) {
        for (float c = -height; c <= width + height; c += spacing) {
            /* dir 0: y = x - c; dir 1: y = c - x */
            float x0, y0, x1, y1;
            if (dir == 0) {
                x0 = fmaxf(c, 0.0f);
                x1 = fminf(c + height, width);
                y0 = x0 - c;
                y1 = x1 - c;
            } else {
                x0 = fmaxf(c - height, 0.0f);
                x1 = fminf(c, width);
                y0 = c - x0;
                y1 = c - x1;
            }
            if (x1 - x0 < 1e-3f)
                continue;
            scene__add_bar(s, xf, v3(x0, y0, 0), v3(x1, y1, 0), bar, material);
        }
    }
    float f = 2.0f * bar;
    scene__add_bar(s, xf, v3(0, 0, 0), v3(width, 0, 0), f, material);
    scene__add_bar(s, xf, v3(0, height, 0), v3(width, height, 0), f, material);
    scene__add_bar(s, xf, v3(0, 0, 0), v3(0, height, 0), f, material);
    scene__add_bar(s, xf, v3(width, 0, 0), v3(width, height, 0), f, material);
}

void scene__add_sign(scene *s, const mat4 *xf, float w, float h, int sign_texture,
                     int frame_material)
{
    /* a board 4 cm thick, the sign on its front (+z) face, 5 mm proud */
    mat4 m = m4_translate(0, 0.5 * h, 0);
    mat4 mm = xf ? m4_mul(xf, &m) : m;
    scene__add_box(s, &mm, v3(0.5f * w + 0.03f, 0.5f * h + 0.03f, 0.02f), frame_material, 1.0f, 0);
    int mat = scene__add_material(s, (scene_material){ .texture = sign_texture,
                                                       .tint = v3(1, 1, 1), .specular = 0.3f,
                                                       .shininess = 30 });
    mat4 f = m4_translate(0, 0, 0.025);
    mat4 mf = xf ? m4_mul(xf, &f) : f;
    scene__add_card(s, &mf, w, h, mat);
}
