/* scene_interior.c: "interior": a hall (20 x 30 m, 8 m high) with a marble floor laid in a
 * diagonal checker, plaster walls over wood panelling, two rows of pillars, a staircase up
 * to a gallery with a railing of thin bars, tall bright windows with mullions, a long
 * bookshelf, tables with books, cups and vases, chairs, pictures, potted plants, hanging
 * lamps. Moving: a figure walking between the pillars, a ceiling fan, a clock with a
 * sweeping second hand, a ball rolling to and fro.
 *
 * Writes the scene's geometry, materials, lights and camera rig; the seed moves the
 * furniture and small objects and the camera a little, and picks colours. */
#include <math.h>

#include "scene/scene_internal.h"

static mat4 place(float x, float y, float z, float yaw)
{
    mat4 t = m4_translate(x, y, z), r = m4_rotate_y(yaw);
    return m4_mul(&t, &r);
}

/* A table (top 1.6 x 0.9 m at 0.76 m) with small objects on it. */
static void table(scene *s, scene_rng *rng, float x, float z, float yaw, int m_wood, int m_cup,
                  const int *m_books, int m_vase)
{
    mat4 base = place(x, 0, z, yaw);
    mat4 top = m4_translate(0, 0.74, 0);
    mat4 bt = m4_mul(&base, &top);
    scene__add_box(s, &bt, v3(0.8f, 0.025f, 0.45f), m_wood, 1.0f, 0);
    for (int k = 0; k < 4; k++) {
        mat4 leg = m4_translate((k & 1) ? 0.72 : -0.72, 0.36, (k & 2) ? 0.38 : -0.38);
        mat4 bl = m4_mul(&base, &leg);
        scene__add_box(s, &bl, v3(0.03f, 0.36f, 0.03f), m_wood, 1.0f, 0);
    }
    /* a stack of books */
    float y = 0.765f;
    int nb = 2 + (int)(scene_rng_u32(rng) % 3);
    for (int b = 0; b < nb; b++) {
        float th = scene_rng_range(rng, 0.025f, 0.05f);
        mat4 bk = m4_mul(&base, &(mat4){ { { 1, 0, 0, -0.45 }, { 0, 1, 0, y + 0.5f * th },
                                           { 0, 0, 1, 0.1 }, { 0, 0, 0, 1 } } });
        mat4 r = m4_rotate_y(scene_rng_range(rng, -0.3f, 0.3f));
        mat4 bkr = m4_mul(&bk, &r);
        scene__add_box(s, &bkr, v3(scene_rng_range(rng, 0.11f, 0.15f), 0.5f * th, 0.1f),
                       m_books[scene_rng_u32(rng) % 4], 1.0f, 0);
        y += th;
    }
    /* cups and a vase */
    for (int c = 0; c < 2; c++) {
        mat4 cp = m4_mul(&base, &(mat4){ { { 1, 0, 0, 0.1 + 0.25 * c }, { 0, 1, 0, 0.765 },
                                           { 0, 0, 1, -0.15 + 0.2 * c }, { 0, 0, 0, 1 } } });
        scene__add_cylinder(s, &cp, 0.04f, 0.045f, 0.09f, 12, true, m_cup, 1.0f, 1.0f);
    }
    mat4 vs = m4_mul(&base, &(mat4){ { { 1, 0, 0, 0.55 }, { 0, 1, 0, 0.765 }, { 0, 0, 1, 0.15 },
                                       { 0, 0, 0, 1 } } });
    scene__add_cylinder(s, &vs, 0.07f, 0.04f, 0.28f, 14, true, m_vase, 1.0f, 1.0f);
}

static void chair(scene *s, float x, float z, float yaw, int m)
{
    mat4 base = place(x, 0, z, yaw);
    mat4 seat = m4_translate(0, 0.45, 0);
    mat4 bs = m4_mul(&base, &seat);
    scene__add_box(s, &bs, v3(0.22f, 0.02f, 0.22f), m, 1.0f, 0);
    for (int k = 0; k < 4; k++) {
        float lx = (k & 1) ? 0.19f : -0.19f, lz = (k & 2) ? 0.19f : -0.19f;
        scene__add_bar(s, &base, v3(lx, 0, lz), v3(lx, (k & 2) ? 0.95f : 0.44f, lz), 0.03f, m);
    }
    for (int r = 0; r < 3; r++)
        scene__add_bar(s, &base, v3(-0.19f, 0.6f + 0.12f * (float)r, 0.19f),
                       v3(0.19f, 0.6f + 0.12f * (float)r, 0.19f), 0.025f, m);
}

void scene__build_interior(scene *s, scene_rng *rng)
{
    s->hud_title = "FIND THE ARCHIVE KEY";
    /* the sun is only in the windows (emissive); point lights do the lighting */
    s->env = (scene_env){ .sun_dir = v3_normalize(v3(0.3f, 0.8f, 0.2f)), .sun_color = v3(0, 0, 0),
                          .sky_zenith = scene__rgb(0x6f8fb8), .sky_horizon = scene__rgb(0xd8dde0),
                          .ground_color = scene__rgb(0x6a5a48), .ambient = 0.42f,
                          .fog_density = 0.0f, .sun_disc = 0.0f };
    const float HX = 10.0f, HZ = 15.0f, HY = 8.0f; /* half width, half length, height */

    int t_marble = scene__make_texture(s, TEXGEN_MARBLE_FLOOR, 512, 512, 1);
    int t_plaster = scene__make_texture(s, TEXGEN_PLASTER, 256, 256, 2);
    int t_wood = scene__make_texture(s, TEXGEN_WOOD, 256, 256, 3);
    int t_books = scene__make_texture(s, TEXGEN_BOOKS, 512, 128, 4);
    int t_stone = scene__make_texture(s, TEXGEN_STONE_WALL, 256, 256, 5);
    int t_clock = scene__make_texture(s, TEXGEN_CLOCK_FACE, 256, 256, 6);
    int t_leaves = scene__make_texture(s, TEXGEN_LEAVES, 256, 256, 7);
    int t_metal = scene__make_texture(s, TEXGEN_METAL, 128, 128, 8);
    int t_pic = scene__make_texture(s, TEXGEN_SMOOTH, 128, 128, 9);
    int t_sign = scene__make_sign(s, "ARCHIVE\nUPSTAIRS", scene__rgb(0x1a2a4a), scene__rgb(0xe8d8a0), 256, 128);
    int t_exit = scene__make_sign(s, "EXIT", scene__rgb(0x0f7a3a), scene__rgb(0xffffff), 128, 64);

    int m_floor = scene__add_material(s, (scene_material){ .texture = t_marble, .tint = v3(1, 1, 1),
                                                           .uv_scale = { 0.5f, 0.5f },
                                                           .specular = 0.8f, .shininess = 120,
                                                           .reflect = 0.25f });
    vec3 wall_tint = v3_lerp(v3(1.0f, 0.95f, 0.85f), v3(0.85f, 0.92f, 1.0f), scene_rng_range(rng, 0, 1));
    int m_wall = scene__add_material(s, (scene_material){ .texture = t_plaster, .tint = wall_tint,
                                                          .uv_scale = { 0.25f, 0.25f } });
    int m_ceiling = scene__add_material(s, (scene_material){ .texture = t_plaster, .tint = v3(1, 1, 1),
                                                             .uv_scale = { 0.2f, 0.2f } });
    int m_panel = scene__add_material(s, (scene_material){ .texture = t_wood, .tint = v3(0.75f, 0.6f, 0.5f),
                                                           .uv_scale = { 1.0f, 1.0f },
                                                           .specular = 0.4f, .shininess = 40 });
    int m_wood = scene__add_material(s, (scene_material){ .texture = t_wood, .tint = v3(1, 1, 1),
                                                          .specular = 0.3f, .shininess = 30 });
    int m_stone = scene__add_material(s, (scene_material){ .texture = t_stone, .tint = v3(1.05f, 1.0f, 0.95f),
                                                           .uv_scale = { 0.5f, 0.5f } });
    int m_books = scene__add_material(s, (scene_material){ .texture = t_books, .tint = v3(1, 1, 1),
                                                           .uv_scale = { 1.0f, 1.0f / 0.35f } });
    int m_iron = scene__add_material(s, (scene_material){ .texture = t_metal, .tint = v3(0.35f, 0.33f, 0.3f),
                                                          .specular = 0.8f, .shininess = 80 });
    int m_brass = scene__add_material(s, (scene_material){ .texture = -1, .tint = scene__rgb(0xb08d3c),
                                                           .specular = 2.0f, .shininess = 300,
                                                           .reflect = 0.4f });
    int m_window = scene__add_material(s, (scene_material){ .texture = -1, .tint = v3(0, 0, 0),
                                                            .emissive = v3(2.6f, 2.8f, 3.1f) });
    int m_lamp = scene__add_material(s, (scene_material){ .texture = -1, .tint = v3(1, 1, 1),
                                                          .emissive = v3(9.0f, 7.5f, 5.0f) });
    int m_cup = scene__add_material(s, (scene_material){ .texture = -1, .tint = v3(0.9f, 0.9f, 0.88f),
                                                         .specular = 1.5f, .shininess = 200 });
    int m_vase = scene__add_material(s, (scene_material){ .texture = -1, .tint = scene__rgb(0x2a5a8a),
                                                          .specular = 2.0f, .shininess = 250, .reflect = 0.3f });
    int m_leaves = scene__add_material(s, (scene_material){ .texture = t_leaves, .tint = v3(1, 1, 1),
                                                            .alpha_cutoff = 0.5f, .double_sided = true });
    int m_pot = scene__add_material(s, (scene_material){ .texture = -1, .tint = scene__rgb(0x8a4a2a) });
    int m_pic = scene__add_material(s, (scene_material){ .texture = t_pic, .tint = v3(1, 1, 1) });
    int m_clock = scene__add_material(s, (scene_material){ .texture = t_clock, .tint = v3(1, 1, 1) });
    int m_black = scene__add_material(s, (scene_material){ .texture = -1, .tint = v3(0.02f, 0.02f, 0.02f),
                                                           .double_sided = true });
    int m_red = scene__add_material(s, (scene_material){ .texture = -1, .tint = scene__rgb(0xc02020),
                                                         .specular = 1.0f, .shininess = 100 });
    int m_ball = scene__add_material(s, (scene_material){ .texture = t_pic, .tint = v3(1.2f, 0.8f, 0.5f),
                                                          .specular = 1.0f, .shininess = 80 });
    int bookc[4];
    static const uint32_t bc[4] = { 0x7a1f1f, 0x1f3f7a, 0x2f5f2f, 0xb09050 };
    for (int i = 0; i < 4; i++)
        bookc[i] = scene__add_material(s, (scene_material){ .texture = -1, .tint = scene__rgb(bc[i]) });

    /* the shell: floor, ceiling, four walls (boxes seen from inside: faces towards the hall) */
    {
        mat4 f = m4_translate(0, -0.1, 0);
        scene__add_box(s, &f, v3(HX, 0.1f, HZ), m_floor, 1.0f, 0x04u);
        mat4 c = m4_translate(0, HY + 0.1f, 0);
        scene__add_box(s, &c, v3(HX, 0.1f, HZ), m_ceiling, 1.0f, 0x08u);
        mat4 w;
        w = m4_translate(-HX - 0.2f, 0.5f * HY, 0);
        scene__add_box(s, &w, v3(0.2f, 0.5f * HY, HZ), m_wall, 1.0f, 0x01u);
        w = m4_translate(HX + 0.2f, 0.5f * HY, 0);
        scene__add_box(s, &w, v3(0.2f, 0.5f * HY, HZ), m_wall, 1.0f, 0x02u);
        w = m4_translate(0, 0.5f * HY, -HZ - 0.2f);
        scene__add_box(s, &w, v3(HX + 0.4f, 0.5f * HY, 0.2f), m_wall, 1.0f, 0x10u);
        w = m4_translate(0, 0.5f * HY, HZ + 0.2f);
        scene__add_box(s, &w, v3(HX + 0.4f, 0.5f * HY, 0.2f), m_wall, 1.0f, 0x20u);
        /* wood panelling 1.1 m high with a rail, round the walls */
        for (int k = 0; k < 4; k++) {
            float yaw = 1.5707963f * (float)k;
            float half = (k & 1) ? HZ : HX, dist = (k & 1) ? HX : HZ;
            mat4 b = place(0, 0.55f, 0, yaw);
            mat4 o = m4_translate(0, 0, -dist + 0.03f);
            mat4 bo = m4_mul(&b, &o);
            scene__add_box(s, &bo, v3(half, 0.55f, 0.03f), m_panel, 1.0f, 0);
            mat4 r = m4_translate(0, 0.58, -dist + 0.07f);
            mat4 br = m4_mul(&b, &r);
            scene__add_box(s, &br, v3(half, 0.025f, 0.04f), m_wood, 1.0f, 0);
            mat4 cr = m4_translate(0, HY - 0.55f, -dist + 0.1f);
            mat4 bc2 = m4_mul(&b, &cr);
            scene__add_box(s, &bc2, v3(half, 0.12f, 0.1f), m_ceiling, 1.0f, 0);
        }
    }

    /* tall windows on both long walls: bright panes with mullions and transoms */
    for (int side = -1; side <= 1; side += 2) {
        for (int i = 0; i < 5; i++) {
            float z = -10.0f + 5.0f * (float)i;
            float x = (HX - 0.01f) * (float)side;
            float yaw = side < 0 ? 1.5707963f : -1.5707963f;
            mat4 wnd = place(x, 1.6f, z, yaw);
            scene__add_card(s, &wnd, 2.0f, 4.2f, m_window);
            float xm = (HX - 0.05f) * (float)side;
            for (int k = 0; k <= 4; k++) {
                float zz = z - 1.0f + 0.5f * (float)k;
                scene__add_bar(s, NULL, v3(xm, 1.6f, zz), v3(xm, 5.8f, zz), k == 0 || k == 4 ? 0.1f : 0.04f, m_wood);
            }
            for (int k = 0; k <= 6; k++) {
                float yy = 1.6f + 0.7f * (float)k;
                scene__add_bar(s, NULL, v3(xm, yy, z - 1.0f), v3(xm, yy, z + 1.0f), k == 0 || k == 6 ? 0.1f : 0.04f, m_wood);
            }
        }
    }

    /* pillars: two rows of five, with square bases and capitals */
    for (int side = -1; side <= 1; side += 2)
        for (int i = 0; i < 5; i++) {
            float x = 4.5f * (float)side, z = -10.0f + 5.0f * (float)i;
            mat4 b = m4_translate(x, 0.2, z);
            scene__add_box(s, &b, v3(0.5f, 0.2f, 0.5f), m_stone, 1.0f, 0);
            mat4 c = m4_translate(x, 0.4, z);
            scene__add_cylinder(s, &c, 0.36f, 0.32f, HY - 1.0f, 20, false, m_stone, 3.0f, 0.5f);
            mat4 cap = m4_translate(x, HY - 0.45f, z);
            scene__add_box(s, &cap, v3(0.55f, 0.15f, 0.55f), m_stone, 1.0f, 0);
            mat4 cap2 = m4_translate(x, HY - 0.2f, z);
            scene__add_box(s, &cap2, v3(0.65f, 0.1f, 0.65f), m_stone, 1.0f, 0);
        }

    /* the gallery along the back wall (z = -HZ) at 4 m, stairs up to it along the left wall,
     * railings of 2 cm bars */
    {
        float gy = 4.0f, gd = 3.0f;
        mat4 g = m4_translate(0, gy - 0.15f, -HZ + 0.5f * gd);
        scene__add_box(s, &g, v3(HX, 0.15f, 0.5f * gd), m_wood, 1.0f, 0);
        scene__add_railing(s, v3(-HX + 1.6f, gy, -HZ + gd), v3(HX, gy, -HZ + gd), 1.0f, 0.12f, 0.02f, m_iron);
        /* brackets under the gallery */
        for (int i = 0; i < 7; i++) {
            float x = -HX + 2.5f * (float)i + 1.25f;
            scene__add_bar(s, NULL, v3(x, gy - 1.2f, -HZ), v3(x, gy - 0.3f, -HZ + gd - 0.2f), 0.1f, m_wood);
        }
        /* the stairs: 20 steps of 0.2 m rising towards -z along the left wall */
        mat4 st = m4_translate(-HX + 0.8f, 0.0, -HZ + gd + 20 * 0.3f);
        scene__add_stairs(s, &st, 20, 0.2f, 0.3f, 1.6f, m_wood, 1.0f);
        /* its railing follows the slope: posts on each step, a sloping handrail */
        for (int i = 0; i <= 20; i += 1) {
            float z = -HZ + gd + 20 * 0.3f - 0.3f * (float)i - 0.15f;
            float y = 0.2f * (float)(i < 20 ? i + 1 : 20);
            scene__add_bar(s, NULL, v3(-HX + 1.6f, y, z), v3(-HX + 1.6f, y + 0.95f, z), 0.02f, m_iron);
        }
        scene__add_bar(s, NULL, v3(-HX + 1.6f, 1.15f, -HZ + gd + 6.0f - 0.15f),
                       v3(-HX + 1.6f, gy + 0.95f, -HZ + gd - 0.15f), 0.05f, m_wood);
        /* the archive sign and an exit sign */
        mat4 sg = m4_translate(2.0, gy + 1.6f, -HZ + 0.02f);
        scene__add_sign(s, &sg, 2.0f, 1.0f, t_sign, m_wood);
        mat4 ex = place(HX - 0.02f, 2.6f, 12.0f, -1.5707963f);
        int m_exit = scene__add_material(s, (scene_material){ .texture = t_exit, .tint = v3(1, 1, 1),
                                                              .emissive = v3(0.4f, 0.6f, 0.4f) });
        scene__add_card(s, &ex, 0.8f, 0.4f, m_exit);
    }

    /* a long bookshelf on the right wall, front texture of book spines, shelves between */
    {
        float x = HX - 0.2f;
        for (int r = 0; r < 6; r++) {
            float y = 0.05f + 0.4f * (float)r;
            mat4 sh = m4_translate(x, y, 3.0);
            scene__add_box(s, &sh, v3(0.2f, 0.02f, 4.0f), m_wood, 1.0f, 0);
            if (r < 5) {
                vec3 p[4] = { v3(x - 0.12f, y + 0.02f, 7.0f), v3(x - 0.12f, y + 0.02f, -1.0f),
                              v3(x - 0.12f, y + 0.38f, -1.0f), v3(x - 0.12f, y + 0.38f, 7.0f) };
                float uv[4][2] = { { 0, 0.35f }, { 8, 0.35f }, { 8, 0 }, { 0, 0 } };
                scene__add_quad(s, NULL, p, uv, m_books);
            }
        }
        for (int k = 0; k < 5; k++) {
            mat4 up = m4_translate(x, 1.03, -1.0 + 2.0 * k);
            scene__add_box(s, &up, v3(0.2f, 1.0f, 0.02f), m_wood, 1.0f, 0);
        }
    }

    /* tables, chairs, small objects */
    for (int i = 0; i < 4; i++) {
        float x = (i & 1) ? 1.6f : -1.6f, z = -6.0f + 6.0f * (float)(i >> 1) + scene_rng_range(rng, -0.5f, 0.5f);
        float yaw = scene_rng_range(rng, -0.2f, 0.2f);
        table(s, rng, x, z, yaw, m_wood, m_cup, bookc, m_vase);
        chair(s, x - 0.4f, z + 0.75f, yaw + 3.14159f, m_wood);
        chair(s, x + 0.4f, z - 0.75f, yaw, m_wood);
    }

    /* pictures in frames on the walls, potted plants by the pillars */
    for (int i = 0; i < 3; i++) {
        mat4 fr = place(-HX + 0.03f, 2.4f, 2.0f + 3.5f * (float)i, 1.5707963f);
        scene__add_sign(s, &fr, 1.2f, 0.9f, t_pic, m_brass);
        (void)m_pic;
    }
    for (int i = 0; i < 4; i++) {
        float x = (i & 1) ? 4.5f : -4.5f, z = (i < 2 ? -7.5f : 2.5f);
        mat4 p = m4_translate(x, 0, z);
        scene__add_cylinder(s, &p, 0.25f, 0.32f, 0.55f, 14, true, m_pot, 1.0f, 1.0f);
        for (int k = 0; k < 3; k++) {
            mat4 c = place(x, 0.45f, z, 1.047f * (float)k + scene_rng_range(rng, 0.0f, 0.5f));
            scene__add_card(s, &c, 0.9f, 1.0f, m_leaves);
        }
    }

    /* hanging lamps with cords, and their lights */
    for (int i = 0; i < 6; i++) {
        float x = (i & 1) ? 2.2f : -2.2f, z = -9.0f + 6.0f * (float)(i >> 1);
        scene__add_bar(s, NULL, v3(x, HY, z), v3(x, 5.3f, z), 0.015f, m_black);
        mat4 sh = m4_translate(x, 5.0, z);
        scene__add_cylinder(s, &sh, 0.4f, 0.1f, 0.3f, 16, false, m_brass, 1.0f, 1.0f);
        mat4 b = m4_translate(x, 4.98, z);
        scene__add_sphere(s, &b, 0.12f, 10, 6, m_lamp);
        s->lights[s->light_count++] = (scene_light){ v3(x, 4.8f, z), v3(7.0f, 6.0f, 4.5f), 16.0f };
    }
    s->lights[s->light_count++] = (scene_light){ v3(0.0f, 6.0f, 8.0f), v3(5.0f, 5.2f, 5.6f), 18.0f };

    /* moving: a ceiling fan */
    {
        mat4 rod = m4_translate(0, HY - 0.9f, 6.0);
        scene__add_cylinder(s, &rod, 0.03f, 0.03f, 0.9f, 8, false, m_brass, 1.0f, 1.0f);
        scene_anim spin = { .kind = ANIM_SPIN, .axis = d3(0, 1, 0), .rate = 3.0 };
        mat4 at = m4_translate(0, HY - 0.95f, 6.0);
        scene__begin_instance(s, -1, &at, spin);
        scene__add_cylinder(s, NULL, 0.15f, 0.12f, 0.15f, 12, true, m_brass, 1.0f, 1.0f);
        for (int b = 0; b < 4; b++) {
            mat4 r = m4_rotate_y(1.5707963 * b);
            mat4 o = m4_translate(0.75, 0.06, 0);
            mat4 ro = m4_mul(&r, &o);
            mat4 tilt = m4_rotate(d3(1, 0, 0), 0.2);
            mat4 rot = m4_mul(&ro, &tilt);
            scene__add_box(s, &rot, v3(0.6f, 0.01f, 0.08f), m_wood, 1.0f, 0);
        }
        scene__end_instance(s);
    }

    /* moving: a clock on the back wall under the gallery; the second hand sweeps a turn a
     * minute, the minute hand a turn an hour (plus a start from the seed) */
    {
        float cx = -3.0f, cy = 2.6f, cz = -HZ + 0.04f;
        mat4 face = m4_translate(cx, cy - 0.5f, cz);
        scene__add_card(s, &face, 1.0f, 1.0f, m_clock);
        double start = scene_rng_range(rng, 0.0f, 6.28f);
        const double rates[2] = { -2.0 * SCENE_PI / 60.0, -2.0 * SCENE_PI / 3600.0 };
        const float len[2] = { 0.4f, 0.33f }, wid[2] = { 0.012f, 0.03f };
        for (int h = 0; h < 2; h++) {
            scene_anim hand = { .kind = ANIM_SPIN, .axis = d3(0, 0, 1), .rate = rates[h],
                                .phase = start * (h + 1) };
            mat4 at = m4_translate(cx, cy, cz + 0.01f + 0.005f * (float)h);
            scene__begin_instance(s, -1, &at, hand);
            mat4 o = m4_translate(0, 0.5f * len[h] - 0.05f, 0);
            scene__add_box(s, &o, v3(wid[h], 0.5f * len[h], 0.003f), h == 0 ? m_red : m_black, 1.0f, 0);
            scene__end_instance(s);
        }
    }

    /* moving: a ball rolling to and fro across the floor (slides, and spins as it rolls) */
    {
        scene_anim roll = { .kind = ANIM_SLIDE, .a = d3(-3.0, 0, 0), .b = d3(3.0, 0, 0),
                            .period = 5.0, .phase = scene_rng_range(rng, 0.0f, 6.28f) };
        mat4 at = m4_translate(0, 0.25, 9.0);
        int ball = scene__begin_instance(s, -1, &at, roll);
        scene__end_instance(s);
        /* rolling without slipping: angle = -x / r; x(t) = 3 (1 - cos(w t + p)) - 3, so
         * angle(t) = amp sin(...) is not exact; a SWING about z with the matching amplitude is
         * the same motion: angle = -(x - x0) / r with x0 the mean. */
        scene_anim spin = { .kind = ANIM_SWING, .axis = d3(0, 0, 1), .amp = 3.0 / 0.25,
                            .period = 5.0, .phase2 = roll.phase + 1.5707963 };
        scene__begin_instance(s, ball, NULL, spin);
        scene__add_sphere(s, NULL, 0.25f, 16, 10, m_ball);
        scene__end_instance(s);
    }

    /* moving: a figure walking between the pillars */
    scene__add_figure(s, d3(0, 0, -3.0), 2.6, 1.0, scene_rng_range(rng, 0.0f, 6.28f), 1.0f,
                      scene__rgb(0x3a6a3a), scene__rgb(0x4a3a2a), scene__rgb(0xe0b090));

    float jx = scene_rng_range(rng, -0.5f, 0.5f), jyaw = scene_rng_range(rng, -0.1f, 0.1f);
    s->rig = (scene_rig){
        .still = { d3(1.5 + jx, 1.7, 13.0), 0.1 + jyaw, 0.05 },
        .pan_rate = 8.0 * SCENE_PI / 180.0,
        .orbit_center = d3(0, 2.0, -3.0), .orbit_radius = 9.0, .orbit_height = 3.0,
        .orbit_rate = 0.2, .orbit_phase = scene_rng_range(rng, 0.0f, 6.28f),
        .walk_center = d3(0, 0, 0.0), .walk_radius = 7.0, .walk_height = 1.7, .walk_speed = 1.4,
        .walk_phase = scene_rng_range(rng, 0.0f, 6.28f), .walk_pitch = 0.05, .walk_dir = 1,
        .turn = { d3(0.0 + jx, 1.7, 5.0), jyaw, 0.1 }, .turn_rate = 120.0 * SCENE_PI / 180.0,
        .cut_a = { d3(-7.0, 1.7, 12.0), -0.4 + jyaw, 0.1 },
        .cut_b = { d3(6.0, 5.2, -13.0), 2.6 + jyaw, -0.25 },
        .cut_pan_rate = 4.0 * SCENE_PI / 180.0,
        .fov_y = 60.0 * SCENE_PI / 180.0, .near_plane = 0.05, .far_plane = 200.0,
    };
}
