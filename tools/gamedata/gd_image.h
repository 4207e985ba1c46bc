/* gd_image.h: the image arithmetic of the game-capture tool (tools/gamedata/README.md):
 * box-filtering a supersampled capture down to the reference, area resampling, luma planes,
 * and the two checks a captured pair must pass before it is kept:
 *  - alignment: the shift between the input and the reference brought to the input's size,
 *    by phase correlation (Kuglin and Hines, "The phase correlation image alignment method",
 *    IEEE Conf. on Cybernetics and Society, 1975) with a parabolic sub-pixel peak;
 *  - content: the PSNR of the two after a small blur (so that the input's aliasing, which
 *    is what an upscaler has to undo, is not counted, while an object in another place or an
 *    animation in another state is).
 * Planes are float, row-major, tightly packed; the functions return NULL / a negative value
 * on a bad argument or when out of memory, and never exit. */
#ifndef UPF_GD_IMAGE_H
#define UPF_GD_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "upframe.h"

/* How the reference averages its n x n samples. */
typedef enum gd_average {
    GD_AVERAGE_ENCODED = 0,   /* the 8-bit sRGB-encoded values as the game wrote them */
    GD_AVERAGE_LINEAR = 1     /* in linear light, then sRGB-encoded again */
} gd_average;

/* Box-filters an RGBA8_SRGB image n x n down (width and height multiples of n) into a
 * tightly packed RGBA16_SRGB image of width / n x height / n (alpha 65535). `out` is
 * allocated with malloc; returns 0, or -1 on a bad argument / out of memory. */
int gd_box_reduce(const upf_image *src, int n, gd_average average, upf_image *out);

/* The luma (Rec. 709 weights) of the sRGB-encoded values of an RGBA8_SRGB or RGBA16_SRGB
 * image, in [0, 1]; malloc'd, NULL on a bad argument / out of memory. */
float *gd_luma(const upf_image *img);

/* Area (box) resampling of a plane from sw x sh to dw x dh (dw <= sw, dh <= sh): each output
 * pixel is the mean of the source over its footprint, fractional pixels weighted by the
 * part covered. malloc'd; NULL on a bad argument. */
float *gd_area_resample(const float *src, int sw, int sh, int dw, int dh);

/* A separable Gaussian blur of standard deviation sigma (> 0), edges clamped; malloc'd. */
float *gd_blur(const float *src, int w, int h, double sigma);

/* The phase correlation of two w x h planes: the shift (dx, dy) that, applied to `b`, lines
 * it up with `a` (a(x, y) ~ b(x - dx, y - dy)), the correlation peak's height (1 for
 * identical content, near 0 for unrelated content) and `noise`, the root mean square of the
 * correlation surface away from the peak, in the same units (for unrelated content the whole
 * surface is noise, and the peak is merely its largest sample). Uses the centred crop of the
 * largest power-of-two size on each axis (at least 16), with a Hann window. Returns 0, or -1
 * on a bad argument / out of memory. */
typedef struct gd_shift {
    double dx, dy, peak, noise;
} gd_shift;

/* A peak is taken as real (the two planes show the same content) when it stands this many
 * noise deviations above 0. Were the surface of unrelated planes Gaussian noise, its largest
 * of N = 32768 samples (a 256 x 128 surface) would pass z = 4.5 every other time and z = 6
 * with a chance of N * Q(6) = 3e-5; its tails are heavier (the window ties neighbouring
 * frequency bins together), and on unrelated synthetic planes the largest sample measures
 * 4.7 to 6.7 deviations (tests/test_gamedata.c, 14 pairs). 10 leaves a margin of 1.5 times
 * that, and aligned game pairs stand far above it (tools/gamedata/README.md). */
#define GD_PEAK_MIN_SIGMAS 10.0

/* The largest shift (in input pixels, on either axis) a kept pair may show: the same camera
 * renders both, so their true shift is 0 and any measured one is the estimator's error or a
 * misplaced camera. The estimator stays within 0.1 px on aligned synthetic pairs at every
 * ratio (tests/test_gamedata.c), and a quarter pixel is where a pair starts teaching an
 * upscaler to move edges (an edge off by a quarter input pixel is off by half an output
 * pixel at 2x). */
#define GD_MAX_SHIFT 0.25
int gd_phase_correlate(const float *a, const float *b, int w, int h, gd_shift *out);

/* PSNR in dB of two planes of values in [0, 1] (99 for equal planes). */
double gd_psnr(const float *a, const float *b, size_t n);

/* The checks of one pair: `lr` (the native low-resolution render) against `ref` (the
 * reference): the reference's luma is area-resampled to the input's size, then compared. */
typedef struct gd_check {
    gd_shift shift;           /* by gd_phase_correlate(lr, ref at lr's size) */
    double psnr;              /* luma PSNR, lr against ref at lr's size */
    double psnr_blur;         /* the same after gd_blur(sigma = 1 input pixel) of both */
} gd_check;
int gd_check_pair(const upf_image *lr, const upf_image *ref, gd_check *out);

/* The verdict on a checked pair: 1 when its shift is at most max_shift input pixels on both
 * axes, its peak at least min_sigmas noise deviations and its blurred PSNR at least
 * min_psnr_blur dB; else 0, with the failed checks described in `why` (size bytes). */
int gd_check_verdict(const gd_check *c, double max_shift, double min_sigmas,
                     double min_psnr_blur, char *why, size_t size);

#endif /* UPF_GD_IMAGE_H */
