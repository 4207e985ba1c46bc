/* scene.h: the scene renderer's in-process API: deterministic game-like test frames with exact
 * depth, motion vectors, jitter and supersampled references (see docs/SCENES.md).
 *
 * A scene is built once per (name, seed) with scene_create(); scene_render() then draws any
 * number of views of it (a camera path, a time, a size, a sample count, a jitter offset, a mip
 * bias, a depth convention) into float buffers the caller owns. The `upframe render` command
 * and the network trainer both use it.
 *
 * Conventions (the same in docs/SCENES.md):
 *  - World: right-handed, metres, y up. View space: the camera looks down -z, x right, y up.
 *  - Pixels: (0,0) is the top-left pixel, y grows downwards, pixel centres at +0.5.
 *    Screen position (sx, sy) in render pixels; NDC x = 2 sx / W - 1, NDC y = 1 - 2 sy / H.
 *  - Matrices: column vectors (clip = P * V * world), stored row-major: m[4 * row + col].
 *    The projection maps view space to clip space with NDC depth in [0, 1] in the chosen
 *    convention; `proj` is unjittered, `proj_jittered` includes the jitter translation.
 *  - Jitter (jx, jy), render pixels in [-0.5, 0.5): pixel (x, y) is sampled at the unjittered
 *    screen position (x + 0.5 + jx, y + 0.5 + jy). Equivalently the projection is translated
 *    by (-2 jx / W, +2 jy / H) in NDC. (FSR 2's README translates by (+2 jx / W, -2 jy / H) for
 *    its jitterOffset: its offset is the negation of ours.) Halton(2,3): upf_jitter_offset.
 *  - Motion: mv = (previous screen position) - (current screen position) of the surface point
 *    a pixel's depth sample hit, both projected WITHOUT jitter, in render pixels (x right,
 *    y down), including the motion of moving objects. The previous position is that of the
 *    same point at time - frame_interval. Sky pixels move as points at infinity.
 *  - Depth: d(z) of the view-space distance z along -z (z > 0):
 *      forward, finite far:   d = far (z - near) / (z (far - near))   0 at near, 1 at far
 *      reversed, finite far:  d = near (far - z) / (z (far - near))   1 at near, 0 at far
 *      reversed, infinite:    d = near / z
 *      forward, infinite:     d = 1 - near / z
 *    Sky (and anything beyond a finite far plane) has the far value (1 forward, 0 reversed).
 *  - Colour: linear light, Rec. 709 primaries, not clamped (highlights exceed 1), alpha 1.
 *    The HUD is drawn separately: linear RGB with straight (not premultiplied) alpha; the
 *    composited frame is colour * (1 - a) + hud * a.
 *  - Sampling: spp 1 takes one sample at the pixel centre plus the jitter. spp N > 1 takes N
 *    stratified samples over the pixel square (rows of cells, one hashed point per cell,
 *    deterministic per pixel; shifted by the jitter too) and averages them (a box filter).
 *    Depth and motion are always those of the single sample at pixel centre + jitter, so an
 *    N-spp render has the same depth and motion as a 1-spp render of that view.
 *  - Textures: mip-mapped, trilinear; the level of detail of each sample comes from the
 *    analytic screen-space derivatives of its texture coordinates over one render pixel
 *    (OpenGL 4.6 section 8.14.1), plus mip_bias. Alpha-tested surfaces are tested per sample.
 *
 * Errors: functions return upf_result; the message is in the scene's context
 * (upf_context_last_error). Thread-safety: calls on one scene must not overlap (the scene
 * holds the scratch memory of a render); different scenes are independent. Output is
 * identical whatever the context's thread count. */
#ifndef UPF_SCENE_H
#define UPF_SCENE_H

#include <stdbool.h>
#include <stdint.h>

#include "upframe.h"

/* Seeds: training may use SCENE_TRAIN_SEED_MIN..SCENE_TRAIN_SEED_MAX; the fixed evaluation
 * set of docs/SCENES.md uses seeds at or above SCENE_EVAL_SEED_MIN, so the two never share a
 * view. */
#define SCENE_TRAIN_SEED_MIN 0u
#define SCENE_TRAIN_SEED_MAX 9999u
#define SCENE_EVAL_SEED_MIN 1000000u

/* The largest samples per pixel (a 64 x 64 grid). */
#define SCENE_MAX_SPP 4096

/* ---- what there is ------------------------------------------------------------------- */

/* Scenes by index 0..scene_count()-1: name ("courtyard") and one line saying what is in it. */
int scene_count(void);
const char *scene_name(int index);
const char *scene_description(int index);
/* True for scenes made for the tests (known geometry) rather than for evaluation. */
bool scene_is_test_only(int index);

/* Camera paths by index 0..scene_path_count()-1: name ("orbit") and description. */
int scene_path_count(void);
const char *scene_path_name(int index);
const char *scene_path_description(int index);
/* The time of the camera cut of the "cut" path, in seconds: views at t < this show the first
 * shot, views at t >= this the second. */
double scene_cut_time(void);

/* ---- jitter --------------------------------------------------------------------------- *
 * The jitter sequence and its phase count are the library's temporal helpers
 * (upf_jitter_offset, upf_jitter_phase_count in upframe.h). */

/* ---- building and rendering ----------------------------------------------------------- */

typedef struct scene scene;

/* Builds scene `name` with `seed` (geometry, textures and their mip chains, camera paths):
 * tens of milliseconds. The context's workers render. *out is NULL on failure. */
upf_result scene_create(upf_context *ctx, const char *name, uint32_t seed, scene **out);

/* Accepts NULL and a pointer to NULL. */
void scene_destroy(scene **s);

/* Triangles in the scene (static and moving), for the record. */
int scene_triangle_count(const scene *s);

typedef enum scene_depth_mode {
    SCENE_DEPTH_DEFAULT = 0,  /* SCENE_DEPTH_REVERSED */
    SCENE_DEPTH_REVERSED = 1, /* 1 at near, 0 at far */
    SCENE_DEPTH_FORWARD = 2   /* 0 at near, 1 at far */
} scene_depth_mode;

/* A progress report: `fraction` of the view done, 0..1. Called from the thread that runs the
 * context's worker 0 (with the context's own pool: the thread that called scene_render),
 * at most once per tile. */
typedef void (*scene_progress_fn)(void *priv, double fraction);

/* One view. Every field's zero value means its default. */
typedef struct scene_view_params {
    const char *path;       /* camera path name; NULL or "": "still" */
    double time;            /* seconds (any real value: t = n / fps for frame n) */
    double frame_interval;  /* seconds back to the previous frame, for the motion vectors;
                             * 0: 1/30 */
    int width, height;      /* render size, 1..16384 each; no default */
    int spp;                /* samples per pixel, 1..SCENE_MAX_SPP; 0: 1 */
    double jitter_x, jitter_y; /* render pixels, each in [-0.5, 0.5) */
    double mip_bias;        /* added to every texture level of detail, in [-8, 8] */
    scene_depth_mode depth; /* depth convention */
    bool infinite_far;      /* depth with an infinite far plane (the geometry is still cut at
                             * the scene's far distance) */
    bool matte;             /* view-independent shading: no highlights, reflections or fog,
                             * so a surface point has one colour from anywhere (for tests of
                             * the motion vectors by warping) */
    scene_progress_fn progress; /* optional */
    void *progress_priv;
} scene_view_params;

#ifndef __cplusplus
#define scene_view_params(...) (&(const scene_view_params){ __VA_ARGS__ })
#endif

/* Where a render goes: tightly packed float buffers of width * height pixels (rows top to
 * bottom), each of which may be NULL to skip it:
 *   color  4 floats a pixel, linear RGBA without the HUD (A = 1)
 *   hud    4 floats a pixel, the HUD layer: linear RGB, straight alpha
 *   depth  1 float a pixel, in the chosen convention
 *   motion 2 floats a pixel, (mv_x, mv_y) in render pixels, previous - current */
typedef struct scene_buffers {
    float *color;
    float *hud;
    float *depth;
    float *motion;
} scene_buffers;

/* The camera of a view (the JSON sidecar writes all of it). */
typedef struct scene_camera {
    double view[16];          /* world -> view at `time` */
    double proj[16];          /* view -> clip, unjittered, in the view's depth convention */
    double proj_jittered[16]; /* the same with the jitter translation */
    double prev_view[16];     /* at prev_time (what the motion vectors point back to) */
    double prev_proj[16];
    double position[3];       /* camera position in the world */
    double near_plane;        /* metres */
    double far_plane;         /* metres; INFINITY when infinite_far was asked */
    double geometry_far;      /* where the geometry is cut, metres (finite) */
    double fov_y;             /* vertical field of view, radians */
    double aspect;            /* width / height */
    double jitter_x, jitter_y;
    double time, prev_time;   /* seconds */
    bool cut;                 /* the previous frame is on the other side of a camera cut:
                               * motion vectors point into an unrelated shot (reset history) */
    bool depth_reversed;
} scene_camera;

/* Renders one view of `s` into `out` (any buffer may be NULL) and, if `camera` is not NULL,
 * records its camera. Fails with UPF_ERROR_INVALID_ARGUMENT (unknown path, a size, spp,
 * jitter, bias or time out of range, NaN) or UPF_ERROR_OUT_OF_MEMORY, leaving the buffers
 * in an unspecified state. */
upf_result scene_render(scene *s, const scene_view_params *params, const scene_buffers *out,
                        scene_camera *camera);

/* The context a scene was made with (for upf_context_last_error). */
upf_context *scene_context(const scene *s);

#endif /* UPF_SCENE_H */
