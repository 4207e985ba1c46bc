/* scene_calibration.c: the test scene: geometry whose depth is known in closed form and
 * smooth textures, for the tests of depth, jitter and motion.
 *
 *  - the floor: the plane y = 0 (x in [-60, 60], z in [-150, 20]);
 *  - a wall: the plane z = -12, facing +z (x in [-40, 40], y in [0, 30]);
 *  - a box sliding to and fro along x (z = -6) and a box spinning about y (z = -8);
 *  - the "still" camera at (0, 1.6, 0) looking along -z, level: a floor pixel at screen row
 *    sy is at view distance 1.6 / ((2 sy / H - 1) tan(fov / 2)), a wall pixel at 12 m.
 * No fog and no sun (ambient light from the sky above and the ground below only), so a
 * surface's colour depends neither on the distance nor on turning about the vertical: a
 * warp by exact motion vectors reproduces the movers too. */
#include "scene/scene_internal.h"

/* The "still" camera's height and the wall's distance (used by the tests too). */
#define CALIB_EYE_HEIGHT 1.6
#define CALIB_WALL_Z (-12.0)

void scene__build_calibration(scene *s, scene_rng *rng)
{
    (void)rng;
    s->hud_title = "CALIBRATION";
    s->env = (scene_env){ .sun_dir = v3_normalize(v3(0.3f, 0.8f, 0.5f)),
                          .sun_color = v3(0.0f, 0.0f, 0.0f),
                          .sky_zenith = scene__rgb(0x5a8fd0), .sky_horizon = scene__rgb(0xc8d8e8),
                          .ground_color = scene__rgb(0x606058), .ambient = 1.2f,
                          .fog_density = 0.0f, .sun_disc = 0.0f };
    int t_floor = scene__make_texture(s, TEXGEN_SMOOTH, 256, 256, 1);
    int t_wall = scene__make_texture(s, TEXGEN_SMOOTH, 256, 256, 2);
    int t_box = scene__make_texture(s, TEXGEN_SMOOTH, 64, 64, 3);
    int m_floor = scene__add_material(s, (scene_material){ .texture = t_floor, .tint = v3(1, 1, 1),
                                                           .uv_scale = { 0.125f, 0.125f } });
    int m_wall = scene__add_material(s, (scene_material){ .texture = t_wall, .tint = v3(1, 1, 1),
                                                          .uv_scale = { 0.1f, 0.1f } });
    int m_box = scene__add_material(s, (scene_material){ .texture = t_box, .tint = v3(1, 0.9f, 0.8f),
                                                         .uv_scale = { 0.5f, 0.5f } });

    vec3 floor_q[4] = { v3(-60, 0, 20), v3(60, 0, 20), v3(60, 0, -150), v3(-60, 0, -150) };
    float floor_uv[4][2] = { { -60, 20 }, { 60, 20 }, { 60, -150 }, { -60, -150 } };
    scene__add_quad(s, NULL, floor_q, floor_uv, m_floor);
    vec3 wall_q[4] = { v3(-40, 0, (float)CALIB_WALL_Z), v3(40, 0, (float)CALIB_WALL_Z),
                       v3(40, 30, (float)CALIB_WALL_Z), v3(-40, 30, (float)CALIB_WALL_Z) };
    float wall_uv[4][2] = { { -40, 0 }, { 40, 0 }, { 40, -30 }, { -40, -30 } };
    scene__add_quad(s, NULL, wall_q, wall_uv, m_wall);

    scene_anim slide = { .kind = ANIM_SLIDE, .a = d3(-3, 0, 0), .b = d3(3, 0, 0), .period = 4.0 };
    mat4 at = m4_translate(0, 0.6, -6);
    scene__begin_instance(s, -1, &at, slide);
    scene__add_box(s, NULL, v3(0.6f, 0.6f, 0.6f), m_box, 1.0f, 0);
    scene__end_instance(s);
    scene_anim spin = { .kind = ANIM_SPIN, .axis = d3(0, 1, 0), .rate = 1.2 };
    mat4 at2 = m4_translate(3.5, 1.0, -8);
    scene__begin_instance(s, -1, &at2, spin);
    scene__add_box(s, NULL, v3(0.8f, 1.0f, 0.8f), m_box, 1.0f, 0);
    scene__end_instance(s);

    s->rig = (scene_rig){
        .still = { d3(0, CALIB_EYE_HEIGHT, 0), 0.0, 0.0 },
        .pan_rate = 8.0 * SCENE_PI / 180.0,
        .orbit_center = d3(0, 1, -6), .orbit_radius = 6.0, .orbit_height = 2.5,
        .orbit_rate = 0.3, .orbit_phase = 0.0,
        .walk_center = d3(-20, 0, 0), .walk_radius = 20.0, .walk_height = 1.6,
        .walk_speed = 1.4, .walk_phase = 0.0, .walk_pitch = -0.05, .walk_dir = 1,
        .turn = { d3(0, 1.6, 0), 0.0, -0.05 }, .turn_rate = 120.0 * SCENE_PI / 180.0,
        .cut_a = { d3(0, 1.6, 0), 0.2, 0.0 }, .cut_b = { d3(4, 3.0, -2), 0.6, -0.2 },
        .cut_pan_rate = 4.0 * SCENE_PI / 180.0,
        .fov_y = 60.0 * SCENE_PI / 180.0, .near_plane = 0.1, .far_plane = 500.0,
    };
}
