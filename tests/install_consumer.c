/* install_consumer.c: a program built against an installed upframe through pkg-config
 * (check_install.cmake): it must compile as C99 with only the installed header and link with
 * only `pkg-config --libs upframe`. */
#include <stdio.h>
#include <string.h>

#include <upframe.h>

int main(void)
{
    upf_context *ctx = upf_context_create(NULL);
    if (!ctx)
        return 1;
    unsigned char src[2 * 1 * 4] = { 0, 0, 0, 255, 255, 255, 255, 255 };
    unsigned char dst[4 * 1 * 4];
    upf_image in = { src, 2, 1, 0, UPF_FORMAT_RGBA8_UNORM };
    upf_image out = { dst, 4, 1, 0, UPF_FORMAT_RGBA8_UNORM };
    upf_result r = upf_resample(ctx, &in, &out, UPF_FILTER_BILINEAR);
    upf_context_destroy(&ctx);
    /* bilinear 2x of [0, 255]: 0, 64 (0.25), 191 (0.75), 255 */
    if (r != UPF_OK || dst[0] != 0 || dst[4] != 64 || dst[8] != 191 || dst[12] != 255) {
        fprintf(stderr, "install_consumer: unexpected result %d: %d %d %d %d\n", (int)r, dst[0],
                dst[4], dst[8], dst[12]);
        return 1;
    }
    printf("install_consumer: upframe %s works\n", upf_version());
    return strcmp(upf_version(), UPF_VERSION_STRING_EXPECTED) == 0 ? 0 : 1;
}
