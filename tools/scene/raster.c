/* raster.c: draws one view of a scene: transforms every vertex for the current and the
 * previous time, clips triangles to the near plane, sets them up in screen space, bins them
 * into 32x32 tiles, and rasterises the tiles in parallel with a z-buffer, then shades the
 * visible samples (shade.c) and writes colour, depth and motion.
 *
 * Reads the scene's geometry and a scene_view (scene.c); writes the caller's float buffers.
 *
 * Exactness:
 *  - Edge functions are evaluated directly (not incrementally) in double precision, each
 *    edge from its canonical end point (the smaller of the two in (x, y) order), so the two
 *    triangles that share an edge compute bit-identical values of opposite sign; samples
 *    exactly on an edge go to one of them only (the edge's owner: the one that walks it with
 *    dy > 0, or dy == 0 and dx < 0). No cracks, no double hits.
 *  - Attributes are interpolated perspective-correctly: with screen barycentrics l_i and
 *    q_i = 1 / w_i, the weights are l_i q_i / sum(l_j q_j) (Heckbert and Moreton,
 *    "Interpolation for polygon texture mapping and shading", 1991). The view distance is
 *    1 / sum(l_i q_i) exactly, and the previous clip position of the point, a linear function
 *    of its object-space position, is interpolated the same way, so motion is exact.
 *  - The result of a tile does not depend on which thread draws it, nor on the tile order:
 *    output is the same on any number of threads.
 *
 * Samples: a pass draws K <= 16 samples per pixel (positions that may vary per pixel) and
 * shades the nearest surface of each; spp 1 is one pass at centre + jitter; spp N is
 * ceil(N / 16) passes of stratified samples for colour, plus one pass at centre + jitter for
 * depth and motion. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene_internal.h"

typedef struct rvert {
    double cx, cy, cw;   /* clip position now (w = view distance) */
    double px, py, pw;   /* clip position at the previous time (unjittered) */
    float wx, wy, wz;    /* world position now */
    float nx, ny, nz;    /* world normal now */
    float u, v;
} rvert;

typedef struct rtri {
    double ox[3], oy[3]; /* edge i (opposite vertex i): canonical origin, */
    double dx[3], dy[3]; /* direction, */
    double sign[3];      /* and the sign that orients it inwards */
    uint8_t owner[3];    /* samples exactly on edge i belong to this triangle */
    float q[3];          /* 1 / w of the vertices */
    float dldx[3], dldy[3]; /* screen derivatives of the barycentrics */
    double inv_area;     /* 1 / (twice the signed screen area), > 0 */
    int v[3];            /* rvert indices */
    int material;
    int x0, y0, x1, y1;  /* pixel bounding box, inclusive, on screen */
    int alpha_texture;   /* texture to alpha-test against, or -1 */
    double near_w;       /* the nearest vertex's distance (drawing order) */
    int order;           /* set-up order (ties) */
    float su, sv;        /* the material's uv scale */
} rtri;

/* A worker's tile buffers. */
/* Samples drawn per pixel in one pass over a tile's triangles (spp > 16: several passes). */
#define SCENE_GROUP 16
#define SLOTS (SCENE_TILE * SCENE_TILE * SCENE_GROUP)

/* A worker's tile buffers: per sample slot q = pixel * K + k (K samples in the pass). */
typedef struct tile_buf {
    int32_t tri[SLOTS];
    float z[SLOTS];
    float l[3][SLOTS];
    float sx[SLOTS], sy[SLOTS]; /* sample positions */
    float acc[4 * SCENE_TILE * SCENE_TILE];
} tile_buf;

struct scene_raster_scratch {
    rvert *verts;
    int vert_cap;
    rtri *tris;
    int tri_cap;
    mat4 *inst_now, *inst_prev;
    int inst_cap;
    int *bin_start, *bin_items;  /* per tile: [bin_start[t], bin_start[t + 1]) in bin_items */
    int bin_tiles_cap, bin_items_cap;
    tile_buf *tiles;             /* one per worker */
    int tile_workers;
    int *sample_cell;            /* spp > 1: per sample (row, column, columns in the row) */
    int sample_cap;
};

void scene__raster_free(scene *s)
{
    scene_raster_scratch *r = s->raster;
    if (!r)
        return;
    upf_context *ctx = s->ctx;
    upf__free(ctx, r->verts);
    upf__free(ctx, r->tris);
    upf__free(ctx, r->inst_now);
    upf__free(ctx, r->inst_prev);
    upf__free(ctx, r->bin_start);
    upf__free(ctx, r->bin_items);
    upf__free(ctx, r->tiles);
    upf__free(ctx, r->sample_cell);
    upf__free(ctx, r);
    s->raster = NULL;
}

/* Makes *p hold at least `need` elements of `elem` bytes (contents not kept). */
static bool ensure(upf_context *ctx, void **p, int *cap, size_t need, size_t elem, const char *what)
{
    if (need <= (size_t)*cap)
        return true;
    if (need > (size_t)INT32_MAX) {
        upf__fail(ctx, UPF_ERROR_OUT_OF_MEMORY, "scene_render: %s: %zu elements is too many",
                  what, need);
        return false;
    }
    upf__free(ctx, *p);
    *p = upf__alloc_array(ctx, need, elem, what);
    *cap = *p ? (int)need : 0;
    return *p != NULL;
}

/* ---- vertices and triangles ---- */

static void transform_vertices(const scene *s, const scene_view *vw, const mat4 *now,
                               const mat4 *prev, rvert *out)
{
    for (int i = 0; i < s->vertex_count; i++) {
        const scene_vertex *v = &s->verts[i];
        int in = s->vertex_instance[i];
        dvec3 p = d3(v->p[0], v->p[1], v->p[2]);
        dvec3 w = m4_point(&now[in], p);
        dvec3 wp = m4_point(&prev[in], p);
        const mat4 *vp = &vw->view_proj, *pvp = &vw->prev_view_proj;
        rvert *o = &out[i];
        o->cx = vp->m[0][0] * w.x + vp->m[0][1] * w.y + vp->m[0][2] * w.z + vp->m[0][3];
        o->cy = vp->m[1][0] * w.x + vp->m[1][1] * w.y + vp->m[1][2] * w.z + vp->m[1][3];
        o->cw = vp->m[3][0] * w.x + vp->m[3][1] * w.y + vp->m[3][2] * w.z + vp->m[3][3];
        o->px = pvp->m[0][0] * wp.x + pvp->m[0][1] * wp.y + pvp->m[0][2] * wp.z + pvp->m[0][3];
        o->py = pvp->m[1][0] * wp.x + pvp->m[1][1] * wp.y + pvp->m[1][2] * wp.z + pvp->m[1][3];
        o->pw = pvp->m[3][0] * wp.x + pvp->m[3][1] * wp.y + pvp->m[3][2] * wp.z + pvp->m[3][3];
        o->wx = (float)w.x;
        o->wy = (float)w.y;
        o->wz = (float)w.z;
        /* normals: the instance matrices are rotations and uniform scales, so the upper
         * 3x3 maps normals up to a length (renormalised when shading) */
        dvec3 n = m4_dir(&now[in], d3(v->n[0], v->n[1], v->n[2]));
        o->nx = (float)n.x;
        o->ny = (float)n.y;
        o->nz = (float)n.z;
        o->u = v->uv[0];
        o->v = v->uv[1];
    }
}

/* a < b in the canonical vertex order (clip w, then x, then y): both triangles of a shared
 * edge interpolate a clipped vertex from the same end, so they get the same bits. */
static bool canon_less(const rvert *a, const rvert *b)
{
    if (a->cw != b->cw)
        return a->cw < b->cw;
    if (a->cx != b->cx)
        return a->cx < b->cx;
    return a->cy < b->cy;
}

/* The point where edge a-b crosses w = near (a in front, b behind or the reverse). */
static rvert clip_point(const rvert *a, const rvert *b, double near_w)
{
    if (!canon_less(a, b)) {
        const rvert *t = a;
        a = b;
        b = t;
    }
    double t = (a->cw - near_w) / (a->cw - b->cw);
    float tf = (float)t;
    rvert r;
    r.cx = a->cx + (b->cx - a->cx) * t;
    r.cy = a->cy + (b->cy - a->cy) * t;
    r.cw = a->cw + (b->cw - a->cw) * t;
    r.px = a->px + (b->px - a->px) * t;
    r.py = a->py + (b->py - a->py) * t;
    r.pw = a->pw + (b->pw - a->pw) * t;
    r.wx = a->wx + (b->wx - a->wx) * tf;
    r.wy = a->wy + (b->wy - a->wy) * tf;
    r.wz = a->wz + (b->wz - a->wz) * tf;
    r.nx = a->nx + (b->nx - a->nx) * tf;
    r.ny = a->ny + (b->ny - a->ny) * tf;
    r.nz = a->nz + (b->nz - a->nz) * tf;
    r.u = a->u + (b->u - a->u) * tf;
    r.v = a->v + (b->v - a->v) * tf;
    return r;
}

typedef struct setup_state {
    const scene *s;
    const scene_view *vw;
    rvert *verts;
    int vert_count;
    rtri *tris;
    int tri_count;
} setup_state;

/* Screen position of a clip-space vertex (render pixels, unjittered). */
static void to_screen(const scene_view *vw, const rvert *v, double *x, double *y)
{
    double iw = 1.0 / v->cw;
    *x = (v->cx * iw * 0.5 + 0.5) * vw->width;
    *y = (0.5 - v->cy * iw * 0.5) * vw->height;
}

/* Sets up one screen triangle from three rvert indices; culls what cannot be seen. */
static void setup_triangle(setup_state *st, int i0, int i1, int i2, int material)
{
    const scene_view *vw = st->vw;
    const scene_material *m = &st->s->materials[material];
    int idx[3] = { i0, i1, i2 };
    double x[3], y[3];
    for (int k = 0; k < 3; k++)
        to_screen(vw, &st->verts[idx[k]], &x[k], &y[k]);
    double area2 = (x[1] - x[0]) * (y[2] - y[0]) - (y[1] - y[0]) * (x[2] - x[0]);
    if (!(area2 != 0.0) || !isfinite(area2))
        return;
    /* front faces are counter-clockwise in world space, which is area2 < 0 on a y-down
     * screen */
    if (area2 > 0.0 && !m->double_sided)
        return;
    if (area2 < 0.0) { /* orient positively: swap vertices 1 and 2 */
        int ti = idx[1];
        idx[1] = idx[2];
        idx[2] = ti;
        double tx = x[1], ty = y[1];
        x[1] = x[2];
        y[1] = y[2];
        x[2] = tx;
        y[2] = ty;
        area2 = -area2;
    }
    double minx = fmin(x[0], fmin(x[1], x[2])), maxx = fmax(x[0], fmax(x[1], x[2]));
    double miny = fmin(y[0], fmin(y[1], y[2])), maxy = fmax(y[0], fmax(y[1], y[2]));
    /* samples of pixel p lie in [p - 0.5, p + 1.5) (offset in [0, 1) plus jitter) */
    double bx0 = floor(minx - 1.5), bx1 = floor(maxx + 0.5);
    double by0 = floor(miny - 1.5), by1 = floor(maxy + 0.5);
    if (bx1 < 0 || by1 < 0 || bx0 > vw->width - 1 || by0 > vw->height - 1)
        return;
    rtri *t = &st->tris[st->tri_count];
    t->x0 = bx0 < 0 ? 0 : (int)bx0;
    t->y0 = by0 < 0 ? 0 : (int)by0;
    t->x1 = bx1 > vw->width - 1 ? vw->width - 1 : (int)bx1;
    t->y1 = by1 > vw->height - 1 ? vw->height - 1 : (int)by1;
    t->inv_area = 1.0 / area2;
    for (int e = 0; e < 3; e++) {
        int a = (e + 1) % 3, b = (e + 2) % 3;
        /* oriented a -> b; canonical origin is the smaller end point */
        double ddx = x[b] - x[a], ddy = y[b] - y[a];
        t->owner[e] = (uint8_t)(ddy > 0.0 || (ddy == 0.0 && ddx < 0.0));
        bool a_first = x[a] < x[b] || (x[a] == x[b] && y[a] < y[b]);
        int c0 = a_first ? a : b, c1 = a_first ? b : a;
        t->ox[e] = x[c0];
        t->oy[e] = y[c0];
        t->dx[e] = x[c1] - x[c0];
        t->dy[e] = y[c1] - y[c0];
        t->sign[e] = a_first ? 1.0 : -1.0;
        /* E_e(p) = (b - a) x (p - a): dE/dx = -(yb - ya), dE/dy = xb - xa */
        t->dldx[e] = (float)(-ddy / area2);
        t->dldy[e] = (float)(ddx / area2);
    }
    for (int k = 0; k < 3; k++) {
        t->v[k] = idx[k];
        t->q[k] = (float)(1.0 / st->verts[idx[k]].cw);
    }
    t->material = material;
    t->near_w = fmin(st->verts[idx[0]].cw, fmin(st->verts[idx[1]].cw, st->verts[idx[2]].cw));
    t->order = st->tri_count;
    t->alpha_texture = m->alpha_cutoff > 0.0f && m->texture >= 0 &&
                               st->s->textures[m->texture].alpha_tested ? m->texture : -1;
    t->su = m->uv_scale[0];
    t->sv = m->uv_scale[1];
    st->tri_count++;
}

/* Culls a triangle outside the view volume, clips it to the near plane, sets it up. */
static void process_triangle(setup_state *st, int tri)
{
    const scene *s = st->s;
    const scene_view *vw = st->vw;
    int idx[3];
    const rvert *v[3];
    for (int k = 0; k < 3; k++) {
        idx[k] = (int)s->indices[3 * tri + k];
        v[k] = &st->verts[idx[k]];
    }
    /* all outside one plane of the frustum (x, y against w; near; far) */
    int out_l = 0, out_r = 0, out_b = 0, out_t = 0, out_n = 0, out_f = 0;
    for (int k = 0; k < 3; k++) {
        out_l += v[k]->cx < -v[k]->cw;
        out_r += v[k]->cx > v[k]->cw;
        out_b += v[k]->cy < -v[k]->cw;
        out_t += v[k]->cy > v[k]->cw;
        out_n += v[k]->cw < vw->near_plane;
        out_f += v[k]->cw > vw->far_plane;
    }
    if (out_l == 3 || out_r == 3 || out_b == 3 || out_t == 3 || out_n == 3 || out_f == 3)
        return;
    int material = s->tri_material[tri];
    if (out_n == 0) {
        setup_triangle(st, idx[0], idx[1], idx[2], material);
        return;
    }
    /* Sutherland-Hodgman against w >= near: a polygon of 3 or 4 vertices. */
    int poly[4], n = 0;
    for (int k = 0; k < 3; k++) {
        const rvert *a = v[k], *b = v[(k + 1) % 3];
        bool ain = a->cw >= vw->near_plane, bin = b->cw >= vw->near_plane;
        if (ain)
            poly[n++] = idx[k];
        if (ain != bin) {
            st->verts[st->vert_count] = clip_point(a, b, vw->near_plane);
            poly[n++] = st->vert_count++;
        }
    }
    for (int k = 1; k + 1 < n; k++)
        setup_triangle(st, poly[0], poly[k], poly[k + 1], material);
}

static int cmp_near(const void *pa, const void *pb)
{
    const rtri *a = pa, *b = pb;
    if (a->near_w != b->near_w)
        return a->near_w < b->near_w ? -1 : 1;
    return (a->order > b->order) - (a->order < b->order);
}

/* ---- binning ---- */

static upf_result bin_triangles(scene *s, const scene_view *vw, int tri_count, int ntx, int nty)
{
    scene_raster_scratch *r = s->raster;
    int ntiles = ntx * nty;
    if (!ensure(s->ctx, (void **)&r->bin_start, &r->bin_tiles_cap, (size_t)ntiles + 1,
                sizeof(int), "scene tile bins"))
        return UPF_ERROR_OUT_OF_MEMORY;
    memset(r->bin_start, 0, ((size_t)ntiles + 1) * sizeof(int));
    size_t total = 0;
    for (int i = 0; i < tri_count; i++) {
        const rtri *t = &r->tris[i];
        int tx0 = t->x0 / SCENE_TILE, tx1 = t->x1 / SCENE_TILE;
        int ty0 = t->y0 / SCENE_TILE, ty1 = t->y1 / SCENE_TILE;
        for (int ty = ty0; ty <= ty1; ty++)
            for (int tx = tx0; tx <= tx1; tx++)
                r->bin_start[ty * ntx + tx + 1]++;
        total += (size_t)(tx1 - tx0 + 1) * (size_t)(ty1 - ty0 + 1);
    }
    (void)vw;
    for (int i = 0; i < ntiles; i++)
        r->bin_start[i + 1] += r->bin_start[i];
    if (!ensure(s->ctx, (void **)&r->bin_items, &r->bin_items_cap, total ? total : 1,
                sizeof(int), "scene tile bins"))
        return UPF_ERROR_OUT_OF_MEMORY;
    /* fill in triangle order, so each bin lists its triangles in scene order */
    int *cursor = r->bin_start; /* reuse: advance starts, then shift back */
    for (int i = 0; i < tri_count; i++) {
        const rtri *t = &r->tris[i];
        int tx0 = t->x0 / SCENE_TILE, tx1 = t->x1 / SCENE_TILE;
        int ty0 = t->y0 / SCENE_TILE, ty1 = t->y1 / SCENE_TILE;
        for (int ty = ty0; ty <= ty1; ty++)
            for (int tx = tx0; tx <= tx1; tx++)
                r->bin_items[cursor[ty * ntx + tx]++] = i;
    }
    for (int i = ntiles; i > 0; i--)
        r->bin_start[i] = r->bin_start[i - 1];
    r->bin_start[0] = 0;
    return UPF_OK;
}

/* ---- tiles ---- */

typedef struct raster_job {
    scene *s;
    const scene_view *vw;
    const scene_buffers *out;
    int spp, ntx, nty;
    bool want_color, want_geometry;
    float span_off[4];      /* sample offsets in a pixel: x in [0], [1]; y in [2], [3] */
    atomic_int done;
    int total;
    scene_progress_fn progress;
    void *progress_priv;
} raster_job;

/* Perspective-correct texture coordinates and their screen derivatives at barycentrics l. */
static void surface_uv(const rtri *t, const rvert *vs, const float l[3], float *u, float *v,
                       float d[4])
{
    const rvert *a = &vs[t->v[0]], *b = &vs[t->v[1]], *c = &vs[t->v[2]];
    float q0 = t->q[0] * l[0], q1 = t->q[1] * l[1], q2 = t->q[2] * l[2];
    float q = q0 + q1 + q2, iq = 1.0f / q;
    float uu = (q0 * a->u + q1 * b->u + q2 * c->u) * iq;
    float vv = (q0 * a->v + q1 * b->v + q2 * c->v) * iq;
    /* d(u)/dx = (sum dl_i/dx q_i u_i - u sum dl_i/dx q_i) / q */
    float qx = t->dldx[0] * t->q[0] + t->dldx[1] * t->q[1] + t->dldx[2] * t->q[2];
    float qy = t->dldy[0] * t->q[0] + t->dldy[1] * t->q[1] + t->dldy[2] * t->q[2];
    float ux = t->dldx[0] * t->q[0] * a->u + t->dldx[1] * t->q[1] * b->u + t->dldx[2] * t->q[2] * c->u;
    float uy = t->dldy[0] * t->q[0] * a->u + t->dldy[1] * t->q[1] * b->u + t->dldy[2] * t->q[2] * c->u;
    float vx = t->dldx[0] * t->q[0] * a->v + t->dldx[1] * t->q[1] * b->v + t->dldx[2] * t->q[2] * c->v;
    float vy = t->dldy[0] * t->q[0] * a->v + t->dldy[1] * t->q[1] * b->v + t->dldy[2] * t->q[2] * c->v;
    *u = uu;
    *v = vv;
    d[0] = (ux - uu * qx) * iq; /* du/dx */
    d[1] = (vx - vv * qx) * iq; /* dv/dx */
    d[2] = (uy - uu * qy) * iq; /* du/dy */
    d[3] = (vy - vv * qy) * iq; /* dv/dy */
}

/* The positions of samples first .. first + K - 1 of every pixel of a tile (first < 0: the
 * single sample at the centre + jitter). */
static void sample_positions(const raster_job *job, int first, int K, int px0, int py0, int w,
                             int h, tile_buf *tb)
{
    const scene_view *vw = job->vw;
    float jx = (float)vw->jitter_x, jy = (float)vw->jitter_y;
    if (first < 0 || job->spp == 1) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                tb->sx[y * SCENE_TILE + x] = (float)(px0 + x) + 0.5f + jx;
                tb->sy[y * SCENE_TILE + x] = (float)(py0 + y) + 0.5f + jy;
            }
        return;
    }
    /* Stratified: the pixel square split in rows of cells (cells per row differ by at most
     * one), one point per cell at a position hashed from the pixel and the sample index. */
    const int *cells = job->s->raster->sample_cell;
    float nrows = (float)cells[3 * job->spp];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int k = 0; k < K; k++) {
                int sample = first + k;
                const int *cell = &cells[3 * sample];
                float row = (float)cell[0], col = (float)cell[1], cols = (float)cell[2];
                uint32_t hsh = scene_hash3((uint32_t)(px0 + x), (uint32_t)(py0 + y), (uint32_t)sample);
                float hx = scene_unit(hsh), hy = scene_unit(scene_hash32(hsh ^ 0x68e31da4u));
                int q = (y * SCENE_TILE + x) * K + k;
                tb->sx[q] = (float)(px0 + x) + (col + hx) / cols + jx;
                tb->sy[q] = (float)(py0 + y) + (row + hy) / nrows + jy;
            }
}

/* Narrows [*x0, *x1] (tile columns) to the pixels of row `py` (absolute) whose samples can
 * be inside triangle t, from each edge's line; conservative by a pixel, since the exact test
 * still runs per sample. Sample positions in the row are x + [off[0], off[1]] and
 * py + [off[2], off[3]]. False if none can be. */
static bool row_span(const rtri *t, const float off[4], int py, int px0, int *x0, int *x1)
{
    double lo = (double)*x0, hi = (double)*x1;
    for (int k = 0; k < 3; k++) {
        /* E(sx, sy) = sign (dx (sy - oy) - dy (sx - ox)) = a sx + b(sy): a = -sign dy */
        double a = -t->sign[k] * t->dy[k];
        double b_lo = t->sign[k] * (t->dx[k] * (py + off[2] - t->oy[k]) + t->dy[k] * t->ox[k]);
        double b_hi = t->sign[k] * (t->dx[k] * (py + off[3] - t->oy[k]) + t->dy[k] * t->ox[k]);
        double b = b_lo > b_hi ? b_lo : b_hi; /* the most permissive end of the row */
        if (a == 0.0) {
            if (b < 0.0)
                return false;
            continue;
        }
        double c = -b / a - px0; /* E >= 0 where sx > c (a > 0) or sx < c (a < 0) */
        if (a > 0.0) {
            double m = floor(c - off[1]) - 1.0; /* pixel x with x + off[1] >= c */
            if (m > lo)
                lo = m;
        } else {
            double m = ceil(c - off[0]) + 1.0;  /* pixel x with x + off[0] <= c */
            if (m < hi)
                hi = m;
        }
        if (lo > hi)
            return false;
    }
    *x0 = (int)lo;
    *x1 = (int)hi;
    return true;
}

/* Rasterises the tile's triangles at the pass's sample positions: nearest surface per
 * pixel (triangle, distance, barycentrics), alpha-tested surfaces tested per sample. */
static void raster_pass(const raster_job *job, int tile, int K, int px0, int py0, int w, int h,
                        tile_buf *tb)
{
    const scene *s = job->s;
    const scene_raster_scratch *r = s->raster;
    const scene_view *vw = job->vw;
    float far_z = (float)vw->far_plane;
    for (int i = 0; i < SCENE_TILE * SCENE_TILE * K; i++) {
        tb->tri[i] = -1;
        tb->z[i] = INFINITY;
    }
    for (int b = r->bin_start[tile]; b < r->bin_start[tile + 1]; b++) {
        int ti = r->bin_items[b];
        const rtri *t = &r->tris[ti];
        int bx0 = t->x0 > px0 ? t->x0 - px0 : 0, bx1 = t->x1 < px0 + w - 1 ? t->x1 - px0 : w - 1;
        int y0 = t->y0 > py0 ? t->y0 - py0 : 0, y1 = t->y1 < py0 + h - 1 ? t->y1 - py0 : h - 1;
        for (int y = y0; y <= y1; y++) {
            int x0 = bx0, x1 = bx1;
            if (!row_span(t, job->span_off, py0 + y, px0, &x0, &x1))
                continue;
            for (int q0 = (y * SCENE_TILE + x0) * K, q1 = (y * SCENE_TILE + x1 + 1) * K, p = q0; p < q1; p++) {
                double sx = tb->sx[p], sy = tb->sy[p];
                double e[3];
                bool inside = true;
                for (int k = 0; k < 3; k++) {
                    e[k] = t->sign[k] * (t->dx[k] * (sy - t->oy[k]) - t->dy[k] * (sx - t->ox[k]));
                    if (!(e[k] > 0.0 || (e[k] == 0.0 && t->owner[k]))) {
                        inside = false;
                        break;
                    }
                }
                if (!inside)
                    continue;
                float l[3] = { (float)(e[0] * t->inv_area), (float)(e[1] * t->inv_area),
                               (float)(e[2] * t->inv_area) };
                float q = l[0] * t->q[0] + l[1] * t->q[1] + l[2] * t->q[2];
                float z = 1.0f / q;
                if (!(z < tb->z[p]) || z > far_z)
                    continue;
                if (t->alpha_texture >= 0) {
                    const scene_texture *tex = &s->textures[t->alpha_texture];
                    float u, v, d[4];
                    surface_uv(t, r->verts, l, &u, &v, d);
                    float lod = scene__texture_lod(tex, d[0] * t->su, d[1] * t->sv,
                                                   d[2] * t->su, d[3] * t->sv) + vw->mip_bias;
                    float cutoff = s->materials[t->material].alpha_cutoff;
                    if (scene__texture_sample_alpha(tex, u * t->su, v * t->sv, lod) < cutoff)
                        continue;
                }
                tb->tri[p] = ti;
                tb->z[p] = z;
                tb->l[0][p] = l[0];
                tb->l[1][p] = l[1];
                tb->l[2][p] = l[2];
            }
        }
    }
}

/* The sky colour seen at screen position (sx, sy). */
static void sky_at(const scene_view *vw, float sx, float sy, float out[3])
{
    double xn = 2.0 * sx / vw->width - 1.0, yn = 1.0 - 2.0 * sy / vw->height;
    dvec3 dv = d3(xn * vw->tan_half_fov * vw->aspect, yn * vw->tan_half_fov, -1.0);
    dvec3 dw = d3_normalize(m4_dir(&vw->inv_view, dv));
    scene__sky(&vw->s->env, v3((float)dw.x, (float)dw.y, (float)dw.z), out);
}

static void shade_pixel(const raster_job *job, const tile_buf *tb, int p, float out[3])
{
    const scene_view *vw = job->vw;
    int ti = tb->tri[p];
    if (ti < 0) {
        sky_at(vw, tb->sx[p], tb->sy[p], out);
        return;
    }
    const scene_raster_scratch *r = job->s->raster;
    const rtri *t = &r->tris[ti];
    const rvert *a = &r->verts[t->v[0]], *b = &r->verts[t->v[1]], *c = &r->verts[t->v[2]];
    float l[3] = { tb->l[0][p], tb->l[1][p], tb->l[2][p] };
    scene_surface sf;
    float d[4];
    surface_uv(t, r->verts, l, &sf.u, &sf.v, d);
    sf.u *= t->su;
    sf.v *= t->sv;
    sf.dudx = d[0] * t->su;
    sf.dvdx = d[1] * t->sv;
    sf.dudy = d[2] * t->su;
    sf.dvdy = d[3] * t->sv;
    float w0 = l[0] * t->q[0], w1 = l[1] * t->q[1], w2 = l[2] * t->q[2];
    float iw = 1.0f / (w0 + w1 + w2);
    w0 *= iw;
    w1 *= iw;
    w2 *= iw;
    sf.position = v3(w0 * a->wx + w1 * b->wx + w2 * c->wx, w0 * a->wy + w1 * b->wy + w2 * c->wy,
                     w0 * a->wz + w1 * b->wz + w2 * c->wz);
    sf.normal = v3(w0 * a->nx + w1 * b->nx + w2 * c->nx, w0 * a->ny + w1 * b->ny + w2 * c->ny,
                   w0 * a->nz + w1 * b->nz + w2 * c->nz);
    sf.material = t->material;
    scene__shade(vw, &sf, out);
}

/* Depth in the view's convention for view distance z (finite, > 0), or the far value. */
static float depth_value(const scene_view *vw, double z, bool sky)
{
    if (sky)
        return vw->reversed ? 0.0f : 1.0f;
    double n = vw->depth_near, f = vw->depth_far, d;
    if (vw->infinite_far)
        d = vw->reversed ? n / z : 1.0 - n / z;
    else if (vw->reversed)
        d = n * (f - z) / (z * (f - n));
    else
        d = f * (z - n) / (z * (f - n));
    return (float)d;
}

/* Depth and motion of the centre sample of each pixel of the tile. */
static void write_geometry(const raster_job *job, const tile_buf *tb, int px0, int py0, int w,
                           int h)
{
    const scene_view *vw = job->vw;
    const scene_raster_scratch *r = job->s->raster;
    const scene_buffers *out = job->out;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            int p = y * SCENE_TILE + x;
            size_t o = (size_t)(py0 + y) * (size_t)vw->width + (size_t)(px0 + x);
            int ti = tb->tri[p];
            double sx = tb->sx[p], sy = tb->sy[p];
            double cx, cy, cw;
            if (ti < 0) {
                const double(*m)[3] = vw->sky_prev;
                cx = m[0][0] * sx + m[0][1] * sy + m[0][2];
                cy = m[1][0] * sx + m[1][1] * sy + m[1][2];
                cw = m[2][0] * sx + m[2][1] * sy + m[2][2];
            } else {
                const rtri *t = &r->tris[ti];
                const rvert *a = &r->verts[t->v[0]], *b = &r->verts[t->v[1]], *c = &r->verts[t->v[2]];
                double w0 = (double)tb->l[0][p] * t->q[0], w1 = (double)tb->l[1][p] * t->q[1];
                double w2 = (double)tb->l[2][p] * t->q[2];
                double iw = 1.0 / (w0 + w1 + w2);
                cx = (w0 * a->px + w1 * b->px + w2 * c->px) * iw;
                cy = (w0 * a->py + w1 * b->py + w2 * c->py) * iw;
                cw = (w0 * a->pw + w1 * b->pw + w2 * c->pw) * iw;
            }
            /* a point behind the previous camera has no previous screen position: its
             * w is clamped, which sends it far off screen (finite) */
            if (!(cw > 1e-6))
                cw = 1e-6;
            double prevx = (cx / cw * 0.5 + 0.5) * vw->width;
            double prevy = (0.5 - cy / cw * 0.5) * vw->height;
            if (out->motion) {
                out->motion[2 * o + 0] = (float)(prevx - sx);
                out->motion[2 * o + 1] = (float)(prevy - sy);
            }
            if (out->depth)
                out->depth[o] = depth_value(vw, tb->z[p], ti < 0);
        }
    }
}

static void tile_task(void *priv, int index, int worker)
{
    raster_job *job = priv;
    scene *s = job->s;
    tile_buf *tb = &s->raster->tiles[worker];
    int tx = index % job->ntx, ty = index / job->ntx;
    int px0 = tx * SCENE_TILE, py0 = ty * SCENE_TILE;
    int w = job->vw->width - px0 < SCENE_TILE ? job->vw->width - px0 : SCENE_TILE;
    int h = job->vw->height - py0 < SCENE_TILE ? job->vw->height - py0 : SCENE_TILE;
    if (job->want_color) {
        memset(tb->acc, 0, sizeof tb->acc);
        /* colour: the samples in groups of up to SCENE_GROUP per pass */
        for (int first = 0; first < job->spp; first += SCENE_GROUP) {
            int K = job->spp - first < SCENE_GROUP ? job->spp - first : SCENE_GROUP;
            sample_positions(job, first, K, px0, py0, w, h, tb);
            raster_pass(job, index, K, px0, py0, w, h, tb);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    int p = y * SCENE_TILE + x;
                    for (int k = 0; k < K; k++) {
                        float c[3];
                        shade_pixel(job, tb, p * K + k, c);
                        tb->acc[4 * p + 0] += c[0];
                        tb->acc[4 * p + 1] += c[1];
                        tb->acc[4 * p + 2] += c[2];
                    }
                }
        }
    }
    if (job->want_geometry) {
        /* depth and motion: the sample at the centre + jitter (spp 1: the colour pass's) */
        if (!(job->want_color && job->spp == 1)) {
            sample_positions(job, -1, 1, px0, py0, w, h, tb);
            raster_pass(job, index, 1, px0, py0, w, h, tb);
        }
        write_geometry(job, tb, px0, py0, w, h);
    }
    if (job->want_color) {
        float norm = 1.0f / (float)job->spp;
        for (int y = 0; y < h; y++) {
            float *row = job->out->color + 4 * ((size_t)(py0 + y) * (size_t)job->vw->width + (size_t)px0);
            for (int x = 0; x < w; x++) {
                int p = y * SCENE_TILE + x;
                row[4 * x + 0] = tb->acc[4 * p + 0] * norm;
                row[4 * x + 1] = tb->acc[4 * p + 1] * norm;
                row[4 * x + 2] = tb->acc[4 * p + 2] * norm;
                row[4 * x + 3] = 1.0f;
            }
        }
    }
    int done = atomic_fetch_add(&job->done, 1) + 1;
    if (job->progress && worker == 0)
        job->progress(job->progress_priv, (double)done / (double)job->total);
}

upf_result scene__raster_view(scene *s, const scene_view *vw, int spp,
                              const scene_buffers *out, scene_progress_fn progress,
                              void *progress_priv)
{
    upf_context *ctx = s->ctx;
    if (!s->raster) {
        s->raster = upf__alloc(ctx, sizeof *s->raster, "scene raster state");
        if (!s->raster)
            return UPF_ERROR_OUT_OF_MEMORY;
    }
    scene_raster_scratch *r = s->raster;
    int workers = upf_context_threads(ctx);
    /* Vertices: one per scene vertex plus at most two per clipped triangle; triangles: two
     * per scene triangle. */
    if (!ensure(ctx, (void **)&r->verts, &r->vert_cap,
                (size_t)s->vertex_count + 2 * (size_t)s->tri_count, sizeof(rvert), "scene vertices") ||
        !ensure(ctx, (void **)&r->tris, &r->tri_cap, 2 * (size_t)s->tri_count + 1, sizeof(rtri),
                "scene triangles") ||
        !ensure(ctx, (void **)&r->tiles, &r->tile_workers, (size_t)workers, sizeof(tile_buf),
                "scene tile buffers") ||
        !ensure(ctx, (void **)&r->sample_cell, &r->sample_cap, 3 * (size_t)spp + 1, sizeof(int),
                "scene sample table"))
        return UPF_ERROR_OUT_OF_MEMORY;
    if (s->instance_count > r->inst_cap) {
        upf__free(ctx, r->inst_now);
        upf__free(ctx, r->inst_prev);
        r->inst_now = upf__alloc_array(ctx, (size_t)s->instance_count, sizeof(mat4), "scene instances");
        r->inst_prev = upf__alloc_array(ctx, (size_t)s->instance_count, sizeof(mat4), "scene instances");
        r->inst_cap = r->inst_now && r->inst_prev ? s->instance_count : 0;
        if (!r->inst_cap)
            return UPF_ERROR_OUT_OF_MEMORY;
    }

    /* The stratified sample cells: rows = floor(sqrt(spp)); the first spp % rows rows get
     * one cell more. Entry 3 * spp is the row count. */
    int rows = (int)floor(sqrt((double)spp));
    while ((rows + 1) * (rows + 1) <= spp)
        rows++;
    while (rows * rows > spp)
        rows--;
    {
        int k = 0;
        for (int row = 0; row < rows; row++) {
            int cols = spp / rows + (row < spp % rows ? 1 : 0);
            for (int col = 0; col < cols; col++, k++) {
                r->sample_cell[3 * k + 0] = row;
                r->sample_cell[3 * k + 1] = col;
                r->sample_cell[3 * k + 2] = cols;
            }
        }
        r->sample_cell[3 * spp] = rows;
    }

    scene__instance_matrices(s, vw->time, r->inst_now);
    scene__instance_matrices(s, vw->prev_time, r->inst_prev);
    setup_state st = { s, vw, r->verts, s->vertex_count, r->tris, 0 };
    transform_vertices(s, vw, r->inst_now, r->inst_prev, r->verts);
    if (s->shadow.enabled && s->shadow.any_dynamic) {
        scene__shadow_dynamic_begin(s);
        for (int i = 0; i < s->tri_count; i++) {
            if (s->shadow.tri_static[i])
                continue;
            vec3 p[3];
            for (int k = 0; k < 3; k++) {
                const rvert *v = &r->verts[s->indices[3 * i + k]];
                p[k] = v3(v->wx, v->wy, v->wz);
            }
            scene__shadow_dynamic_tri(s, i, p);
        }
    }
    for (int i = 0; i < s->tri_count; i++)
        process_triangle(&st, i);

    /* front to back (by the nearest vertex, then scene order): fewer samples are drawn,
     * alpha-tested and then overwritten */
    qsort(r->tris, (size_t)st.tri_count, sizeof(rtri), cmp_near);

    int ntx = (vw->width + SCENE_TILE - 1) / SCENE_TILE;
    int nty = (vw->height + SCENE_TILE - 1) / SCENE_TILE;
    upf_result res = bin_triangles(s, vw, st.tri_count, ntx, nty);
    if (res != UPF_OK)
        return res;

    raster_job job = { .s = s, .vw = vw, .out = out, .spp = spp, .ntx = ntx, .nty = nty,
                       .want_color = out->color != NULL,
                       .want_geometry = out->depth != NULL || out->motion != NULL,
                       .total = ntx * nty, .progress = progress,
                       .progress_priv = progress_priv };
    /* every sample lies in the pixel square shifted by the jitter */
    job.span_off[0] = (float)vw->jitter_x;
    job.span_off[1] = 1.0f + (float)vw->jitter_x;
    job.span_off[2] = (float)vw->jitter_y;
    job.span_off[3] = 1.0f + (float)vw->jitter_y;
    atomic_init(&job.done, 0);
    if (job.want_color || job.want_geometry)
        upf__parallel_for(ctx, tile_task, &job, ntx * nty);
    return UPF_OK;
}
