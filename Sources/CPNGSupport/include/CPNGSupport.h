#ifndef CPNG_SUPPORT_H
#define CPNG_SUPPORT_H
/* libpng's setjmp/longjmp error handling, kept inside C: Swift frames must never be crossed by
   a longjmp. Each call returns a status code and copies libpng's message into the caller's
   buffer. */
#include <stddef.h>
#include <stdint.h>

/* Result codes of shelf_png_decode. */
enum {
  SHELF_PNG_OK = 0,
  SHELF_PNG_LIBPNG_ERROR = 1, /* libpng rejected the data; message says why */
  SHELF_PNG_TOO_LARGE = 2,    /* width x height above the caller's pixel limit */
  SHELF_PNG_NO_MEMORY = 3,    /* the pixel buffer could not be allocated */
  SHELF_PNG_TRUNCATED = 4,    /* libpng asked for bytes past the end of the data */
  SHELF_PNG_IMAGE_DATA_SHORT = 5,   /* the image data ends before the last row */
  SHELF_PNG_BAD_COMPRESSED_DATA = 6, /* the image data is not a valid zlib stream (zlib's reason
                                       in the message) */
  SHELF_PNG_STOPPED = 7 /* the row sink asked to stop */
};

/* At most this many warnings are kept per decode. */
#define SHELF_PNG_MAX_WARNINGS 4096

/* One libpng warning (benign errors included): its text, and the input offset libpng had read
   up to, which lies inside the chunk it is about (after that chunk's type, up to its CRC). */
typedef struct shelf_png_warning {
  size_t offset;
  char text[120];
} shelf_png_warning;

/* A decoded image in the canonical form: RGBA, 8 or 16 bits per sample (16-bit big-endian). */
typedef struct shelf_png_decoded {
  uint32_t width;
  uint32_t height;
  int source_bit_depth;
  int source_color_type;
  int interlaced;
  int sample_depth;   /* 8 or 16 */
  size_t pixels_size; /* width * height * 4 * sample_depth / 8 */
  shelf_png_warning *warnings; /* malloc'd (may be NULL); free with shelf_png_free */
  size_t warning_count;
} shelf_png_decoded;

/* libpng reports errors as text only: the few conditions callers act on are classified here,
   once, so that Swift decides by code. */

/* Receives decoded row y (width * 4 samples); returns nonzero to stop the decode. */
typedef int (*shelf_png_row_sink)(void *context, uint32_t y, const uint8_t *row);

/* Decodes a complete PNG held in memory. libpng checks every ancillary chunk it knows (the
   caller reads their content from the container itself); benign errors become warnings, which
   are collected with their offsets; and the pixel count is checked against max_pixels before
   any pixel memory is allocated. With a destination (of exactly width * height * 4 *
   sample_depth / 8 bytes, which the caller computes from IHDR) the image is decoded into it;
   without one, each row is handed to sink as it is decoded, holding one row (an interlaced
   image is decoded whole first). ignore_adler32: the zlib stream's checksum is not checked
   (CgBI's raw deflate stream, given a zlib header by the caller, has none). */
int shelf_png_decode_rows(const uint8_t *data, size_t size, uint64_t max_pixels,
                          uint32_t max_dimension, int ignore_adler32, uint8_t *destination,
                          size_t destination_size, shelf_png_row_sink sink, void *sink_context,
                          shelf_png_decoded *out, char *message, size_t message_size);

/* Frees memory returned by shelf_png_decode. */
void shelf_png_free(void *pointer);

int shelf_png_support_version(void);

/* Hands the pages of freed heap memory back to the system (glibc's malloc_trim): a crush of a
   big image frees its trial buffers before the long final compression. */
void shelf_png_release_free_memory(void);

#endif
