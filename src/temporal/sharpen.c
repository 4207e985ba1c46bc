/* sharpen.c: the temporal engine's last pass (docs/TEMPORAL.md, "sharpen"): a contrast-adaptive
 * sharpen of the accumulated frame, then back from the working space to the host's light and
 * encoding, into the output image.
 *
 * Reads: history next (the frame just accumulated) plus display next (the shown colour's
 * offset from it, accumulate.c step 8). Writes: the output (host, any colour format).
 *
 * On the tonemapped RGB of a pixel c and its four neighbours n, s, e, w (edges repeated):
 *   o = (c + l (n + s + e + w)) / (1 + 4 l),     l = -sharpness * 3/16 * a,
 * a negative lobe that is strongest (3/16 at sharpness 1, short of the -1/4 that would divide
 * by zero) where the cross is dark and flat and fades where its luma range reaches the ends
 * of the working range: a = sqrt(clamp(min(Lmin, 1 - Lmax) / Lmax, 0, 1)) over the five lumas
 * (the adaptive amount of AMD's CAS, Lottes 2019). Each channel of o is then clamped to the
 * five taps' range, so the sharpen cannot ring or clip past its neighbours: the robustness of
 * RCAS (Lottes, FidelityFX RCAS, 2020), by a clamp instead of its closed-form lobe limit.
 * Sharpness 0 leaves c as it is. Then: inverse tonemap, times pre-exposure / exposure, the
 * flags' sRGB or square-root encoding, alpha 1, and the format's own encoding
 * (upf__row_from_linear).
 * Work: one task per output row; per-worker scratch holds the row handed to the format. */
#include <math.h>

#include "core/color.h"
#include "core/image.h"
#include "temporal/temporal_passes.h"

typedef struct sharpen_job {
    const upf__sharpen_con *con;
    const float *hist;
    const uint32_t *display;
    const upf_image *out;
    float *rows; /* width * 4 floats per worker */
} sharpen_job;

static void rgb_at(const sharpen_job *job, int x, int y, float *rgb)
{
    const upf__sharpen_con *c = job->con;
    x = UPF_CLAMP(x, 0, c->width - 1);
    y = UPF_CLAMP(y, 0, c->height - 1);
    const size_t i = (size_t)y * c->width + x;
    float ycc[3];
    upf__display_unpack(job->display[i], ycc);
    for (int k = 0; k < 3; k++)
        ycc[k] += job->hist[4 * i + k];
    upf__ycocg_to_rgb(ycc, rgb);
    for (int k = 0; k < 3; k++)
        rgb[k] = rgb[k] > 0.0f ? rgb[k] : 0.0f;
}

static void sharpen_row(void *priv, int y, int worker)
{
    const sharpen_job *job = priv;
    const upf__sharpen_con *c = job->con;
    float *row = job->rows + (size_t)worker * c->width * 4;
    for (int x = 0; x < c->width; x++) {
        float o[3];
        rgb_at(job, x, y, o);
        if (c->sharpness > 0.0f) {
            float t[4][3], L[5], lo[3], hi[3];
            rgb_at(job, x, y - 1, t[0]);
            rgb_at(job, x - 1, y, t[1]);
            rgb_at(job, x + 1, y, t[2]);
            rgb_at(job, x, y + 1, t[3]);
            L[4] = upf_luma(o[0], o[1], o[2]);
            for (int k = 0; k < 3; k++)
                lo[k] = hi[k] = o[k];
            for (int n = 0; n < 4; n++) {
                L[n] = upf_luma(t[n][0], t[n][1], t[n][2]);
                for (int k = 0; k < 3; k++) {
                    lo[k] = t[n][k] < lo[k] ? t[n][k] : lo[k];
                    hi[k] = t[n][k] > hi[k] ? t[n][k] : hi[k];
                }
            }
            float lmin = L[4], lmax = L[4];
            for (int n = 0; n < 4; n++) {
                lmin = L[n] < lmin ? L[n] : lmin;
                lmax = L[n] > lmax ? L[n] : lmax;
            }
            float amount = (lmin < 1.0f - lmax ? lmin : 1.0f - lmax) /
                           (lmax > 1.0f / 256.0f ? lmax : 1.0f / 256.0f);
            amount = sqrtf(amount > 0.0f ? (amount < 1.0f ? amount : 1.0f) : 0.0f);
            float lobe = -c->sharpness * (3.0f / 16.0f) * amount;
            float norm = 1.0f / (1.0f + 4.0f * lobe);
            for (int k = 0; k < 3; k++) {
                float v = (o[k] + lobe * (t[0][k] + t[1][k] + t[2][k] + t[3][k])) * norm;
                o[k] = v < lo[k] ? lo[k] : v > hi[k] ? hi[k] : v;
            }
        }
        upf__tonemap_inverse(o);
        float *p = row + 4 * x;
        for (int k = 0; k < 3; k++) {
            float v = o[k] * c->exposure;
            if (c->encoding == UPF__ENCODING_SRGB)
                v = upf_linear_to_srgb(v);
            else if (c->encoding == UPF__ENCODING_SQRT)
                v = sqrtf(v);
            p[k] = v;
        }
        p[3] = 1.0f;
    }
    upf__row_from_linear(job->out, y, 0, c->width, row);
}

upf_result upf__sharpen_pass(const upf__pass_args *a)
{
    const upf__sharpen_con *con = a->con;
    sharpen_job job = { con, a->surface[UPF__TP_HISTORY_NEXT].data,
                        a->surface[UPF__TP_DISPLAY_NEXT].data, a->surface[UPF__TP_OUTPUT].image,
                        a->scratch };
    upf__parallel_for(a->ctx, sharpen_row, &job, con->height);
    return UPF_OK;
}
