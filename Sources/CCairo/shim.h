#ifndef CITYTWIN_CCAIRO_SHIM_H
#define CITYTWIN_CCAIRO_SHIM_H
#include <cairo.h>
#include <cairo-pdf.h>
#include <libdeflate.h>
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

/* One row of a cairo ARGB32 raster as PNG samples: 8-bit RGB when `opaque`, else 8-bit RGBA
 * un-premultiplied with cairo's rounding (cairo's unpremultiply_data). */
static inline void citytwin_png_row(const uint32_t *source, int width, int opaque, unsigned char *out) {
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
            out[0] = (unsigned char)((red * 255 + alpha / 2) / alpha);
            out[1] = (unsigned char)((green * 255 + alpha / 2) / alpha);
            out[2] = (unsigned char)((blue * 255 + alpha / 2) / alpha);
            out[3] = (unsigned char)alpha;
            out += 4;
        }
    }
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
        citytwin_png_row((const uint32_t *)(pixels + (size_t)y * (size_t)stride), width, opaque, row);
        png_write_row(png, row);
    }
    png_write_end(png, info);
    free(row);
    png_destroy_write_struct(&png, &info);
    return 0;
}
/* A big-endian 32-bit number at `out`. */
static inline void citytwin_png_be32(unsigned char *out, uint32_t v) {
    out[0] = (unsigned char)(v >> 24);
    out[1] = (unsigned char)(v >> 16);
    out[2] = (unsigned char)(v >> 8);
    out[3] = (unsigned char)v;
}

/* One PNG chunk (length, type, data, CRC over type and data) through `sink`. */
static inline int citytwin_png_chunk(citytwin_png_sink sink, void *context, const char type[4], const unsigned char *data, size_t length) {
    unsigned char head[8], tail[4];
    citytwin_png_be32(head, (uint32_t)length);
    memcpy(head + 4, type, 4);
    uint32_t crc = libdeflate_crc32(0, head + 4, 4);
    if (length) crc = libdeflate_crc32(crc, data, length);
    citytwin_png_be32(tail, crc);
    if (sink(context, head, 8) != 0) return 1;
    if (length && sink(context, data, length) != 0) return 1;
    return sink(context, tail, 4);
}

/* Writes a cairo ARGB32 raster as the PNG citytwin_png_write_argb32 writes with rows unfiltered
 * (the same IHDR, a white bKGD, the same samples: identical pixels), its zlib stream made by
 * libdeflate (at `level`, -1 meaning 6, the level of zlib's default) in one IDAT chunk: the same
 * DEFLATE format, made in about half zlib's time and a little smaller. One compressor per thread is
 * kept (allocating one costs about as much as compressing a small tile). Returns 0, or 1 with
 * `message` saying why. */
static inline int citytwin_png_write_argb32_deflate(const unsigned char *pixels, int width, int height, int stride, int level,
                                                    citytwin_png_sink sink, void *context, char *message, size_t message_size) {
    static __thread struct libdeflate_compressor *compressor = NULL;
    static __thread int compressor_level = -2;
    const int wanted = level < 0 ? 6 : level;
    if (!compressor || compressor_level != wanted) {
        if (compressor) libdeflate_free_compressor(compressor);
        compressor = libdeflate_alloc_compressor(wanted);
        compressor_level = wanted;
        if (!compressor) {
            snprintf(message, message_size, "libdeflate has no compressor of level %d", wanted);
            return 1;
        }
    }
    const int opaque = citytwin_png_argb32_opaque(pixels, width, height, stride);
    const size_t row_bytes = 1 + (size_t)width * (opaque ? 3 : 4);
    const size_t raw_bytes = row_bytes * (size_t)height;
    unsigned char *raw = (unsigned char *)malloc(raw_bytes);
    const size_t bound = libdeflate_zlib_compress_bound(compressor, raw_bytes);
    unsigned char *compressed = (unsigned char *)malloc(bound);
    if (!raw || !compressed) {
        free(raw);
        free(compressed);
        snprintf(message, message_size, "no memory for a %dx%d PNG", width, height);
        return 1;
    }
    for (int y = 0; y < height; y++) {
        unsigned char *out = raw + (size_t)y * row_bytes;
        out[0] = 0; /* filter type None */
        citytwin_png_row((const uint32_t *)(pixels + (size_t)y * (size_t)stride), width, opaque, out + 1);
    }
    const size_t length = libdeflate_zlib_compress(compressor, raw, raw_bytes, compressed, bound);
    free(raw);
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char header[13];
    citytwin_png_be32(header, (uint32_t)width);
    citytwin_png_be32(header + 4, (uint32_t)height);
    header[8] = 8;                /* bits per sample */
    header[9] = opaque ? 2 : 6;   /* RGB or RGBA */
    header[10] = header[11] = header[12] = 0; /* deflate, adaptive filtering method 0, not interlaced */
    const unsigned char background[6] = {0, 255, 0, 255, 0, 255}; /* white, 16 bits a channel */
    int failed = length == 0 || sink(context, signature, 8) != 0 || citytwin_png_chunk(sink, context, "IHDR", header, 13) != 0
        || citytwin_png_chunk(sink, context, "bKGD", background, 6) != 0 || citytwin_png_chunk(sink, context, "IDAT", compressed, length) != 0
        || citytwin_png_chunk(sink, context, "IEND", NULL, 0) != 0;
    free(compressed);
    if (failed) {
        snprintf(message, message_size, length == 0 ? "libdeflate could not compress the pixels" : "the PNG's bytes could not be kept");
        return 1;
    }
    return 0;
}
#endif
