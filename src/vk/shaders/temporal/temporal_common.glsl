/* temporal_common.glsl: what the temporal engine's shaders share (CPU: temporal_passes.h): the
 * bindings (binding = the surface's index in temporal.c's table, src/vk/ABI.md "The temporal
 * engine"), the constants of temporal_passes.h, the reversible tonemap, YCoCg and the Lanczos
 * table read, with the CPU's formulas in the CPU's order. */
#ifndef UPF_TEMPORAL_COMMON_GLSL
#define UPF_TEMPORAL_COMMON_GLSL

/* Surfaces (enum upf__temporal_surface). */
#define B_COLOR_IN 0
#define B_DEPTH 1
#define B_MOTION 2
#define B_REACTIVE 3
#define B_CAMERA_MOTION 4
#define B_COLOR 5
#define B_FILL_SOURCE 6
#define B_DILATED_MOTION 7
#define B_DILATED_DEPTH 8
#define B_PREV_DEPTH 9
#define B_REACTIVITY 10
#define B_LOCKS 11
#define B_LANCZOS 12
#define B_FILL 13
#define B_HISTORY 14
#define B_HISTORY_NEXT 15
#define B_STATE 16
#define B_STATE_NEXT 17
#define B_DISPLAY 18
#define B_DISPLAY_NEXT 19
#define B_OUTPUT 20

const uint UPF_NO_DEPTH = 0xffffffffu;
const float UPF_Z_FAR = 1e30;
const float UPF_MV_MAX = 1e6;
const float UPF_MV_INVALID = 1e7;
const float UPF_SCATTER_MIN = 0.02;
const float UPF_DILATE_SEPARATION = 0.05;
const int UPF_LANCZOS_SIZE = 1026;
const uint UPF_ENCODING_LINEAR = 0u;
const uint UPF_ENCODING_SRGB = 1u;
const uint UPF_ENCODING_SQRT = 2u;

/* The shown colour's offset from the history (temporal_passes.h: upf__display_band,
 * upf__display_pack, upf__display_unpack). */
const float UPF_DISPLAY_UNIT = 1.0 / 65536.0;
const float UPF_DISPLAY_BAND_CODES = 1.25;

float upf_display_band(float y)
{
    y = y > 0.0 ? (y < 0.99 ? y : 0.99) : 0.0;
    float x = y / (1.0 - y);
    float dcdx = x > 0.0031308 ? 255.0 * (1.055 / 2.4) * pow(x, 1.0 / 2.4 - 1.0)
                               : 255.0 * 12.92;
    return UPF_DISPLAY_BAND_CODES * (1.0 - y) * (1.0 - y) / dcdx;
}

uint upf_display_pack(vec3 off)
{
    uint v = 0u;
    for (int k = 0; k < 3; k++) {
        float q = off[k] / UPF_DISPLAY_UNIT;
        q = q > -511.0 ? (q < 511.0 ? q : 511.0) : -511.0;
        int n = int(q < 0.0 ? q - 0.5 : q + 0.5);
        v |= (uint(n) & 1023u) << (10 * k);
    }
    return v;
}

vec3 upf_display_unpack(uint v)
{
    vec3 off;
    for (int k = 0; k < 3; k++) {
        int n = int((v >> (10 * k)) & 1023u);
        off[k] = float(n >= 512 ? n - 1024 : n) * UPF_DISPLAY_UNIT;
    }
    return off;
}

/* The reversible tonemap and its inverse (temporal_passes.h). */
vec3 upf_tonemap(vec3 c)
{
    float m = c.r > c.g ? c.r : c.g;
    m = m > c.b ? m : c.b;
    float s = 1.0 / (1.0 + m);
    return c * s;
}

vec3 upf_tonemap_inverse(vec3 c)
{
    float m = c.r > c.g ? c.r : c.g;
    m = m > c.b ? m : c.b;
    float d = 1.0 - m;
    float s = 1.0 / (d > 1.0 / 4096.0 ? d : 1.0 / 4096.0);
    return c * s;
}

vec3 upf_rgb_to_ycocg(vec3 c)
{
    return vec3(0.25 * c.r + 0.5 * c.g + 0.25 * c.b, 0.5 * c.r - 0.5 * c.b,
                -0.25 * c.r + 0.5 * c.g - 0.25 * c.b);
}

vec3 upf_ycocg_to_rgb(vec3 v)
{
    return vec3(v.x + v.y - v.z, v.x + v.z, v.x - v.y - v.z);
}

int upf_clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

float upf_sat(float v)
{
    return v > 0.0 ? (v < 1.0 ? v : 1.0) : 0.0;
}

#ifdef UPF_LANCZOS_TABLE
/* L2 from the table at x^2, linear interpolation (upf__lanczos2): the same table the CPU
 * fills, uploaded once. */
float upf_lanczos2(float x2)
{
    if (!(x2 < 4.0))
        return 0.0;
    float t = x2 * float(UPF_LANCZOS_SIZE - 2) * 0.25;
    int i = int(t);
    float f = t - float(i);
    return lanczos[i] + f * (lanczos[i + 1] - lanczos[i]);
}
#endif

#endif
