/* fuzz_png.c: libFuzzer harness for imageio_read_png_mem: reads the input as a PNG (libspng)
 * under reduced limits, checks the result's invariants (fuzz_common.h) and frees it. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    imageio_image im;
    char err[IMAGEIO_ERR_SIZE] = "";
    upf_result r = imageio_read_png_mem(data, size, FUZZ_NAME, &fuzz_limits, &im, err);
    fuzz_check(r, &im, err, IMAGEIO_PNG);
    imageio_free(&im);
    return 0;
}
