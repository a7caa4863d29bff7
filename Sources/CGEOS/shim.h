#ifndef CITYTWIN_CGEOS_SHIM_H
#define CITYTWIN_CGEOS_SHIM_H
/* Only GEOS's reentrant (_r) API: every call takes a context handle, so no
   global state is shared between threads. */
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
#endif
