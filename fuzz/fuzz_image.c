/* fuzz_image.c: libFuzzer harness for imageio_read_mem, the front door every picture of the
 * tool comes through (files, and standard input for `-`): the type is told by content, the
 * reader of that type runs under reduced limits, and other formats are named
 * (imageio_format_name). Checks the invariants of fuzz_common.h for the type detected, and
 * that a refusal as "unsupported" always names the format. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    imageio_image im;
    char err[IMAGEIO_ERR_SIZE] = "";
    upf_result r = imageio_read_mem(data, size, FUZZ_NAME, &fuzz_limits, &im, err);
    imageio_type type = imageio_detect(data, size);
    if (r == UPF_OK && type == IMAGEIO_UNKNOWN)
        fuzz_fail("an image read from content no reader claims");
    fuzz_check(r, &im, err, type == IMAGEIO_UNKNOWN ? IMAGEIO_PNG : type);
    const char *name = imageio_format_name(data, size);
    if (name && !*name)
        fuzz_fail("an empty format name");
    if (type == IMAGEIO_UNKNOWN && r == UPF_ERROR_UNSUPPORTED && (!name || !strstr(err, name)))
        fuzz_fail("an unsupported format refused without its name");
    imageio_free(&im);
    return 0;
}
