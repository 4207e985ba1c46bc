/* scene_internal.h: what the scene renderer's files share (not for callers; see scene.h).
 *
 * A scene is one vertex and index array split into instances: instance 0 is the static
 * world, every other instance is a rigid part that moves (spins, swings, slides, walks a
 * circle) relative to its parent instance, so an articulated figure is a small tree of
 * instances. Triangles carry a material (texture, tint, specular, emission, alpha test).
 * Scene builders (scene_<name>.c) fill all of it once per (name, seed) through the helpers of
 * mesh.c; scene.c validates a view, camera.c places the camera, raster.c draws it, shade.c
 * lights each sample, hud.c draws the HUD layer. */
#ifndef UPF_SCENE_INTERNAL_H
#define UPF_SCENE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/core.h"
#include "scene/scene.h"
#include "scene/scene_math.h"

#define SCENE_MAX_TEXTURES 48
#define SCENE_MAX_MATERIALS 96
#define SCENE_MAX_LIGHTS 8
#define SCENE_MAX_LEVELS 16
#define SCENE_TILE 32 /* tile side in pixels: the unit of parallel work */

/* ---- textures (texture.c, texture_gen.c) ----------------------------------------------- */

/* A power-of-two RGBA float texture (linear colour, linear alpha) with its full mip chain
 * (level l is max(1, w >> l) x max(1, h >> l)), addressed with wrap-around. */
typedef struct scene_texture {
    int levels;
    int w[SCENE_MAX_LEVELS], h[SCENE_MAX_LEVELS];
    float *level[SCENE_MAX_LEVELS]; /* into `data` */
    float *data;
    bool alpha_tested;
    float *alpha[SCENE_MAX_LEVELS]; /* alpha-tested textures: alpha alone, per level (into
                                     * alpha_data), for a cache-friendly test */
    float *alpha_data;
} scene_texture;

upf_result scene__texture_alloc(upf_context *ctx, scene_texture *t, int width, int height);
void scene__texture_free(upf_context *ctx, scene_texture *t);

/* Builds levels 1.. from level 0 by 2x2 box filtering in linear light. For alpha-tested
 * textures each level's alpha is then scaled so that the share of texels passing `cutoff`
 * stays that of level 0 (Castano, "Computing alpha mipmaps", 2010), so foliage does not thin
 * out with distance. */
upf_result scene__texture_build_mips(upf_context *ctx, scene_texture *t, float cutoff);

/* Trilinear sample at (u, v) (texture repeats every 1.0) and level of detail `lod`
 * (0 = level 0; clamped to the chain): bilinear in the two nearest levels, blended. */
void scene__texture_sample(const scene_texture *t, float u, float v, float lod, float out[4]);
/* The alpha test's sample: alpha alone, bilinear in the level nearest to `lod` (an
 * alpha-tested texture only). */
float scene__texture_sample_alpha(const scene_texture *t, float u, float v, float lod);

/* Procedural textures (texture_gen.c): each fills level 0 of an allocated texture. */
typedef enum scene_texgen {
    TEXGEN_BRICK, TEXGEN_STONE_WALL, TEXGEN_FLOOR_TILES, TEXGEN_WOOD, TEXGEN_METAL,
    TEXGEN_BARK, TEXGEN_LEAVES, TEXGEN_GRASS_CARD, TEXGEN_FOREST_GROUND, TEXGEN_HILLS,
    TEXGEN_ASPHALT, TEXGEN_PAVEMENT, TEXGEN_CONCRETE, TEXGEN_WINDOW, TEXGEN_MARBLE_FLOOR,
    TEXGEN_PLASTER, TEXGEN_SMOOTH, TEXGEN_BOOKS, TEXGEN_CLOCK_FACE, TEXGEN_WHITE
} scene_texgen;

/* Makes a texture of kind `kind`, `w` x `h` texels, from `seed`, with mips. Returns its
 * index in the scene, or -1 (s->build_error set). */
int scene__make_texture(scene *s, scene_texgen kind, int w, int h, uint32_t seed);

/* A sign: `text` (one or two lines separated by '\n') in the 5x7 font on a board of colour
 * `board`, letters `ink`, with a border; `w` x `h` texels. Returns the texture index or -1. */
int scene__make_sign(scene *s, const char *text, vec3 board, vec3 ink, int w, int h);

/* ---- the font (font.c) ------------------------------------------------------------------ */

/* 5x7 glyphs, one cell 6 units wide (a column of spacing) and 7 high; lower case letters
 * are drawn as capitals; unknown characters as a box. Rows top to bottom, bit 4 = left. */
uint8_t scene__glyph_row(char c, int row);

/* Whether point (x, y) (font units, origin top-left of the first glyph, y down) is ink
 * in one line of `text`. */
bool scene__text_ink(const char *text, int len, float x, float y);

/* Width of a line in font units (6 per character, less the trailing space column). */
float scene__text_width(int len);

/* 7x7 icons for the HUD: bit 6 = left. */
typedef enum scene_icon { ICON_HEART, ICON_AMMO, ICON_SHIELD, ICON_FLAG } scene_icon;
uint8_t scene__icon_row(scene_icon icon, int row);

/* ---- materials, geometry, instances ----------------------------------------------------- */

typedef struct scene_material {
    int texture;        /* -1: none (the tint is the colour) */
    float uv_scale[2];  /* texture repeats per mesh UV unit (world-mapped meshes give UVs in
                         * metres); 0: 1 */
    vec3 tint;          /* multiplies the texture colour (linear) */
    float specular;     /* Blinn-Phong strength; 0: matte */
    float shininess;    /* Blinn-Phong exponent */
    float reflect;      /* share of the sky reflected (glass, wet paint), Schlick-weighted */
    vec3 emissive;      /* light emitted (linear, may exceed 1) */
    float alpha_cutoff; /* > 0: alpha-tested against this value */
    bool double_sided;  /* no back-face culling; the normal faces the viewer */
    bool no_shadow;     /* casts no sun shadow (wires: thinner than a shadow texel) */
    float spec_cut;     /* (set by scene__add_material) below this n.h the highlight is under
                         * 1e-4 of its peak and is skipped */
} scene_material;

typedef struct scene_vertex {
    float p[3];
    float n[3];
    float uv[2];
} scene_vertex;

/* How an instance moves. Its matrix (local -> parent) is base * A(t): `base` places it in
 * its parent's space, and A(t) moves it in its own frame (pivot, axis and offsets are in the
 * instance's own coordinates):
 *   FIXED   A = I
 *   SPIN    A = T(pivot) R(axis, phase + rate t) T(-pivot)                          (rotation)
 *   SWING   A = T(pivot) R(axis, phase + amp sin(2 pi t / period + phase2)) T(-pivot)
 *   SLIDE   A = T(a + (b - a) (1 - cos(2 pi t / period + phase)) / 2)              (to and fro)
 *   LINE    A = T(a + b ((speed t + phase) mod length))       (b: a unit direction; wraps)
 *   CIRCLE  A = T(pivot) R_y(phase + rate t) T(radius, 0, 0) [R_y(pi) if rate < 0]
 *               T(bob |sin(2 pi t / period)|): walking a circle facing the way it goes
 *               (local -z forward) */
typedef enum scene_anim_kind {
    ANIM_FIXED, ANIM_SPIN, ANIM_SWING, ANIM_SLIDE, ANIM_LINE, ANIM_CIRCLE
} scene_anim_kind;

typedef struct scene_anim {
    scene_anim_kind kind;
    dvec3 pivot, axis;
    double rate, amp, period, phase, phase2;
    dvec3 a, b;            /* SLIDE end points; LINE start and direction (unit) */
    double length, speed;  /* LINE */
    double radius;         /* CIRCLE */
    dvec3 bob;             /* added displacement bob * |sin(2 pi t / period)| (a walk's bounce) */
} scene_anim;

typedef struct scene_instance {
    int parent;            /* an earlier instance, or -1 (the world) */
    mat4 base;
    scene_anim anim;
} scene_instance;

typedef struct scene_light {
    vec3 position;
    vec3 color;            /* intensity (linear); falls off as 1 / (1 + d^2) */
    float range;           /* beyond this it fades to 0 */
} scene_light;

/* Lighting and atmosphere of a scene. */
typedef struct scene_env {
    vec3 sun_dir;          /* towards the sun, unit */
    vec3 sun_color;
    vec3 sky_zenith, sky_horizon, ground_color; /* sky gradient and hemisphere ambient */
    float ambient;         /* hemisphere ambient scale */
    float fog_density;     /* per metre (exponential fog towards the horizon colour) */
    float sun_disc;        /* brightness of the visible sun disc (0: none) */
} scene_env;

/* A camera pose: eye and the direction it looks in (yaw about +y, 0 = looking along -z,
 * positive turning left; pitch up positive). */
typedef struct scene_shot {
    dvec3 eye;
    double yaw, pitch;
} scene_shot;

/* The camera paths of a scene (camera.c evaluates them). */
typedef struct scene_rig {
    scene_shot still;            /* "still", and the start of "pan" */
    double pan_rate;             /* rad/s */
    dvec3 orbit_center;
    double orbit_radius, orbit_height, orbit_rate, orbit_phase;
    dvec3 walk_center;           /* "walk": forward along a circle of this radius */
    double walk_radius, walk_height, walk_speed, walk_phase, walk_pitch;
    int walk_dir;                /* +1 counter-clockwise (seen from above), -1 clockwise */
    scene_shot turn;             /* "turn": yaw at turn_rate */
    double turn_rate;
    scene_shot cut_a, cut_b;     /* "cut": shot a before scene_cut_time(), b after */
    double cut_pan_rate;
    double fov_y, near_plane, far_plane;
} scene_rig;

/* A deterministic generator for the builders (splitmix64). */
typedef struct scene_rng {
    uint64_t state;
} scene_rng;

static inline uint32_t scene_rng_u32(scene_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

/* Uniform in [lo, hi). */
static inline float scene_rng_range(scene_rng *r, float lo, float hi)
{
    return lo + (hi - lo) * scene_unit(scene_rng_u32(r));
}

typedef struct scene_def {
    const char *name;
    const char *description;
    bool test_only;
    void (*build)(scene *s, scene_rng *rng);
} scene_def;

/* The sun's shadow map (shadow.c). The builder sets box_min, box_max (the world box of
 * casters and receivers) and texel (metres); 0 texel: no shadows. */
typedef struct scene_shadow {
    vec3 box_min, box_max;
    float texel;
    bool enabled, any_dynamic;
    vec3 u, v, w;                /* the light's frame: w along its travel */
    double u0, v0;               /* map origin in (u, v) */
    double inv_texel;
    int width, height;
    float *depth;                /* static casters: depth along w, +inf where none */
    float *dyn;                  /* moving casters, per view, within [dyn_x0, dyn_x1) x ... */
    int dyn_x0, dyn_y0, dyn_x1, dyn_y1;
    uint8_t *tri_static;         /* per triangle: drawn into `depth` (never moves) */
} scene_shadow;

/* Per-view scratch of raster.c (grows with the largest view drawn). */
typedef struct scene_raster_scratch scene_raster_scratch;

struct scene {
    upf_context *ctx;
    const scene_def *def;
    uint32_t seed;
    upf_result build_error;      /* sticky: the first failure while building */

    scene_vertex *verts;
    uint16_t *vertex_instance;   /* the instance that moves each vertex (0: the world) */
    int vertex_count, vertex_cap;
    uint32_t *indices;           /* 3 per triangle */
    uint16_t *tri_material;
    int tri_count, tri_cap;
    scene_instance *instances;
    int instance_count, instance_cap;
    int current_instance;        /* where mesh.c adds geometry */

    scene_material materials[SCENE_MAX_MATERIALS];
    int material_count;
    scene_texture textures[SCENE_MAX_TEXTURES];
    int texture_count;
    scene_light lights[SCENE_MAX_LIGHTS];
    int light_count;
    scene_env env;
    scene_rig rig;
    scene_shadow shadow;
    const char *hud_title;       /* the HUD's objective line */

    scene_raster_scratch *raster;
};

/* ---- scene building (mesh.c) ------------------------------------------------------------ */

/* Records the first failure of a build (allocation). */
void scene__build_fail(scene *s, upf_result r);

int scene__add_material(scene *s, scene_material m);

/* A material that is just `texture` (or a colour when texture < 0). */
int scene__simple_material(scene *s, int texture, vec3 tint);

/* Starts a new moving instance (a child of `parent`, -1 for the world) and makes it the one
 * geometry goes into; returns its index. scene__end_instance() goes back to the world. */
int scene__begin_instance(scene *s, int parent, const mat4 *base, scene_anim anim);
void scene__end_instance(scene *s);

/* Geometry, in the current instance's local space, placed by `xf` (NULL: identity). UVs are
 * in texture repeats: `uv_scale` repeats per metre for the world-mapped shapes. */
void scene__add_triangle(scene *s, const scene_vertex *a, const scene_vertex *b,
                         const scene_vertex *c, int material);
/* A quad p0 p1 p2 p3 (counter-clockwise seen from the front) with the given UVs. */
void scene__add_quad(scene *s, const mat4 *xf, const vec3 p[4], const float uv[4][2],
                     int material);
/* An axis-aligned box centred on the origin with half sizes (hx, hy, hz), mapped per face
 * in metres x uv_scale; `faces` masks the six faces (bit 0 +x, 1 -x, 2 +y, 3 -y, 4 +z,
 * 5 -z; 0 = all). */
void scene__add_box(scene *s, const mat4 *xf, vec3 half, int material, float uv_scale,
                    unsigned faces);
/* A thin square bar (thickness `t`) from a to b (world-ish local points). */
void scene__add_bar(scene *s, const mat4 *xf, vec3 a, vec3 b, float t, int material);
/* A cylinder along +y from y = 0 to `height` (radius r0 at the bottom, r1 at the top),
 * `sides` facets, with caps if asked; UVs: u around (repeats `u_repeat` times), v up in
 * metres x uv_scale. */
void scene__add_cylinder(scene *s, const mat4 *xf, float r0, float r1, float height,
                         int sides, bool caps, int material, float u_repeat, float uv_scale);
/* A sphere of radius r centred on the origin. */
void scene__add_sphere(scene *s, const mat4 *xf, float r, int segments, int rings,
                       int material);
/* A card: a w x h rectangle in the local xy plane, bottom centre at the origin, facing +z,
 * UV (0,0) top-left to (1,1) bottom-right. */
void scene__add_card(scene *s, const mat4 *xf, float w, float h, int material);
/* Stairs: `steps` steps rising along -z from the origin, each `rise` high and `run` deep,
 * `width` wide (x from -width/2 to width/2), solid down to y = 0. */
void scene__add_stairs(scene *s, const mat4 *xf, int steps, float rise, float run,
                       float width, int material, float uv_scale);
/* A height-field grid over x in [x0, x1], z in [z0, z1] with nx x nz cells; height(x, z)
 * gives y. UV in metres x uv_scale. */
void scene__add_heightfield(scene *s, float x0, float z0, float x1, float z1, int nx, int nz,
                            float (*height)(void *priv, float x, float z), void *priv,
                            int material, float uv_scale);

/* A railing from a to b (floor points): vertical bars `spacing` apart, a top and a low rail. */
void scene__add_railing(scene *s, vec3 a, vec3 b, float height, float spacing, float bar,
                        int material);
/* A diagonal lattice (trellis) of bars at +-45 degrees in the local xy plane, from (0, 0) to
 * (width, height), with a frame. */
void scene__add_lattice(scene *s, const mat4 *xf, float width, float height, float spacing,
                        float bar, int material);
/* A sign board: `w` x `h` (local xy, bottom centre at the origin, facing +z) with the sign
 * texture on its front and a frame of `frame_material`. */
void scene__add_sign(scene *s, const mat4 *xf, float w, float h, int sign_texture,
                     int frame_material);

/* A walking articulated figure (torso, head, two arms, two legs: six instances) walking a
 * circle of `radius` about `center` at `speed` m/s; `scale` 1 = 1.8 m tall. */
void scene__add_figure(scene *s, dvec3 center, double radius, double speed, double phase,
                       float scale, vec3 shirt, vec3 trousers, vec3 skin);

/* The scene builders (scene_<name>.c). */
void scene__build_courtyard(scene *s, scene_rng *rng);
void scene__build_forest(scene *s, scene_rng *rng);
void scene__build_street(scene *s, scene_rng *rng);
void scene__build_interior(scene *s, scene_rng *rng);
void scene__build_calibration(scene *s, scene_rng *rng);

/* sRGB 0xRRGGBB to linear. */
vec3 scene__rgb(uint32_t hex);

/* ---- the camera (camera.c) --------------------------------------------------------------- */

/* Index of a path name, or -1. */
int scene__path_index(const char *name);

/* The camera at time t on path `path`: the view matrix and position. */
void scene__camera_at(const scene_rig *rig, int path, double t, mat4 *view, dvec3 *eye);

/* The projection (column vectors, D3D-style [0,1] depth) for a depth convention. */
mat4 scene__projection(double fov_y, double aspect, double near_plane, double far_plane,
                       bool reversed, bool infinite_far);

/* ---- the instances' motion (mesh.c) --------------------------------------------------- */

/* The model matrix (local -> world) of every instance at time t, into `out` (one per
 * instance). */
void scene__instance_matrices(const scene *s, double t, mat4 *out);

/* ---- drawing (raster.c, shade.c, hud.c) ---------------------------------------------- */

/* What raster.c hands shade.c about one view. */
typedef struct scene_view {
    const scene *s;
    int width, height;
    double jitter_x, jitter_y;
    float mip_bias;
    double time, prev_time;
    mat4 view, proj, view_proj, prev_view_proj;
    dvec3 eye;
    double near_plane, far_plane;   /* far: where the geometry is cut */
    double depth_near, depth_far;   /* for the depth mapping (far may be infinite) */
    bool reversed, infinite_far;
    bool matte;                     /* no view-dependent shading */
    double tan_half_fov, aspect;
    mat4 inv_view;
    double sky_prev[3][3];          /* screen (sx, sy, 1) -> previous clip (x, y, w) of the
                                     * point at infinity seen there */
} scene_view;

/* A surface sample's inputs to shading (perspective-correct, at one sample). */
typedef struct scene_surface {
    vec3 position, normal;
    float u, v;
    float dudx, dvdx, dudy, dvdy; /* texture coordinate derivatives per render pixel */
    int material;
} scene_surface;

/* Linear RGB of a surface sample, fogged. */
void scene__shade(const scene_view *vw, const scene_surface *sf, float out[3]);

/* Linear RGB of the sky in world direction `dir` (unit). */
void scene__sky(const scene_env *env, vec3 dir, float out[3]);

/* The texture level of detail of a sample (before the bias) for a texture of w x h texels:
 * log2 of the larger screen-axis footprint (OpenGL 4.6 section 8.14.1, eq. 8.7-8.9). */
float scene__texture_lod(const scene_texture *t, float dudx, float dvdx, float dudy, float dvdy);

upf_result scene__raster_view(scene *s, const scene_view *vw, int spp,
                              const scene_buffers *out, scene_progress_fn progress,
                              void *progress_priv);
void scene__raster_free(scene *s);

/* Shadows: build the static map after the scene is built (parallel); for a view, clear
 * the moving casters' buffer, then draw each moving triangle at its world position; the
 * share (0..1) of sunlight reaching point p with normal n. */
upf_result scene__shadow_build(scene *s);
void scene__shadow_free(scene *s);
void scene__shadow_dynamic_begin(scene *s);
void scene__shadow_dynamic_tri(scene *s, int tri, const vec3 p[3]);
float scene__shadow_visibility(const scene_shadow *sh, vec3 p, vec3 n);

/* The HUD layer at time t: linear RGB with straight alpha, width x height x 4 floats. */
void scene__hud_render(const scene *s, double t, double yaw, int width, int height,
                       float *rgba);

#endif /* UPF_SCENE_INTERNAL_H */
