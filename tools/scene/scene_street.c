/* scene_street.c: "street": a long straight city street (running along z, 300 m) crossed by
 * a side street. Asphalt with lane markings and a zebra crossing, raised pavements with
 * kerbs, blocks of buildings with window grids and floor ledges, a fire escape of diagonal
 * stairs, utility poles with sagging overhead wires along and across the street, street
 * lamps, a traffic light, shop signs, parked and moving cars (glossy paint, chrome and glass
 * with small highlights), distant towers in the haze. Moving: cars driving both ways with
 * turning wheels, a figure walking on the corner, a sign cube turning on a pole.
 *
 * Writes the scene's geometry, materials, lights and camera rig; the seed picks the
 * buildings' sizes, materials and colours, the cars and their speeds, and moves the camera
 * a little. */
#include <math.h>
#include <stdio.h>

#include "scene/scene_internal.h"

static mat4 place(float x, float y, float z, float yaw)
{
    mat4 t = m4_translate(x, y, z), r = m4_rotate_y(yaw);
    return m4_mul(&t, &r);
}

typedef struct street_mats {
    int facade[4], glass, ledge, roof, asphalt, pave, kerb, paint_white, paint_yellow, pole,
        wire, lamp, chrome, tyre, car_glass, car_paint[6], red_light, green_light, dark, shopsign[4];
} street_mats;

/* A block of building, in a frame (`frame`: local to world) where the street runs along z:
 * footprint from z0 to z1 with its street face at x = face_x, going back `depth` metres
 * (towards -x for side = -1, a building on the left, or +x for side = +1), `floors` floors
 * of 3.2 m, a window grid, a ledge along every floor, sometimes a shop front and sign. */
static void building(scene *s, scene_rng *rng, const street_mats *m, const mat4 *frame, int side,
                     float face_x, float z0, float z1, int floors, float depth)
{
    float h = 3.2f * (float)floors + 0.6f;
    float cx = face_x + (float)side * 0.5f * depth, cz = 0.5f * (z0 + z1);
    int fac = m->facade[scene_rng_u32(rng) % 4];
    mat4 b = m4_translate(cx, 0.5f * h, cz);
    mat4 fb = m4_mul(frame, &b);
    scene__add_box(s, &fb, v3(0.5f * depth, 0.5f * h, 0.5f * (z1 - z0)), fac, 1.0f, 0);
    /* a parapet */
    mat4 p = m4_translate(face_x + (float)side * 0.15f, h + 0.3f, cz);
    mat4 fp = m4_mul(frame, &p);
    scene__add_box(s, &fp, v3(0.2f, 0.3f, 0.5f * (z1 - z0) + 0.05f), m->ledge, 1.0f, 0);
    /* the windows face the street: yaw so that the card's +z points along -side x */
    float yaw = side < 0 ? 1.5707963f : -1.5707963f;
    float fx = face_x - (float)side * 0.02f;
    float bay = scene_rng_range(rng, 2.4f, 3.2f);
    int nb = (int)((z1 - z0 - 1.0f) / bay);
    if (nb < 1)
        nb = 1;
    float start = cz - 0.5f * bay * (float)(nb - 1);
    float ww = 0.45f * bay + scene_rng_range(rng, 0.0f, 0.3f);
    bool shop = scene_rng_u32(rng) % 2 == 0;
    for (int f = shop ? 1 : 0; f < floors; f++) {
        float y = 3.2f * (float)f + 0.9f;
        for (int i = 0; i < nb; i++) {
            mat4 w = place(fx, y, start + bay * (float)i, yaw);
            mat4 fw = m4_mul(frame, &w);
            scene__add_card(s, &fw, ww, 1.7f, m->glass);
        }
        /* the ledge under this floor's windows: one long bar across the facade */
        mat4 l = m4_translate(face_x - (float)side * 0.08f, y - 0.06f, cz);
        mat4 fl = m4_mul(frame, &l);
        scene__add_box(s, &fl, v3(0.08f, 0.06f, 0.5f * (z1 - z0) - 0.2f), m->ledge, 1.0f, 0);
    }
    if (shop) {
        /* a shop front: a wide window and a sign over it */
        mat4 w = place(fx, 0.3f, cz, yaw);
        mat4 fw = m4_mul(frame, &w);
        scene__add_card(s, &fw, 0.7f * (z1 - z0), 2.3f, m->glass);
        mat4 sg = place(face_x - (float)side * 0.06f, 2.75f, cz, yaw);
        mat4 fs = m4_mul(frame, &sg);
        scene__add_sign(s, &fs, fminf(6.0f, 0.6f * (z1 - z0)), 0.8f,
                        m->shopsign[scene_rng_u32(rng) % 4], m->dark);
    }
}

/* Buildings along one side of a street from z = za down to zb (za > zb), skipping the
 * stretch (gap0, gap1). */
static void block_row(scene *s, scene_rng *rng, const street_mats *m, const mat4 *frame, int side,
                      float za, float zb, float gap0, float gap1, int extra_far)
{
    float z = za;
    while (z > zb + 10.0f) {
        float len = scene_rng_range(rng, 14.0f, 24.0f);
        float z1 = z, z0 = z - len;
        if (z0 < gap1 && z1 > gap0) { /* skip the crossing */
            z = gap0;
            continue;
        }
        int floors = 3 + (int)(scene_rng_u32(rng) % 6);
        if (z0 < -150.0f)
            floors += extra_far; /* taller far away: distant detail */
        building(s, rng, m, frame, side, 9.0f * (float)side, z0, z1, floors,
                 scene_rng_range(rng, 10.0f, 16.0f));
        z = z0 - 0.01f;
    }
}

/* A wire sagging between two points: a catenary-like parabola in 8 straight pieces. */
static void wire(scene *s, vec3 a, vec3 b, float sag, int mat)
{
    vec3 prev = a;
    for (int i = 1; i <= 8; i++) {
        float t = (float)i / 8.0f;
        vec3 p = v3_lerp(a, b, t);
        p.y -= 4.0f * sag * t * (1.0f - t);
        scene__add_bar(s, NULL, prev, p, 0.025f, mat);
        prev = p;
    }
}

/* A car at the origin facing -z (length 4.2 m), with four wheels as child instances that spin
 * with the car's speed (rad/s = speed / radius) when `moving`. */
static void car(scene *s, const street_mats *m, int paint, int parent, double wheel_rate)
{
    mat4 body = m4_translate(0, 0.55, 0);
    scene__add_box(s, &body, v3(0.88f, 0.32f, 2.1f), paint, 1.0f, 0);
    mat4 cabin = m4_translate(0, 1.12, 0.2);
    scene__add_box(s, &cabin, v3(0.78f, 0.26f, 1.1f), m->car_glass, 1.0f, 0);
    mat4 roof = m4_translate(0, 1.4, 0.2);
    scene__add_box(s, &roof, v3(0.8f, 0.03f, 1.0f), paint, 1.0f, 0);
    /* chrome bumpers and lamps */
    mat4 fb = m4_translate(0, 0.35, -2.12);
    scene__add_box(s, &fb, v3(0.9f, 0.06f, 0.04f), m->chrome, 1.0f, 0);
    mat4 rb = m4_translate(0, 0.35, 2.12);
    scene__add_box(s, &rb, v3(0.9f, 0.06f, 0.04f), m->chrome, 1.0f, 0);
    for (int k = -1; k <= 1; k += 2) {
        mat4 hl = m4_translate(0.6 * k, 0.62, -2.11);
        scene__add_box(s, &hl, v3(0.14f, 0.06f, 0.02f), m->lamp, 1.0f, 0);
        mat4 tl = m4_translate(0.6 * k, 0.62, 2.11);
        scene__add_box(s, &tl, v3(0.14f, 0.05f, 0.02f), m->red_light, 1.0f, 0);
    }
    scene__end_instance(s);
    for (int w = 0; w < 4; w++) {
        double x = (w & 1) ? 0.82 : -0.82, z = (w & 2) ? 1.35 : -1.35;
        scene_anim spin = { .kind = ANIM_SPIN, .axis = d3(1, 0, 0), .rate = wheel_rate };
        mat4 at = m4_translate(x, 0.34, z);
        scene__begin_instance(s, parent, &at, spin);
        mat4 r = m4_rotate(d3(0, 0, 1), -1.5707963);
        mat4 o = m4_translate(0, -0.1, 0);
        mat4 ro = m4_mul(&r, &o);
        scene__add_cylinder(s, &ro, 0.34f, 0.34f, 0.2f, 12, true, m->tyre, 1.0f, 1.0f);
        /* a chrome spoke so the turning shows */
        scene__add_bar(s, NULL, v3(x > 0 ? 0.11f : -0.11f, -0.25f, 0), v3(x > 0 ? 0.11f : -0.11f, 0.25f, 0),
                       0.05f, m->chrome);
        scene__end_instance(s);
    }
}

void scene__build_street(scene *s, scene_rng *rng)
{
    static const char *const shops[] = { "PHARMACY", "HOTEL 24H", "BAKERY", "PIZZA & PASTA",
                                         "BOOKS", "CAFE", "HARDWARE", "NEWS" };
    s->hud_title = "MEET THE CONTACT AT 5TH & MAIN";
    s->env = (scene_env){ .sun_dir = v3_normalize(v3(0.6f, 0.55f, 0.35f)),
                          .sun_color = v3(2.4f, 2.2f, 1.9f),
                          .sky_zenith = scene__rgb(0x3d6fb5), .sky_horizon = scene__rgb(0xc4cfd8),
                          .ground_color = scene__rgb(0x5a5650), .ambient = 0.5f,
                          .fog_density = 0.0045f, .sun_disc = 30.0f };

    street_mats m;
    int t_brick = scene__make_texture(s, TEXGEN_BRICK, 512, 256, 1);
    int t_conc = scene__make_texture(s, TEXGEN_CONCRETE, 256, 256, 2);
    int t_plaster = scene__make_texture(s, TEXGEN_PLASTER, 256, 256, 3);
    int t_stone = scene__make_texture(s, TEXGEN_STONE_WALL, 512, 512, 4);
    int t_window = scene__make_texture(s, TEXGEN_WINDOW, 128, 256, 5);
    int t_asphalt = scene__make_texture(s, TEXGEN_ASPHALT, 256, 256, 6);
    int t_pave = scene__make_texture(s, TEXGEN_PAVEMENT, 256, 256, 7);
    int t_metal = scene__make_texture(s, TEXGEN_METAL, 128, 128, 8);
    m.facade[0] = scene__add_material(s, (scene_material){ .texture = t_brick, .tint = v3(1, 1, 1),
                                                           .uv_scale = { 1.0f / 1.2f, 1.0f / 0.6f } });
    m.facade[1] = scene__add_material(s, (scene_material){ .texture = t_conc, .tint = v3(0.9f, 0.9f, 0.92f),
                                                           .uv_scale = { 0.25f, 0.25f } });
    m.facade[2] = scene__add_material(s, (scene_material){ .texture = t_plaster,
                                                           .tint = scene__rgb(0xf0c890),
                                                           .uv_scale = { 0.2f, 0.2f } });
    m.facade[3] = scene__add_material(s, (scene_material){ .texture = t_stone, .tint = v3(0.95f, 0.92f, 0.88f),
                                                           .uv_scale = { 0.5f, 0.5f } });
    m.glass = scene__add_material(s, (scene_material){ .texture = t_window, .tint = v3(1, 1, 1),
                                                       .specular = 1.0f, .shininess = 250, .reflect = 0.85f });
    m.ledge = scene__add_material(s, (scene_material){ .texture = t_conc, .tint = v3(1.1f, 1.08f, 1.05f) });
    m.roof = m.ledge;
    m.asphalt = scene__add_material(s, (scene_material){ .texture = t_asphalt, .tint = v3(1, 1, 1),
                                                         .uv_scale = { 0.5f, 0.5f },
                                                         .specular = 0.3f, .shininess = 30 });
    m.pave = scene__add_material(s, (scene_material){ .texture = t_pave, .tint = v3(1, 1, 1) });
    m.kerb = scene__add_material(s, (scene_material){ .texture = t_conc, .tint = v3(0.85f, 0.85f, 0.85f) });
    m.paint_white = scene__add_material(s, (scene_material){ .texture = -1, .tint = v3(0.85f, 0.85f, 0.82f) });
    m.paint_yellow = scene__add_material(s, (scene_material){ .texture = -1, .tint = scene__rgb(0xe8b020) });
    m.pole = scene__add_material(s, (scene_material){ .texture = t_metal, .tint = v3(0.7f, 0.7f, 0.7f),
                                                      .specular = 0.5f, .shininess = 40 });
    m.wire = scene__add_material(s, (scene_material){ .texture = -1, .tint = v3(0.03f, 0.03f, 0.03f),
                                                      .no_shadow = true });
    m.lamp = scene__add_material(s, (scene_material){ .texture = -1, .tint = v3(1, 1, 1),
                                                      .emissive = v3(8.0f, 7.0f, 5.0f) });
    m.chrome = scene__add_material(s, (scene_material){ .texture = -1, .tint = v3(0.5f, 0.5f, 0.5f),
                                                        .specular = 3.0f, .shininess = 500, .reflect = 0.9f });
    m.tyre = scene__add_material(s, (scene_material){ .texture = -1, .tint = v3(0.03f, 0.03f, 0.03f) });
    m.car_glass = scene__add_material(s, (scene_material){ .texture = -1, .tint = v3(0.02f, 0.025f, 0.03f),
                                                           .specular = 2.0f, .shininess = 400, .reflect = 0.9f });
    static const uint32_t paints[6] = { 0xb01818, 0x1a3f8f, 0xe8e8e8, 0x202020, 0x2f7a3a, 0xd8a020 };
    for (int i = 0; i < 6; i++)
        m.car_paint[i] = scene__add_material(s, (scene_material){ .texture = -1,
                                                                  .tint = scene__rgb(paints[i]),
                                                                  .specular = 1.5f, .shininess = 300,
                                                                  .reflect = 0.5f });
    m.red_light = scene__add_material(s, (scene_material){ .texture = -1, .tint = v3(0.2f, 0.0f, 0.0f),
                                                           .emissive = v3(4.0f, 0.2f, 0.1f) });
    m.green_light = scene__add_material(s, (scene_material){ .texture = -1, .tint = v3(0.0f, 0.2f, 0.0f),
                                                             .emissive = v3(0.2f, 4.0f, 1.0f) });
    m.dark = scene__add_material(s, (scene_material){ .texture = t_metal, .tint = v3(0.3f, 0.3f, 0.3f) });
    for (int i = 0; i < 4; i++) {
        static const uint32_t boards[4] = { 0x1f4f2f, 0x8a1c1c, 0x1c2f6a, 0x202020 };
        int t = scene__make_sign(s, shops[(scene_rng_u32(rng) % 2) * 4 + i], scene__rgb(boards[i]),
                                 scene__rgb(0xf4ecd0), 512, 128);
        m.shopsign[i] = t;
    }
    int t_street = scene__make_sign(s, "MAIN ST", scene__rgb(0x1e6a3a), scene__rgb(0xffffff), 256, 64);
    int t_street2 = scene__make_sign(s, "5TH AVE", scene__rgb(0x1e6a3a), scene__rgb(0xffffff), 256, 64);
    int t_cube = scene__make_sign(s, "PIZZA", scene__rgb(0xd02020), scene__rgb(0xfff0c0), 256, 128);

    /* the main road: x in [-5, 5], z from -320 to 60; the side street crosses at z in
     * [-72, -60] */
    const float zmin = -320.0f, zmax = 60.0f, cz0 = -72.0f, cz1 = -60.0f;
    {
        vec3 road[4] = { v3(-5, 0, zmax), v3(5, 0, zmax), v3(5, 0, zmin), v3(-5, 0, zmin) };
        float uv[4][2] = { { -5, zmax }, { 5, zmax }, { 5, zmin }, { -5, zmin } };
        scene__add_quad(s, NULL, road, uv, m.asphalt);
        vec3 side_road[4] = { v3(-160, 0, cz1), v3(-5, 0, cz1), v3(-5, 0, cz0), v3(-160, 0, cz0) };
        float uv2[4][2] = { { -160, cz1 }, { -5, cz1 }, { -5, cz0 }, { -160, cz0 } };
        scene__add_quad(s, NULL, side_road, uv2, m.asphalt);
        vec3 side_road2[4] = { v3(5, 0, cz1), v3(160, 0, cz1), v3(160, 0, cz0), v3(5, 0, cz0) };
        float uv3[4][2] = { { 5, cz1 }, { 160, cz1 }, { 160, cz0 }, { 5, cz0 } };
        scene__add_quad(s, NULL, side_road2, uv3, m.asphalt);
    }
    /* the ground under it all (back yards, gaps between blocks), 2 cm below the road */
    {
        vec3 g[4] = { v3(-400, -0.02f, 200), v3(400, -0.02f, 200), v3(400, -0.02f, -500),
                      v3(-400, -0.02f, -500) };
        float uv[4][2] = { { -400, 200 }, { 400, 200 }, { 400, -500 }, { -400, -500 } };
        scene__add_quad(s, NULL, g, uv, m.kerb);
    }

    /* markings: dashed centre line, solid edge lines, a zebra crossing (1 cm high) */
    for (float z = zmax - 2.0f; z > zmin; z -= 6.0f) {
        if (z < cz1 + 4.0f && z > cz0 - 4.0f)
            continue;
        mat4 d = m4_translate(0, 0.005, z - 1.5f);
        scene__add_box(s, &d, v3(0.07f, 0.005f, 1.5f), m.paint_white, 1.0f, 0x04u);
    }
    for (int k = -1; k <= 1; k += 2) {
        for (int seg = 0; seg < 2; seg++) {
            float za = seg == 0 ? cz1 + 4.0f : zmin, zb = seg == 0 ? zmax : cz0 - 4.0f;
            mat4 e = m4_translate(4.6f * (float)k, 0.005, 0.5f * (za + zb));
            scene__add_box(s, &e, v3(0.06f, 0.005f, 0.5f * (zb - za)), m.paint_yellow, 1.0f, 0x04u);
        }
    }
    for (int i = 0; i < 9; i++) {
        mat4 z = m4_translate(-4.0f + 1.0f * (float)i, 0.005, cz1 + 2.2f);
        scene__add_box(s, &z, v3(0.25f, 0.005f, 1.5f), m.paint_white, 1.0f, 0x04u);
    }

    /* pavements (15 cm high, 4 m wide) with kerbs, in four pieces around the crossing */
    for (int k = -1; k <= 1; k += 2) {
        for (int seg = 0; seg < 2; seg++) {
            float za = seg == 0 ? cz1 : zmin, zb = seg == 0 ? zmax : cz0;
            mat4 p = m4_translate(7.0f * (float)k, 0.075, 0.5f * (za + zb));
            scene__add_box(s, &p, v3(2.0f, 0.075f, 0.5f * (zb - za)), m.pave, 1.0f, 0x04u | 0x03u | 0x30u);
            mat4 kb = m4_translate(5.08f * (float)k, 0.08, 0.5f * (za + zb));
            scene__add_box(s, &kb, v3(0.1f, 0.08f, 0.5f * (zb - za)), m.kerb, 1.0f, 0);
        }
    }

    /* buildings: left (face at x = -9) and right (x = 9), blocks of 14..24 m, and along the
     * side street (its own frame: turned a quarter, so its z runs along world x) from 26 m
     * out, past the corner blocks */
    {
        mat4 id = m4_identity();
        for (int k = -1; k <= 1; k += 2)
            block_row(s, rng, &m, &id, k, zmax, zmin, cz0, cz1, 3);
        mat4 side_frame = m4_rotate_y(-1.5707963);
        mat4 shift = m4_translate(0, 0, 0);
        for (int k = -1; k <= 1; k += 2) {
            /* side street frame: local z = world x, local x = world -z + offset */
            mat4 t = m4_translate(0, 0, 0.5 * (cz0 + cz1));
            mat4 f = m4_mul(&t, &side_frame);
            f = m4_mul(&f, &shift);
            block_row(s, rng, &m, &f, k, -26.0f, -150.0f, 1e9f, 1e9f, 0);
            block_row(s, rng, &m, &f, k, 150.0f, 26.0f, 1e9f, 1e9f, 0);
        }
        /* pavements along the side street */
        for (int k = -1; k <= 1; k += 2)
            for (int e = -1; e <= 1; e += 2) {
                mat4 pv = m4_translate(e * 82.0, 0.075, 0.5 * (cz0 + cz1) + k * 8.0);
                scene__add_box(s, &pv, v3(73.0f, 0.075f, 2.0f), m.pave, 1.0f, 0);
            }
    }

    /* towers at the end of the street */
    for (int i = 0; i < 5; i++) {
        float x = scene_rng_range(rng, -60.0f, 60.0f), z = zmin - scene_rng_range(rng, 20.0f, 120.0f);
        float h = scene_rng_range(rng, 40.0f, 110.0f);
        mat4 t = m4_translate(x, 0.5f * h, z);
        scene__add_box(s, &t, v3(scene_rng_range(rng, 8.0f, 15.0f), 0.5f * h, 10.0f), m.facade[1], 1.0f, 0);
    }

    /* a fire escape on the first right-hand building: diagonal flights and landings */
    {
        float x = 8.6f, zc = 40.0f;
        for (int f = 0; f < 4; f++) {
            float y = 3.2f * (float)f + 3.0f;
            mat4 l = m4_translate(x, y, zc);
            scene__add_box(s, &l, v3(0.5f, 0.03f, 2.0f), m.dark, 1.0f, 0);
            scene__add_railing(s, v3(x - 0.5f, y, zc - 2.0f), v3(x - 0.5f, y, zc + 2.0f), 0.9f, 0.15f,
                               0.02f, m.dark);
            /* a flight down to the next landing, diagonal */
            float dz = (f & 1) ? 1.0f : -1.0f;
            for (int st = 0; st < 8; st++) {
                float t = (float)st / 8.0f;
                mat4 step = m4_translate(x, y - 3.2f * t - 0.2f, zc + dz * (1.8f - 3.6f * t));
                if (f == 0 && y - 3.2f * t < 1.0f)
                    break;
                scene__add_box(s, &step, v3(0.4f, 0.02f, 0.12f), m.dark, 1.0f, 0);
            }
            scene__add_bar(s, NULL, v3(x - 0.42f, y + 0.9f, zc + dz * 1.8f),
                           v3(x - 0.42f, y - 2.3f, zc - dz * 1.8f), 0.03f, m.dark);
        }
    }

    /* utility poles every 25 m on both sides; wires along each side and some across */
    {
        vec3 tops[2][16];
        int n = 0;
        for (float z = 50.0f; z > -300.0f && n < 16; z -= 25.0f, n++) {
            for (int k = 0; k < 2; k++) {
                float x = k == 0 ? -5.6f : 5.6f;
                mat4 p = m4_translate(x, 0.15, z + (k ? 12.5f : 0.0f));
                scene__add_cylinder(s, &p, 0.14f, 0.11f, 8.5f, 8, false, m.pole, 1.0f, 1.0f);
                mat4 arm = m4_translate(x, 8.2, z + (k ? 12.5f : 0.0f));
                scene__add_box(s, &arm, v3(0.9f, 0.05f, 0.05f), m.pole, 1.0f, 0);
                tops[k][n] = v3(x, 8.2f, z + (k ? 12.5f : 0.0f));
            }
        }
        for (int k = 0; k < 2; k++)
            for (int i = 0; i + 1 < n; i++)
                for (int w = -1; w <= 1; w += 2) {
                    vec3 a = v3_add(tops[k][i], v3(0.8f * (float)w, 0, 0));
                    vec3 b = v3_add(tops[k][i + 1], v3(0.8f * (float)w, 0, 0));
                    wire(s, a, b, 0.45f, m.wire);
                }
        /* across the street, diagonally */
        for (int i = 0; i + 1 < n; i += 2)
            wire(s, v3_add(tops[0][i], v3(0.5f, 0.1f, 0)), v3_add(tops[1][i], v3(-0.5f, 0.1f, 0)), 0.6f, m.wire);
    }

    /* street lamps, a traffic light and street name signs at the crossing */
    for (float z = 30.0f; z > -250.0f; z -= 40.0f) {
        for (int k = -1; k <= 1; k += 2) {
            float x = 6.2f * (float)k;
            mat4 p = m4_translate(x, 0.15, z + (k > 0 ? 20.0f : 0.0f));
            scene__add_cylinder(s, &p, 0.09f, 0.07f, 6.0f, 8, false, m.pole, 1.0f, 1.0f);
            float zz = z + (k > 0 ? 20.0f : 0.0f);
            scene__add_bar(s, NULL, v3(x, 6.1f, zz), v3(x - 1.4f * (float)k, 6.5f, zz), 0.08f, m.pole);
            mat4 h = m4_translate(x - 1.5f * (float)k, 6.4f, zz);
            scene__add_box(s, &h, v3(0.3f, 0.06f, 0.16f), m.lamp, 1.0f, 0);
        }
    }
    {
        mat4 p = m4_translate(5.6, 0.15, cz1 + 5.0);
        scene__add_cylinder(s, &p, 0.1f, 0.1f, 4.2f, 8, false, m.dark, 1.0f, 1.0f);
        mat4 box = m4_translate(5.6, 3.6, cz1 + 5.0);
        scene__add_box(s, &box, v3(0.2f, 0.55f, 0.2f), m.dark, 1.0f, 0);
        mat4 r = m4_translate(5.6, 3.95, cz1 + 5.21);
        scene__add_sphere(s, &r, 0.11f, 10, 6, m.red_light);
        mat4 g = m4_translate(5.6, 3.3, cz1 + 5.21);
        scene__add_sphere(s, &g, 0.11f, 10, 6, m.dark);
        mat4 sg = place(5.6f, 4.3f, cz1 + 5.0f, 0.0f);
        scene__add_sign(s, &sg, 1.4f, 0.35f, t_street, m.dark);
        mat4 sg2 = place(5.6f, 4.75f, cz1 + 5.0f, 1.5707963f);
        scene__add_sign(s, &sg2, 1.4f, 0.35f, t_street2, m.dark);
    }

    /* parked cars */
    for (int i = 0; i < 5; i++) {
        float z = 35.0f - 22.0f * (float)i + scene_rng_range(rng, -3.0f, 3.0f);
        int k = i & 1 ? 1 : -1;
        mat4 at = place(3.8f * (float)k, 0.0f, z, k > 0 ? 0.0f : 3.14159265f);
        int inst = scene__begin_instance(s, -1, &at, (scene_anim){ .kind = ANIM_FIXED });
        car(s, &m, m.car_paint[scene_rng_u32(rng) % 6], inst, 0.0);
    }
    /* moving cars: two lanes, both ways, wrapping every 380 m (far away, in the haze): each
     * starts at one end of the street facing along it and drives forward (local -z) */
    for (int i = 0; i < 4; i++) {
        bool towards = (i & 1) != 0;
        double speed = scene_rng_range(rng, 7.0f, 12.0f);
        scene_anim drive = { .kind = ANIM_LINE, .a = d3(0, 0, 0), .b = d3(0, 0, -1),
                             .length = zmax - zmin, .speed = speed,
                             .phase = (zmax - zmin) * (0.15 + 0.2 * i) + scene_rng_range(rng, 0.0f, 20.0f) };
        mat4 start = m4_translate(towards ? 1.9 : -1.9, 0, towards ? zmin : zmax);
        mat4 heading = m4_rotate_y(towards ? SCENE_PI : 0.0);
        mat4 at = m4_mul(&start, &heading);
        int inst = scene__begin_instance(s, -1, &at, drive);
        car(s, &m, m.car_paint[scene_rng_u32(rng) % 6], inst, -speed / 0.34);
    }

    /* a sign cube turning on a pole by the pavement */
    {
        float z = 20.0f;
        mat4 p = m4_translate(-6.5, 0.15, z);
        scene__add_cylinder(s, &p, 0.06f, 0.06f, 3.0f, 8, false, m.pole, 1.0f, 1.0f);
        scene_anim spin = { .kind = ANIM_SPIN, .axis = d3(0, 1, 0), .rate = 0.8 };
        mat4 at = m4_translate(-6.5, 3.5, z);
        scene__begin_instance(s, -1, &at, spin);
        int mat = scene__add_material(s, (scene_material){ .texture = t_cube, .tint = v3(1, 1, 1),
                                                           .specular = 0.5f, .shininess = 60 });
        for (int f = 0; f < 4; f++) {
            mat4 r = m4_rotate_y(1.5707963 * f);
            mat4 o = m4_translate(0, -0.4, 0.6);
            mat4 ro = m4_mul(&r, &o);
            scene__add_card(s, &ro, 1.2f, 0.8f, mat);
        }
        mat4 top = m4_translate(0, 0.42, 0);
        scene__add_box(s, &top, v3(0.62f, 0.02f, 0.62f), m.dark, 1.0f, 0);
        mat4 bot = m4_translate(0, -0.42, 0);
        scene__add_box(s, &bot, v3(0.62f, 0.02f, 0.62f), m.dark, 1.0f, 0);
        scene__end_instance(s);
    }

    /* a figure walking on the corner pavement */
    scene__add_figure(s, d3(-7.0, 0.15, cz1 + 4.0), 1.4, 1.0, scene_rng_range(rng, 0.0f, 6.28f), 1.0f,
                      scene__rgb(0x6a2a7a), scene__rgb(0x2a2a2a), scene__rgb(0x8a5a3a));

    float jx = scene_rng_range(rng, -0.5f, 0.5f), jyaw = scene_rng_range(rng, -0.08f, 0.08f);
    s->shadow = (scene_shadow){ .box_min = v3(-30.0f, -0.2f, -130.0f), .box_max = v3(30.0f, 36.0f, 60.0f), .texel = 0.05f };
    s->rig = (scene_rig){
        .still = { d3(-2.5 + jx, 1.7, 48.0), -0.04 + jyaw, 0.04 },
        .pan_rate = 8.0 * SCENE_PI / 180.0,
        .orbit_center = d3(0, 2.0, 0.5 * (cz0 + cz1)), .orbit_radius = 7.0, .orbit_height = 4.0,
        .orbit_rate = 0.18, .orbit_phase = scene_rng_range(rng, 0.0f, 6.28f),
        /* a wide circle whose start runs up the left pavement towards -z */
        .walk_center = d3(-6.8 + 150.0, 0, 40.0), .walk_radius = 150.0, .walk_height = 1.85,
        .walk_speed = 1.4, .walk_phase = SCENE_PI, .walk_pitch = 0.02, .walk_dir = -1,
        .turn = { d3(0.0 + jx, 1.7, 10.0), jyaw, 0.04 }, .turn_rate = 120.0 * SCENE_PI / 180.0,
        .cut_a = { d3(3.0, 1.6, 30.0), 0.1 + jyaw, 0.06 },
        .cut_b = { d3(-7.5, 6.0, -40.0), -2.6 + jyaw, -0.2 },
        .cut_pan_rate = 4.0 * SCENE_PI / 180.0,
        .fov_y = 60.0 * SCENE_PI / 180.0, .near_plane = 0.1, .far_plane = 1000.0,
    };
}
