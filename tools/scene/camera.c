/* camera.c: the camera paths (still, slow pan, orbit, walk forward, fast turn, camera cut)
 * evaluated at any real time, and the projection matrices of the depth conventions. (The
 * jitter sequence is the library's: upf_jitter_offset, upf_jitter_phase_count.)
 *
 * Reads a scene's rig (scene_<name>.c sets it from the seed); writes view and projection
 * matrices (column vectors, m[row][col]). */
#include <math.h>
#include <string.h>

#include "scene/scene_internal.h"

static const struct {
    const char *name, *description;
} paths[] = {
    { "still", "a fixed camera" },
    { "pan", "the still camera turning slowly on the spot (8 degrees/s)" },
    { "orbit", "circling the scene's centre at a constant distance, looking at it" },
    { "walk", "walking forward (1.4 m/s, eye height, a little head bob) along a wide curve" },
    { "turn", "a fast turn on the spot (120 degrees/s)" },
    { "cut", "one shot, then at t = 1 s a cut to another shot (each panning slowly)" },
};

#define PATH_COUNT ((int)(sizeof paths / sizeof paths[0]))
#define CUT_TIME 1.0

int scene_path_count(void)
{
    return PATH_COUNT;
}

const char *scene_path_name(int index)
{
    return index >= 0 && index < PATH_COUNT ? paths[index].name : NULL;
}

const char *scene_path_description(int index)
{
    return index >= 0 && index < PATH_COUNT ? paths[index].description : NULL;
}

double scene_cut_time(void)
{
    return CUT_TIME;
}

int scene__path_index(const char *name)
{
    for (int i = 0; i < PATH_COUNT; i++)
        if (strcmp(paths[i].name, name) == 0)
            return i;
    return -1;
}

/* The view matrix of a camera at `eye` looking along unit `forward` with +y up: rows are
 * the camera's right, up and backward axes (view space looks down -z). */
static mat4 look_along(dvec3 eye, dvec3 forward)
{
    dvec3 f = d3_normalize(forward);
    dvec3 r = d3_normalize(d3_cross(f, d3(0, 1, 0)));
    dvec3 u = d3_cross(r, f);
    mat4 v = { { { r.x, r.y, r.z, -d3_dot(r, eye) },
                 { u.x, u.y, u.z, -d3_dot(u, eye) },
                 { -f.x, -f.y, -f.z, d3_dot(f, eye) },
                 { 0, 0, 0, 1 } } };
    return v;
}

static dvec3 yaw_pitch_dir(double yaw, double pitch)
{
    return d3(-sin(yaw) * cos(pitch), sin(pitch), -cos(yaw) * cos(pitch));
}

static dvec3 shot_forward(const scene_shot *s, double extra_yaw)
{
    return yaw_pitch_dir(s->yaw + extra_yaw, s->pitch);
}

void scene__camera_at(const scene_rig *rig, int path, double t, mat4 *view, dvec3 *eye)
{
    dvec3 e, f;
    switch (path) {
    default:
    case 0: /* still */
        e = rig->still.eye;
        f = shot_forward(&rig->still, 0.0);
        break;
    case 1: /* pan */
        e = rig->still.eye;
        f = shot_forward(&rig->still, rig->pan_rate * t);
        break;
    case 2: { /* orbit */
        double a = rig->orbit_phase + rig->orbit_rate * t;
        e = d3(rig->orbit_center.x + rig->orbit_radius * sin(a), rig->orbit_height,
               rig->orbit_center.z + rig->orbit_radius * cos(a));
        f = d3_sub(rig->orbit_center, e);
        break;
    }
    case 3: { /* walk: forward along a circle, head bob at the step rate (1.8 steps/s) */
        double dir = rig->walk_dir < 0 ? -1.0 : 1.0;
        double a = rig->walk_phase + dir * rig->walk_speed / rig->walk_radius * t;
        double bob = 0.025 * sin(2.0 * SCENE_PI * 1.8 * t);
        e = d3(rig->walk_center.x + rig->walk_radius * cos(a), rig->walk_height + bob,
               rig->walk_center.z - rig->walk_radius * sin(a));
        dvec3 tangent = d3(-sin(a) * dir, 0.0, -cos(a) * dir);
        double c = cos(rig->walk_pitch);
        f = d3(tangent.x * c, sin(rig->walk_pitch), tangent.z * c);
        break;
    }
    case 4: /* turn */
        e = rig->turn.eye;
        f = shot_forward(&rig->turn, rig->turn_rate * t);
        break;
    case 5: /* cut */
        if (t < CUT_TIME) {
            e = rig->cut_a.eye;
            f = shot_forward(&rig->cut_a, rig->cut_pan_rate * t);
        } else {
            e = rig->cut_b.eye;
            f = shot_forward(&rig->cut_b, -rig->cut_pan_rate * (t - CUT_TIME));
        }
        break;
    }
    *view = look_along(e, f);
    *eye = e;
}

mat4 scene__projection(double fov_y, double aspect, double near_plane, double far_plane,
                       bool reversed, bool infinite_far)
{
    /* x and y: the usual perspective scale f = 1 / tan(fov / 2). z: chosen so that
     * z_clip / w_clip is the depth of the convention, with w_clip = -z_view = distance d:
     *   forward finite:  z_clip = far (d - near) / (far - near)
     *   reversed finite: z_clip = near (far - d) / (far - near)
     *   reversed inf.:   z_clip = near
     *   forward inf.:    z_clip = d - near */
    double f = 1.0 / tan(0.5 * fov_y);
    mat4 p;
    memset(&p, 0, sizeof p);
    p.m[0][0] = f / aspect;
    p.m[1][1] = f;
    p.m[3][2] = -1.0;
    double n = near_plane, fa = far_plane;
    if (infinite_far && reversed) {
        p.m[2][2] = 0.0;
        p.m[2][3] = n;
    } else if (infinite_far) {
        p.m[2][2] = -1.0;
        p.m[2][3] = -n;
    } else if (reversed) {
        p.m[2][2] = n / (fa - n);
        p.m[2][3] = n * fa / (fa - n);
    } else {
        p.m[2][2] = -fa / (fa - n);
        p.m[2][3] = -n * fa / (fa - n);
    }
    return p;
}
