/* exact.glsl: correctly rounded square root, reciprocal and integer quotient in fp32, so that
 * the shaders' results match the CPU reference bit for bit where its outputs are integers
 * (the edge words, the 10:10:10:2 frame).
 *
 * Why: Vulkan lets sqrt() and division be a few ulp off (the SPIR-V precision rules:
 * sqrt inherits inversesqrt's 2 ulp, OpFDiv allows 2.5 ulp), while the CPU's sqrtf and '/' are
 * correctly rounded (IEEE 754). Multiplication, addition and subtraction are correctly rounded
 * in Vulkan too, provided the compiler does not fuse them (the callers mark their expressions
 * `precise`). Each function below takes the hardware's approximation q and then corrects it
 * with an exact integer test: q is the correctly rounded result when the exact value lies
 * between the midpoints of q and its two float neighbours. A midpoint of q = Q * 2^E
 * (Q in [2^23, 2^24)) is (2Q + 1) * 2^(E - 1); the products the tests need have at most 50
 * bits and are formed exactly with umulExtended. Ties cannot occur for these three functions
 * (a midpoint has 25 significant bits; its square, or its product with an integer of at most
 * 24 bits, cannot equal the operand exactly except where the value itself is exact).
 *
 * Operands: finite; sqrt and reciprocal of positive values, the quotient of integers below
 * 2^24. Subnormal operands are handled from their bits, so a GPU that flushes them gives the
 * CPU's answer all the same. */
#ifndef UPF_EXACT_GLSL
#define UPF_EXACT_GLSL

/* The loops' control (UPF_EXACT_LOOP before each loop): none unless the includer says, e.g.
 * `#define UPF_EXACT_LOOP [[dont_unroll]]` (GL_EXT_control_flow_attributes) where the code's
 * size matters more than a loop's overhead (camera.comp, whose workgroups run their code
 * once: every instruction fetched cold). */
#ifndef UPF_EXACT_LOOP
#define UPF_EXACT_LOOP
#endif

/* 64-bit unsigned values as uvec2(high, low). */
uvec2 upf_mul64(uint a, uint b)
{
    uint hi, lo;
    umulExtended(a, b, hi, lo);
    return uvec2(hi, lo);
}

/* a * 2^k, 0 <= k < 64 (the caller keeps the result below 2^64). */
uvec2 upf_shl64(uint a, int k)
{
    if (k == 0)
        return uvec2(0u, a);
    if (k < 32)
        return uvec2(a >> uint(32 - k), a << uint(k));
    return uvec2(a << uint(k - 32), 0u);
}

bool upf_lt64(uvec2 a, uvec2 b)
{
    return a.x < b.x || (a.x == b.x && a.y < b.y);
}

/* v = c * 2^e with c in [2^23, 2^24), for a positive finite v (subnormals too). */
void upf_decompose(float v, out uint c, out int e)
{
    uint b = floatBitsToUint(v);
    uint ex = b >> 23u, m = b & 0x7fffffu;
    if (ex == 0u) {
        int msb = findMSB(m);
        c = m << uint(23 - msb);
        e = -149 - (23 - msb);
    } else {
        c = m | 0x800000u;
        e = int(ex) - 150;
    }
}

float upf_next_up(float v)
{
    return uintBitsToFloat(floatBitsToUint(v) + 1u);
}

float upf_next_down(float v)
{
    return uintBitsToFloat(floatBitsToUint(v) - 1u);
}

/* Steps q to the correctly rounded value: up while the midpoint above q lies below the exact
 * value, down while the midpoint above q's lower neighbour does not (MID_BELOW(v, a, b) says
 * whether the midpoint above v lies below the exact value of the operands a, b). Each step's
 * two tests are made before either is taken (independent: in flight together, not one after
 * the other; the second unused where the first holds): the same steps and value. */
#define UPF_STEP_TO_NEAREST(q, MID_BELOW, a, b)                                               \
    UPF_EXACT_LOOP for (int i_ = 0; i_ < 6; i_++) {                                           \
        const float lower_ = upf_next_down(q);                                                \
        const bool up_ = MID_BELOW(q, a, b), low_ = MID_BELOW(lower_, a, b);                  \
        if (up_)                                                                              \
            q = upf_next_up(q);                                                               \
        else if (!low_)                                                                       \
            q = lower_;                                                                       \
        else                                                                                  \
            break;                                                                            \
    }

/* ---- square root ---- */

/* Whether the midpoint above q, squared, lies below x = X * 2^F. */
bool upf_sqrt_mid_below(float q, uint X, int F)
{
    uint Q;
    int E;
    upf_decompose(q, Q, E);
    int k = F - 2 * E + 2; /* (2Q+1)^2 * 2^(2E-2) < X * 2^F  <=>  (2Q+1)^2 < X * 2^k */
    if (k < 0)
        return false;
    if (k > 39)
        return true;
    uint m = 2u * Q + 1u;
    return upf_lt64(upf_mul64(m, m), upf_shl64(X, k));
}

/* sqrt(x) rounded to nearest, as C's sqrtf; 0 for x <= 0 and NaN.
 *
 * The common case is one integer test: with q = Q * 2^E and x = X * 2^F, the residual
 * R = X * 2^(F - 2E) - Q^2 (in units of 2^(2E)) is small when q is within a few ulps (the
 * hardware's root is), so its low 32 bits give it exactly; q is the rounded root when
 * (q - ulp/2)^2 < x < (q + ulp/2)^2, i.e. -Q < R <= Q (R is an integer; the ulp^2/4 terms
 * decide nothing); while it fails, q steps one ulp toward the root. At a power of two (whose
 * lower neighbour is half an ulp away) the midpoint tests finish the job. */
float upf_sqrt_rn(float x)
{
    if (!(x > 0.0))
        return 0.0;
    if (isinf(x))
        return x;
    uint X;
    int F;
    upf_decompose(x, X, F);
    /* The hardware's root of x scaled by an even power of two into [1, 4) (a normal number
     * even when x is subnormal), scaled back. */
    int e = F + 23, p = e & ~1;
    float y = uintBitsToFloat((uint(127 + e - p) << 23u) | (X & 0x7fffffu));
    float q = ldexp(sqrt(y), p >> 1);
    /* The residual test, stepping q by an ulp while it fails (the hardware's root is a few
     * ulps off at most). */
    UPF_EXACT_LOOP for (int i = 0; i < 4; i++) {
        uint Q;
        int E;
        upf_decompose(q, Q, E);
        int k = F - 2 * E;
        if (k < 0 || k >= 32 || Q == 0x800000u)
            break;
        int r = int((X << uint(k)) - Q * Q);
        if (r > -int(Q) && r <= int(Q))
            return q;
        q = r > 0 ? upf_next_up(q) : upf_next_down(q);
    }
    UPF_STEP_TO_NEAREST(q, upf_sqrt_mid_below, X, F);
    return q;
}

/* ---- reciprocal and quotient of integers ---- */

/* Whether the midpoint above q lies below c / (d * 2^ed). */
bool upf_quot_mid_below(float q, uint c, uint d, int ed)
{
    uint Q;
    int E;
    upf_decompose(q, Q, E);
    int k = 1 - E - ed; /* (2Q+1) * 2^(E-1) * d * 2^ed < c  <=>  (2Q+1) * d < c * 2^k */
    if (k < 0)
        return false;
    if (k > 63)
        return true;
    return upf_lt64(upf_mul64(2u * Q + 1u, d), upf_shl64(c, k));
}

bool upf_rcp_mid_below(float q, uint S, int Es)
{
    return upf_quot_mid_below(q, 1u, S, Es); /* 1 / s, s = S * 2^Es */
}

bool upf_div_mid_below(float q, uint c, uint d)
{
    return upf_quot_mid_below(q, c, d, 0);
}

/* How many ulps q (significand Q) is from the correctly rounded value, from d, q's error in
 * halves of its ulp times the divisor's significand S (d exact: |d| < 2^31): the n with
 * (2n - 1) S < d < (2n + 1) S (d is never an odd multiple of S: the exact value is never a
 * midpoint), for |n| <= 2 where q + n ulps keeps q's exponent and is no power of two (whose
 * lower neighbour is half an ulp away); else 9 (the midpoint steps decide). One integer test
 * instead of the midpoint tests' 64-bit products, and the step taken at once where the device
 * is an ulp or two off (a warp then waits on no loop for one lane's sake). */
int upf_ulps_to_nearest(uint Q, int d, uint S)
{
    const int s = int(S);
    if (Q < 0x800003u || Q > 0xfffffcu || d <= -5 * s || d >= 5 * s)
        return 9;
    return d >= 3 * s ? 2 : d >= s ? 1 : d > -s ? 0 : d > -3 * s ? -1 : -2;
}

/* upf_rcp_rn from q, the hardware's 1 / s (or any float within 6 ulps of the correctly
 * rounded one: test_vk_runner's exact case starts it up to 4 ulps off). With s = S * 2^Es and
 * q = Q * 2^Eq, q's error in halves of its ulp times S is D = 2^(k + 1) - 2 Q S, k = -Es -
 * Eq (upf_ulps_to_nearest); Q S lies in [2^46, 2^48), so 2^(k + 1) >= 2^32 when q is near
 * 1 / s, and D's low 32 bits are those of -2 Q S: D itself while |D| < 2^31 (q within 64
 * ulps; Vulkan's division is within 3), as upf_sqrt_rn's residual. */
float upf_rcp_rn_from(float s, float q)
{
    uint S, Q;
    int Es, Eq;
    upf_decompose(s, S, Es);
    upf_decompose(q, Q, Eq);
    const int n = upf_ulps_to_nearest(Q, int(0u - 2u * Q * S), S);
    if (n != 9)
        return uintBitsToFloat(floatBitsToUint(q) + uint(n));
    UPF_STEP_TO_NEAREST(q, upf_rcp_mid_below, S, Es);
    return q;
}

/* 1 / s rounded to nearest, for a positive normal s whose reciprocal is normal. */
float upf_rcp_rn(float s)
{
    return upf_rcp_rn_from(s, 1.0 / s);
}

/* c / d rounded to nearest, as (float)c / (float)d in C, for integers 0 <= c, 1 <= d, both
 * below 2^24 (so that both convert to float exactly). */
float upf_div_rn(uint c, uint d)
{
    if (c == 0u)
        return 0.0;
    float q = float(c) / float(d);
    UPF_STEP_TO_NEAREST(q, upf_div_mid_below, c, d);
    return q;
}

/* ---- quotient and cube root of floats ---- */

bool upf_fdiv_mid_below(float q, uvec2 ab, int ed)
{
    return upf_quot_mid_below(q, ab.x, ab.y, ed); /* A / (B * 2^ed) */
}

/* a / b rounded to nearest, as C's '/' on floats, for finite a and b != 0 whose quotient is
 * a normal number (else the hardware's quotient). With a = A * 2^Fa, b = B * 2^Fb, the
 * magnitude is A / (B * 2^(Fb - Fa)), which upf_quot_mid_below tests exactly (A, B < 2^24;
 * the shift it needs is 23 to 25 bits when q is near the quotient). */
float upf_fdiv_rn_from(float a, float b, float q);

float upf_fdiv_rn(float a, float b)
{
    return upf_fdiv_rn_from(a, b, a / b);
}

/* upf_fdiv_rn from q, the hardware's quotient a / b (or any float within 6 ulps of the
 * correctly rounded one, of its sign: test_vk_runner's exact case starts it up to 4 ulps off,
 * where lavapipe's own division never is). */
float upf_fdiv_rn_from(float a, float b, float q)
{
    if (a == 0.0 || isinf(q) || isnan(q) || abs(q) < 1.17549435e-38)
        return q;
    uint A, B, Q;
    int Fa, Fb, Eq;
    upf_decompose(abs(a), A, Fa);
    upf_decompose(abs(b), B, Fb);
    float m = abs(q);
    /* One integer test first, as upf_rcp_rn_from's: with |q| = Q * 2^Eq and k = Fa - Fb - Eq
     * (22 to 25 when q is near), D = 2 (A 2^k - Q B) is q's error in halves of its ulp times
     * B (upf_ulps_to_nearest), and D's low 32 bits are D itself while q is within 64 ulps.
     * Another k, or no answer from it: the midpoint steps. */
    upf_decompose(m, Q, Eq);
    const int k = Fa - Fb - Eq;
    if (k >= 0 && k < 32) {
        const int n = upf_ulps_to_nearest(Q, int(2u * ((A << uint(k)) - Q * B)), B);
        if (n != 9) {
            const float r = uintBitsToFloat(floatBitsToUint(m) + uint(n));
            return (a < 0.0) != (b < 0.0) ? -r : r;
        }
    }
    UPF_STEP_TO_NEAREST(m, upf_fdiv_mid_below, uvec2(A, B), Fb - Fa);
    return (a < 0.0) != (b < 0.0) ? -m : m;
}

/* 96-bit unsigned values as uvec3(high, middle, low). */
uvec3 upf_mul96(uvec2 a, uint b) /* a < 2^64, a * b < 2^96 */
{
    uint h1, l1, h2, l2;
    umulExtended(a.y, b, h1, l1);
    umulExtended(a.x, b, h2, l2);
    uint carry;
    uint mid = uaddCarry(l2, h1, carry);
    return uvec3(h2 + carry, mid, l1);
}

uvec3 upf_shl96(uint a, int k) /* 0 <= k < 96, a * 2^k < 2^96 */
{
    if (k == 0)
        return uvec3(0u, 0u, a);
    if (k < 32)
        return uvec3(0u, a >> uint(32 - k), a << uint(k));
    if (k == 32)
        return uvec3(0u, a, 0u);
    if (k < 64)
        return uvec3(a >> uint(64 - k), a << uint(k - 32), 0u);
    return uvec3(a << uint(k - 64), 0u, 0u);
}

bool upf_lt96(uvec3 a, uvec3 b)
{
    return a.x != b.x ? a.x < b.x : (a.y != b.y ? a.y < b.y : a.z < b.z);
}

/* Whether the midpoint above q lies below the cube root of x = X * 2^F:
 * ((2Q+1) 2^(E-1))^3 < X 2^F  <=>  (2Q+1)^3 < X 2^(F - 3E + 3), both sides below 2^96. */
bool upf_cbrt_mid_below(float q, uint X, int F)
{
    uint Q;
    int E;
    upf_decompose(q, Q, E);
    int k = F - 3 * E + 3;
    if (k < 0)
        return false;
    if (k > 71)
        return true;
    uint m = 2u * Q + 1u;
    return upf_lt96(upf_mul96(upf_mul64(m, m), m), upf_shl96(X, k));
}

/* The cube root of x rounded to nearest, for a finite x whose root is normal (any finite
 * float's is, but 0's), with x's sign. Ties cannot occur (a midpoint's cube has 73 or more
 * significant bits). The CPU side is (float)cbrt((double)x), the same value but where the
 * double root lies within a double ulp of a float midpoint. */
float upf_cbrt_rn(float x)
{
    if (x == 0.0 || isinf(x) || isnan(x))
        return x;
    uint X;
    int F;
    float ax = abs(x);
    upf_decompose(ax, X, F);
    precise float q = pow(ax, 1.0 / 3.0);
    precise float n = q - (q * q * q - ax) / (3.0 * q * q); /* one Newton step */
    q = n > 0.0 && !isinf(n) ? n : q;
    UPF_STEP_TO_NEAREST(q, upf_cbrt_mid_below, X, F);
    return x < 0.0 ? -q : q;
}

#endif
