/* Re-encodes PNG tiles with cairo's writer (cairo_surface_write_to_png_stream) and with the
 * libpng writer of Sources/CCairo/shim.h (zlib default level, rows unfiltered), best of 5 rounds
 * each: the PNG part of a tile's time, before and after, on the benchmark's own tiles.
 *   gcc -O2 -I Sources/CCairo -o /tmp/reencode Benchmarks/render/reencode.c $(pkg-config --cflags --libs cairo libpng)
 *   /tmp/reencode TILE.png … */
#include "shim.h" /* Sources/CCairo/shim.h: -I Sources/CCairo */
#include <time.h>
typedef struct { size_t n; } counter;
static int put(void *c, const unsigned char *d, size_t n) { (void)d; ((counter *)c)->n += n; return 0; }
static cairo_status_t cput(void *c, const unsigned char *d, unsigned int n) { put(c, d, n); return CAIRO_STATUS_SUCCESS; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
  int n = argc - 1; cairo_surface_t **s = calloc(n, sizeof *s);
  for (int i = 0; i < n; i++) {
    cairo_surface_t *png = cairo_image_surface_create_from_png(argv[i + 1]);
    /* as the renderer holds it: an ARGB32 surface */
    s[i] = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, cairo_image_surface_get_width(png), cairo_image_surface_get_height(png));
    cairo_t *cr = cairo_create(s[i]); cairo_set_source_surface(cr, png, 0, 0); cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE); cairo_paint(cr); cairo_destroy(cr);
    cairo_surface_destroy(png); cairo_surface_flush(s[i]);
  }
  double best[3] = {1e9, 1e9, 1e9}; size_t bytes[3] = {0};
  char msg[256];
  for (int round = 0; round < 5; round++) {
    for (int w = 0; w < 3; w++) {
      counter c = {0}; double t0 = now();
      for (int i = 0; i < n; i++) {
        if (w == 0) cairo_surface_write_to_png_stream(s[i], cput, &c);
        else citytwin_png_write_argb32(cairo_image_surface_get_data(s[i]), cairo_image_surface_get_width(s[i]), cairo_image_surface_get_height(s[i]),
                                       cairo_image_surface_get_stride(s[i]), -1, w == 1 ? 1 : 0, put, &c, msg, sizeof msg);
      }
      double t = now() - t0; if (t < best[w]) best[w] = t; bytes[w] = c.n;
    }
  }
  const char *names[3] = {"cairo_surface_write_to_png_stream", "libpng, level 6, adaptive filters", "libpng, level 6, unfiltered (MapServer's)"};
  for (int w = 0; w < 3; w++) printf("%-42s %8.3f ms per tile  %7.1f KB in all (%d tiles)\n", names[w], best[w] / n * 1e3, bytes[w] / 1024.0, n);
  return 0;
}
