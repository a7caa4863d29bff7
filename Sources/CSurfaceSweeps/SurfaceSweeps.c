// The surface sweeps compiled three times from one source (SurfaceSweepsBody.h): for AVX2
// (eight Floats or four Doubles a register, one-instruction blends), for the package's baseline
// (on x86-64, SSE2: the same eight-lane code in twice the registers) and as the scalar twin.
// `ct_surface_best_isa` picks AVX2 once from the CPU's features, so one binary runs anywhere.
//
// Same bits from every variant: each is IEEE arithmetic on the same operands in the same order.
// Contraction into FMA is off for the file (an AVX2 machine has FMA, the baseline has not, and a
// fused multiply-add rounds once where the others round twice), the AVX2 variant does not enable
// the FMA feature, the vector code uses no reciprocal or square-root estimates, and x86-64 has
// no excess precision. SurfaceSweepTests checks the variants against each other on this machine.
#pragma STDC FP_CONTRACT OFF

#include "CSurfaceSweeps.h"
#include <math.h>

#define LANES 8
typedef float f8 __attribute__((vector_size(32)));
typedef double d8 __attribute__((vector_size(64)));
typedef int32_t m8 __attribute__((vector_size(32)));
typedef uint32_t u8 __attribute__((vector_size(32)));
typedef int64_t m8d __attribute__((vector_size(64)));
// Unaligned views of the grids' rows, which alias the Float and Double arrays.
typedef float f8u __attribute__((vector_size(32), aligned(4), may_alias));
typedef double d8u __attribute__((vector_size(64), aligned(8), may_alias));

// Macros, not functions: a function taking an eight-lane vector has one calling convention with
// AVX and another without, and clang refuses such calls between the AVX2 variant and a helper
// compiled for the baseline.
#define loadf(p) (*(const f8u *)(p))
#define loadd(p) (*(const d8u *)(p))
#define storef(p, v) (*(f8u *)(p) = (v))
#define stored(p, v) (*(d8u *)(p) = (v))
#define splat(x) ((f8){(x), (x), (x), (x), (x), (x), (x), (x)})
#define widen(x) __builtin_convertvector((x), d8)
#define narrow(x) __builtin_convertvector((x), f8)
/// `m ? a : b` lane by lane, m from a comparison (all ones or all zeros).
#define blend(m, a, b) ((f8)(((m8)(a) & (m)) | ((m8)(b) & ~(m))))
#define magnitudef(x) ((f8)((m8)(x) & 0x7FFFFFFF))
#define magnituded(x) ((d8)((m8d)(x) & 0x7FFFFFFFFFFFFFFFLL))

// The baseline variant's own always-inlined helper takes an eight-lane vector: no call is left
// for the calling convention to matter.
#pragma clang diagnostic ignored "-Wpsabi"

#define SWEEP(name) scalar_##name
#define SWEEP_TARGET
#define SWEEP_VECTORS 0
#include "SurfaceSweepsBody.h"
#undef SWEEP
#undef SWEEP_VECTORS

#define SWEEP(name) baseline_##name
#define SWEEP_VECTORS 1
#include "SurfaceSweepsBody.h"
#undef SWEEP
#undef SWEEP_TARGET

#if defined(__x86_64__)
#define SWEEP(name) avx2_##name
#define SWEEP_TARGET __attribute__((target("avx2")))
#include "SurfaceSweepsBody.h"
#undef SWEEP
#undef SWEEP_TARGET
#endif

int ct_surface_isa_available(CTSurfaceISA isa) {
    switch (isa) {
    case CTSurfaceISAScalar:
    case CTSurfaceISABaseline:
        return 1;
    case CTSurfaceISAAVX2:
#if defined(__x86_64__)
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2");
#else
        return 0;
#endif
    }
    return 0;
}

CTSurfaceISA ct_surface_best_isa(void) {
    return ct_surface_isa_available(CTSurfaceISAAVX2) ? CTSurfaceISAAVX2 : CTSurfaceISABaseline;
}

// One choice a row: the variants are whole loops, so the dispatch costs nothing per cell.
#if defined(__x86_64__)
#define VARIANT(isa, name) \
    ((isa) == CTSurfaceISAAVX2 ? avx2_##name : (isa) == CTSurfaceISAScalar ? scalar_##name : baseline_##name)
#else
#define VARIANT(isa, name) ((isa) == CTSurfaceISAScalar ? scalar_##name : baseline_##name)
#endif

float ct_surface_faces(CTSurfaceISA isa, long count,
                       const float *za, const float *zb, const double *ha, const double *hb,
                       const float *n2a, const float *n2b,
                       const float *q0, const float *qBefore, const float *qAfter,
                       float *out, CTMomentumStep k) {
    return VARIANT(isa, faces)(count, za, zb, ha, hb, n2a, n2b, q0, qBefore, qAfter, out, k);
}

void ct_surface_limiter_row(CTSurfaceISA isa, long width, const double *h,
                            const float *qx, const float *qn, const float *qs,
                            float *limit, double scale, float margin) {
    VARIANT(isa, limiter_row)(width, h, qx, qn, qs, limit, scale, margin);
}

double ct_surface_continuity_row(CTSurfaceISA isa, long width, double *h, const float *limit,
                                 const float *qx, const float *qn, const float *qs,
                                 float *effX, float *effS,
                                 const float *rainWeight, const float *loss,
                                 float *maxDepth, float *timeOfMax,
                                 CTContinuityStep k, float *deepest) {
    return VARIANT(isa, continuity_row)(width, h, limit, qx, qn, qs, effX, effS, rainWeight, loss,
             maxDepth, timeOfMax, k, deepest);
}
