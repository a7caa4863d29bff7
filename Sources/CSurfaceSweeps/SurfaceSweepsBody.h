// The three row sweeps, included by SurfaceSweeps.c once per variant with
//   SWEEP(name)    the variant's name for a function,
//   SWEEP_TARGET   its target attribute (empty for the baseline),
//   SWEEP_VECTORS  1 to run the eight-lane loops, 0 for the scalar twin alone.
// Each eight-lane loop and the scalar loop after it (the last cells of a row) do the same IEEE
// operations in the same order, so a cell's result does not depend on which one computed it.

#if SWEEP_VECTORS
/// `ct_inverse_cube_root` lane by lane.
SWEEP_TARGET static inline __attribute__((always_inline)) f8 SWEEP(inverse_cube_root)(f8 x) {
    const u8 bits = (u8)x;
    u8 third = (bits >> 2) + (bits >> 4);
    third = third + (third >> 4);
    third = third + (third >> 8);
    f8 r = (f8)(0x54A21D2Au - third);
    const f8 xThird = x * (float)(1.0 / 3.0), fourThirds = splat((float)(4.0 / 3.0));
    r = r * (fourThirds - xThird * (r * r * r));
    r = r * (fourThirds - xThird * (r * r * r));
    r = r * (fourThirds - xThird * (r * r * r));
    return r;
}
#endif

// The momentum update of flood.md §4.2. Face depth h_f = max(η) − max(z) is formed as
// (η_a − max z) + max(η_b − η_a, 0), which needs no Double select; next to a blocked cell
// (z = 10³⁰) both terms cancel exactly.
SWEEP_TARGET float SWEEP(faces)(long count,
                                const float *za, const float *zb, const double *ha, const double *hb,
                                const float *n2a, const float *n2b,
                                const float *q0, const float *qBefore, const float *qAfter,
                                float *out, CTMomentumStep k) {
    long i = 0;
    float fastest = 0;
#if SWEEP_VECTORS
    const f8 zero = splat(0.0f), dry = splat(k.dry);
    f8 fastestV = zero;
    for (; i + LANES <= count; i += LANES) {
        const f8 a = loadf(za + i), b = loadf(zb + i);
        const f8 zmax = blend(b > a, b, a);
        const d8 ea = widen(a) + loadd(ha + i), eb = widen(b) + loadd(hb + i);
        const f8 rise = narrow(eb - ea);
        const f8 hf = narrow(ea - widen(zmax)) + blend(rise > zero, rise, zero);
        const m8 wet = hf > dry;
        const f8 hs = blend(wet, hf, dry);
        const f8 q0v = loadf(q0 + i);
        const f8 qTheta = k.theta * q0v + k.halfRest * (loadf(qBefore + i) + loadf(qAfter + i));
        const f8 n2f = 0.5f * (loadf(n2a + i) + loadf(n2b + i));
        const f8 r = SWEEP(inverse_cube_root)(hs), r3 = r * r * r;          // hs^(-1/3), 1/hs
        const f8 friction = k.gdt * n2f * magnitudef(q0v) * (r3 * r3 * r);   // g·Δt·n²·|q|/hs^(7/3)
        const f8 q = (qTheta - k.gdt * hs * rise * k.invDx) / (1.0f + friction);
        const f8 speed = blend(wet, magnitudef(q) * r3, zero);
        storef(out + i, blend(wet, q, zero));
        fastestV = blend(speed > fastestV, speed, fastestV);
    }
    for (int l = 0; l < LANES; l++) fastest = fastestV[l] > fastest ? fastestV[l] : fastest;
#endif
    for (; i < count; i++) {
        const float a = za[i], b = zb[i];
        const float zmax = b > a ? b : a;
        const double ea = (double)a + ha[i], eb = (double)b + hb[i];
        const float rise = (float)(eb - ea);
        const float hf = (float)(ea - (double)zmax) + (rise > 0 ? rise : 0);
        const int wet = hf > k.dry;
        const float hs = wet ? hf : k.dry;
        const float q0v = q0[i];
        const float qTheta = k.theta * q0v + k.halfRest * (qBefore[i] + qAfter[i]);
        const float n2f = 0.5f * (n2a[i] + n2b[i]);
        const float r = ct_inverse_cube_root(hs), r3 = r * r * r;
        const float friction = k.gdt * n2f * fabsf(q0v) * (r3 * r3 * r);
        const float q = (qTheta - k.gdt * hs * rise * k.invDx) / (1.0f + friction);
        const float speed = wet ? fabsf(q) * r3 : 0;
        out[i] = wet ? q : 0;
        fastest = speed > fastest ? speed : fastest;
    }
    return fastest;
}

// A cell with no outflow has ratio ∞ or 0/0 = NaN; `ratio < 1 ? ratio : 1` gives it 1.
SWEEP_TARGET void SWEEP(limiter_row)(long width, const double *h,
                                     const float *qx, const float *qn, const float *qs,
                                     float *limit, double scale, float margin) {
    long c = 0;
#if SWEEP_VECTORS
    const f8 zero = splat(0.0f), one = splat(1.0f);
    for (; c + LANES <= width; c += LANES) {
        const f8 west = -loadf(qx + c), east = loadf(qx + c + 1), north = -loadf(qn + c), south = loadf(qs + c);
        const d8 out = (widen(blend(west > zero, west, zero)) + widen(blend(east > zero, east, zero)))
            + (widen(blend(north > zero, north, zero)) + widen(blend(south > zero, south, zero)));
        const f8 ratio = narrow(loadd(h + c) / (out * scale)) * margin;
        storef(limit + c, blend(ratio < one, ratio, one));
    }
#endif
    for (; c < width; c++) {
        const float west = -qx[c], east = qx[c + 1], north = -qn[c], south = qs[c];
        const double out = ((double)(west > 0 ? west : 0) + (double)(east > 0 ? east : 0))
            + ((double)(north > 0 ? north : 0) + (double)(south > 0 ? south : 0));
        const float ratio = (float)(h[c] / (out * scale)) * margin;
        limit[c] = ratio < 1 ? ratio : 1;
    }
}

// max(x, 0) is written (x + |x|)·½ and min(a, b) as (a + b − |a − b|)·½, both exact: a Double
// select costs several instructions without AVX and a magnitude one.
SWEEP_TARGET double SWEEP(continuity_row)(long width, double *h, const float *limit,
                                          const float *qx, const float *qn, const float *qs,
                                          float *effX, float *effS,
                                          const float *rainWeight, const float *loss,
                                          float *maxDepth, float *timeOfMax,
                                          CTContinuityStep k, float *deepest) {
    long c = 0;
    const long w = width;
    double lossSum = 0;
    float deepestRow = *deepest;
#if SWEEP_VECTORS
    const f8 zero = splat(0.0f), t1 = splat(k.timeAfterStep);
    d8 lossV = widen(zero);
    f8 deepestV = zero;
    for (; c + LANES <= w; c += LANES) {
        const f8 qw = loadf(qx + c), qe = loadf(qx + c + 1), qnn = loadf(qn + c), qss = loadf(qs + c);
        const f8 here = loadf(limit + c);
        const f8 fw = blend(qw > zero, loadf(limit + c - 1), here);
        const f8 fe = blend(qe > zero, here, loadf(limit + c + 1));
        const f8 fn = blend(qnn > zero, loadf(limit + c - w), here);
        const f8 fs = blend(qss > zero, here, loadf(limit + c + w));
        const f8 effW = qw * fw, effE = qe * fe, effN = qnn * fn, effSouth = qss * fs;
        const d8 net = (widen(effW) - widen(effE)) + (widen(effN) - widen(effSouth));
        d8 d = loadd(h + c) + net * k.scale + k.rain * widen(loadf(rainWeight + c));
        const d8 available = (d + magnituded(d)) * 0.5;
        const d8 want = widen(loadf(loss + c)) * k.dt;
        const d8 lost = (want + available - magnituded(want - available)) * 0.5;   // min(want, available)
        d = d - lost;
        d = (d + magnituded(d)) * 0.5;
        stored(h + c, d);
        lossV += lost;
        const f8 df = narrow(d);
        const f8 previous = loadf(maxDepth + c);
        const m8 deeper = df > previous;
        storef(maxDepth + c, blend(deeper, df, previous));
        storef(timeOfMax + c, blend(deeper, t1, loadf(timeOfMax + c)));
        deepestV = blend(df > deepestV, df, deepestV);
        storef(effX + c + 1, effE);
        storef(effS + c, effSouth);
    }
    lossSum = ((lossV[0] + lossV[1]) + (lossV[2] + lossV[3])) + ((lossV[4] + lossV[5]) + (lossV[6] + lossV[7]));
    for (int l = 0; l < LANES; l++) deepestRow = deepestV[l] > deepestRow ? deepestV[l] : deepestRow;
#endif
    for (; c < w; c++) {
        const float qw = qx[c], qe = qx[c + 1], qnn = qn[c], qss = qs[c];
        const float fw = qw > 0 ? limit[c - 1] : limit[c];
        const float fe = qe > 0 ? limit[c] : limit[c + 1];
        const float fn = qnn > 0 ? limit[c - w] : limit[c];
        const float fs = qss > 0 ? limit[c] : limit[c + w];
        const float effW = qw * fw, effE = qe * fe, effN = qnn * fn, effSouth = qss * fs;
        const double net = ((double)effW - (double)effE) + ((double)effN - (double)effSouth);
        double d = h[c] + net * k.scale + k.rain * (double)rainWeight[c];
        const double available = (d + fabs(d)) * 0.5;
        const double want = (double)loss[c] * k.dt;
        const double lost = (want + available - fabs(want - available)) * 0.5;
        d = d - lost;
        d = (d + fabs(d)) * 0.5;
        h[c] = d;
        lossSum += lost;
        const float df = (float)d;
        if (df > maxDepth[c]) { maxDepth[c] = df; timeOfMax[c] = k.timeAfterStep; }
        deepestRow = df > deepestRow ? df : deepestRow;
        effX[c + 1] = effE;
        effS[c] = effSouth;
    }
    *deepest = deepestRow;
    return lossSum;
}
