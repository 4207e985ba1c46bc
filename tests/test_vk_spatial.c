/* test_vk_spatial.c: the Vulkan spatial engine as a host uses it (include/upframe_vk.h), on
 * whatever Vulkan device is here (lavapipe in CI), under the validation layer with
 * synchronization validation (vk_test_util.h: any message fails).
 *
 *  - the whole pipeline against the CPU engine on a rendered-like frame, for every variant
 *    of the detail pass the device can run: mean absolute difference <= 0.0005 on [0, 1]
 *    output, the largest difference printed; at a whole ratio and a fractional one, and
 *    with source and destination sub-rectangles of larger images;
 *  - every source format against the CPU engine on the same values;
 *  - bad input: NULL handles, images without the usage flags, formats it cannot take, sizes
 *    above those created for, a device made without a required feature, a wrong layout, a
 *    model whose detail map is larger than the compose shader reads (a set of one 3x model
 *    at 2x; a 1.5x frame on an engine made for 2x): a
 *    clear error, nothing recorded, and the same command buffer then records and runs a
 *    good frame;
 *  - timestamps: per-pass times read back after the frame. */
#include "test_util.h"
#include "vk_test_util.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/color.h"
#include "spatial/net.h" /* the model set's fields, for a set of one model */
#include "imageio/image_io.h"
#include "vk/vk_internal.h" /* compose's form, for the tiles on a device with strips */

static char last_log[2048];
static void capture_log(void *priv, upf_log_level level, const char *msg)
{
    (void)priv;
    (void)level;
    snprintf(last_log, sizeof last_log, "%s", msg);
}

/* A frame with what the passes care about: smooth gradients, hard edges (SMAA), fine texture
 * (the network) and noise, as sRGB RGBA8. */
static void make_frame(uint8_t *px, int w, int h, test_rng *rng)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = px + 4 * ((size_t)y * w + x);
            const int band = ((x + 2 * y) / 7) & 1, block = ((x / 11) ^ (y / 9)) & 1;
            for (int c = 0; c < 3; c++) {
                int v = (x * 255 / w + c * 60 + y * 3) % 256;
                v = band ? v : 255 - v;
                v = block ? v / 2 + 40 * c : v;
                v += test_rand_int(rng, -12, 12);
                p[c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
            p[3] = 255;
        }
}

typedef struct diff_stats {
    double mean, max;
} diff_stats;

/* Both RGBA32F, rows tightly packed, the GPU's with `gstride` floats a row from (gx, gy). */
static diff_stats compare(const float *cpu, const float *gpu, int w, int h, size_t gstride,
                          int gx, int gy)
{
    double sum = 0.0, mx = 0.0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 4; c++) {
                double a = cpu[((size_t)y * w + x) * 4 + c];
                double b = gpu[((size_t)(y + gy) * gstride + (size_t)(x + gx)) * 4 + c];
                a = a < 0 ? 0 : a > 1 ? 1 : a;
                b = b < 0 ? 0 : b > 1 ? 1 : b;
                const double d = fabs(a - b);
                sum += d;
                mx = d > mx ? d : mx;
            }
    return (diff_stats){ sum / ((double)w * h * 4), mx };
}

/* The CPU engine's output for `src` (RGBA32F, w x h) at this sharpness. */
static float *cpu_upscale_models(upf_context *ctx, const upf_image *src, int dw, int dh,
                                 float sharpness, const upf_models *models)
{
    upf_spatial *s = upf_spatial_create(ctx, upf_spatial_params(.src_width = src->width,
                                                                 .src_height = src->height,
                                                                 .dst_width = dw, .dst_height = dh,
                                                                 .sharpness = sharpness,
                                                                 .models = models));
    float *out = calloc((size_t)dw * dh * 4, sizeof(float));
    const upf_image dst = { out, dw, dh, 0, UPF_FORMAT_RGBA32F };
    CHECK(s && upf_spatial_run(s, src, &dst) == UPF_OK);
    upf_spatial_destroy(&s);
    return out;
}

static float *cpu_upscale(upf_context *ctx, const upf_image *src, int dw, int dh,
                          float sharpness)
{
    return cpu_upscale_models(ctx, src, dw, dh, sharpness, NULL);
}

typedef struct frame_case {
    int sw, sh, dw, dh;          /* the rectangles */
    int pad;                     /* the host images are this much larger each way */
    VkFormat src_format;
    int src_srgb;
    float sharpness;             /* both engines' (0: compose without its apron) */
} frame_case;

/* The destination rectangle of a GPU picture (RGBA32F, fc->dw + fc->pad floats a row, the
 * rectangle at (0, 0)), rows tightly packed, as compare's first argument takes it. */
static float *cpu_copy_of(const float *gpu, const frame_case *fc)
{
    float *out = malloc((size_t)fc->dw * fc->dh * 4 * sizeof *out);
    for (int y = 0; out && y < fc->dh; y++)
        memcpy(out + (size_t)y * fc->dw * 4, gpu + (size_t)y * (fc->dw + fc->pad) * 4,
               (size_t)fc->dw * 4 * sizeof *out);
    return out;
}

/* Uploads `bytes` into a source image, records the engine into the same command buffer,
 * downloads an RGBA32F destination; returns the destination (image-sized) or NULL. */
static float *gpu_upscale(vkt *t, upf_vk_spatial *e, const frame_case *fc, const void *bytes,
                          size_t texel_bytes)
{
    const int iw = fc->sw + fc->pad, ih = fc->sh + fc->pad, ow = fc->dw + fc->pad,
              oh = fc->dh + fc->pad;
    vkt_buffer up = vkt_buffer_make(t, (VkDeviceSize)iw * ih * texel_bytes);
    vkt_buffer down = vkt_buffer_make(t, (VkDeviceSize)ow * oh * 16);
    vkt_image src = vkt_image_make(t, iw, ih, fc->src_format, 0,
                                   VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    vkt_image dst = vkt_image_make(t, ow, oh, VK_FORMAT_R32G32B32A32_SFLOAT, 0,
                                   VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                       VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    float *out = NULL;
    if (!up.map || !down.map || !src.view || !dst.view) {
        CHECKF(0, "could not make the test's images and buffers");
        goto done;
    }
    /* The source rectangle sits at (pad/2, pad/3) of the image; around it, junk. */
    const int sx = fc->pad / 2, sy = fc->pad / 3, dx = fc->pad / 3, dy = fc->pad / 2;
    memset(up.map, 0x5a, (size_t)up.size);
    for (int y = 0; y < fc->sh; y++)
        memcpy((uint8_t *)up.map + (((size_t)(y + sy) * iw) + sx) * texel_bytes,
               (const uint8_t *)bytes + (size_t)y * fc->sw * texel_bytes,
               (size_t)fc->sw * texel_bytes);
    VkCommandBuffer cmd = vkt_begin(t);
    vkt_record_upload(cmd, &up, &src, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    upf_vk_image s = vkt_lend(&src, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0, fc->src_srgb);
    s.rect = (upf_rect){ sx, sy, fc->sw, fc->sh };
    upf_vk_image d = vkt_lend(&dst, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 0);
    d.rect = (upf_rect){ dx, dy, fc->dw, fc->dh };
    const upf_result r = upf_vk_spatial_record(e, cmd, &s, &d);
    CHECKF(r == UPF_OK, "upf_vk_spatial_record: %s", last_log);
    vkt_record_download(cmd, &dst, VK_IMAGE_LAYOUT_GENERAL, &down);
    if (vkt_submit(t) || r != UPF_OK) {
        CHECKF(0, "the frame did not run");
        goto done;
    }
    out = malloc((size_t)down.size);
    /* Shift so the caller sees the destination rectangle at (0, 0) with stride ow. */
    memcpy(out, (const uint8_t *)down.map, (size_t)down.size);
    memmove(out, out + ((size_t)dy * ow + dx) * 4,
            (size_t)down.size - ((size_t)dy * ow + dx) * 16);
done:
    vkt_image_free(t, &src);
    vkt_image_free(t, &dst);
    vkt_buffer_free(t, &up);
    vkt_buffer_free(t, &down);
    return out;
}

/* An engine with compose in `form` (AUTO: as upf_vk_spatial_create makes it). */
static upf_vk_spatial *make_engine_form(vkt *t, upf_context *ctx, upf_vk_variant v, int sw,
                                        int sh, int dw, int dh, int timestamps, float sharpness,
                                        upf__vk_compose_form form)
{
    return upf__vk_spatial_create_form(ctx, upf_vk_spatial_params(
        .device = &t->lend, .max_src_width = sw, .max_src_height = sh, .max_dst_width = dw,
        .max_dst_height = dh, .sharpness = sharpness, .variant = v, .timestamps = timestamps),
        form);
}

static upf_vk_spatial *make_engine(vkt *t, upf_context *ctx, upf_vk_variant v, int sw,
                                   int sh, int dw, int dh, int timestamps, float sharpness)
{
    return make_engine_form(t, ctx, v, sw, sh, dw, dh, timestamps, sharpness,
                            UPF__VK_COMPOSE_AUTO);
}

/* One engine (variant v, compose in `form`) on case i against the CPU's `ref`, its timings,
 * and, given `first` (the same case's picture in the other form), the same picture bit for
 * bit. Returns its picture's destination rectangle, rows tightly packed (NULL on failure). */
static float *check_pipeline_case(vkt *t, upf_context *ctx, upf_vk_variant v,
                                  upf__vk_compose_form form, const frame_case *fc, size_t i,
                                  const uint8_t *px, const float *ref, const float *first)
{
    upf_vk_spatial *e = make_engine_form(t, ctx, v, fc->sw, fc->sh, fc->dw, fc->dh, 1,
                                         fc->sharpness, form);
    CHECKF(e, "variant %s: upf_vk_spatial_create: %s", upf_vk_variant_name(v), last_log);
    if (!e)
        return NULL;
    CHECK_EQ_INT(upf_vk_spatial_variant(e), v);
    float *gpu = gpu_upscale(t, e, fc, px, 4), *picture = NULL;
    if (gpu) {
        const diff_stats d = compare(ref, gpu, fc->dw, fc->dh, (size_t)(fc->dw + fc->pad), 0, 0);
        printf("variant %-7s %dx%d -> %dx%d (%s%s, sharpness %g%s): mean |diff| %.6f, max "
               "%.6f\n", upf_vk_variant_name(v), fc->sw, fc->sh, fc->dw, fc->dh,
               fc->src_format == VK_FORMAT_R8G8B8A8_SRGB ? "sRGB view" : "UNORM view",
               fc->pad ? ", sub-rectangles" : "", (double)fc->sharpness,
               form == UPF__VK_COMPOSE_TILES ? ", compose's tiles" : "", d.mean, d.max);
        CHECKF(d.mean <= 0.0005, "variant %s case %zu form %d: mean %.6f",
               upf_vk_variant_name(v), i, (int)form, d.mean);
        /* The two forms make the same sums in the same order: the same picture, bit for bit. */
        if (first) {
            const diff_stats f = compare(first, gpu, fc->dw, fc->dh, (size_t)(fc->dw + fc->pad),
                                         0, 0);
            CHECKF(f.max == 0.0, "case %zu: compose's forms differ by up to %g", i, f.max);
        }
        double ms[UPF_SPATIAL_PASS_COUNT], total = 0;
        CHECK_OK(ctx, upf_vk_spatial_timings(e, ms, &total));
        CHECK(total > 0.0);
        double sum = 0.0;
        for (int p = 0; p < UPF_SPATIAL_PASS_COUNT; p++) {
            CHECK(ms[p] >= 0.0);
            sum += ms[p];
        }
        CHECKF(fabs(sum - total) <= 1e-9 * total, "total %g, passes %g", total, sum);
        /* The built-in set runs no SMAA and a UNORM source needs no edges pass for its encode
         * (docs/VULKAN.md, "Fused passes"): those passes record no timestamps and take 0, not
         * the gap between two timestamps. */
        CHECK(ms[UPF_SPATIAL_PASS_CONVERT] > 0.0 && ms[UPF_SPATIAL_PASS_COMPOSE] > 0.0);
        CHECKF(ms[UPF_SPATIAL_PASS_EDGES] == 0.0 && ms[UPF_SPATIAL_PASS_WEIGHTS] == 0.0 &&
                   ms[UPF_SPATIAL_PASS_BLEND] == 0.0,
               "edges %g, weights %g, blend %g ms", ms[UPF_SPATIAL_PASS_EDGES],
               ms[UPF_SPATIAL_PASS_WEIGHTS], ms[UPF_SPATIAL_PASS_BLEND]);
        /* The network runs at 2x, not at 1.5x (strength 0: no detail pass). */
        if (fc->dw == 2 * fc->sw)
            CHECK(ms[UPF_SPATIAL_PASS_DETAIL] > 0.0);
        if (2 * fc->dw == 3 * fc->sw)
            CHECK(ms[UPF_SPATIAL_PASS_DETAIL] == 0.0);
        picture = cpu_copy_of(gpu, fc);
        free(gpu);
    }
    upf_vk_spatial_destroy(&e);
    CHECK(e == NULL);
    return picture;
}

/* The whole pipeline, every variant, against the CPU engine. The built-in set has no SMAA
 * (the edges pass's encode is convert's: UPF__VK_FUSE_ENCODE) and strength 0 at 1.5x and 2.4x
 * (no detail pass: UPF__VK_FUSE_NO_MAP); sharpness 0 makes compose without its apron. The
 * fp32 engine runs compose in both forms (strips where the device has them, and tiles: the
 * form is compose's alone). */
static void test_pipeline(vkt *t, upf_context *ctx)
{
    static const frame_case cases[] = {
        { 96, 64, 192, 128, 0, VK_FORMAT_R8G8B8A8_SRGB, 0, 1.0f },  /* ratio 2 */
        { 90, 60, 135, 90, 12, VK_FORMAT_R8G8B8A8_SRGB, 0, 1.0f },  /* 1.5, sub-rectangles */
        { 64, 48, 160, 120, 5, VK_FORMAT_R8G8B8A8_UNORM, 1, 1.0f }, /* 2.5, sRGB, UNORM view */
        { 96, 64, 192, 128, 7, VK_FORMAT_R8G8B8A8_SRGB, 0, 0.0f },  /* 2, no sharpen */
        { 90, 60, 135, 90, 0, VK_FORMAT_R8G8B8A8_UNORM, 1, 0.0f },  /* 1.5, no sharpen */
        /* compose's strips at their narrowest and widest (compose_strips.comp) */
        { 70, 44, 70, 44, 3, VK_FORMAT_R8G8B8A8_SRGB, 0, 0.0f },    /* 1 */
        { 37, 29, 148, 116, 0, VK_FORMAT_R8G8B8A8_SRGB, 0, 0.0f },  /* 4 */
        { 70, 44, 70, 44, 0, VK_FORMAT_R8G8B8A8_SRGB, 0, 1.0f },    /* 1, the sharpen */
        { 37, 29, 148, 116, 2, VK_FORMAT_R8G8B8A8_SRGB, 0, 1.0f },  /* 4, the sharpen */
    };
    test_rng rng = test_rng_make("vk_pipeline");
    for (int v = UPF_VK_VARIANT_FP32; v < UPF_VK_VARIANT_COUNT; v++) {
        if (!t->req.variants_possible[v]) {
            printf("variant %s: this device cannot run it\n", upf_vk_variant_name(v));
            continue;
        }
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            const frame_case *fc = &cases[i];
            uint8_t *px = malloc((size_t)fc->sw * fc->sh * 4);
            make_frame(px, fc->sw, fc->sh, &rng);
            const upf_image cpu_src = { px, fc->sw, fc->sh, 0, UPF_FORMAT_RGBA8_SRGB };
            float *ref = cpu_upscale(ctx, &cpu_src, fc->dw, fc->dh, fc->sharpness);
            float *first = check_pipeline_case(t, ctx, (upf_vk_variant)v, UPF__VK_COMPOSE_AUTO,
                                               fc, i, px, ref, NULL);
            if (v == UPF_VK_VARIANT_FP32)
                free(check_pipeline_case(t, ctx, (upf_vk_variant)v, UPF__VK_COMPOSE_TILES, fc,
                                         i, px, ref, first));
            free(first);
            free(ref);
            free(px);
        }
    }
}

/* Every source format against the CPU engine given the same values. */
static void test_source_formats(vkt *t, upf_context *ctx)
{
    const int sw = 40, sh = 32, dw = 80, dh = 64;
    test_rng rng = test_rng_make("vk_formats");
    uint8_t *px = malloc((size_t)sw * sh * 4);
    make_frame(px, sw, sh, &rng);
    float *lin = malloc((size_t)sw * sh * 16);
    uint8_t *raw = malloc((size_t)sw * sh * 16);
    upf_vk_spatial *e = make_engine(t, ctx, UPF_VK_VARIANT_FP32, sw, sh, dw, dh, 0, 1.0f);
    CHECK(e != NULL);
    static const struct { VkFormat f; size_t bytes; const char *name; } fmts[] = {
        { VK_FORMAT_R8G8B8A8_UNORM, 4, "R8G8B8A8_UNORM" },
        { VK_FORMAT_B8G8R8A8_SRGB, 4, "B8G8R8A8_SRGB" },
        { VK_FORMAT_A2B10G10R10_UNORM_PACK32, 4, "A2B10G10R10_UNORM_PACK32" },
        { VK_FORMAT_R16G16B16A16_SFLOAT, 8, "R16G16B16A16_SFLOAT" },
        { VK_FORMAT_B10G11R11_UFLOAT_PACK32, 4, "B10G11R11_UFLOAT_PACK32" },
        { VK_FORMAT_R32G32B32A32_SFLOAT, 16, "R32G32B32A32_SFLOAT" },
    };
    for (size_t f = 0; e && f < sizeof fmts / sizeof fmts[0]; f++) {
        /* Values exactly representable in the format, given to the CPU as RGBA32F. */
        for (int i = 0; i < sw * sh; i++) {
            const uint8_t *p = px + 4 * i;
            float *l = lin + 4 * i;
            uint8_t *o = raw + fmts[f].bytes * i;
            switch (fmts[f].f) {
            case VK_FORMAT_R8G8B8A8_UNORM:
                memcpy(o, p, 4);
                for (int c = 0; c < 4; c++)
                    l[c] = (float)p[c] / 255.0f;
                break;
            case VK_FORMAT_B8G8R8A8_SRGB:
                o[0] = p[2], o[1] = p[1], o[2] = p[0], o[3] = p[3];
                for (int c = 0; c < 3; c++)
                    l[c] = upf_srgb_to_linear((float)p[c] / 255.0f);
                l[3] = 1.0f;
                break;
            case VK_FORMAT_A2B10G10R10_UNORM_PACK32: {
                uint32_t w = 3u << 30;
                for (int c = 0; c < 3; c++) {
                    const uint32_t q = (uint32_t)p[c] * 4u + (uint32_t)(c & 3);
                    w |= q << (10 * c);
                    l[c] = (float)q / 1023.0f;
                }
                l[3] = 1.0f;
                memcpy(o, &w, 4);
                break;
            }
            case VK_FORMAT_R16G16B16A16_SFLOAT:
                for (int c = 0; c < 4; c++) {
                    const uint16_t hv = upf_float_to_half((float)p[c] / 255.0f * (c == 0 ? 2.5f : 1.0f));
                    memcpy(o + 2 * c, &hv, 2);
                    l[c] = upf_half_to_float(hv);
                }
                break;
            case VK_FORMAT_B10G11R11_UFLOAT_PACK32: {
                /* Small floats: 5-bit exponent, 6 (R, G) or 5 (B) mantissa bits; values
                 * m / 64 * 2^(e - 15) chosen from the byte. */
                uint32_t w = 0;
                for (int c = 0; c < 3; c++) {
                    const int mbits = c == 2 ? 5 : 6;
                    const uint32_t ex = 10u + (uint32_t)(p[c] >> 6), m = (uint32_t)(p[c] & ((1 << mbits) - 1));
                    w |= ((ex << mbits) | m) << (c == 0 ? 0 : c == 1 ? 11 : 22);
                    l[c] = ldexpf(1.0f + (float)m / (float)(1 << mbits), (int)ex - 15);
                }
                l[3] = 1.0f;
                memcpy(o, &w, 4);
                break;
            }
            default:
                for (int c = 0; c < 4; c++)
                    l[c] = (float)p[c] / 255.0f * (c == 1 ? 1.7f : 1.0f);
                memcpy(o, l, 16);
                break;
            }
        }
        const upf_image cpu_src = { lin, sw, sh, 0, UPF_FORMAT_RGBA32F };
        float *ref = cpu_upscale(ctx, &cpu_src, dw, dh, 1.0f);
        const frame_case fc = { sw, sh, dw, dh, 0, fmts[f].f, 0, 1.0f };
        float *gpu = gpu_upscale(t, e, &fc, raw, fmts[f].bytes);
        if (gpu) {
            const diff_stats d = compare(ref, gpu, dw, dh, (size_t)dw, 0, 0);
            printf("source %-26s: mean |diff| %.6f, max %.6f\n", fmts[f].name, d.mean, d.max);
            CHECKF(d.mean <= 0.0005, "source %s: mean %.6f", fmts[f].name, d.mean);
            free(gpu);
        }
        free(ref);
    }
    upf_vk_spatial_destroy(&e);
    free(px);
    free(lin);
    free(raw);
}

/* Every destination format against the CPU engine writing the same format (or, for
 * A2B10G10R10, its float output rounded to 10 bits): at most one code apart. `models` NULL:
 * the built-in set at sharpness 1; else that set at sharpness 0 (a set of the sRGB-Lanczos
 * base at strength 0 takes compose's direct sRGB path into an sRGB-encoded destination). */
static void test_dest_formats(vkt *t, upf_context *ctx, const upf_models *models)
{
    const int sw = 40, sh = 30, dw = 100, dh = 75;
    const float sharpness = models ? 0.0f : 1.0f;
    test_rng rng = test_rng_make("vk_dest");
    uint8_t *px = malloc((size_t)sw * sh * 4);
    make_frame(px, sw, sh, &rng);
    const upf_image cpu_src = { px, sw, sh, 0, UPF_FORMAT_RGBA8_SRGB };
    float *ref = cpu_upscale_models(ctx, &cpu_src, dw, dh, sharpness, models);
    uint8_t *ref8 = malloc((size_t)dw * dh * 4);
    const upf_image ref8_img = { ref8, dw, dh, 0, UPF_FORMAT_RGBA8_SRGB };
    const upf_image ref_img = { ref, dw, dh, 0, UPF_FORMAT_RGBA32F };
    CHECK_OK(ctx, upf_resample(ctx, &ref_img, &ref8_img, UPF_FILTER_BILINEAR)); /* 1:1 copy */
    upf_vk_spatial *e = upf_vk_spatial_create(ctx, upf_vk_spatial_params(
        .device = &t->lend, .max_src_width = sw, .max_src_height = sh, .max_dst_width = dw,
        .max_dst_height = dh, .sharpness = sharpness, .variant = UPF_VK_VARIANT_FP32,
        .models = models));
    CHECK(e != NULL);
    static const struct { VkFormat f; int srgb; size_t bytes; const char *name; } fmts[] = {
        { VK_FORMAT_R8G8B8A8_UNORM, 1, 4, "R8G8B8A8_UNORM, srgb 1" },
        { VK_FORMAT_R8G8B8A8_UNORM, 0, 4, "R8G8B8A8_UNORM" },
        { VK_FORMAT_A2B10G10R10_UNORM_PACK32, 0, 4, "A2B10G10R10_UNORM_PACK32" },
        { VK_FORMAT_R16G16B16A16_SFLOAT, 0, 8, "R16G16B16A16_SFLOAT" },
    };
    vkt_buffer up = vkt_buffer_make(t, (VkDeviceSize)sw * sh * 4);
    vkt_buffer down = vkt_buffer_make(t, (VkDeviceSize)dw * dh * 8);
    memcpy(up.map, px, (size_t)sw * sh * 4);
    vkt_image src = vkt_image_make(t, sw, sh, VK_FORMAT_R8G8B8A8_SRGB, 0,
                                   VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    for (size_t f = 0; e && f < sizeof fmts / sizeof fmts[0]; f++) {
        vkt_image dst = vkt_image_make(t, dw, dh, fmts[f].f, 0,
                                       VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
        VkCommandBuffer cmd = vkt_begin(t);
        vkt_record_upload(cmd, &up, &src, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        const upf_vk_image s = vkt_lend(&src, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0, 0);
        const upf_vk_image d = vkt_lend(&dst, VK_IMAGE_LAYOUT_UNDEFINED,
                                        VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, fmts[f].srgb);
        CHECK_OK(ctx, upf_vk_spatial_record(e, cmd, &s, &d));
        vkt_record_download(cmd, &dst, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, &down);
        CHECK(vkt_submit(t) == 0);
        int worst = 0;
        double worst_f = 0;
        for (int i = 0; i < dw * dh * 4; i++) {
            const double r = ref[i] < 0 ? 0 : ref[i] > 1 ? 1 : ref[i];
            int dcode = 0;
            switch (fmts[f].f) {
            case VK_FORMAT_R8G8B8A8_UNORM:
                dcode = abs((int)((uint8_t *)down.map)[i] -
                            (fmts[f].srgb ? (int)ref8[i] : (int)lrint(r * 255.0)));
                break;
            case VK_FORMAT_A2B10G10R10_UNORM_PACK32: {
                const uint32_t w = ((uint32_t *)down.map)[i / 4];
                const int c = i & 3;
                const int got = (int)(c == 3 ? w >> 30 : (w >> (10 * c)) & 1023);
                dcode = abs(got - (int)lrint(r * (c == 3 ? 3.0 : 1023.0)));
                break;
            }
            default: {
                const double g = upf_half_to_float(((uint16_t *)down.map)[i]);
                worst_f = fmax(worst_f, fabs(g - ref[i]) / fmax(1.0, fabs(ref[i])));
                break;
            }
            }
            worst = dcode > worst ? dcode : worst;
        }
        printf("destination %-26s%s: largest difference %d code%s, %.2g relative\n",
               fmts[f].name, models ? " (sRGB base, strength 0, sharpness 0)" : "", worst,
               worst == 1 ? "" : "s", worst_f);
        CHECKF(worst <= 1 && worst_f <= 1.0 / 1024, "destination %s", fmts[f].name);
        vkt_image_free(t, &dst);
    }
    vkt_image_free(t, &src);
    vkt_buffer_free(t, &up);
    vkt_buffer_free(t, &down);
    upf_vk_spatial_destroy(&e);
    free(ref8);
    free(ref);
    free(px);
}

/* Bad input: each refused with a message, nothing recorded, the command buffer still good. */
static void test_bad_input(vkt *t, upf_context *ctx)
{
    const int sw = 32, sh = 24, dw = 64, dh = 48;
    /* A device made without the required feature. */
    upf_vk_device bare = t->lend;
    bare.enabled_features = NULL;
    CHECK_FAILS(ctx, upf_vk_check_device(ctx, &bare), UPF_ERROR_UNSUPPORTED,
                "shaderStorageImageWriteWithoutFormat");
    CHECKF(strstr(last_log, "upframe cannot run on this GPU:") != NULL, "log: %s", last_log);
    CHECK(upf_vk_spatial_create(ctx, upf_vk_spatial_params(.device = &bare, .max_src_width = sw,
        .max_src_height = sh, .max_dst_width = dw, .max_dst_height = dh)) == NULL);
    CHECK_OK(ctx, upf_vk_check_device(ctx, &t->lend));
    CHECKF(strstr(last_log, "upframe can run on this GPU") != NULL, "log: %s", last_log);
    /* A variant the device was not made for. */
    upf_vk_device no16 = t->lend;
    VkPhysicalDeviceFeatures2 only = t->req.features;
    only.pNext = NULL;
    no16.enabled_features = &only;
    CHECK(upf_vk_spatial_create(ctx, upf_vk_spatial_params(.device = &no16, .max_src_width = sw,
        .max_src_height = sh, .max_dst_width = dw, .max_dst_height = dh,
        .variant = UPF_VK_VARIANT_FP16)) == NULL);
    CHECK_FAILS(ctx, upf_vk_check_device(ctx, NULL), UPF_ERROR_INVALID_ARGUMENT, "device is NULL");
    upf_vk_device nodev = t->lend;
    nodev.device = VK_NULL_HANDLE;
    CHECK_FAILS(ctx, upf_vk_check_device(ctx, &nodev), UPF_ERROR_INVALID_ARGUMENT,
                "device->device is NULL");
    CHECK(upf_vk_spatial_create(ctx, NULL) == NULL);
    CHECK(upf_vk_spatial_create(ctx, upf_vk_spatial_params(.device = &t->lend, .max_src_width = sw,
        .max_src_height = sh, .max_dst_width = dw * 3, .max_dst_height = dh)) == NULL);

    upf_vk_spatial *e = make_engine(t, ctx, UPF_VK_VARIANT_FP32, sw, sh, dw, dh, 0, 1.0f);
    CHECK(e != NULL);
    if (!e)
        return;
    vkt_image src = vkt_image_make(t, sw + 8, sh, VK_FORMAT_R8G8B8A8_SRGB, 0,
                                   VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    vkt_image nouse = vkt_image_make(t, sw, sh, VK_FORMAT_R8G8B8A8_UNORM, 0,
                                     VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT);
    vkt_image dst = vkt_image_make(t, dw, dh, VK_FORMAT_R8G8B8A8_UNORM, 0,
                                   VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
    vkt_buffer up = vkt_buffer_make(t, (VkDeviceSize)(sw + 8) * sh * 4);
    vkt_buffer down = vkt_buffer_make(t, (VkDeviceSize)dw * dh * 4);
    memset(up.map, 200, (size_t)up.size);

    VkCommandBuffer cmd = vkt_begin(t);
    vkt_record_upload(cmd, &up, &src, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    const upf_vk_image gs = vkt_lend(&src, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0, 0);
    const upf_vk_image gd = vkt_lend(&dst, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, 0);
    upf_vk_image s = gs, d = gd;
    s.rect = (upf_rect){ 0, 0, sw, sh };
#define BAD(code, needle)                                                                     \
    CHECK_FAILS(ctx, upf_vk_spatial_record(e, cmd, &s, &d), code, needle);                   \
    s = gs, d = gd, s.rect = (upf_rect){ 0, 0, sw, sh }
    CHECK_FAILS(ctx, upf_vk_spatial_record(e, VK_NULL_HANDLE, &s, &d), UPF_ERROR_INVALID_ARGUMENT,
                "cmd is VK_NULL_HANDLE");
    CHECK_FAILS(ctx, upf_vk_spatial_record(e, cmd, NULL, &d), UPF_ERROR_INVALID_ARGUMENT,
                "src is NULL");
    CHECK_FAILS(ctx, upf_vk_spatial_record(e, cmd, &s, NULL), UPF_ERROR_INVALID_ARGUMENT,
                "dst is NULL");
    s.image = VK_NULL_HANDLE;
    BAD(UPF_ERROR_INVALID_ARGUMENT, "src: image is VK_NULL_HANDLE");
    d.view = VK_NULL_HANDLE;
    BAD(UPF_ERROR_INVALID_ARGUMENT, "dst: view is VK_NULL_HANDLE");
    s = vkt_lend(&nouse, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, 0, 0);
    BAD(UPF_ERROR_INVALID_ARGUMENT, "lacks VK_IMAGE_USAGE_SAMPLED_BIT");
    d.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    BAD(UPF_ERROR_INVALID_ARGUMENT, "lacks VK_IMAGE_USAGE_STORAGE_BIT");
    s.format = VK_FORMAT_R8_UNORM;
    BAD(UPF_ERROR_UNSUPPORTED, "is not one upframe takes as a source");
    d.format = VK_FORMAT_R8G8B8A8_SRGB;
    BAD(UPF_ERROR_UNSUPPORTED, "is not one upframe takes as a destination");
    s.srgb = 1, s.format = VK_FORMAT_R16G16B16A16_SFLOAT;
    BAD(UPF_ERROR_INVALID_ARGUMENT, "only a UNORM view");
    s.rect = (upf_rect){ 0, 0, sw + 8, sh };
    BAD(UPF_ERROR_INVALID_ARGUMENT, "larger than the engine was created for");
    s.rect = (upf_rect){ 4, 0, sw + 8, sh };
    BAD(UPF_ERROR_INVALID_ARGUMENT, "is not inside");
    s.layout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    BAD(UPF_ERROR_INVALID_ARGUMENT, "src: layout");
    s.layout = VK_IMAGE_LAYOUT_UNDEFINED;
    BAD(UPF_ERROR_INVALID_ARGUMENT, "src: layout");
    d.final_layout = VK_IMAGE_LAYOUT_PREINITIALIZED;
    BAD(UPF_ERROR_INVALID_ARGUMENT, "dst: final_layout");
    d.rect = (upf_rect){ 0, 0, dw * 4 / 5, dh };   /* a ratio below 1 one way */
    s.rect = (upf_rect){ 0, 0, sw, sh };
    d.rect.width = sw - 2;
    BAD(UPF_ERROR_INVALID_ARGUMENT, "");
    d.image = s.image;
    BAD(UPF_ERROR_INVALID_ARGUMENT, "same image");
#undef BAD
    /* After all that, the same command buffer records a good frame and runs it clean. */
    CHECK_OK(ctx, upf_vk_spatial_record(e, cmd, &s, &d));
    vkt_record_download(cmd, &dst, VK_IMAGE_LAYOUT_GENERAL, &down);
    CHECK(vkt_submit(t) == 0);
    /* A flat 200 source upscales to flat 200 (sRGB bytes through a linear destination). */
    const uint8_t *o = down.map;
    const float want = upf_srgb_to_linear(200.0f / 255.0f) * 255.0f;
    int off = 0, first_off = -1;
    for (int i = 0; i < dw * dh * 4; i++)
        if ((i & 3) != 3 && fabsf((float)o[i] - want) > 2.5f) {
            off++;
            first_off = first_off < 0 ? i : first_off;
        }
    if (off)
        printf("first off: pixel %d,%d: %u\n", first_off / 4 % dw, first_off / 4 / dw,
               o[first_off]);
    CHECKF(off == 0, "%d channels off the flat value %.1f (first %u %u %u %u, row 10: %u %u "
           "%u %u)", off, (double)want, o[0], o[1], o[2], o[3], o[dw * 40], o[dw * 40 + 1],
           o[dw * 40 + 2], o[dw * 40 + 3]);
    vkt_image_free(t, &src);
    vkt_image_free(t, &nouse);
    vkt_image_free(t, &dst);
    vkt_buffer_free(t, &up);
    vkt_buffer_free(t, &down);
    upf_vk_spatial_destroy(&e);
}

/* The host's VkAllocationCallbacks: every object upframe makes goes through them, and all
 * of it is given back by upf_vk_spatial_destroy. */
typedef struct counting { long allocs, frees, live; } counting;
static void *VKAPI_CALL count_alloc(void *priv, size_t size, size_t align, VkSystemAllocationScope s)
{
    (void)s;
    counting *c = priv;
    void *p = aligned_alloc(align < sizeof(void *) ? sizeof(void *) : align,
                            (size + align - 1) / align * align);
    if (p)
        c->allocs++, c->live++;
    return p;
}
static void *VKAPI_CALL count_realloc(void *priv, void *old, size_t size, size_t align,
                                      VkSystemAllocationScope s)
{
    (void)priv, (void)old, (void)size, (void)align, (void)s;
    return NULL; /* not expected for the objects upframe makes; NULL fails loudly */
}
static void VKAPI_CALL count_free(void *priv, void *p)
{
    counting *c = priv;
    if (p)
        c->frees++, c->live--;
    free(p);
}

static void test_allocator(vkt *t, upf_context *ctx)
{
    counting c = { 0, 0, 0 };
    const VkAllocationCallbacks cb = { &c, count_alloc, count_realloc, count_free, NULL, NULL };
    upf_vk_device dev = t->lend;
    dev.allocator = &cb;
    upf_vk_spatial *e = upf_vk_spatial_create(ctx, upf_vk_spatial_params(.device = &dev,
        .max_src_width = 32, .max_src_height = 24, .max_dst_width = 64, .max_dst_height = 48,
        .timestamps = 1));
    CHECKF(e != NULL, "%s", last_log);
    const long made = c.allocs;
    upf_vk_spatial_destroy(&e);
    printf("host allocation callbacks: %ld allocations while making the engine, %ld live after "
           "destroying it\n", made, c.live);
    CHECK(made > 0);
    CHECK_EQ_INT(c.live, 0);
}

/* Managed mode (its own instance and device, the system's loader): the same picture as the
 * CPU engine through upload, run and read back, and its bench's timings. */
static void test_managed(upf_context *ctx)
{
    const int sw = 48, sh = 32, dw = 96, dh = 64;
    test_rng rng = test_rng_make("vk_managed");
    uint8_t *px = malloc((size_t)sw * sh * 4), *cpu = malloc((size_t)dw * dh * 4),
            *gpu = malloc((size_t)dw * dh * 4);
    make_frame(px, sw, sh, &rng);
    const upf_image src = { px, sw, sh, 0, UPF_FORMAT_RGBA8_SRGB };
    const upf_image c = { cpu, dw, dh, 0, UPF_FORMAT_RGBA8_SRGB }, g = { gpu, dw, dh, 0,
                                                                         UPF_FORMAT_RGBA8_SRGB };
    upf_spatial *s = upf_spatial_create(ctx, upf_spatial_params(.src_width = sw,
        .src_height = sh, .dst_width = dw, .dst_height = dh, .sharpness = 1.0f));
    CHECK_OK(ctx, upf_spatial_run(s, &src, &c));
    upf_spatial_destroy(&s);
    upf_vk_managed *m = upf_vk_managed_create(ctx, upf_vk_managed_params(
        .device_index = -1, .src_width = sw, .src_height = sh, .dst_width = dw,
        .dst_height = dh, .src_format = UPF_FORMAT_RGBA8_SRGB,
        .dst_format = UPF_FORMAT_RGBA8_SRGB, .sharpness = 1.0f,
        .variant = UPF_VK_VARIANT_FP32, .timestamps = 1));
    CHECKF(m != NULL, "upf_vk_managed_create: %s", last_log);
    if (m) {
        CHECK(upf_vk_managed_device_name(m)[0] != 0);
        CHECK_FAILS(ctx, upf_vk_managed_bench(m, 3, (double[24]){ 0 }, (double[4]){ 0 },
                                              &(double){ 0 }),
                    UPF_ERROR_INVALID_ARGUMENT, "nothing uploaded");
        CHECK_OK(ctx, upf_vk_managed_run(m, &src, &g));
        int worst = 0;
        for (int i = 0; i < dw * dh * 4; i++)
            worst = abs(cpu[i] - gpu[i]) > worst ? abs(cpu[i] - gpu[i]) : worst;
        printf("managed mode on %s: largest difference from the CPU %d code%s\n",
               upf_vk_managed_device_name(m), worst, worst == 1 ? "" : "s");
        CHECK(worst <= 1);
        double ms[3 * UPF_SPATIAL_PASS_COUNT], total[3], rec = -1;
        CHECK_OK(ctx, upf_vk_managed_bench(m, 3, ms, total, &rec));
        CHECK(total[0] > 0 && total[2] > 0 && rec > 0);
        const upf_image wrong = { gpu, dw - 1, dh, 0, UPF_FORMAT_RGBA8_SRGB };
        CHECK_FAILS(ctx, upf_vk_managed_run(m, &src, &wrong), UPF_ERROR_INVALID_ARGUMENT,
                    "destination image");
        upf_vk_managed_destroy(&m);
        CHECK(m == NULL);
    }
    free(px);
    free(cpu);
    free(gpu);
}

/* The tool: upframe upscale and bench with --backend vulkan, and their usage errors. */
static void test_tool(void)
{
    if (access(UPF_TOOL_PATH, X_OK) != 0 || (mkdir(UPF_TEST_TMPDIR, 0755) != 0 && errno != EEXIST)) {
        /* A test binary copied to another machine (scripts/vk_gpu_run.sh) has no tool. */
        printf("tool checks skipped: no %s here\n", UPF_TOOL_PATH);
        return;
    }
    /* Under the sanitizers the tool's runs keep the leak check: the driver that the loader
     * unloads before exit stays loaded (tests/lsan_keep_loaded.c, preloaded by ctest). */
    uint8_t px[64 * 36 * 4];
    test_rng rng = test_rng_make("vk_tool");
    make_frame(px, 64, 36, &rng);
    const upf_image small = { px, 64, 36, 0, UPF_FORMAT_RGBA8_SRGB };
    char err[IMAGEIO_ERR_SIZE];
    CHECK(imageio_write_png(UPF_TEST_TMPDIR "/small.png", &small, 8, err) == UPF_OK);
    const char *up[] = { "upscale", UPF_TEST_TMPDIR "/small.png", "-o", UPF_TEST_TMPDIR "/gpu.png",
                         "--scale", "2", "--backend", "vulkan", NULL };
    CHECKF(test_run_tool(up) == 0, "upscale --backend vulkan: %s", test_tool_err());
    CHECKF(strstr(test_tool_out(), "on the GPU (--backend vulkan)") != NULL, "%s",
           test_tool_out());
    FILE *f = fopen(UPF_TEST_TMPDIR "/gpu.png", "rb");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    const char *bench[] = { "bench", "--backend", "vulkan", "--size", "48x32", "--frames", "3",
                            "--variant", "fp32", "--no-temporal", "--no-framegen", NULL };
    CHECKF(test_run_tool(bench) == 0, "bench --backend vulkan: %s", test_tool_err());
    CHECKF(strstr(test_tool_out(), "48x32->96x64") != NULL, "%s", test_tool_out());
    const char *bad1[] = { "upscale", "builtin", "-o", UPF_TEST_TMPDIR "/x.png", "--scale", "2",
                           "--backend", "metal", NULL };
    CHECK(test_run_tool(bad1) == 1 && strstr(test_tool_err(), "expected cpu or vulkan"));
    const char *bad2[] = { "upscale", "builtin", "-o", UPF_TEST_TMPDIR "/x.png", "--scale", "2",
                           "--backend", "vulkan", "--engine", "lanczos", NULL };
    CHECK(test_run_tool(bad2) == 1 && strstr(test_tool_err(), "runs the spatial engine"));
    const char *bad3[] = { "bench", "--frames", "3", NULL };
    CHECK(test_run_tool(bad3) == 1 && strstr(test_tool_err(), "go with --backend vulkan"));
    const char *sharp0[] = { "bench", "--backend", "vulkan", "--size", "48x32", "--frames", "3",
                             "--variant", "fp32", "--sharpness", "0", "--no-temporal",
                             "--no-framegen", NULL };
    CHECKF(test_run_tool(sharp0) == 0 && strstr(test_tool_out(), "sharpness 0") != NULL,
           "bench --sharpness 0: %s", test_tool_err());
    const char *bad4[] = { "bench", "--backend", "vulkan", "--sharpness", "9", NULL };
    CHECK(test_run_tool(bad4) == 1 && strstr(test_tool_err(), "must be a number in 0..4"));
    const char *bad5[] = { "bench", "--variant", "fp16", NULL };
    CHECK(test_run_tool(bad5) == 1 && strstr(test_tool_err(), "go with --backend vulkan"));
}

/* Which compose an engine takes: by subgroup strips (compose_strips.comp) where the device
 * has the basic and shuffle subgroup operations in compute shaders, else compose.comp's
 * tiles, at either sharpness; the pipeline and test_dest_formats check it against the CPU. */
static char debug_log[8192];
static void append_log(void *priv, upf_log_level level, const char *msg)
{
    (void)priv;
    (void)level;
    const size_t n = strlen(debug_log);
    snprintf(debug_log + n, sizeof debug_log - n, "%s\n", msg);
}

static void test_compose_form(vkt *t)
{
    VkPhysicalDeviceSubgroupProperties sub = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES };
    VkPhysicalDeviceProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                       .pNext = &sub };
    vkGetPhysicalDeviceProperties2(t->pd, &p2);
    const VkSubgroupFeatureFlags want =
        VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
    const bool strips = (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                        (sub.supportedOperations & want) == want && sub.subgroupSize >= 8 &&
                        sub.subgroupSize <= 128;
    printf("compose form: subgroups of %u, shuffle %s: %s\n", sub.subgroupSize,
           (sub.supportedOperations & want) == want ? "yes" : "no", strips ? "strips" : "tiles");
    upf_context *dbg = upf_context_create(upf_context_params(.log = append_log,
                                                             .log_level = UPF_LOG_DEBUG));
    for (int k = 0; k < 4; k++) { /* sharpness 0 and 1, each in the AUTO and TILES forms */
        debug_log[0] = 0;
        const upf__vk_compose_form form = (upf__vk_compose_form)(k / 2);
        upf_vk_spatial *e = make_engine_form(t, dbg, UPF_VK_VARIANT_FP32, 64, 48, 128, 96, 0,
                                             (float)(k % 2), form);
        CHECKF(e != NULL, "%s", debug_log);
        const bool by_strips = strstr(debug_log, "compose by strips") != NULL;
        CHECKF(by_strips == (strips && form == UPF__VK_COMPOSE_AUTO), "case %d: %s", k,
               debug_log);
        CHECKF(by_strips || strstr(debug_log, "compose tile 32x8"), "%s", debug_log);
        upf_vk_spatial_destroy(&e);
    }
    upf_context_destroy(&dbg);
}

int main(void)
{
    upf_context *ctx = upf_context_create(upf_context_params(.log = capture_log,
                                                             .log_level = UPF_LOG_INFO,
                                                             .threads = 2));
    vkt t;
    const int rc = vkt_init(&t, ctx);
    if (rc) {
        upf_context_destroy(&ctx);
        return rc;
    }
    test_bad_input(&t, ctx);
    test_compose_form(&t);
    test_pipeline(&t, ctx);
    test_source_formats(&t, ctx);
    test_dest_formats(&t, ctx, NULL);
    /* The sRGB-Lanczos base with no network at sharpness 0: compose's direct sRGB store. */
    upf_models *srgb = upf_models_default(ctx);
    if (srgb) {
        for (int i = 0; i < srgb->count; i++) {
            srgb->model[i].flags = UPF_MODEL_FLAG_SRGB_LANCZOS_BASE | UPF_MODEL_FLAG_NO_SMAA;
            srgb->model[i].detail_strength = 0.0f;
        }
        test_dest_formats(&t, ctx, srgb);
    }
    upf_models_destroy(&srgb);
    test_allocator(&t, ctx);
    vkt_finish(&t);
    test_managed(ctx);
    test_tool();
    upf_context_destroy(&ctx);
    return test_finish("vk_spatial");
}
