/* web_ref.c: the native side of the web page's browser test (tests/test_web.py): the same
 * entry points the page's WebAssembly module runs (web/upf_web.c), natively, on the plain C
 * kernels (the context's CPU flags lowered to none, the paths the WebAssembly build takes),
 * and a comparison of two pictures.
 *
 *   web_ref upscale IN.png OUT.png SCALE      the page's upscale of IN (8-bit RGBA sRGB)
 *   web_ref window IN.png SCALE TX TY WX WY   JSON: the window's 8 x 256 values and the
 *                                             engine's 12x12 detail block (web/upf_web.c)
 *   web_ref diff A.png B.png                  JSON: samples that differ, the largest
 *                                             difference, and the pictures' sizes
 * Exit 0 on success, 2 on bad input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "imageio/image_io.h"
#include "upf_web.h"

static int read_rgba8(const char *path, imageio_image *img)
{
    char err[IMAGEIO_ERR_SIZE];
    if (imageio_read(path, NULL, img, err) != UPF_OK) {
        fprintf(stderr, "web_ref: %s\n", err);
        return 0;
    }
    if (img->img.format != UPF_FORMAT_RGBA8_SRGB) {
        fprintf(stderr, "web_ref: %s: expected an 8-bit picture\n", path);
        imageio_free(img);
        return 0;
    }
    return 1;
}

/* A session with the picture upscaled by SCALE (rounded as the CLI and the page round). */
static upfw_session *run(const char *path, double scale, imageio_image *img)
{
    if (!read_rgba8(path, img))
        return NULL;
    upfw_session *s = upfw_create();
    if (!s)
        return NULL;
    upfw_context(s)->cpu_flags = 0; /* the plain C kernels, as in WebAssembly */
    const int w = img->img.width, h = img->img.height;
    const int ow = (int)floor(w * scale + 0.5), oh = (int)floor(h * scale + 0.5);
    int done = 0;
    int rc = upfw_begin(s, img->img.data, w, h, ow, oh, 0.0f, 0);
    while (rc == 0 && !done)
        rc = upfw_run_pass(s, &done);
    if (rc != 0) {
        fprintf(stderr, "web_ref: %s: %s\n", path, upfw_error(s));
        upfw_destroy(s);
        return NULL;
    }
    return s;
}

static int cmd_upscale(char **argv)
{
    imageio_image img;
    upfw_session *s = run(argv[0], atof(argv[2]), &img);
    if (!s)
        return 2;
    const int w = img.img.width, h = img.img.height;
    const double scale = atof(argv[2]);
    const upf_image out = { (void *)upfw_output(s), (int)floor(w * scale + 0.5),
                            (int)floor(h * scale + 0.5), 0, UPF_FORMAT_RGBA8_SRGB };
    char err[IMAGEIO_ERR_SIZE];
    upf_result r = imageio_write_png(argv[1], &out, 8, err);
    if (r != UPF_OK)
        fprintf(stderr, "web_ref: %s\n", err);
    upfw_destroy(s);
    imageio_free(&img);
    return r == UPF_OK ? 0 : 2;
}

static void print_floats(const char *name, const float *v, int n)
{
    printf("\"%s\": [", name);
    for (int i = 0; i < n; i++)
        printf(isnan(v[i]) ? "%snull" : "%s%.9g", i ? "," : "", (double)v[i]);
    printf("]");
}

static int cmd_window(char **argv)
{
    imageio_image img;
    upfw_session *s = run(argv[0], atof(argv[1]), &img);
    if (!s)
        return 2;
    float values[8 * 256], block[144];
    int rc = upfw_window(s, atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), values,
                         block);
    if (rc == 0) {
        printf("{");
        print_floats("values", values, 8 * 256);
        printf(", ");
        print_floats("block", block, 144);
        printf("}\n");
    } else {
        fprintf(stderr, "web_ref: %s\n", upfw_error(s));
    }
    upfw_destroy(s);
    imageio_free(&img);
    return rc == 0 ? 0 : 2;
}

static int cmd_diff(char **argv)
{
    imageio_image a, b;
    if (!read_rgba8(argv[0], &a))
        return 2;
    if (!read_rgba8(argv[1], &b)) {
        imageio_free(&a);
        return 2;
    }
    long differ = 0;
    int max = 0;
    const int same = a.img.width == b.img.width && a.img.height == b.img.height;
    if (same) {
        const unsigned char *p = a.img.data, *q = b.img.data;
        for (size_t i = 0; i < (size_t)a.img.width * (size_t)a.img.height * 4; i++) {
            int d = abs((int)p[i] - (int)q[i]);
            differ += d != 0;
            max = d > max ? d : max;
        }
    }
    printf("{\"a\": [%d, %d], \"b\": [%d, %d], \"differ\": %ld, \"max\": %d}\n", a.img.width,
           a.img.height, b.img.width, b.img.height, same ? differ : -1L, max);
    imageio_free(&a);
    imageio_free(&b);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "upscale") == 0)
        return cmd_upscale(argv + 2);
    if (argc == 8 && strcmp(argv[1], "window") == 0)
        return cmd_window(argv + 2);
    if (argc == 4 && strcmp(argv[1], "diff") == 0)
        return cmd_diff(argv + 2);
    fprintf(stderr, "usage: web_ref upscale IN.png OUT.png SCALE | window IN.png SCALE TX TY "
                    "WX WY | diff A.png B.png\n");
    return 1;
}
