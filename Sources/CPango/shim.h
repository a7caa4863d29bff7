#ifndef CITYTWIN_CPANGO_SHIM_H
#define CITYTWIN_CPANGO_SHIM_H
#include <pango/pangocairo.h>
#endif
