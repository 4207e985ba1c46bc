/* scene_courtyard.c: "courtyard": an open square (24 x 24 m) closed by brick and stone walls
 * with windows, a balcony railing of thin vertical bars, a diagonal trellis, low iron fences
 * at two angles, a finely tiled floor (10 cm tiles) with a stone border, signs with text, a
 * fountain, benches and lamps. Moving: a figure walking round the fountain, a pinwheel
 * spinning on a pole, a gate of bars sliding to and fro.
 *
 * Writes the scene's geometry, materials, lights and camera rig; the seed moves the camera,
 * the fences and the furniture a little and picks the colours and sign texts. */
#include <math.h>

#include "scene/scene_internal.h"

static mat4 place(float x, float y, float z, float yaw)
{
    mat4 t = m4_translate(x, y, z), r = m4_rotate_y(yaw);
    return m4_mul(&t, &r);
}

/* A window on a wall: a glass quad (window texture) 2 cm proud of the wall and a stone sill.
 * The window faces along the wall's outward normal given by `yaw` (0: facing +z). */
static void window(scene *s, float x, float y, float z, float yaw, float w, float h, int glass,
                   int sill)
{
    mat4 m = place(x, y, z, yaw);
    mat4 g = m4_translate(0, 0, 0.02);
    mat4 mg = m4_mul(&m, &g);
    scene__add_card(s, &mg, w, h, glass);
    mat4 sl = m4_translate(0, -0.04, 0.06);
    mat4 ms = m4_mul(&m, &sl);
    scene__add_box(s, &ms, v3(0.5f * w + 0.08f, 0.04f, 0.07f), sill, 1.0f, 0);
}

void scene__build_courtyard(scene *s, scene_rng *rng)
{
    static const char *const cafe_names[] = { "CAFE CORTILE", "BAR ROMA", "OSTERIA DEL PONTE",
                                              "CAFFE CENTRALE" };
    static const char *const plaques[] = { "NO PARKING\n8-18 H", "PRIVATE\nKEEP OUT",
                                           "EXIT ->\nVIA MAZZINI 12", "OPEN\n7:00 - 23:00" };
    s->hud_title = "REACH THE BALCONY";
    float warm = scene_rng_range(rng, -0.1f, 0.1f);
    s->env = (scene_env){ .sun_dir = v3_normalize(v3(0.55f, 0.6f, 0.6f)),
                          .sun_color = v3(2.5f + warm, 2.3f, 1.95f - warm),
                          .sky_zenith = scene__rgb(0x3f78c8), .sky_horizon = scene__rgb(0xb8cfe6),
                          .ground_color = scene__rgb(0x8a7d68), .ambient = 0.55f,
                          .fog_density = 0.002f, .sun_disc = 30.0f };

    /* textures and materials */
    int t_brick = scene__make_texture(s, TEXGEN_BRICK, 512, 256, 1);
    int t_stone = scene__make_texture(s, TEXGEN_STONE_WALL, 512, 512, 2);
    int t_tiles = scene__make_texture(s, TEXGEN_FLOOR_TILES, 512, 512, 3);
    int t_pave = scene__make_texture(s, TEXGEN_PAVEMENT, 256, 256, 4);
    int t_wood = scene__make_texture(s, TEXGEN_WOOD, 256, 256, 5);
    int t_metal = scene__make_texture(s, TEXGEN_METAL, 128, 128, 6);
    int t_window = scene__make_texture(s, TEXGEN_WINDOW, 128, 256, 7);
    int t_leaves = scene__make_texture(s, TEXGEN_LEAVES, 256, 256, 8);
    int t_plaster = scene__make_texture(s, TEXGEN_PLASTER, 256, 256, 9);
    int sign_cafe = scene__make_sign(s, cafe_names[scene_rng_u32(rng) % 4], scene__rgb(0x1d3b2a),
                                     scene__rgb(0xe8d9a8), 512, 128);
    int sign_plaque = scene__make_sign(s, plaques[scene_rng_u32(rng) % 4], scene__rgb(0xe6e2d6),
                                       scene__rgb(0x202020), 256, 128);
    int sign_number = scene__make_sign(s, "12", scene__rgb(0x24408a), scene__rgb(0xf0f0f0), 64, 64);

    vec3 brick_tint = v3(1.0f + scene_rng_range(rng, -0.08f, 0.08f), 1.0f, 1.0f);
    int m_brick = scene__add_material(s, (scene_material){ .texture = t_brick, .tint = brick_tint,
                                                           .uv_scale = { 1.0f / 1.2f, 1.0f / 0.6f },
                                                           .specular = 0.1f, .shininess = 12 });
    int m_stone = scene__add_material(s, (scene_material){ .texture = t_stone, .tint = v3(1, 1, 1),
                                                           .uv_scale = { 0.5f, 0.5f },
                                                           .specular = 0.1f, .shininess = 10 });
    int m_tiles = scene__add_material(s, (scene_material){ .texture = t_tiles, .tint = v3(1, 1, 1),
                                                           .uv_scale = { 1.25f, 1.25f },
                                                           .specular = 0.2f, .shininess = 80 });
    int m_pave = scene__add_material(s, (scene_material){ .texture = t_pave, .tint = v3(1, 1, 1) });
    int m_wood = scene__add_material(s, (scene_material){ .texture = t_wood, .tint = v3(1, 1, 1),
                                                          .uv_scale = { 1.0f / 1.2f, 1.0f / 1.2f } });
    int m_iron = scene__add_material(s, (scene_material){ .texture = t_metal, .tint = v3(0.6f, 0.6f, 0.6f),
                                                          .specular = 0.6f, .shininess = 60 });
    int m_glass = scene__add_material(s, (scene_material){ .texture = t_window, .tint = v3(1, 1, 1),
                                                           .specular = 1.0f, .shininess = 200,
                                                           .reflect = 0.8f });
    int m_sill = scene__add_material(s, (scene_material){ .texture = t_plaster, .tint = v3(0.95f, 0.93f, 0.9f) });
    int m_plaster = scene__add_material(s, (scene_material){ .texture = t_plaster,
                                                             .tint = v3(1.0f, 0.86f, 0.7f),
                                                             .uv_scale = { 0.25f, 0.25f } });
    int m_water = scene__add_material(s, (scene_material){ .texture = -1, .tint = scene__rgb(0x1b3440),
                                                           .specular = 2.0f, .shininess = 400,
                                                           .reflect = 1.0f });
    int m_leaves = scene__add_material(s, (scene_material){ .texture = t_leaves, .tint = v3(1, 1, 1),
                                                            .alpha_cutoff = 0.5f, .double_sided = true });
    int m_pot = scene__add_material(s, (scene_material){ .texture = -1, .tint = scene__rgb(0xa0522d),
                                                         .specular = 0.2f, .shininess = 20 });
    int m_lamp = scene__add_material(s, (scene_material){ .texture = -1, .tint = v3(1, 1, 1),
                                                          .emissive = v3(6.0f, 5.0f, 3.2f) });
    int m_door = scene__add_material(s, (scene_material){ .texture = t_wood,
                                                          .tint = v3(0.55f, 0.35f, 0.25f),
                                                          .uv_scale = { 1.0f / 1.2f, 1.0f / 1.2f } });
    int m_blade[4];
    static const uint32_t blade_col[4] = { 0xe03030, 0xf0c020, 0x3060e0, 0x30b040 };
    for (int i = 0; i < 4; i++)
        m_blade[i] = scene__add_material(s, (scene_material){ .texture = -1,
                                                              .tint = scene__rgb(blade_col[i]),
                                                              .specular = 0.5f, .shininess = 50,
                                                              .double_sided = true });

    /* floor: fine tiles inside a 1.5 m stone border */
    {
        mat4 m = m4_translate(0, -0.05, 0);
        scene__add_box(s, &m, v3(10.5f, 0.05f, 10.5f), m_tiles, 1.0f, 0x04u);
        for (int k = 0; k < 4; k++) {
            float yaw = (float)k * 1.5707963f;
            mat4 b = place(0, -0.05f, 0, yaw);
            mat4 o = m4_translate(0, 0, 11.25);
            mat4 bo = m4_mul(&b, &o);
            scene__add_box(s, &bo, v3(12.0f, 0.05f, 0.75f), m_pave, 1.0f, 0x04u);
        }
    }

    /* walls: north and west brick, east and south stone; 9 m high, 0.5 m thick */
    {
        mat4 m;
        m = m4_translate(0, 4.5, -12.25);
        scene__add_box(s, &m, v3(12.5f, 4.5f, 0.25f), m_brick, 1.0f, 0);
        m = m4_translate(-12.25, 4.5, 0);
        scene__add_box(s, &m, v3(0.25f, 4.5f, 12.0f), m_brick, 1.0f, 0);
        m = m4_translate(12.25, 4.5, -3.0);
        scene__add_box(s, &m, v3(0.25f, 4.5f, 9.0f), m_stone, 1.0f, 0);
        /* east wall: an opening from z = 6 to 9 (the gate), wall again to the corner */
        m = m4_translate(12.25, 4.5, 10.75);
        scene__add_box(s, &m, v3(0.25f, 4.5f, 1.75f), m_stone, 1.0f, 0);
        m = m4_translate(12.25, 6.5, 7.5);
        scene__add_box(s, &m, v3(0.25f, 2.5f, 1.5f), m_stone, 1.0f, 0);
        m = m4_translate(0, 4.5, 12.25);
        scene__add_box(s, &m, v3(12.5f, 4.5f, 0.25f), m_stone, 1.0f, 0);
        /* a plaster band and cornice along the top of the north wall */
        m = m4_translate(0, 8.7, -11.9);
        scene__add_box(s, &m, v3(12.0f, 0.15f, 0.12f), m_sill, 1.0f, 0);
        m = m4_translate(0, 3.0, -11.95);
        scene__add_box(s, &m, v3(12.0f, 0.1f, 0.06f), m_sill, 1.0f, 0);
    }

    /* windows: two rows on the north wall, one on the west and east walls */
    for (int i = 0; i < 6; i++) {
        float x = -8.75f + 3.5f * (float)i;
        window(s, x, 4.2f, -12.0f, 0.0f, 1.2f, 2.0f, m_glass, m_sill);
        window(s, x, 6.6f, -12.0f, 0.0f, 1.2f, 1.6f, m_glass, m_sill);
    }
    for (int i = 0; i < 4; i++) {
        float z = -8.0f + 4.5f * (float)i;
        window(s, -12.0f, 1.4f, z, 1.5707963f, 1.1f, 1.8f, m_glass, m_sill);
        window(s, -12.0f, 5.0f, z, 1.5707963f, 1.1f, 1.8f, m_glass, m_sill);
        if (z < 4.0f)
            window(s, 12.0f, 4.8f, z, -1.5707963f, 1.1f, 1.8f, m_glass, m_sill);
    }

    /* the balcony on the north wall: a slab and a railing of 2 cm bars 11 cm apart */
    {
        mat4 m = m4_translate(0, 3.55, -11.2);
        scene__add_box(s, &m, v3(6.2f, 0.08f, 0.8f), m_stone, 1.0f, 0);
        scene__add_railing(s, v3(-6.0f, 3.63f, -10.45f), v3(6.0f, 3.63f, -10.45f), 1.0f, 0.11f,
                           0.02f, m_iron);
        scene__add_railing(s, v3(-6.0f, 3.63f, -10.45f), v3(-6.0f, 3.63f, -12.0f), 1.0f, 0.11f,
                           0.02f, m_iron);
        scene__add_railing(s, v3(6.0f, 3.63f, -10.45f), v3(6.0f, 3.63f, -12.0f), 1.0f, 0.11f,
                           0.02f, m_iron);
        /* doors under the balcony and the cafe sign above them */
        mat4 d = m4_translate(-1.0, 1.2, -11.98);
        scene__add_box(s, &d, v3(0.8f, 1.2f, 0.03f), m_door, 1.0f, 0);
        d = m4_translate(1.0, 1.2, -11.98);
        scene__add_box(s, &d, v3(0.8f, 1.2f, 0.03f), m_door, 1.0f, 0);
        mat4 sg = m4_translate(0, 2.55, -11.98);
        scene__add_sign(s, &sg, 3.6f, 0.9f, sign_cafe, m_iron);
        mat4 pl = m4_translate(3.2, 1.5, -11.98);
        scene__add_sign(s, &pl, 0.8f, 0.4f, sign_plaque, m_iron);
        mat4 nb = place(11.98f, 2.6f, 4.6f, -1.5707963f);
        scene__add_sign(s, &nb, 0.35f, 0.35f, sign_number, m_iron);
    }

    /* a diagonal trellis in front of the west wall, with leaves climbing it */
    {
        mat4 m = place(-11.9f, 0.0f, 3.5f, 1.5707963f);
        scene__add_lattice(s, &m, 6.0f, 3.2f, 0.35f, 0.03f, m_wood);
        for (int i = 0; i < 10; i++) {
            mat4 c = place(-11.85f, scene_rng_range(rng, 0.3f, 2.4f), scene_rng_range(rng, -2.3f, 3.3f),
                           1.5707963f + scene_rng_range(rng, -0.3f, 0.3f));
            scene__add_card(s, &c, 1.1f, 1.0f, m_leaves);
        }
    }

    /* low iron fences round two garden beds, at angles of about 30 and 60 degrees */
    for (int f = 0; f < 2; f++) {
        float ang = (f == 0 ? 0.52f : 1.05f) + scene_rng_range(rng, -0.08f, 0.08f);
        float cx = f == 0 ? -6.5f : 6.0f, cz = f == 0 ? -5.0f : 1.5f;
        float ca = cosf(ang), sa = sinf(ang);
        vec3 corner[4];
        float hx = 2.2f, hz = 1.2f;
        for (int k = 0; k < 4; k++) {
            float lx = (k == 0 || k == 3) ? -hx : hx, lz = k < 2 ? -hz : hz;
            corner[k] = v3(cx + lx * ca + lz * sa, 0.0f, cz - lx * sa + lz * ca);
        }
        for (int k = 0; k < 4; k++)
            scene__add_railing(s, corner[k], corner[(k + 1) % 4], 0.8f, 0.1f, 0.018f, m_iron);
        /* earth and shrubs inside */
        mat4 e = { { { ca, 0, sa, cx }, { 0, 1, 0, 0.05 }, { -sa, 0, ca, cz }, { 0, 0, 0, 1 } } };
        scene__add_box(s, &e, v3(hx - 0.05f, 0.05f, hz - 0.05f), m_pot, 1.0f, 0x04u);
        for (int i = 0; i < 8; i++) {
            float lx = scene_rng_range(rng, -hx + 0.4f, hx - 0.4f), lz = scene_rng_range(rng, -hz + 0.3f, hz - 0.3f);
            mat4 c = place(cx + lx * ca + lz * sa, 0.05f, cz - lx * sa + lz * ca,
                           scene_rng_range(rng, 0.0f, 3.14159f));
            scene__add_card(s, &c, 1.0f, scene_rng_range(rng, 0.7f, 1.2f), m_leaves);
            mat4 c2 = m4_mul(&c, &(mat4){ { { 0, 0, 1, 0 }, { 0, 1, 0, 0 }, { -1, 0, 0, 0 }, { 0, 0, 0, 1 } } });
            scene__add_card(s, &c2, 1.0f, scene_rng_range(rng, 0.7f, 1.2f), m_leaves);
        }
    }

    /* the fountain */
    {
        mat4 m = m4_translate(0, 0, -2);
        scene__add_cylinder(s, &m, 2.0f, 2.0f, 0.6f, 40, false, m_stone, 8.0f, 0.5f);
        mat4 in = m4_translate(0, 0.6, -2);
        /* rim: a ring of flat top (a slightly smaller inner wall) */
        scene__add_cylinder(s, &in, 2.0f, 1.75f, 0.001f, 40, false, m_stone, 8.0f, 0.5f);
        mat4 inner = m4_translate(0, 0.0, -2);
        mat4 flip = m4_scale(-1, 1, 1); /* inward-facing inner wall */
        mat4 mi = m4_mul(&inner, &flip);
        scene__add_cylinder(s, &mi, 1.75f, 1.75f, 0.601f, 40, false, m_stone, 8.0f, 0.5f);
        mat4 w = m4_translate(0, 0.45, -2);
        scene__add_cylinder(s, &w, 1.76f, 1.76f, 0.0f, 40, true, m_water, 1.0f, 1.0f);
        scene__add_cylinder(s, &m, 0.25f, 0.2f, 1.9f, 16, false, m_stone, 2.0f, 0.5f);
        mat4 bowl = m4_translate(0, 1.6, -2);
        scene__add_cylinder(s, &bowl, 0.3f, 0.8f, 0.3f, 24, true, m_stone, 4.0f, 0.5f);
    }

    /* benches: wooden slats on iron legs, facing the fountain */
    for (int b = 0; b < 2; b++) {
        float x = b == 0 ? -4.5f : 4.5f, z = 3.5f + scene_rng_range(rng, -0.5f, 0.5f);
        float yaw = b == 0 ? -0.5f : 0.5f;
        mat4 base = place(x, 0, z, yaw);
        for (int k = 0; k < 4; k++) {
            mat4 sl = m4_translate(0, 0.45, -0.2 + 0.13 * k);
            mat4 m = m4_mul(&base, &sl);
            scene__add_box(s, &m, v3(0.9f, 0.02f, 0.05f), m_wood, 1.0f, 0);
        }
        for (int k = 0; k < 3; k++) {
            mat4 bk = m4_translate(0, 0.62 + 0.13 * k, 0.22);
            mat4 m = m4_mul(&base, &bk);
            scene__add_box(s, &m, v3(0.9f, 0.045f, 0.02f), m_wood, 1.0f, 0);
        }
        for (int k = -1; k <= 1; k += 2) {
            vec3 a = v3(0.8f * (float)k, 0.0f, -0.2f), c = v3(0.8f * (float)k, 0.45f, -0.2f);
            scene__add_bar(s, &base, a, c, 0.04f, m_iron);
            a = v3(0.8f * (float)k, 0.0f, 0.22f);
            c = v3(0.8f * (float)k, 0.95f, 0.22f);
            scene__add_bar(s, &base, a, c, 0.04f, m_iron);
        }
    }

    /* lamp posts with glowing heads, and pots of plants in the corners */
    for (int l = 0; l < 2; l++) {
        float x = l == 0 ? -9.0f : 9.0f, z = -9.0f;
        mat4 m = m4_translate(x, 0, z);
        scene__add_cylinder(s, &m, 0.07f, 0.05f, 3.2f, 10, false, m_iron, 1.0f, 1.0f);
        mat4 h = m4_translate(x, 3.2, z);
        scene__add_box(s, &h, v3(0.16f, 0.22f, 0.16f), m_lamp, 1.0f, 0);
        mat4 cap = m4_translate(x, 3.45, z);
        scene__add_cylinder(s, &cap, 0.26f, 0.02f, 0.2f, 10, false, m_iron, 1.0f, 1.0f);
        s->lights[s->light_count++] = (scene_light){ v3(x, 3.2f, z), v3(3.0f, 2.4f, 1.5f), 9.0f };
    }
    for (int p = 0; p < 3; p++) {
        float x = p == 0 ? 10.5f : p == 1 ? -10.5f : 10.5f, z = p == 0 ? -10.5f : p == 1 ? -10.5f : 10.5f;
        mat4 m = m4_translate(x, 0, z);
        scene__add_cylinder(s, &m, 0.35f, 0.5f, 0.8f, 16, true, m_pot, 1.0f, 1.0f);
        for (int i = 0; i < 4; i++) {
            mat4 c = place(x, 0.7f, z, 0.785f * (float)i + scene_rng_range(rng, 0, 0.5f));
            scene__add_card(s, &c, 1.2f, 1.4f, m_leaves);
        }
    }
    /* a plaster kiosk by the east wall */
    {
        mat4 m = m4_translate(9.5, 1.3, -6.5);
        scene__add_box(s, &m, v3(1.2f, 1.3f, 1.0f), m_plaster, 1.0f, 0);
        mat4 r = m4_translate(9.5, 2.65, -6.5);
        scene__add_box(s, &r, v3(1.4f, 0.06f, 1.2f), m_iron, 1.0f, 0);
    }

    /* moving: a pinwheel on a pole */
    {
        float x = 5.5f + scene_rng_range(rng, -0.5f, 0.5f), z = -7.5f;
        mat4 m = m4_translate(x, 0, z);
        scene__add_cylinder(s, &m, 0.04f, 0.03f, 2.4f, 8, false, m_iron, 1.0f, 1.0f);
        scene_anim spin = { .kind = ANIM_SPIN, .pivot = d3(0, 0, 0), .axis = d3(0, 0, 1),
                            .rate = 2.4 + scene_rng_range(rng, 0.0f, 0.6f) };
        mat4 at = m4_translate(x, 2.4, z + 0.08);
        scene__begin_instance(s, -1, &at, spin);
        for (int i = 0; i < 4; i++) {
            float a = (float)i * 1.5707963f;
            float c = cosf(a), sn = sinf(a);
            vec3 p[4] = { v3(0, 0, 0), v3(0.55f * c, 0.55f * sn, 0),
                          v3(0.55f * c - 0.25f * sn, 0.55f * sn + 0.25f * c, 0.03f),
                          v3(0.1f * c - 0.22f * sn, 0.1f * sn + 0.22f * c, 0.0f) };
            float uv[4][2] = { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 1 } };
            scene__add_quad(s, NULL, p, uv, m_blade[i]);
        }
        scene__end_instance(s);
    }

    /* moving: a gate of bars sliding across the east opening (z from 6 to 9) */
    {
        scene_anim slide = { .kind = ANIM_SLIDE, .a = d3(0, 0, 0), .b = d3(0, 0, -2.6),
                             .period = 6.0, .phase = scene_rng_range(rng, 0.0f, 6.28f) };
        mat4 at = m4_translate(11.7, 0, 6.1);
        scene__begin_instance(s, -1, &at, slide);
        scene__add_railing(s, v3(0, 0, 0), v3(0, 0, 2.8f), 2.0f, 0.12f, 0.025f, m_iron);
        scene__add_bar(s, NULL, v3(0, 1.0f, 0), v3(0, 1.0f, 2.8f), 0.04f, m_iron);
        scene__end_instance(s);
    }

    /* moving: a figure walking round the fountain */
    scene__add_figure(s, d3(0, 0, -2), 3.4, 1.2, scene_rng_range(rng, 0.0f, 6.28f), 1.0f,
                      scene__rgb(0x2a5fa0), scene__rgb(0x303438), scene__rgb(0xd9a27a));

    /* the camera */
    float jx = scene_rng_range(rng, -0.6f, 0.6f), jyaw = scene_rng_range(rng, -0.12f, 0.12f);
    s->shadow = (scene_shadow){ .box_min = v3(-13.0f, -0.2f, -13.0f), .box_max = v3(13.0f, 9.5f, 13.0f), .texel = 0.02f };
    s->rig = (scene_rig){
        .still = { d3(0.8 + jx, 1.7, 9.5), 0.05 + jyaw, 0.12 },
        .pan_rate = 8.0 * SCENE_PI / 180.0,
        .orbit_center = d3(0, 1.5, -2), .orbit_radius = 8.0, .orbit_height = 3.2,
        .orbit_rate = 0.22, .orbit_phase = scene_rng_range(rng, 0.0f, 6.28f),
        .walk_center = d3(0, 0, -1.5), .walk_radius = 7.0, .walk_height = 1.7,
        .walk_speed = 1.4, .walk_phase = scene_rng_range(rng, 0.0f, 6.28f), .walk_pitch = 0.05,
        .walk_dir = 1,
        .turn = { d3(-1.0 + jx, 1.7, 5.5), 0.3 + jyaw, 0.05 }, .turn_rate = 120.0 * SCENE_PI / 180.0,
        .cut_a = { d3(-8.5, 1.7, 8.5), -0.62 + jyaw, 0.1 },
        .cut_b = { d3(8.0, 4.2, -9.5), 2.3 + jyaw, -0.2 },
        .cut_pan_rate = 4.0 * SCENE_PI / 180.0,
        .fov_y = 60.0 * SCENE_PI / 180.0, .near_plane = 0.1, .far_plane = 500.0,
    };
}
