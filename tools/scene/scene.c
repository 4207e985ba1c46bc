/* scene.c: the scene renderer's API (scene.h): the table of scenes, building a scene for a
 * seed, and rendering a view: validating the parameters, placing the camera for the time and
 * the previous frame's time, making the projection of the asked depth convention, then the
 * HUD (hud.c) and the 3D view (raster.c). */
#include <math.h>
#include <string.h>

#include "scene/scene_internal.h"

static const scene_def scene_defs[] = {
    { "courtyard", "brick and stone walls, a finely tiled floor, railings and fences of thin bars "
                   "at several angles, signs with text, a fountain; a walking figure, a spinning "
                   "pinwheel, a sliding gate", false, scene__build_courtyard },
    { "forest", "alpha-tested foliage and grass cards, trunks, rocks, distant hills in fog; a "
                "walking figure, a circling bird, a turning windmill", false, scene__build_forest },
    { "street", "long straight edges at every angle: road markings, kerbs, facades with window "
                "grids, overhead wires, distant blocks; glossy cars with small highlights, "
                "street lamps, signs; moving cars, a walking figure, a turning sign",
      false, scene__build_street },
    { "interior", "a hall with stairs, pillars, a patterned marble floor, a bookshelf and small "
                  "objects under lamps; a walking figure, a ceiling fan, a clock, a rolling ball",
      false, scene__build_interior },
    { "calibration", "test scene of known geometry: a floor plane, a wall 12 m ahead, smooth "
                     "textures, a moving and a spinning box (used by the tests)",
      true, scene__build_calibration },
};

#define SCENE_COUNT ((int)(sizeof scene_defs / sizeof scene_defs[0]))

int scene_count(void)
{
    return SCENE_COUNT;
}

const char *scene_name(int index)
{
    return index >= 0 && index < SCENE_COUNT ? scene_defs[index].name : NULL;
}

const char *scene_description(int index)
{
    return index >= 0 && index < SCENE_COUNT ? scene_defs[index].description : NULL;
}

bool scene_is_test_only(int index)
{
    return index >= 0 && index < SCENE_COUNT && scene_defs[index].test_only;
}

upf_context *scene_context(const scene *s)
{
    return s ? s->ctx : NULL;
}

int scene_triangle_count(const scene *s)
{
    return s ? s->tri_count : 0;
}

void scene_destroy(scene **ps)
{
    if (!ps || !*ps)
        return;
    scene *s = *ps;
    upf_context *ctx = s->ctx;
    scene__raster_free(s);
    scene__shadow_free(s);
    for (int i = 0; i < s->texture_count; i++)
        scene__texture_free(ctx, &s->textures[i]);
    upf__free(ctx, s->verts);
    upf__free(ctx, s->vertex_instance);
    upf__free(ctx, s->indices);
    upf__free(ctx, s->tri_material);
    upf__free(ctx, s->instances);
    upf__free(ctx, s);
    *ps = NULL;
}

static void list_names(char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; i < SCENE_COUNT; i++) {
        strncat(buf, scene_defs[i].name, size - strlen(buf) - 1);
        if (i + 1 < SCENE_COUNT)
            strncat(buf, ", ", size - strlen(buf) - 1);
    }
}

upf_result scene_create(upf_context *ctx, const char *name, uint32_t seed, scene **out)
{
    upf__clear_error(ctx);
    if (!out)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "scene_create: out is NULL");
    *out = NULL;
    if (!ctx)
        return UPF_ERROR_INVALID_ARGUMENT;
    char names[256];
    list_names(names, sizeof names);
    if (!name)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "scene_create: name is NULL; expected "
                         "one of %s", names);
    const scene_def *def = NULL;
    for (int i = 0; i < SCENE_COUNT; i++)
        if (strcmp(scene_defs[i].name, name) == 0)
            def = &scene_defs[i];
    if (!def)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "scene_create: unknown scene '%s'; "
                         "expected one of %s", name, names);
    scene *s = upf__alloc(ctx, sizeof *s, "scene");
    if (!s)
        return UPF_ERROR_OUT_OF_MEMORY;
    s->ctx = ctx;
    s->def = def;
    s->seed = seed;
    /* instance 0: the static world */
    scene__begin_instance(s, -1, NULL, (scene_anim){ .kind = ANIM_FIXED });
    scene__end_instance(s);
    /* the builder's random numbers depend on the seed and the scene */
    uint32_t h = 2166136261u;
    for (const char *p = name; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u; /* FNV-1a */
    scene_rng rng = { ((uint64_t)h << 32) ^ (uint64_t)seed ^ 0x5851f42d4c957f2dull };
    def->build(s, &rng);
    if (!s->build_error) {
        upf_result r = scene__shadow_build(s);
        if (r != UPF_OK)
            scene__build_fail(s, r);
    }
    if (s->build_error) {
        upf_result r = s->build_error;
        const char *msg = "";
        upf_context_last_error(ctx, &msg);
        if (!msg[0])
            upf__fail(ctx, r, "scene_create: building %s failed", name);
        scene_destroy(&s);
        return r;
    }
    *out = s;
    return UPF_OK;
}

/* ---- rendering ---- */

static double yaw_of(const mat4 *view)
{
    /* forward = -(third row); yaw 0 looks along -z, positive turns left */
    double fx = -view->m[2][0], fz = -view->m[2][2];
    return atan2(-fx, -fz);
}

static void store(double dst[16], const mat4 *m)
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            dst[4 * i + j] = m->m[i][j];
}

upf_result scene_render(scene *s, const scene_view_params *params, const scene_buffers *out,
                        scene_camera *camera)
{
    if (!s)
        return UPF_ERROR_INVALID_ARGUMENT;
    upf_context *ctx = s->ctx;
    upf__clear_error(ctx);
    if (!params)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "scene_render: params is NULL");
    if (!out)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "scene_render: out is NULL");
    const scene_view_params *p = params;
    const char *path_name = p->path && p->path[0] ? p->path : "still";
    int path = scene__path_index(path_name);
    if (path < 0)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "scene_render: unknown path '%s'; "
                         "expected still, pan, orbit, walk, turn or cut", path_name);
    if (p->width < 1 || p->height < 1 || p->width > UPF_MAX_IMAGE_DIMENSION ||
        p->height > UPF_MAX_IMAGE_DIMENSION)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "scene_render: size %dx%d; expected "
                         "1..%d on each side", p->width, p->height, UPF_MAX_IMAGE_DIMENSION);
    int spp = p->spp ? p->spp : 1;
    if (spp < 1 || spp > SCENE_MAX_SPP)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "scene_render: spp %d; expected "
                         "1..%d", p->spp, SCENE_MAX_SPP);
    if (!isfinite(p->time) || fabs(p->time) > 1e6)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "scene_render: time %g; expected a "
                         "finite number of seconds within +-1e6", p->time);
    double dt = p->frame_interval == 0.0 ? 1.0 / 30.0 : p->frame_interval;
    if (!isfinite(dt) || dt <= 0.0 || dt > 60.0)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "scene_render: frame_interval %g; "
                         "expected 0 (1/30 s) or a time in (0, 60] s", p->frame_interval);
    if (!(p->jitter_x >= -0.5 && p->jitter_x < 0.5) || !(p->jitter_y >= -0.5 && p->jitter_y < 0.5))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "scene_render: jitter (%g, %g); "
                         "expected each in [-0.5, 0.5) render pixels", p->jitter_x, p->jitter_y);
    if (!(p->mip_bias >= -8.0 && p->mip_bias <= 8.0))
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "scene_render: mip_bias %g; expected "
                         "-8..8", p->mip_bias);
    if (p->depth != SCENE_DEPTH_DEFAULT && p->depth != SCENE_DEPTH_REVERSED &&
        p->depth != SCENE_DEPTH_FORWARD)
        return upf__fail(ctx, UPF_ERROR_INVALID_ARGUMENT, "scene_render: depth mode %d; "
                         "expected SCENE_DEPTH_REVERSED or SCENE_DEPTH_FORWARD", (int)p->depth);
    bool reversed = p->depth != SCENE_DEPTH_FORWARD;

    const scene_rig *rig = &s->rig;
    scene_view vw;
    memset(&vw, 0, sizeof vw);
    vw.s = s;
    vw.width = p->width;
    vw.height = p->height;
    vw.jitter_x = p->jitter_x;
    vw.jitter_y = p->jitter_y;
    vw.mip_bias = (float)p->mip_bias;
    vw.time = p->time;
    vw.prev_time = p->time - dt;
    vw.near_plane = rig->near_plane;
    vw.far_plane = rig->far_plane;
    vw.depth_near = rig->near_plane;
    vw.depth_far = p->infinite_far ? INFINITY : rig->far_plane;
    vw.reversed = reversed;
    vw.infinite_far = p->infinite_far;
    vw.matte = p->matte;
    vw.aspect = (double)p->width / (double)p->height;
    vw.tan_half_fov = tan(0.5 * rig->fov_y);
    dvec3 prev_eye;
    mat4 prev_view;
    scene__camera_at(rig, path, vw.time, &vw.view, &vw.eye);
    scene__camera_at(rig, path, vw.prev_time, &prev_view, &prev_eye);
    vw.proj = scene__projection(rig->fov_y, vw.aspect, rig->near_plane, rig->far_plane, reversed,
                                p->infinite_far);
    vw.view_proj = m4_mul(&vw.proj, &vw.view);
    vw.prev_view_proj = m4_mul(&vw.proj, &prev_view);
    vw.inv_view = m4_inverse(&vw.view);

    /* Sky motion: screen (sx, sy, 1) -> view direction A (sx, sy, 1) -> world direction
     * (inverse view rotation) -> previous clip (rows x, y, w of the previous view-projection,
     * direction so no translation). */
    {
        double th = vw.tan_half_fov, a = vw.aspect;
        double A[3][3] = { { 2.0 * th * a / p->width, 0.0, -th * a },
                           { 0.0, -2.0 * th / p->height, th },
                           { 0.0, 0.0, -1.0 } };
        double B[3][3]; /* prev_vp rows (0, 1, 3), columns 0..2, times inv_view's rotation */
        const int rows[3] = { 0, 1, 3 };
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double acc = 0.0;
                for (int k = 0; k < 3; k++)
                    acc += vw.prev_view_proj.m[rows[i]][k] * vw.inv_view.m[k][j];
                B[i][j] = acc;
            }
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double acc = 0.0;
                for (int k = 0; k < 3; k++)
                    acc += B[i][k] * A[k][j];
                vw.sky_prev[i][j] = acc;
            }
    }

    if (camera) {
        memset(camera, 0, sizeof *camera);
        store(camera->view, &vw.view);
        store(camera->proj, &vw.proj);
        /* sample = centre + jitter: the image moves by -jitter, NDC by (-2 jx / W, +2 jy / H) */
        mat4 jt = m4_translate(-2.0 * p->jitter_x / p->width, 2.0 * p->jitter_y / p->height, 0.0);
        mat4 pj = m4_mul(&jt, &vw.proj);
        store(camera->proj_jittered, &pj);
        store(camera->prev_view, &prev_view);
        store(camera->prev_proj, &vw.proj);
        camera->position[0] = vw.eye.x;
        camera->position[1] = vw.eye.y;
        camera->position[2] = vw.eye.z;
        camera->near_plane = rig->near_plane;
        camera->far_plane = p->infinite_far ? INFINITY : rig->far_plane;
        camera->geometry_far = rig->far_plane;
        camera->fov_y = rig->fov_y;
        camera->aspect = vw.aspect;
        camera->jitter_x = p->jitter_x;
        camera->jitter_y = p->jitter_y;
        camera->time = vw.time;
        camera->prev_time = vw.prev_time;
        camera->cut = path == scene__path_index("cut") &&
                      ((vw.time >= scene_cut_time()) != (vw.prev_time >= scene_cut_time()));
        camera->depth_reversed = reversed;
    }

    if (out->hud)
        scene__hud_render(s, vw.time, yaw_of(&vw.view), p->width, p->height, out->hud);
    return scene__raster_view(s, &vw, spp, out, p->progress, p->progress_priv);
}
