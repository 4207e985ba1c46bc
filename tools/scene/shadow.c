/* shadow.c: sun shadows by a shadow map (Williams, "Casting curved shadows on curved
 * surfaces", 1978), filtered with 2x2 percentage-closer filtering (Reeves et al. 1987,
 * bilinear weights).
 *
 * The map is an orthographic depth image seen along the sun's direction over a world box
 * the scene gives (its casters and receivers). Static casters (the world and instances that
 * never move) are drawn once when the scene is built, in parallel bands of rows; casters
 * that move are drawn per view, at the view's time, into a second buffer over just the
 * texels they cover, and a lookup takes the nearer of the two. Alpha-tested casters are
 * tested per texel. Reads the scene's triangles and instances; writes the scene's map. */
#include <math.h>
#include <string.h>

#include "scene/scene_internal.h"

#define SHADOW_BAND 64 /* rows per parallel task */

/* A triangle in map space: texel coordinates (x, y), depth along the light, UVs. */
typedef struct shadow_tri {
    double x[3], y[3];
    float d[3];
    float u[3], v[3];
    const scene_texture *alpha;
    float cutoff, su, sv;
} shadow_tri;

static void light_coords(const scene_shadow *sh, vec3 p, double *x, double *y, float *d)
{
    *x = ((double)v3_dot(p, sh->u) - sh->u0) * sh->inv_texel;
    *y = ((double)v3_dot(p, sh->v) - sh->v0) * sh->inv_texel;
    *d = v3_dot(p, sh->w);
}

/* Draws one triangle into `buf` (map-sized rows of `stride` texels) within texel rows
 * [row0, row1) and columns [col0, col1): keeps the smallest depth. Texels on an edge count
 * as inside (a shared edge drawn twice is harmless for a minimum). */
static void draw_tri(const shadow_tri *t, float *buf, int stride, int col0, int col1, int row0,
                     int row1)
{
    double area = (t->x[1] - t->x[0]) * (t->y[2] - t->y[0]) - (t->y[1] - t->y[0]) * (t->x[2] - t->x[0]);
    if (!(fabs(area) > 1e-12))
        return;
    double inv = 1.0 / area;
    double minx = fmin(t->x[0], fmin(t->x[1], t->x[2])), maxx = fmax(t->x[0], fmax(t->x[1], t->x[2]));
    double miny = fmin(t->y[0], fmin(t->y[1], t->y[2])), maxy = fmax(t->y[0], fmax(t->y[1], t->y[2]));
    int x0 = (int)fmax(floor(minx - 0.5), col0), x1 = (int)fmin(ceil(maxx + 0.5), col1 - 1);
    int y0 = (int)fmax(floor(miny - 0.5), row0), y1 = (int)fmin(ceil(maxy + 0.5), row1 - 1);
    if (x0 > x1 || y0 > y1)
        return;
    float lod = 0.0f;
    if (t->alpha) {
        /* texture footprint of one texel: the UV gradients are constant (orthographic) */
        double dudx = ((t->u[1] - t->u[0]) * (t->y[2] - t->y[0]) - (t->u[2] - t->u[0]) * (t->y[1] - t->y[0])) * inv;
        double dudy = ((t->u[2] - t->u[0]) * (t->x[1] - t->x[0]) - (t->u[1] - t->u[0]) * (t->x[2] - t->x[0])) * inv;
        double dvdx = ((t->v[1] - t->v[0]) * (t->y[2] - t->y[0]) - (t->v[2] - t->v[0]) * (t->y[1] - t->y[0])) * inv;
        double dvdy = ((t->v[2] - t->v[0]) * (t->x[1] - t->x[0]) - (t->v[1] - t->v[0]) * (t->x[2] - t->x[0])) * inv;
        lod = scene__texture_lod(t->alpha, (float)dudx * t->su, (float)dvdx * t->sv,
                                 (float)dudy * t->su, (float)dvdy * t->sv);
    }
    /* barycentrics e_i(x, y) = A_i x + B_i y + C_i (affine in the texel position) */
    double A0 = -(t->y[2] - t->y[1]) * inv, B0 = (t->x[2] - t->x[1]) * inv;
    double C0 = -(A0 * t->x[1] + B0 * t->y[1]);
    double A1 = -(t->y[0] - t->y[2]) * inv, B1 = (t->x[0] - t->x[2]) * inv;
    double C1 = -(A1 * t->x[2] + B1 * t->y[2]);
    double A2 = -A0 - A1, B2 = -B0 - B1, C2 = 1.0 - C0 - C1;
    const double A[3] = { A0, A1, A2 };
    for (int y = y0; y <= y1; y++) {
        double py = y + 0.5;
        double r0 = B0 * py + C0, r1 = B1 * py + C1, r2 = B2 * py + C2;
        const double R[3] = { r0, r1, r2 };
        /* the texels of this row inside all three edges: A_i x + R_i >= 0 */
        double lo = x0 + 0.5, hi = x1 + 0.5;
        for (int k = 0; k < 3; k++) {
            if (A[k] > 0.0)
                lo = fmax(lo, -R[k] / A[k]);
            else if (A[k] < 0.0)
                hi = fmin(hi, -R[k] / A[k]);
            else if (R[k] < 0.0)
                hi = -1.0;
        }
        if (lo > hi)
            continue;
        int xa = (int)fmax(floor(lo - 0.5) - 1.0, x0), xb = (int)fmin(ceil(hi - 0.5) + 1.0, x1);
        for (int x = xa; x <= xb; x++) {
            double px = x + 0.5;
            double e0 = A0 * px + r0, e1 = A1 * px + r1, e2 = A2 * px + r2;
            if (e0 < 0.0 || e1 < 0.0 || e2 < 0.0)
                continue;
            float d = (float)(e0 * t->d[0] + e1 * t->d[1] + e2 * t->d[2]);
            float *dst = &buf[(size_t)y * (size_t)stride + (size_t)x];
            if (d >= *dst)
                continue;
            if (t->alpha) {
                float u = (float)(e0 * t->u[0] + e1 * t->u[1] + e2 * t->u[2]) * t->su;
                float v = (float)(e0 * t->v[0] + e1 * t->v[1] + e2 * t->v[2]) * t->sv;
                if (scene__texture_sample_alpha(t->alpha, u, v, lod) < t->cutoff)
                    continue;
            }
            *dst = d;
        }
    }
}

static void make_tri(const scene *s, int tri, const vec3 pos[3], shadow_tri *t)
{
    const scene_shadow *sh = &s->shadow;
    const scene_material *m = &s->materials[s->tri_material[tri]];
    for (int k = 0; k < 3; k++) {
        light_coords(sh, pos[k], &t->x[k], &t->y[k], &t->d[k]);
        const scene_vertex *v = &s->verts[s->indices[3 * tri + k]];
        t->u[k] = v->uv[0];
        t->v[k] = v->uv[1];
    }
    t->alpha = m->alpha_cutoff > 0.0f && m->texture >= 0 && s->textures[m->texture].alpha_tested
                   ? &s->textures[m->texture] : NULL;
    t->cutoff = m->alpha_cutoff;
    t->su = m->uv_scale[0];
    t->sv = m->uv_scale[1];
}

static bool instance_static(const scene *s, int i)
{
    for (; i >= 0; i = s->instances[i].parent)
        if (s->instances[i].anim.kind != ANIM_FIXED)
            return false;
    return true;
}

typedef struct build_job {
    const scene *s;
    const shadow_tri *tris;
    const float *ymin, *ymax; /* each triangle's rows */
    int count;
} build_job;

static void static_world(const scene *s, const mat4 *mats, int tri, vec3 out[3])
{
    for (int k = 0; k < 3; k++) {
        uint32_t vi = s->indices[3 * tri + k];
        const scene_vertex *v = &s->verts[vi];
        dvec3 p = m4_point(&mats[s->vertex_instance[vi]], d3(v->p[0], v->p[1], v->p[2]));
        out[k] = v3((float)p.x, (float)p.y, (float)p.z);
    }
}

static void band_task(void *priv, int index, int worker)
{
    (void)worker;
    const build_job *job = priv;
    const scene_shadow *sh = &job->s->shadow;
    int row0 = index * SHADOW_BAND, row1 = row0 + SHADOW_BAND < sh->height ? row0 + SHADOW_BAND : sh->height;
    for (int i = 0; i < job->count; i++)
        if (job->ymax[i] >= (float)row0 - 1.0f && job->ymin[i] <= (float)row1 + 1.0f)
            draw_tri(&job->tris[i], sh->depth, sh->width, 0, sh->width, row0, row1);
}

upf_result scene__shadow_build(scene *s)
{
    scene_shadow *sh = &s->shadow;
    sh->enabled = false;
    if (!(sh->texel > 0.0f) || v3_length(s->env.sun_color) <= 0.0f)
        return UPF_OK;
    /* the light's frame: w along the light's travel, u and v across it */
    vec3 w = v3_scale(s->env.sun_dir, -1.0f);
    vec3 ref = fabsf(w.y) > 0.99f ? v3(1, 0, 0) : v3(0, 1, 0);
    vec3 u = v3_normalize(v3_cross(ref, w));
    vec3 v = v3_cross(w, u);
    sh->u = u;
    sh->v = v;
    sh->w = w;
    double umin = INFINITY, umax = -INFINITY, vmin = INFINITY, vmax = -INFINITY;
    for (int c = 0; c < 8; c++) {
        vec3 p = v3((c & 1) ? sh->box_max.x : sh->box_min.x, (c & 2) ? sh->box_max.y : sh->box_min.y,
                    (c & 4) ? sh->box_max.z : sh->box_min.z);
        umin = fmin(umin, v3_dot(p, u));
        umax = fmax(umax, v3_dot(p, u));
        vmin = fmin(vmin, v3_dot(p, v));
        vmax = fmax(vmax, v3_dot(p, v));
    }
    /* at most 8192 a side and 2^23 texels: coarser texels if the box is too big */
    double texel = sh->texel;
    for (;;) {
        double wd = ceil((umax - umin) / texel), ht = ceil((vmax - vmin) / texel);
        if (wd <= 8192 && ht <= 8192 && wd * ht <= (double)(1 << 23))
            break;
        texel *= 1.1;
    }
    sh->texel = (float)texel;
    sh->inv_texel = 1.0 / texel;
    sh->u0 = umin;
    sh->v0 = vmin;
    sh->width = (int)ceil((umax - umin) / texel);
    sh->height = (int)ceil((vmax - vmin) / texel);
    size_t n = (size_t)sh->width * (size_t)sh->height;
    sh->depth = upf__alloc_array(s->ctx, n, sizeof(float), "scene shadow map");
    sh->dyn = upf__alloc_array(s->ctx, n, sizeof(float), "scene shadow map");
    sh->tri_static = upf__alloc_array(s->ctx, (size_t)s->tri_count + 1, 1, "scene shadow map");
    mat4 *mats = upf__alloc_array(s->ctx, (size_t)s->instance_count, sizeof(mat4), "scene shadow map");
    shadow_tri *tris = upf__alloc_array(s->ctx, (size_t)s->tri_count + 1, sizeof(shadow_tri), "scene shadow map");
    float *ymin = upf__alloc_array(s->ctx, (size_t)s->tri_count + 1, sizeof(float), "scene shadow map");
    float *ymax = upf__alloc_array(s->ctx, (size_t)s->tri_count + 1, sizeof(float), "scene shadow map");
    if (!sh->depth || !sh->dyn || !sh->tri_static || !mats || !tris || !ymin || !ymax) {
        upf__free(s->ctx, mats);
        upf__free(s->ctx, tris);
        upf__free(s->ctx, ymin);
        upf__free(s->ctx, ymax);
        return UPF_ERROR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < n; i++) {
        sh->depth[i] = INFINITY;
        sh->dyn[i] = INFINITY;
    }
    sh->dyn_x0 = sh->dyn_y0 = 0;
    sh->dyn_x1 = sh->dyn_y1 = 0;
    bool any_dynamic = false;
    for (int tri = 0; tri < s->tri_count; tri++) {
        int in = s->vertex_instance[s->indices[3 * tri]];
        sh->tri_static[tri] = (uint8_t)instance_static(s, in);
        any_dynamic |= !sh->tri_static[tri];
    }
    sh->any_dynamic = any_dynamic;
    scene__instance_matrices(s, 0.0, mats);
    int count = 0;
    for (int tri = 0; tri < s->tri_count; tri++) {
        if (!sh->tri_static[tri] || s->materials[s->tri_material[tri]].no_shadow)
            continue;
        vec3 p[3];
        static_world(s, mats, tri, p);
        make_tri(s, tri, p, &tris[count]);
        const shadow_tri *t = &tris[count];
        ymin[count] = (float)fmin(t->y[0], fmin(t->y[1], t->y[2]));
        ymax[count] = (float)fmax(t->y[0], fmax(t->y[1], t->y[2]));
        count++;
    }
    build_job job = { s, tris, ymin, ymax, count };
    upf__parallel_for(s->ctx, band_task, &job, (sh->height + SHADOW_BAND - 1) / SHADOW_BAND);
    upf__free(s->ctx, mats);
    upf__free(s->ctx, tris);
    upf__free(s->ctx, ymin);
    upf__free(s->ctx, ymax);
    sh->enabled = true;
    return UPF_OK;
}

void scene__shadow_free(scene *s)
{
    upf__free(s->ctx, s->shadow.depth);
    upf__free(s->ctx, s->shadow.dyn);
    upf__free(s->ctx, s->shadow.tri_static);
    s->shadow.depth = s->shadow.dyn = NULL;
    s->shadow.tri_static = NULL;
    s->shadow.enabled = false;
}

void scene__shadow_dynamic_begin(scene *s)
{
    scene_shadow *sh = &s->shadow;
    if (!sh->enabled)
        return;
    /* clear what the last view drew */
    for (int y = sh->dyn_y0; y < sh->dyn_y1; y++)
        for (int x = sh->dyn_x0; x < sh->dyn_x1; x++)
            sh->dyn[(size_t)y * (size_t)sh->width + (size_t)x] = INFINITY;
    sh->dyn_x0 = sh->width;
    sh->dyn_y0 = sh->height;
    sh->dyn_x1 = sh->dyn_y1 = 0;
}

void scene__shadow_dynamic_tri(scene *s, int tri, const vec3 p[3])
{
    scene_shadow *sh = &s->shadow;
    if (!sh->enabled || s->materials[s->tri_material[tri]].no_shadow)
        return;
    shadow_tri t;
    make_tri(s, tri, p, &t);
    int bx0 = (int)floor(fmin(t.x[0], fmin(t.x[1], t.x[2])) - 1.0);
    int bx1 = (int)ceil(fmax(t.x[0], fmax(t.x[1], t.x[2])) + 1.0);
    int by0 = (int)floor(fmin(t.y[0], fmin(t.y[1], t.y[2])) - 1.0);
    int by1 = (int)ceil(fmax(t.y[0], fmax(t.y[1], t.y[2])) + 1.0);
    if (bx1 <= 0 || by1 <= 0 || bx0 >= sh->width || by0 >= sh->height)
        return;
    draw_tri(&t, sh->dyn, sh->width, 0, sh->width, 0, sh->height);
    sh->dyn_x0 = bx0 < sh->dyn_x0 ? (bx0 < 0 ? 0 : bx0) : sh->dyn_x0;
    sh->dyn_y0 = by0 < sh->dyn_y0 ? (by0 < 0 ? 0 : by0) : sh->dyn_y0;
    sh->dyn_x1 = bx1 > sh->dyn_x1 ? (bx1 > sh->width ? sh->width : bx1) : sh->dyn_x1;
    sh->dyn_y1 = by1 > sh->dyn_y1 ? (by1 > sh->height ? sh->height : by1) : sh->dyn_y1;
}

float scene__shadow_visibility(const scene_shadow *sh, vec3 p, vec3 n)
{
    if (!sh->enabled)
        return 1.0f;
    /* normal offset (1.5 texels) and a depth bias of one texel keep surfaces from shadowing
     * themselves */
    vec3 q = v3_add(p, v3_scale(n, 1.5f * sh->texel));
    double x, y;
    float d;
    light_coords(sh, q, &x, &y, &d);
    d -= sh->texel;
    x -= 0.5;
    y -= 0.5;
    double fx0 = floor(x), fy0 = floor(y);
    int ix = (int)fx0, iy = (int)fy0;
    float fx = (float)(x - fx0), fy = (float)(y - fy0);
    float lit[4];
    for (int k = 0; k < 4; k++) {
        int tx = ix + (k & 1), ty = iy + (k >> 1);
        if (tx < 0 || ty < 0 || tx >= sh->width || ty >= sh->height) {
            lit[k] = 1.0f;
            continue;
        }
        size_t o = (size_t)ty * (size_t)sh->width + (size_t)tx;
        float z = sh->depth[o];
        if (tx >= sh->dyn_x0 && tx < sh->dyn_x1 && ty >= sh->dyn_y0 && ty < sh->dyn_y1)
            z = fminf(z, sh->dyn[o]);
        lit[k] = d <= z ? 1.0f : 0.0f;
    }
    return (lit[0] * (1.0f - fx) + lit[1] * fx) * (1.0f - fy) + (lit[2] * (1.0f - fx) + lit[3] * fx) * fy;
}
