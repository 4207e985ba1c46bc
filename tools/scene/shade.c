/* shade.c: the colour of a surface sample and of the sky, in linear light.
 *
 * Reads the material, its texture (trilinear, at the sample's level of detail plus the
 * view's mip bias), the scene's sun, hemisphere ambient, point lights and fog; writes RGB.
 *
 *   colour = albedo (sun ndotl + hemisphere(n)) + sum over lights of albedo L ndotl atten
 *          + specular (Blinn-Phong, normalised by (s + 8) / (8 pi): Akenine-Moller et al.,
 *            "Real-Time Rendering", 4th ed., eq. 9.63's normalisation)
 *          + reflection of the sky, weighted by Schlick's Fresnel term (F0 = 0.04)
 *          + emission
 *   then exponential fog: c = c e^(-k d) + sky(view ray) (1 - e^(-k d)). */
#include <math.h>

#include "scene/scene_internal.h"

void scene__sky(const scene_env *env, vec3 dir, float out[3])
{
    float e = dir.y;
    vec3 c;
    if (e >= 0.0f) {
        /* towards the zenith along sqrt(elevation): a bright band at the horizon */
        c = v3_lerp(env->sky_horizon, env->sky_zenith, sqrtf(e));
    } else {
        vec3 below = v3_scale(v3_lerp(env->sky_horizon, env->ground_color, 0.6f), 0.8f);
        c = v3_lerp(env->sky_horizon, below, scene_smoothstep(0.0f, 0.15f, -e));
    }
    float sd = v3_dot(dir, env->sun_dir);
    if (sd > 0.0f) {
        /* glow around the sun, and a disc of ~0.6 degrees with a soft rim */
        float s2 = sd * sd, s4 = s2 * s2, s8 = s4 * s4, s32 = s8 * s8 * s8 * s8;
        float glow = 0.12f * s32 + 0.05f * s4;
        float disc = env->sun_disc * scene_smoothstep(0.99992f, 0.99996f, sd);
        c = v3_add(c, v3_scale(env->sun_color, glow + disc));
    }
    out[0] = c.x;
    out[1] = c.y;
    out[2] = c.z;
}

void scene__shade(const scene_view *vw, const scene_surface *sf, float out[3])
{
    const scene *s = vw->s;
    const scene_env *env = &s->env;
    const scene_material *m = &s->materials[sf->material];
    float tex[4] = { 1.0f, 1.0f, 1.0f, 1.0f };
    if (m->texture >= 0) {
        const scene_texture *t = &s->textures[m->texture];
        float lod = scene__texture_lod(t, sf->dudx, sf->dvdx, sf->dudy, sf->dvdy) + vw->mip_bias;
        scene__texture_sample(t, sf->u, sf->v, lod, tex);
        if (t->alpha_tested)
            tex[3] = 1.0f; /* coverage, not gloss */
    }
    vec3 albedo = v3_mul(v3(tex[0], tex[1], tex[2]), m->tint);
    float gloss = tex[3];

    vec3 p = sf->position;
    vec3 to_eye = v3_sub(v3((float)vw->eye.x, (float)vw->eye.y, (float)vw->eye.z), p);
    float dist = v3_length(to_eye);
    vec3 v = dist > 0.0f ? v3_scale(to_eye, 1.0f / dist) : v3(0, 1, 0);
    vec3 n = v3_normalize(sf->normal);
    float ndv = v3_dot(n, v);
    if (ndv < 0.0f) { /* the back of a double-sided card (or a grazing interpolated normal) */
        n = v3_scale(n, -1.0f);
        ndv = -ndv;
    }

    /* hemisphere ambient: ground colour below, sky above, blended by the normal's y */
    float up = 0.5f + 0.5f * n.y;
    if (vw->matte)
        gloss = 0.0f; /* no highlights, no reflections */
    vec3 hemi = v3_scale(v3_lerp(env->ground_color, v3_lerp(env->sky_horizon, env->sky_zenith, 0.5f), up),
                         env->ambient);
    vec3 light = hemi;
    vec3 spec = v3(0, 0, 0);
    float norm = (m->shininess + 8.0f) / (8.0f * 3.14159265f);
    float ndl = v3_dot(n, env->sun_dir);
    if (m->double_sided && m->alpha_cutoff > 0.0f && ndl < 0.0f)
        ndl *= -0.45f; /* foliage lets some light through from behind */
    if (ndl > 0.0f)
        ndl *= scene__shadow_visibility(&s->shadow, p, n);
    if (ndl > 0.0f) {
        light = v3_add(light, v3_scale(env->sun_color, ndl));
        if (m->specular > 0.0f) {
            vec3 hv = v3_normalize(v3_add(env->sun_dir, v));
            float ndh = v3_dot(n, hv);
            if (ndh > m->spec_cut)
                spec = v3_add(spec, v3_scale(env->sun_color, m->specular * gloss * norm *
                                                                 powf(ndh, m->shininess) * ndl));
        }
    }
    for (int i = 0; i < s->light_count; i++) {
        const scene_light *L = &s->lights[i];
        vec3 lv = v3_sub(L->position, p);
        float d2 = v3_dot(lv, lv);
        if (d2 >= L->range * L->range)
            continue;
        float d = sqrtf(d2);
        vec3 l = v3_scale(lv, 1.0f / (d > 1e-4f ? d : 1e-4f));
        float ln = v3_dot(n, l);
        if (ln <= 0.0f)
            continue;
        /* 1 / (1 + d^2), faded to 0 at the range: (1 - (d / range)^2)^2 */
        float f = 1.0f - d2 / (L->range * L->range);
        float atten = f * f / (1.0f + d2);
        light = v3_add(light, v3_scale(L->color, ln * atten));
        if (m->specular > 0.0f) {
            vec3 hv = v3_normalize(v3_add(l, v));
            float ndh = v3_dot(n, hv);
            if (ndh > m->spec_cut)
                spec = v3_add(spec, v3_scale(L->color, m->specular * gloss * norm *
                                                           powf(ndh, m->shininess) * ln * atten));
        }
    }
    vec3 c = v3_add(v3_mul(albedo, light), spec);
    if (m->reflect > 0.0f && !vw->matte) {
        /* mirror the view ray about the normal; Schlick: F = F0 + (1 - F0)(1 - n.v)^5 */
        vec3 rdir = v3_sub(v3_scale(n, 2.0f * ndv), v);
        float k = 1.0f - ndv;
        float fres = 0.04f + 0.96f * k * k * k * k * k;
        float w = m->reflect * gloss * fres;
        float sky[3];
        scene__sky(env, v3_normalize(rdir), sky);
        c = v3_add(v3_scale(c, 1.0f - w), v3_scale(v3(sky[0], sky[1], sky[2]), w));
    }
    c = v3_add(c, m->emissive);
    if (env->fog_density > 0.0f && !vw->matte) {
        float f = expf(-env->fog_density * dist);
        float sky[3];
        scene__sky(env, v3_scale(v, -1.0f), sky);
        c = v3_add(v3_scale(c, f), v3_scale(v3(sky[0], sky[1], sky[2]), 1.0f - f));
    }
    out[0] = c.x;
    out[1] = c.y;
    out[2] = c.z;
}
