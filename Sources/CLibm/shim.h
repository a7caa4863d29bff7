#ifndef CITYTWIN_CLIBM_SHIM_H
#define CITYTWIN_CLIBM_SHIM_H

// glibc's sincos: the sine and cosine of one angle in one call. math.h declares it only under
// _GNU_SOURCE, which Swift's Glibc module is not built with; SWMM's C gets it from its compiler,
// which fuses sin(x) and cos(x) of the same x into it (FloodSim's circle geometry: xsect.c).
void sincos(double x, double *sine, double *cosine);

#endif
