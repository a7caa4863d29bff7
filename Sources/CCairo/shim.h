#ifndef CITYTWIN_CCAIRO_SHIM_H
#define CITYTWIN_CCAIRO_SHIM_H
#include <cairo.h>
#include <cairo-pdf.h>
#endif
