#ifndef CITYTWIN_CCAIRO_SHIM_H
#define CITYTWIN_CCAIRO_SHIM_H
#include <cairo.h>
#include <cairo-pdf.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The PNG writer of cairo's ARGB32 rasters, on libpng directly (cairo's own writer lets libpng
 * choose the row filters and the zlib level). libpng reports errors by longjmp to a setjmp in the
 * caller, which Swift cannot be: the whole write of one image, error handling included, is the C
 * function below, and Swift sees a status and a message. It writes what
 * cairo_surface_write_to_png writes (8-bit RGB when every pixel is opaque, else 8-bit RGBA
 * un-premultiplied with cairo's rounding; a white bKGD chunk), with the zlib level and row filters
 * chosen by the caller. */

/* Receives the encoded bytes; returns 0 when it took them. */
typedef int (*citytwin_png_sink)(void *context, const unsigned char *bytes, size_t length);

struct citytwin_png_writer {
    citytwin_png_sink sink;
    void *context;
    char message[256];
};

static inline void citytwin_png_on_error(png_structp png, png_const_charp message) {
    struct citytwin_png_writer *writer = (struct citytwin_png_writer *)png_get_error_ptr(png);
    if (writer->message[0] == 0) snprintf(writer->message, sizeof writer->message, "%s", message ? message : "libpng failed");
    png_longjmp(png, 1);
}

static inline void citytwin_png_on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static inline void citytwin_png_on_write(png_structp png, png_bytep bytes, size_t length) {
    struct citytwin_png_writer *writer = (struct citytwin_png_writer *)png_get_io_ptr(png);
    if (writer->sink(writer->context, bytes, length) != 0) png_error(png, "the PNG's bytes could not be kept");
}

static inline void citytwin_png_on_flush(png_structp png) { (void)png; }

/* Whether every pixel of a cairo ARGB32 raster is opaque (alpha 255). */
static inline int citytwin_png_argb32_opaque(const unsigned char *pixels, int width, int height, int stride) {
    for (int y = 0; y < height; y++) {
        const uint32_t *row = (const uint32_t *)(pixels + (size_t)y * (size_t)stride);
        for (int x = 0; x < width; x++)
            if ((row[x] >> 24) != 0xff) return 0;
    }
    return 1;
}

/* Whether every pixel of a cairo ARGB32 raster is fully transparent (all four bytes 0: nothing
 * drawn on a cleared surface), read a row at a time in 64-bit words. */
static inline int citytwin_argb32_blank(const unsigned char *pixels, int width, int height, int stride) {
    const size_t words = (size_t)width / 2;
    for (int y = 0; y < height; y++) {
        const unsigned char *row = pixels + (size_t)y * (size_t)stride;
        uint64_t any = 0;
        for (size_t i = 0; i < words; i++) {
            uint64_t word;
            memcpy(&word, row + 8 * i, 8);
            any |= word;
        }
        if (width % 2) {
            uint32_t last;
            memcpy(&last, row + 4 * ((size_t)width - 1), 4);
            any |= last;
        }
        if (any) return 0;
    }
    return 1;
}

/* Writes a cairo ARGB32 raster (premultiplied, native-endian 32-bit pixels, `stride` bytes a row)
 * as PNG through `sink`. `level` is zlib's (-1: its default, 6; 0…9); `adaptive_filters` 0 writes
 * every row unfiltered, 1 lets libpng try all five row filters and keep the smallest (cairo's
 * writer). Returns 0, or 1 with `message` saying why. */
static inline int citytwin_png_write_argb32(const unsigned char *pixels, int width, int height, int stride,
                                            int level, int adaptive_filters, citytwin_png_sink sink, void *context,
                                            char *message, size_t message_size) {
    struct citytwin_png_writer writer;
    writer.sink = sink;
    writer.context = context;
    writer.message[0] = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &writer, citytwin_png_on_error, citytwin_png_on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        snprintf(message, message_size, "libpng could not allocate a writer");
        return 1;
    }
    unsigned char *volatile row = NULL;
    if (setjmp(png_jmpbuf(png))) {
        free(row);
        png_destroy_write_struct(&png, &info);
        snprintf(message, message_size, "%s", writer.message);
        return 1;
    }
    const int opaque = citytwin_png_argb32_opaque(pixels, width, height, stride);
    const int channels = opaque ? 3 : 4;
    row = (unsigned char *)malloc((size_t)width * (size_t)channels);
    if (!row) png_error(png, "no memory for a row of the PNG");
    png_set_write_fn(png, &writer, citytwin_png_on_write, citytwin_png_on_flush);
    png_set_compression_level(png, level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, adaptive_filters ? PNG_ALL_FILTERS : PNG_FILTER_NONE);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_color_16 white;
    memset(&white, 0, sizeof white);
    white.gray = white.red = white.green = white.blue = 255;
    png_set_bKGD(png, info, &white);
    png_write_info(png, info);
    for (int y = 0; y < height; y++) {
        const uint32_t *source = (const uint32_t *)(pixels + (size_t)y * (size_t)stride);
        unsigned char *out = row;
        for (int x = 0; x < width; x++) {
            const uint32_t pixel = source[x];
            const uint32_t alpha = pixel >> 24;
            const uint32_t red = (pixel >> 16) & 0xff, green = (pixel >> 8) & 0xff, blue = pixel & 0xff;
            if (opaque) {
                out[0] = (unsigned char)red;
                out[1] = (unsigned char)green;
                out[2] = (unsigned char)blue;
                out += 3;
            } else if (alpha == 0) {
                out[0] = out[1] = out[2] = out[3] = 0;
                out += 4;
            } else if (alpha == 0xff) {
                /* Opaque: un-premultiplying is the identity ((c·255 + 127) / 255 = c). */
                out[0] = (unsigned char)red;
                out[1] = (unsigned char)green;
                out[2] = (unsigned char)blue;
                out[3] = 0xff;
                out += 4;
            } else {
                /* cairo's unpremultiply_data, to the same rounding. */
                out[0] = (unsigned char)((red * 255 + alpha / 2) / alpha);
                out[1] = (unsigned char)((green * 255 + alpha / 2) / alpha);
                out[2] = (unsigned char)((blue * 255 + alpha / 2) / alpha);
                out[3] = (unsigned char)alpha;
                out += 4;
            }
        }
        png_write_row(png, row);
    }
    png_write_end(png, info);
    free(row);
    png_destroy_write_struct(&png, &info);
    return 0;
}
#endif
