/* cut.h: whether two frames look like a cut between shots, for the frame generation paths
 * that have no motion vectors (optical flow): the library's scene-change test misses a cut
 * between two shots of one map (issue 35 item 6), whose colours match. */
#ifndef UPF_CLI_CUT_H
#define UPF_CLI_CUT_H

#include <stdbool.h>

#include "upframe.h"

/* The threshold of cli_cut_score: consecutive frames of every camera path of the scene
 * renderer's four scenes score at most 0.42 (the fast turn indoors), their cuts 0.82 to 1.40
 * (docs/CLI.md gives the measurement). */
#define CLI_CUT_THRESHOLD 0.7

/* How unlike two frames of one size are after the best global shift: both taken to 64x36
 * grey (the mean of R, G and B, sRGB-encoded), the smallest mean absolute difference over
 * shifts of up to 4 pixels (1/16 of the width) in each direction, divided by the frames' mean
 * absolute deviation (their contrast). A negative result when it cannot be measured. */
double cli_cut_score(upf_context *ctx, const upf_image *a, const upf_image *b);

#endif /* UPF_CLI_CUT_H */
