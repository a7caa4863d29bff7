/* Re-encodes PNG tiles with cairo's writer (cairo_surface_write_to_png_stream), with the libpng
 * writer of Sources/CCairo/shim.h (zlib default level; adaptive filters, then rows unfiltered) and
 * with its libdeflate writer (level 6, rows unfiltered), best of 5 rounds each: the PNG part of a
 * tile's time on the benchmark's own tiles, and whether the libdeflate PNG decodes (cairo) to the
 * libpng one's pixels.
 *   gcc -O2 -I Sources/CCairo -o /tmp/reencode Benchmarks/render/reencode.c $(pkg-config --cflags --libs cairo libpng libdeflate)
 *   /tmp/reencode TILE.png … */
#include "shim.h" /* Sources/CCairo/shim.h: -I Sources/CCairo */
#include <time.h>
typedef struct { size_t n; } counter;
typedef struct { unsigned char *data; size_t n, at; } buffer;
static int keep(void *b, const unsigned char *d, size_t n) {
  buffer *o = b; o->data = realloc(o->data, o->n + n); memcpy(o->data + o->n, d, n); o->n += n; return 0;
}
static cairo_status_t give(void *b, unsigned char *d, unsigned int n) {
  buffer *o = b; if (o->at + n > o->n) return CAIRO_STATUS_READ_ERROR; memcpy(d, o->data + o->at, n); o->at += n; return CAIRO_STATUS_SUCCESS;
}
/* Whether the two writers' PNGs of `s` decode (cairo) to the same pixels. */
static int same_pixels(cairo_surface_t *s) {
  char msg[256]; buffer a = {0}, b = {0};
  const unsigned char *d = cairo_image_surface_get_data(s);
  int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s), st = cairo_image_surface_get_stride(s);
  if (citytwin_png_write_argb32(d, w, h, st, -1, 0, keep, &a, msg, sizeof msg) || citytwin_png_write_argb32_deflate(d, w, h, st, -1, keep, &b, msg, sizeof msg)) return 0;
  cairo_surface_t *x = cairo_image_surface_create_from_png_stream(give, &a), *y = cairo_image_surface_create_from_png_stream(give, &b);
  int same = cairo_surface_status(x) == CAIRO_STATUS_SUCCESS && cairo_surface_status(y) == CAIRO_STATUS_SUCCESS
    && cairo_image_surface_get_format(x) == cairo_image_surface_get_format(y) && cairo_image_surface_get_stride(x) == cairo_image_surface_get_stride(y);
  for (int r = 0; same && r < h; r++)
    same = memcmp(cairo_image_surface_get_data(x) + r * cairo_image_surface_get_stride(x), cairo_image_surface_get_data(y) + r * cairo_image_surface_get_stride(y), 4 * w) == 0;
  cairo_surface_destroy(x); cairo_surface_destroy(y); free(a.data); free(b.data);
  return same;
}
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
  enum { WRITERS = 4 };
  double best[WRITERS] = {1e9, 1e9, 1e9, 1e9}; size_t bytes[WRITERS] = {0};
  char msg[256];
  for (int round = 0; round < 5; round++) {
    for (int w = 0; w < WRITERS; w++) {
      counter c = {0}; double t0 = now();
      for (int i = 0; i < n; i++) {
        if (w == 0) cairo_surface_write_to_png_stream(s[i], cput, &c);
        else if (w == 3) citytwin_png_write_argb32_deflate(cairo_image_surface_get_data(s[i]), cairo_image_surface_get_width(s[i]),
                                                           cairo_image_surface_get_height(s[i]), cairo_image_surface_get_stride(s[i]), -1,
                                                           put, &c, msg, sizeof msg);
        else citytwin_png_write_argb32(cairo_image_surface_get_data(s[i]), cairo_image_surface_get_width(s[i]), cairo_image_surface_get_height(s[i]),
                                       cairo_image_surface_get_stride(s[i]), -1, w == 1 ? 1 : 0, put, &c, msg, sizeof msg);
      }
      double t = now() - t0; if (t < best[w]) best[w] = t; bytes[w] = c.n;
    }
  }
  const char *names[WRITERS] = {"cairo_surface_write_to_png_stream", "libpng, level 6, adaptive filters", "libpng, level 6, unfiltered (MapServer's)",
                                "libdeflate, level 6, unfiltered"};
  for (int w = 0; w < WRITERS; w++) printf("%-42s %8.3f ms per tile  %7.1f KB in all (%d tiles)\n", names[w], best[w] / n * 1e3, bytes[w] / 1024.0, n);
  int same = 0;
  for (int i = 0; i < n; i++) same += same_pixels(s[i]);
  printf("libdeflate PNGs decoding to the libpng PNGs' pixels: %d of %d\n", same, n);
  return same == n ? 0 : 1;
}
