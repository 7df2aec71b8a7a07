#ifndef CVIPS_SUPPORT_H
#define CVIPS_SUPPORT_H

#include <stddef.h>

/* What Swift cannot do with libvips: call its variadic entry points. libvips (and the thirty
   libraries it brings: GLib, ImageMagick, libheif, poppler, …) is loaded with dlopen on the first
   preview, so that every other shelf command starts without it. */

/* Results of the calls below. */
enum {
  SHELF_VIPS_OK = 0,
  /* libvips could not be loaded or initialised; error holds the reason. */
  SHELF_VIPS_UNAVAILABLE = 1,
  /* No libvips loader recognises the file. */
  SHELF_VIPS_UNKNOWN_FORMAT = 2,
  /* A loader recognised the file but could not decode it; error holds libvips's message. */
  SHELF_VIPS_DECODE_FAILED = 3,
};

/* A decoded, resized image: 8-bit sRGB with straight alpha, 4 bytes a pixel, rows top down.
   Owned by the caller; free with shelf_vips_preview_free. */
typedef struct shelf_vips_preview {
  unsigned char *rgba;
  int width;
  int height;
} shelf_vips_preview;

/* Decodes the file at path, shrunk on load to fit within max_width × max_height (never
   enlarged; an SVG drawing is rendered to fill the box), turned upright by its EXIF
   orientation. page chooses the frame of a multi-image
   file (0 for the first). A truncated file is an error, not a partial picture, unless
   partial: then the loader gives what it can decode (libvips's fail_on=none). */
int shelf_vips_thumbnail_file(
  const char *path, int page, int max_width, int max_height, int partial, shelf_vips_preview *out,
  char *error, size_t error_size);

/* Resizes RGBA pixels decoded elsewhere (QOI, ICNS, CgBI PNG) in the same way. */
int shelf_vips_thumbnail_rgba(
  const unsigned char *rgba, int width, int height, int max_width, int max_height,
  shelf_vips_preview *out, char *error, size_t error_size);

/* Frees the pixels of a preview. */
void shelf_vips_preview_free(shelf_vips_preview *preview);

#endif
