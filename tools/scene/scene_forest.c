/* scene_forest.c: "forest": a clearing in a wood. Gently rolling ground (flat near the
 * centre) with grass and dirt, broadleaf trees (bark trunks, crowns of alpha-tested leaf
 * cards), firs (stacked leaf cards), hundreds of alpha-tested grass tufts, rocks, a rustic
 * fence, and a ring of distant hills fading into the haze. Moving: a figure walking round
 * the clearing, a bird circling with flapping wings, a windmill turning on a far hill.
 *
 * Writes the scene's geometry, materials and camera rig; the seed places the trees, the
 * grass and the rocks and moves the camera a little. */
#include <math.h>

#include "scene/scene_internal.h"

typedef struct terrain {
    uint32_t seed;
} terrain;

/* Ground height: flat within 18 m of the centre, rising into low rolling hills beyond. */
static float ground_height(void *priv, float x, float z)
{
    const terrain *t = priv;
    float ph = (float)(t->seed % 1000) * 0.01f;
    float r = sqrtf(x * x + z * z);
    float k = scene_smoothstep(18.0f, 45.0f, r);
    float h = 1.6f * sinf(0.07f * x + ph) * cosf(0.05f * z - ph) + 0.9f * sinf(0.13f * z + 0.5f * ph) +
              0.5f * cosf(0.11f * (x + z));
    return k * (h + 1.0f + 0.04f * (r - 18.0f));
}

/* The far hills: a ring from 140 to 380 m, heights from sums of sines of the angle. */
static float hill_height(const terrain *t, float ang, float rad)
{
    float ph = (float)(t->seed % 997) * 0.013f;
    float h = 28.0f + 18.0f * sinf(3.0f * ang + ph) + 12.0f * sinf(7.0f * ang - 2.0f * ph) +
              6.0f * sinf(13.0f * ang + ph);
    float k = scene_smoothstep(140.0f, 220.0f, rad) * (1.0f - 0.3f * scene_smoothstep(260.0f, 380.0f, rad));
    return h * k - 2.0f;
}

static mat4 place(float x, float y, float z, float yaw)
{
    mat4 t = m4_translate(x, y, z), r = m4_rotate_y(yaw);
    return m4_mul(&t, &r);
}

/* Two crossed cards (an X seen from above). */
static void crossed_cards(scene *s, float x, float y, float z, float yaw, float w, float h, int m)
{
    mat4 a = place(x, y, z, yaw), b = place(x, y, z, yaw + 1.5707963f);
    scene__add_card(s, &a, w, h, m);
    scene__add_card(s, &b, w, h, m);
}

static void broadleaf(scene *s, scene_rng *rng, float x, float z, float y, int m_bark, int m_leaf)
{
    float h = scene_rng_range(rng, 5.0f, 8.0f), r = scene_rng_range(rng, 0.18f, 0.32f);
    mat4 m = m4_translate(x, y - 0.2f, z);
    scene__add_cylinder(s, &m, r, 0.6f * r, 0.85f * h, 9, false, m_bark, 2.0f, 0.5f);
    /* two branches */
    for (int b = 0; b < 2; b++) {
        float a = scene_rng_range(rng, 0.0f, 6.28f), by = y + h * scene_rng_range(rng, 0.45f, 0.7f);
        scene__add_bar(s, NULL, v3(x, by, z), v3(x + 1.6f * cosf(a), by + 1.3f, z + 1.6f * sinf(a)),
                       0.12f, m_bark);
    }
    /* the crown: cards at random heights and angles round the top */
    int n = 14;
    for (int i = 0; i < n; i++) {
        float a = scene_rng_range(rng, 0.0f, 6.28f), rr = scene_rng_range(rng, 0.0f, 1.8f);
        float cy = y + h * 0.55f + scene_rng_range(rng, 0.0f, h * 0.5f);
        mat4 c = place(x + rr * cosf(a), cy - 1.2f, z + rr * sinf(a), scene_rng_range(rng, 0.0f, 3.14f));
        mat4 tilt = m4_rotate(d3(1, 0, 0), scene_rng_range(rng, -0.5f, 0.5f));
        mat4 ct = m4_mul(&c, &tilt);
        float sz = scene_rng_range(rng, 2.2f, 3.2f);
        scene__add_card(s, &ct, sz, sz, m_leaf);
    }
}

static void fir(scene *s, scene_rng *rng, float x, float z, float y, int m_bark, int m_needles)
{
    float h = scene_rng_range(rng, 7.0f, 11.0f);
    mat4 m = m4_translate(x, y - 0.2f, z);
    scene__add_cylinder(s, &m, 0.22f, 0.05f, h - 0.8f, 7, false, m_bark, 2.0f, 0.5f);
    /* tiers of crossed cards, narrowing to the top */
    int tiers = 7;
    for (int i = 0; i < tiers; i++) {
        float k = (float)i / (float)(tiers - 1);
        float w = 3.8f * (1.0f - k) + 1.0f, ch = 2.4f * (1.0f - 0.5f * k);
        float ty = y + 0.8f + k * (h - 0.8f - ch);
        crossed_cards(s, x, ty, z, scene_rng_range(rng, 0.0f, 3.14f), w, ch, m_needles);
    }
}

void scene__build_forest(scene *s, scene_rng *rng)
{
    s->hud_title = "FOLLOW THE TRAIL";
    terrain tr = { scene_rng_u32(rng) };
    s->env = (scene_env){ .sun_dir = v3_normalize(v3(0.55f, 0.45f, -0.6f)),
                          .sun_color = v3(2.3f, 2.1f, 1.7f),
                          .sky_zenith = scene__rgb(0x4a80c0), .sky_horizon = scene__rgb(0xc9d8df),
                          .ground_color = scene__rgb(0x4c5a34), .ambient = 0.5f,
                          .fog_density = 0.004f, .sun_disc = 30.0f };

    int t_ground = scene__make_texture(s, TEXGEN_FOREST_GROUND, 512, 512, 1);
    int t_bark = scene__make_texture(s, TEXGEN_BARK, 128, 256, 2);
    int t_leaves = scene__make_texture(s, TEXGEN_LEAVES, 256, 256, 3);
    int t_needles = scene__make_texture(s, TEXGEN_LEAVES, 256, 256, 4);
    int t_grass = scene__make_texture(s, TEXGEN_GRASS_CARD, 256, 128, 5);
    int t_hills = scene__make_texture(s, TEXGEN_HILLS, 256, 256, 6);
    int t_stone = scene__make_texture(s, TEXGEN_CONCRETE, 256, 256, 7);
    int t_wood = scene__make_texture(s, TEXGEN_WOOD, 256, 256, 8);
    int t_sign = scene__make_sign(s, "TRAIL 3\n<- LAKE  2.5 KM", scene__rgb(0x6b4a2a),
                                  scene__rgb(0xf0e6c8), 256, 128);

    int m_ground = scene__add_material(s, (scene_material){ .texture = t_ground, .tint = v3(1, 1, 1),
                                                            .uv_scale = { 0.25f, 0.25f } });
    int m_bark = scene__add_material(s, (scene_material){ .texture = t_bark, .tint = v3(1, 1, 1) });
    int m_leaf = scene__add_material(s, (scene_material){ .texture = t_leaves, .tint = v3(1, 1, 1),
                                                          .alpha_cutoff = 0.5f, .double_sided = true,
                                                          .specular = 0.15f, .shininess = 20 });
    int m_needles = scene__add_material(s, (scene_material){ .texture = t_needles,
                                                             .tint = v3(0.55f, 0.75f, 0.6f),
                                                             .alpha_cutoff = 0.5f, .double_sided = true });
    int m_grass = scene__add_material(s, (scene_material){ .texture = t_grass, .tint = v3(1, 1, 1),
                                                           .alpha_cutoff = 0.5f, .double_sided = true });
    int m_hills = scene__add_material(s, (scene_material){ .texture = t_hills, .tint = v3(1, 1, 1),
                                                           .uv_scale = { 0.01f, 0.01f } });
    int m_rock = scene__add_material(s, (scene_material){ .texture = t_stone, .tint = v3(0.62f, 0.6f, 0.56f),
                                                          .uv_scale = { 2.0f, 2.0f },
                                                          .specular = 0.15f, .shininess = 15 });
    int m_wood = scene__add_material(s, (scene_material){ .texture = t_wood, .tint = v3(0.75f, 0.7f, 0.65f),
                                                          .uv_scale = { 0.8f, 0.8f } });
    int m_white = scene__add_material(s, (scene_material){ .texture = -1, .tint = scene__rgb(0xe8e4dc),
                                                           .double_sided = true });
    int m_bird = scene__add_material(s, (scene_material){ .texture = -1, .tint = scene__rgb(0x2a2a30),
                                                          .double_sided = true });

    /* the ground: 240 x 240 m, finer in the middle is not needed: the flat centre is flat */
    scene__add_heightfield(s, -120, -120, 120, 120, 48, 48, ground_height, &tr, m_ground, 1.0f);

    /* the far hills: a ring of quads, 72 around x 4 out */
    {
        enum { NA = 72, NR = 4 };
        const float radii[NR + 1] = { 110.0f, 150.0f, 210.0f, 290.0f, 380.0f };
        for (int i = 0; i < NA; i++) {
            float a0 = 6.2831853f * (float)i / NA, a1 = 6.2831853f * (float)((i + 1) % NA) / NA;
            for (int j = 0; j < NR; j++) {
                float r0 = radii[j], r1 = radii[j + 1];
                vec3 p[4] = { v3(r0 * cosf(a0), hill_height(&tr, a0, r0), r0 * sinf(a0)),
                              v3(r0 * cosf(a1), hill_height(&tr, a1, r0), r0 * sinf(a1)),
                              v3(r1 * cosf(a1), hill_height(&tr, a1, r1), r1 * sinf(a1)),
                              v3(r1 * cosf(a0), hill_height(&tr, a0, r1), r1 * sinf(a0)) };
                float uv[4][2];
                for (int k = 0; k < 4; k++) {
                    uv[k][0] = p[k].x;
                    uv[k][1] = p[k].z;
                }
                scene__add_quad(s, NULL, p, uv, m_hills); /* faces up */
            }
        }
    }

    /* trees: keep the clearing (r < 9), the walk (r 11..15) and the cameras' spots open */
    static const float cams[4][3] = { { 0, 12, 6 }, { 2, 3, 3 }, { -3, 6, 3 }, { 6, -5, 3 } };
    for (int i = 0; i < 70; i++) {
        float a, r, x, z;
        for (int attempt = 0;; attempt++) {
            a = scene_rng_range(rng, 0.0f, 6.28f);
            r = scene_rng_range(rng, 17.0f, 75.0f);
            if (i < 14)
                r = scene_rng_range(rng, 9.5f, 10.5f) + (i & 1) * 6.5f; /* lining the path */
            x = r * cosf(a);
            z = r * sinf(a);
            bool clear = true;
            for (int c = 0; c < 4; c++)
                clear = clear && hypotf(x - cams[c][0], z - cams[c][1]) > cams[c][2];
            if (clear || attempt > 20)
                break;
        }
        float y = ground_height(&tr, x, z);
        if (scene_rng_u32(rng) % 3 == 0)
            fir(s, rng, x, z, y, m_bark, m_needles);
        else
            broadleaf(s, rng, x, z, y, m_bark, m_leaf);
    }

    /* grass tufts: dense near the centre, thinner outwards */
    for (int i = 0; i < 700; i++) {
        float a = scene_rng_range(rng, 0.0f, 6.28f);
        float r = 24.0f * sqrtf(scene_rng_range(rng, 0.0f, 1.0f));
        float x = r * cosf(a), z = r * sinf(a);
        float w = scene_rng_range(rng, 0.5f, 0.9f);
        crossed_cards(s, x, ground_height(&tr, x, z) - 0.02f, z, scene_rng_range(rng, 0.0f, 3.14f),
                      w, 0.5f * w, m_grass);
    }

    /* rocks: squashed, turned boxes */
    for (int i = 0; i < 12; i++) {
        /* off the walk (r 11..15) and away from the cameras */
        float a = scene_rng_range(rng, 0.0f, 6.28f), r = scene_rng_range(rng, 16.0f, 32.0f);
        if (i < 4)
            r = scene_rng_range(rng, 3.0f, 8.0f);
        float x = r * cosf(a), z = r * sinf(a);
        mat4 m = place(x, ground_height(&tr, x, z) - 0.1f, z, scene_rng_range(rng, 0.0f, 3.14f));
        mat4 t = m4_rotate(d3(1, 0, 1), scene_rng_range(rng, -0.3f, 0.3f));
        mat4 mt = m4_mul(&m, &t);
        float sz = scene_rng_range(rng, 0.3f, 0.9f);
        /* a boulder: a coarse sphere, squashed and stretched */
        mat4 sc = m4_scale(sz * 1.3f, sz * 0.6f, sz);
        mat4 ms = m4_mul(&mt, &sc);
        scene__add_sphere(s, &ms, 1.0f, 9, 6, m_rock);
    }

    /* a rustic fence along part of the clearing, and a trail sign */
    {
        float a0 = scene_rng_range(rng, 0.0f, 6.28f);
        for (int i = 0; i < 10; i++) {
            float a = a0 + 0.09f * (float)i, b = a0 + 0.09f * (float)(i + 1);
            float r = 8.0f;
            vec3 p = v3(r * cosf(a), 0, r * sinf(a)), q = v3(r * cosf(b), 0, r * sinf(b));
            scene__add_bar(s, NULL, p, v3_add(p, v3(0, 1.1f, 0)), 0.1f, m_wood);
            scene__add_bar(s, NULL, v3_add(p, v3(0, 0.95f, 0)), v3_add(q, v3(0, 0.95f, 0)), 0.06f, m_wood);
            scene__add_bar(s, NULL, v3_add(p, v3(0, 0.55f, 0)), v3_add(q, v3(0, 0.55f, 0)), 0.06f, m_wood);
        }
        float a = a0 - 0.25f;
        mat4 post = m4_translate(8.0f * cosf(a), 0, 8.0f * sinf(a));
        scene__add_cylinder(s, &post, 0.06f, 0.06f, 1.6f, 8, true, m_wood, 1.0f, 1.0f);
        mat4 sg = place(8.0f * cosf(a), 1.2f, 8.0f * sinf(a), atan2f(-cosf(a), -sinf(a))); /* faces the centre */
        mat4 off = m4_translate(0, 0, 0.08);
        mat4 so = m4_mul(&sg, &off);
        scene__add_sign(s, &so, 0.9f, 0.45f, t_sign, m_wood);
    }

    /* moving: a windmill on a far hill, its sails turning */
    {
        float a = scene_rng_range(rng, -2.2f, -1.0f), r = 190.0f;
        float x = r * cosf(a), z = r * sinf(a), y = hill_height(&tr, a, r) - 1.0f;
        mat4 m = m4_translate(x, y, z);
        scene__add_cylinder(s, &m, 3.0f, 1.8f, 14.0f, 10, true, m_white, 1.0f, 1.0f);
        float face = atan2f(-x, -z); /* turn the sails towards the clearing */
        scene_anim spin = { .kind = ANIM_SPIN, .axis = d3(0, 0, 1), .rate = 0.9 };
        mat4 at = place(x, y + 13.0f, z, face);
        mat4 out = m4_translate(0, 0, 2.2);
        mat4 ao = m4_mul(&at, &out);
        scene__begin_instance(s, -1, &ao, spin);
        for (int i = 0; i < 4; i++) {
            mat4 rot = m4_rotate(d3(0, 0, 1), 1.5707963 * i);
            scene__add_bar(s, &rot, v3(0, 0, 0), v3(0, 9.0f, 0), 0.4f, m_wood);
            mat4 sail = m4_translate(0.9, 5.5, 0.1);
            mat4 rs = m4_mul(&rot, &sail);
            scene__add_box(s, &rs, v3(0.8f, 3.4f, 0.05f), m_white, 1.0f, 0);
        }
        scene__end_instance(s);
    }

    /* moving: a bird circling over the clearing, flapping */
    {
        scene_anim fly = { .kind = ANIM_CIRCLE, .pivot = d3(0, 9.0, -6.0), .radius = 9.0,
                           .rate = 0.55, .phase = scene_rng_range(rng, 0.0f, 6.28f),
                           .period = 0.5, .bob = d3(0, 0.25, 0) };
        int body = scene__begin_instance(s, -1, NULL, fly);
        scene__add_box(s, NULL, v3(0.08f, 0.07f, 0.25f), m_bird, 1.0f, 0);
        scene__end_instance(s);
        for (int side = -1; side <= 1; side += 2) {
            scene_anim flap = { .kind = ANIM_SWING, .pivot = d3(0.07 * side, 0.02, 0),
                                .axis = d3(0, 0, 1), .amp = 0.7 * side, .period = 0.5 };
            scene__begin_instance(s, body, NULL, flap);
            vec3 p[4] = { v3(0.07f * (float)side, 0.02f, -0.12f), v3(0.07f * (float)side, 0.02f, 0.1f),
                          v3(0.55f * (float)side, 0.02f, 0.05f), v3(0.5f * (float)side, 0.02f, -0.1f) };
            float uv[4][2] = { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 1 } };
            scene__add_quad(s, NULL, p, uv, m_bird);
            scene__end_instance(s);
        }
    }

    /* moving: a figure walking round the clearing */
    scene__add_figure(s, d3(0, 0, 0), 5.5, 1.1, scene_rng_range(rng, 0.0f, 6.28f), 1.0f,
                      scene__rgb(0xb04a2a), scene__rgb(0x3a4a5a), scene__rgb(0xc98a62));

    float jyaw = scene_rng_range(rng, -0.15f, 0.15f);
    s->shadow = (scene_shadow){ .box_min = v3(-80.0f, -2.0f, -80.0f), .box_max = v3(80.0f, 16.0f, 80.0f), .texel = 0.06f };
    s->rig = (scene_rig){
        .still = { d3(0.0, 1.7, 12.0), 0.05 + jyaw, 0.02 },
        .pan_rate = 8.0 * SCENE_PI / 180.0,
        .orbit_center = d3(0, 1.5, 0), .orbit_radius = 11.0, .orbit_height = 3.0,
        .orbit_rate = 0.2, .orbit_phase = scene_rng_range(rng, 0.0f, 6.28f),
        .walk_center = d3(0, 0, 0), .walk_radius = 13.0, .walk_height = 1.7, .walk_speed = 1.4,
        .walk_phase = scene_rng_range(rng, 0.0f, 6.28f), .walk_pitch = 0.0, .walk_dir = -1,
        .turn = { d3(2.0, 1.7, 3.0), jyaw, 0.05 }, .turn_rate = 120.0 * SCENE_PI / 180.0,
        .cut_a = { d3(-3.0, 1.7, 6.0), 0.5 + jyaw, 0.05 },
        .cut_b = { d3(6.0, 2.5, -5.0), 2.5 + jyaw, -0.05 },
        .cut_pan_rate = 4.0 * SCENE_PI / 180.0,
        .fov_y = 60.0 * SCENE_PI / 180.0, .near_plane = 0.1, .far_plane = 1000.0,
    };
}
