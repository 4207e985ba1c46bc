/* test_lifetimes.c: the library's object lifetimes and id arithmetic found by issue 35
 * (item 11), meant to be run under ASan+UBSan too: a model set still used by an engine is not
 * destroyed (it was a use after free), and upf_interpolate_run takes prev_id = INT64_MAX
 * without a signed overflow (UBSan stops the sanitizer build at the old `prev_id + 1`). */
#include <stdint.h>

#include "test_util.h"

static void test_models_in_use(void)
{
    upf_context *ctx = test_context(1);
    upf_models *set = upf_models_default(ctx);
    CHECK(set != NULL);
    upf_spatial *s = upf_spatial_create(ctx, upf_spatial_params(.src_width = 16, .src_height = 8,
                                                                .dst_width = 32, .dst_height = 16,
                                                                .models = set));
    upf_spatial *s2 = upf_spatial_create(ctx, upf_spatial_params(.src_width = 8, .src_height = 8,
                                                                 .dst_width = 16,
                                                                 .dst_height = 16,
                                                                 .models = set));
    CHECK(s && s2);
    upf_models_destroy(&set); /* refused: two engines read their model from it */
    CHECK(set != NULL);
    const char *msg = "";
    CHECK(upf_context_last_error(ctx, &msg) == UPF_ERROR_INVALID_ARGUMENT);
    CHECKF(strstr(msg, "2 engines") != NULL, "%s", msg);
    /* the engine still runs on its model (ASan: no use after free) */
    float src[16 * 8 * 4], dst[32 * 16 * 4];
    for (int i = 0; i < 16 * 8 * 4; i++)
        src[i] = (float)(i % 7) / 7.0f;
    upf_image in = { src, 16, 8, 0, UPF_FORMAT_RGBA32F }, out = { dst, 32, 16, 0,
                                                                    UPF_FORMAT_RGBA32F };
    CHECK(upf_spatial_run(s, &in, &out) == UPF_OK);
    upf_spatial_destroy(&s);
    upf_models_destroy(&set); /* still one user */
    CHECK(set != NULL);
    upf_spatial_destroy(&s2);
    upf_models_destroy(&set);
    CHECK(set == NULL);
    upf_context_destroy(&ctx);
    CHECK(ctx == NULL);
}

static void test_id_overflow(void)
{
    upf_context *ctx = test_context(1);
    upf_interpolate *e = upf_interpolate_create(ctx, upf_interpolate_params(.width = 8,
                                                                             .height = 8));
    CHECK(e != NULL);
    float a[8 * 8 * 4] = { 0 }, b[8 * 8 * 4], o[8 * 8 * 4];
    for (int i = 0; i < 8 * 8 * 4; i++)
        b[i] = 1.0f;
    upf_image ia = { a, 8, 8, 0, UPF_FORMAT_RGBA32F }, ib = { b, 8, 8, 0, UPF_FORMAT_RGBA32F },
              io = { o, 8, 8, 0, UPF_FORMAT_RGBA32F };
    upf_interpolate_frames f = { .prev_color = &ia, .color = &ib, .prev_id = INT64_MAX,
                                 .id = INT64_MIN };
    CHECK(upf_interpolate_run(e, &f, 0.5, &io) == UPF_OK);
    upf_interpolate_method m = 0;
    upf_interpolate_fallback why = 0;
    CHECK(upf_interpolate_last_method(e, &m, &why) == UPF_OK);
    CHECK(m == UPF_INTERPOLATE_USED_BLEND && why == UPF_INTERPOLATE_FALLBACK_NOT_CONSECUTIVE);
    CHECK_NEAR(o[0], 0.5f, 1e-6f); /* the blend of 0 and 1 */
    upf_interpolate_destroy(&e);
    upf_context_destroy(&ctx);
}

int main(void)
{
    test_models_in_use();
    test_id_overflow();
    return test_finish("lifetimes");
}
