#ifndef CITYTWIN_CSURFACESWEEPS_H
#define CITYTWIN_CSURFACESWEEPS_H

// The row sweeps of FloodSim's local inertial surface scheme (SurfaceKernel, flood.md §4), in C
// because Swift cannot compile one function for two instruction sets: the package is built for
// baseline x86-64 (SSE2), and each sweep is compiled a second time for AVX2 and chosen at run
// time by the CPU's features. Every variant does the same IEEE operations in the same order
// (no FMA, FP_CONTRACT off), so all give the same bits; see SurfaceSweeps.c.

#include <stdint.h>

/// Which compilation of the sweeps runs. `scalar` skips the eight-lane loops (one cell or face
/// at a time): the twin the tests compare the vector variants against.
typedef enum __attribute__((enum_extensibility(closed))) CTSurfaceISA {
    CTSurfaceISAScalar __attribute__((swift_name("scalar"))) = 0,
    CTSurfaceISABaseline __attribute__((swift_name("baseline"))) = 1,
    CTSurfaceISAAVX2 __attribute__((swift_name("avx2"))) = 2,
} CTSurfaceISA;

/// AVX2 where this CPU has it, else baseline.
CTSurfaceISA ct_surface_best_isa(void);
/// Whether this CPU can run `isa`.
int ct_surface_isa_available(CTSurfaceISA isa);

/// Constants of the momentum update for one step.
typedef struct CTMomentumStep {
    float gdt, invDx, theta, halfRest, dry;
} CTMomentumStep;

/// Constants of the continuity update for one step: dt/dx, the step's rain depth (m, before cell
/// weights), dt (s) and the time at the end of the step (s).
typedef struct CTContinuityStep {
    double scale, rain, dt;
    float timeAfterStep;
} CTContinuityStep;

/// `x^(-1/3)` for x > 0 without a libm call: a guess from the bits (the bit pattern divided by 3
/// with shifts and adds, ≤ 3.5 % off) refined by three Newton steps r·(4/3 − (x/3)·r³) to 2·10⁻⁷,
/// Float rounding. Shifts because SSE2 has no 32-bit vector multiply; the sweeps' eight-lane
/// form is the same operations lane by lane.
static inline float ct_inverse_cube_root(float x) {
    union { float f; uint32_t u; } v = { x };
    uint32_t third = (v.u >> 2) + (v.u >> 4);
    third = third + (third >> 4);
    third = third + (third >> 8);                       // ≈ bits / 3 (0.3333282)
    v.u = 0x54A21D2Au - third;
    float r = v.f;
    const float xThird = x * (float)(1.0 / 3.0), fourThirds = (float)(4.0 / 3.0);
    r = r * (fourThirds - xThird * (r * r * r));
    r = r * (fourThirds - xThird * (r * r * r));
    r = r * (fourThirds - xThird * (r * r * r));
    return r;
}

/// The momentum update of `count` faces, face i lying between cells a (west or north) and b:
/// bed `za[i]`, `zb[i]`, depth `ha[i]`, `hb[i]`, Manning n² `n2a[i]`, `n2b[i]`; previous discharge
/// `q0[i]` and of its neighbours along the row `qBefore[i]`, `qAfter[i]`. Writes the new unit
/// discharge (m²/s, 0 on dry faces) into `out[i]`; returns the greatest |q|/h_f (m/s).
float ct_surface_faces(CTSurfaceISA isa, long count,
                       const float *za, const float *zb, const double *ha, const double *hb,
                       const float *n2a, const float *n2b,
                       const float *q0, const float *qBefore, const float *qAfter,
                       float *out, CTMomentumStep k);

/// The limiter of the `width` cells of one row: depth `h`, x faces `qx` (width + 1, face c west
/// of cell c), y faces north `qn` and south `qs` of the row; writes `limit`.
void ct_surface_limiter_row(CTSurfaceISA isa, long width, const double *h,
                            const float *qx, const float *qn, const float *qs,
                            float *limit, double scale, float margin);

/// The continuity update of the `width` cells of one row: new depths into `h`, the limited
/// discharge of each cell's east face into `effX[c + 1]` and of its south face into `effS[c]`,
/// the maxima into `maxDepth` and `timeOfMax`. `limit` must be readable one cell and one row
/// beyond the row on each side (SurfaceKernel pads it). Returns the row's loss (m, summed over
/// cells); raises `*deepest` to the row's greatest new depth.
double ct_surface_continuity_row(CTSurfaceISA isa, long width, double *h, const float *limit,
                                 const float *qx, const float *qn, const float *qs,
                                 float *effX, float *effS,
                                 const float *rainWeight, const float *loss,
                                 float *maxDepth, float *timeOfMax,
                                 CTContinuityStep k, float *deepest);

#endif
