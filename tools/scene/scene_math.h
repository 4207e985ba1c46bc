/* scene_math.h: the small vector and matrix maths of the scene renderer (inline, no state).
 *
 * Vectors are float (geometry, colours) or double (camera, transforms); 4x4 matrices are
 * double, column-vector convention (p' = M p), stored m[row][col]. */
#ifndef UPF_SCENE_MATH_H
#define UPF_SCENE_MATH_H

#include <math.h>
#include <stdint.h>

#define SCENE_PI 3.14159265358979323846

typedef struct vec3 {
    float x, y, z;
} vec3;

typedef struct dvec3 {
    double x, y, z;
} dvec3;

typedef struct mat4 {
    double m[4][4];
} mat4;

/* ---- float vectors ---- */

static inline vec3 v3(float x, float y, float z)
{
    return (vec3){ x, y, z };
}

static inline vec3 v3_add(vec3 a, vec3 b)
{
    return v3(a.x + b.x, a.y + b.y, a.z + b.z);
}

static inline vec3 v3_sub(vec3 a, vec3 b)
{
    return v3(a.x - b.x, a.y - b.y, a.z - b.z);
}

static inline vec3 v3_scale(vec3 a, float s)
{
    return v3(a.x * s, a.y * s, a.z * s);
}

static inline vec3 v3_mul(vec3 a, vec3 b)
{
    return v3(a.x * b.x, a.y * b.y, a.z * b.z);
}

static inline float v3_dot(vec3 a, vec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline vec3 v3_cross(vec3 a, vec3 b)
{
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static inline float v3_length(vec3 a)
{
    return sqrtf(v3_dot(a, a));
}

static inline vec3 v3_normalize(vec3 a)
{
    float l = v3_length(a);
    return l > 0.0f ? v3_scale(a, 1.0f / l) : v3(0.0f, 1.0f, 0.0f);
}

static inline vec3 v3_lerp(vec3 a, vec3 b, float t)
{
    return v3(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t);
}

/* ---- double vectors ---- */

static inline dvec3 d3(double x, double y, double z)
{
    return (dvec3){ x, y, z };
}

static inline dvec3 d3_add(dvec3 a, dvec3 b)
{
    return d3(a.x + b.x, a.y + b.y, a.z + b.z);
}

static inline dvec3 d3_sub(dvec3 a, dvec3 b)
{
    return d3(a.x - b.x, a.y - b.y, a.z - b.z);
}

static inline dvec3 d3_scale(dvec3 a, double s)
{
    return d3(a.x * s, a.y * s, a.z * s);
}

static inline double d3_dot(dvec3 a, dvec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline dvec3 d3_cross(dvec3 a, dvec3 b)
{
    return d3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static inline dvec3 d3_normalize(dvec3 a)
{
    double l = sqrt(d3_dot(a, a));
    return l > 0.0 ? d3_scale(a, 1.0 / l) : d3(0.0, 1.0, 0.0);
}

static inline dvec3 d3_from_v3(vec3 a)
{
    return d3(a.x, a.y, a.z);
}

/* ---- matrices ---- */

static inline mat4 m4_identity(void)
{
    mat4 r = { { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 }, { 0, 0, 0, 1 } } };
    return r;
}

static inline mat4 m4_mul(const mat4 *a, const mat4 *b)
{
    mat4 r;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            r.m[i][j] = a->m[i][0] * b->m[0][j] + a->m[i][1] * b->m[1][j] +
                        a->m[i][2] * b->m[2][j] + a->m[i][3] * b->m[3][j];
    return r;
}

static inline mat4 m4_translate(double x, double y, double z)
{
    mat4 r = m4_identity();
    r.m[0][3] = x;
    r.m[1][3] = y;
    r.m[2][3] = z;
    return r;
}

static inline mat4 m4_scale(double x, double y, double z)
{
    mat4 r = m4_identity();
    r.m[0][0] = x;
    r.m[1][1] = y;
    r.m[2][2] = z;
    return r;
}

/* Rotation by `angle` radians about the unit axis (a right-handed, counter-clockwise turn
 * seen from the axis tip): Rodrigues' formula. */
static inline mat4 m4_rotate(dvec3 axis, double angle)
{
    axis = d3_normalize(axis);
    double c = cos(angle), s = sin(angle), t = 1.0 - c;
    double x = axis.x, y = axis.y, z = axis.z;
    mat4 r = m4_identity();
    r.m[0][0] = t * x * x + c;
    r.m[0][1] = t * x * y - s * z;
    r.m[0][2] = t * x * z + s * y;
    r.m[1][0] = t * x * y + s * z;
    r.m[1][1] = t * y * y + c;
    r.m[1][2] = t * y * z - s * x;
    r.m[2][0] = t * x * z - s * y;
    r.m[2][1] = t * y * z + s * x;
    r.m[2][2] = t * z * z + c;
    return r;
}

static inline mat4 m4_rotate_y(double angle)
{
    return m4_rotate(d3(0, 1, 0), angle);
}

static inline dvec3 m4_point(const mat4 *m, dvec3 p)
{
    return d3(m->m[0][0] * p.x + m->m[0][1] * p.y + m->m[0][2] * p.z + m->m[0][3],
              m->m[1][0] * p.x + m->m[1][1] * p.y + m->m[1][2] * p.z + m->m[1][3],
              m->m[2][0] * p.x + m->m[2][1] * p.y + m->m[2][2] * p.z + m->m[2][3]);
}

static inline dvec3 m4_dir(const mat4 *m, dvec3 d)
{
    return d3(m->m[0][0] * d.x + m->m[0][1] * d.y + m->m[0][2] * d.z,
              m->m[1][0] * d.x + m->m[1][1] * d.y + m->m[1][2] * d.z,
              m->m[2][0] * d.x + m->m[2][1] * d.y + m->m[2][2] * d.z);
}

/* The inverse of a general 4x4 matrix by cofactors (Cramer's rule); the identity if singular. */
static inline mat4 m4_inverse(const mat4 *a)
{
    const double *m = &a->m[0][0];
    double inv[16];
    inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] +
             m[9] * m[7] * m[14] + m[13] * m[6] * m[11] - m[13] * m[7] * m[10];
    inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] -
             m[8] * m[7] * m[14] - m[12] * m[6] * m[11] + m[12] * m[7] * m[10];
    inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] +
             m[8] * m[7] * m[13] + m[12] * m[5] * m[11] - m[12] * m[7] * m[9];
    inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] -
              m[8] * m[6] * m[13] - m[12] * m[5] * m[10] + m[12] * m[6] * m[9];
    inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] -
             m[9] * m[3] * m[14] - m[13] * m[2] * m[11] + m[13] * m[3] * m[10];
    inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] +
             m[8] * m[3] * m[14] + m[12] * m[2] * m[11] - m[12] * m[3] * m[10];
    inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] -
             m[8] * m[3] * m[13] - m[12] * m[1] * m[11] + m[12] * m[3] * m[9];
    inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] +
              m[8] * m[2] * m[13] + m[12] * m[1] * m[10] - m[12] * m[2] * m[9];
    inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] +
             m[5] * m[3] * m[14] + m[13] * m[2] * m[7] - m[13] * m[3] * m[6];
    inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] -
             m[4] * m[3] * m[14] - m[12] * m[2] * m[7] + m[12] * m[3] * m[6];
    inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] +
              m[4] * m[3] * m[13] + m[12] * m[1] * m[7] - m[12] * m[3] * m[5];
    inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] -
              m[4] * m[2] * m[13] - m[12] * m[1] * m[6] + m[12] * m[2] * m[5];
    inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] -
             m[5] * m[3] * m[10] - m[9] * m[2] * m[7] + m[9] * m[3] * m[6];
    inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] +
             m[4] * m[3] * m[10] + m[8] * m[2] * m[7] - m[8] * m[3] * m[6];
    inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] -
              m[4] * m[3] * m[9] - m[8] * m[1] * m[7] + m[8] * m[3] * m[5];
    inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] +
              m[4] * m[2] * m[9] + m[8] * m[1] * m[6] - m[8] * m[2] * m[5];
    double det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
    mat4 r = m4_identity();
    if (det == 0.0 || !isfinite(det))
        return r;
    for (int i = 0; i < 16; i++)
        (&r.m[0][0])[i] = inv[i] / det;
    return r;
}

/* ---- hashing and noise (deterministic, platform independent) ---- */

/* A 32-bit integer hash with good avalanche ("lowbias32", C. Wellons, "Prospecting for hash
 * functions", 2018). */
static inline uint32_t scene_hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static inline uint32_t scene_hash3(uint32_t a, uint32_t b, uint32_t c)
{
    return scene_hash32(a ^ scene_hash32(b ^ scene_hash32(c)));
}

/* Uniform in [0, 1) from a hash (24 bits). */
static inline float scene_unit(uint32_t h)
{
    return (float)(h >> 8) * 0x1p-24f;
}

static inline float scene_clampf(float v, float lo, float hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static inline float scene_smoothstep(float e0, float e1, float x)
{
    float t = scene_clampf((x - e0) / (e1 - e0), 0.0f, 1.0f);
    return t * t * (3.0f - 2.0f * t);
}

static inline float scene_lerpf(float a, float b, float t)
{
    return a + (b - a) * t;
}

#endif /* UPF_SCENE_MATH_H */
