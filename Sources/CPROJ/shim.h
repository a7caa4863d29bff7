#ifndef CITYTWIN_CPROJ_SHIM_H
#define CITYTWIN_CPROJ_SHIM_H
#include <proj.h>
#include <geodesic.h>
#endif
