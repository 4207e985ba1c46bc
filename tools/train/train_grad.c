/* train_grad.c: the trainer's arithmetic: one window forward with everything the backward
 * needs, the loss, the backward pass, the initial weights, Adam and the learning-rate
 * schedule (train.h).
 *
 * Reads weights (UPF_NET_WEIGHTS floats in the model's layout) and 16x16 luma windows; writes
 * activations, gradients and updated weights.
 *
 * A stage (docs/SPATIAL.md, "Pass 4") is
 *
 *     T1 = X^T B,  T2 = X^T D,  Z = A T1 + C T2,  Y = ReLU(Z)   (no ReLU after stage 6)
 *
 * and with G = dL/dZ (dL/dY where the ReLU let Z through, 0 elsewhere) the chain rule gives
 *
 *     dA = G T1^T            dC = G T2^T
 *     U1 = A^T G             U2 = C^T G          (dL/dT1, dL/dT2)
 *     dB = X U1              dD = X U2           (T1[k][j] = sum_l X[l][k] B[l][j])
 *     dX = B U1^T + D U2^T                       (dL/dX, the previous stage's dL/dY)
 *
 * Every product is one kernel, C = P Q over 16x16 row-major matrices, each entry summed over
 * k in index order from 0, vectorised along the rows of Q (mat_mul_rows). That is the order
 * in which upf__net_window_forward_ref sums, so the forward here is the reference bit for bit
 * (without FMA contraction, the project's ISO C default). On a CPU with AVX2 and FMA3 (the
 * `cpu_flags` argument, a context's) every product is the library's AVX2 kernel instead
 * (upf__mat16_mul_avx2): the same sums with one rounding a term, about three times as fast
 * (bench/bench_train.c), within fp32 rounding of the C, not bit for bit. Transposes are
 * explicit copies (256 floats, cheap next to a product). */
#include <math.h>
#include <string.h>

#include "train/train.h"

#define N UPF_NET_DIM
#define NN UPF_NET_WINDOW

/* ---- random numbers ----------------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void train_rng_seed(train_rng *rng, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        rng->s[i] = splitmix64(&seed);
}

static uint64_t rotl64(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t train_rng_next(train_rng *rng)
{
    uint64_t *s = rng->s;
    const uint64_t result = rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

double train_rng_uniform(train_rng *rng)
{
    return (double)(train_rng_next(rng) >> 11) * 0x1p-53;
}

double train_rng_normal(train_rng *rng)
{
    /* Box-Muller: u1 in (0, 1] so the log is finite. */
    double u1 = 1.0 - train_rng_uniform(rng), u2 = train_rng_uniform(rng);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* ---- 16x16 kernels ------------------------------------------------------------------------ */

/* C = P Q: C[i][j] = sum_k P[i][k] Q[k][j], k from 0 up, starting from +0. Four rows of C at
 * a time: for each column j the four sums run over k side by side; along j the loads are
 * contiguous rows of Q and P gives one value per row, so GCC vectorises the j loop (as in
 * net_infer.c) with the accumulators in registers: about 5x a loop over a row accumulator in
 * memory (bench/bench_train.c). `add`: C += P Q, the product summed first and then added. */
static inline void mat_mul_rows(const float *restrict P, const float *restrict Q,
                                float *restrict C, int add)
{
    for (int i = 0; i < N; i += 4) {
        const float *p0 = P + (i + 0) * N, *p1 = P + (i + 1) * N;
        const float *p2 = P + (i + 2) * N, *p3 = P + (i + 3) * N;
        for (int j = 0; j < N; j++) {
            float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
            for (int k = 0; k < N; k++) {
                const float q = Q[k * N + j];
                a0 += p0[k] * q;
                a1 += p1[k] * q;
                a2 += p2[k] * q;
                a3 += p3[k] * q;
            }
            if (add) {
                C[(i + 0) * N + j] += a0;
                C[(i + 1) * N + j] += a1;
                C[(i + 2) * N + j] += a2;
                C[(i + 3) * N + j] += a3;
            } else {
                C[(i + 0) * N + j] = a0;
                C[(i + 1) * N + j] = a1;
                C[(i + 2) * N + j] = a2;
                C[(i + 3) * N + j] = a3;
            }
        }
    }
}

static void mat_mul_c(const float *restrict P, const float *restrict Q, float *restrict C,
                      int add)
{
    if (add) /* each call with a constant, so that GCC vectorises both bodies */
        mat_mul_rows(P, Q, C, 1);
    else
        mat_mul_rows(P, Q, C, 0);
}

/* The product for a CPU: the AVX2 + FMA one (the library's, net.h) where the CPU has it, which
 * rounds each multiply-add once, else the C one above. */
static upf__mat16_fn mat_mul_for(unsigned cpu_flags)
{
    const upf__mat16_fn simd = upf__mat16_mul_for(cpu_flags);
    return simd ? simd : mat_mul_c;
}

static void transpose(const float *restrict M, float *restrict T)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            T[j * N + i] = M[i * N + j];
}

void train_transpose_weights(const float *w, float *wt)
{
    for (int m = 0; m < UPF_NET_STAGES * UPF_NET_MATRICES; m++)
        transpose(w + m * NN, wt + m * NN);
}

/* ---- forward -------------------------------------------------------------------------- */

void train_forward(const float *w, uint32_t flags, const float *window, train_acts *a,
                   unsigned cpu_flags)
{
    const upf__mat16_fn mul = mat_mul_for(cpu_flags);
    upf__net_window_input(flags, window, a->x[0]); /* as every forward of net_infer.c */
    float xt[NN], za[NN], zc[NN];
    for (int s = 0; s < UPF_NET_STAGES; s++) {
        transpose(a->x[s], xt);
        mul(xt, TRAIN_W(w, s, UPF_NET_B), a->t1[s], 0);
        mul(xt, TRAIN_W(w, s, UPF_NET_D), a->t2[s], 0);
        mul(TRAIN_W(w, s, UPF_NET_A), a->t1[s], za, 0);
        mul(TRAIN_W(w, s, UPF_NET_C), a->t2[s], zc, 0);
        float *y = s + 1 < UPF_NET_STAGES ? a->x[s + 1] : a->out;
        for (int i = 0; i < NN; i++) {
            float z = za[i] + zc[i];
            y[i] = (s + 1 < UPF_NET_STAGES && !(z > 0.0f)) ? 0.0f : z;
        }
    }
}

/* ---- loss ----------------------------------------------------------------------------------- */

double train_loss(const float *out, const float *target, float scale, float *dout)
{
    /* L = (1/144) sum (out - target)^2 over the block; dL/dout = (2/144) (out - target). */
    double sum = 0.0;
    memset(dout, 0, NN * sizeof(float));
    const float k = 2.0f * scale / (float)(UPF_NET_BLOCK * UPF_NET_BLOCK);
    for (int r = 0; r < UPF_NET_BLOCK; r++)
        for (int c = 0; c < UPF_NET_BLOCK; c++) {
            const float e = out[r * N + c] - target[r * UPF_NET_BLOCK + c];
            sum += (double)e * e;
            dout[r * N + c] = k * e;
        }
    return sum / (UPF_NET_BLOCK * UPF_NET_BLOCK);
}

/* ---- backward ------------------------------------------------------------------------------ */

void train_backward(const float *w, const float *wt, const train_acts *a, const float *dout,
                    float *grad, unsigned cpu_flags)
{
    const upf__mat16_fn mul = mat_mul_for(cpu_flags);
    float g[NN], tt[NN], u1[NN], u2[NN], p[NN], q[NN];
    memcpy(g, dout, sizeof g);
    for (int s = UPF_NET_STAGES - 1; s >= 0; s--) {
        /* G: dL/dY through the ReLU (stage s+1's input is Y; Y > 0 exactly where Z > 0). */
        if (s + 1 < UPF_NET_STAGES)
            for (int i = 0; i < NN; i++)
                g[i] = a->x[s + 1][i] > 0.0f ? g[i] : 0.0f;
        /* dA += G T1^T, dC += G T2^T */
        transpose(a->t1[s], tt);
        mul(g, tt, TRAIN_W(grad, s, UPF_NET_A), 1);
        transpose(a->t2[s], tt);
        mul(g, tt, TRAIN_W(grad, s, UPF_NET_C), 1);
        /* U1 = A^T G, U2 = C^T G */
        mul(TRAIN_W(wt, s, UPF_NET_A), g, u1, 0);
        mul(TRAIN_W(wt, s, UPF_NET_C), g, u2, 0);
        /* dB += X U1, dD += X U2 */
        mul(a->x[s], u1, TRAIN_W(grad, s, UPF_NET_B), 1);
        mul(a->x[s], u2, TRAIN_W(grad, s, UPF_NET_D), 1);
        if (s == 0)
            break; /* stage 1's input is data: no gradient needed */
        /* dX = B U1^T + D U2^T */
        transpose(u1, tt);
        mul(TRAIN_W(w, s, UPF_NET_B), tt, p, 0);
        transpose(u2, tt);
        mul(TRAIN_W(w, s, UPF_NET_D), tt, q, 0);
        for (int i = 0; i < NN; i++)
            g[i] = p[i] + q[i];
    }
}

/* ---- initial weights ------------------------------------------------------------------------ */

/* The scale: with entries of variance sigma^2, each term of Z = A X^T B + C X^T D sums 16 x 16
 * products, so E[Z^2] = 2 * 256 * sigma^4 * E[X^2], and the ReLU keeps about half: sigma = 1/4
 * would keep the activations' second moment steady through the stages (He et al. 2015's
 * argument, for a product of two matrices). Measured, 1/8 trained better and more reliably
 * (tools/train/README.md): each stage then shrinks the activations about 4x, so the first
 * detail maps are near zero and the starting loss is about the bilinear base's, while every
 * stage still gets a gradient (Adam's steps do not depend on its scale). Stage 6's A and C at
 * a tenth of sigma on top of that keep the first outputs small for larger sigmas too. */
#define INIT_LAST_SCALE 0.1

void train_init_weights(float *w, train_rng *rng, double sigma)
{
    for (int s = 0; s < UPF_NET_STAGES; s++)
        for (int m = 0; m < UPF_NET_MATRICES; m++) {
            double sd = sigma;
            if (s == UPF_NET_STAGES - 1 && (m == UPF_NET_A || m == UPF_NET_C))
                sd *= INIT_LAST_SCALE;
            float *M = TRAIN_W(w, s, m);
            for (int i = 0; i < NN; i++)
                M[i] = (float)(sd * train_rng_normal(rng));
        }
}

/* ---- Adam and the schedule ------------------------------------------------------------------- */

void train_adam_init(train_adam *adam)
{
    memset(adam, 0, sizeof *adam);
    adam->beta1 = 0.9;
    adam->beta2 = 0.999;
    adam->eps = 1e-8;
}

void train_adam_step(train_adam *adam, float *w, const float *grad, int n, double lr)
{
    adam->t++;
    const double c1 = 1.0 - pow(adam->beta1, (double)adam->t);
    const double c2 = 1.0 - pow(adam->beta2, (double)adam->t);
    const double b1 = adam->beta1, b2 = adam->beta2;
    for (int i = 0; i < n; i++) {
        const double g = grad[i];
        adam->m[i] = b1 * adam->m[i] + (1.0 - b1) * g;
        adam->v[i] = b2 * adam->v[i] + (1.0 - b2) * g * g;
        const double mhat = adam->m[i] / c1, vhat = adam->v[i] / c2;
        w[i] = (float)(w[i] - lr * mhat / (sqrt(vhat) + adam->eps));
    }
}

double train_lr_at(long t, long total, long warmup, double lr, double final_fraction)
{
    if (t < warmup)
        return lr * (double)(t + 1) / (double)warmup;
    const long span = total - warmup;
    if (span <= 1)
        return lr;
    const double progress = (double)(t - warmup) / (double)(span - 1); /* 0 .. 1 */
    const double lo = lr * final_fraction;
    return lo + (lr - lo) * 0.5 * (1.0 + cos(3.141592653589793 * (progress > 1 ? 1 : progress)));
}
