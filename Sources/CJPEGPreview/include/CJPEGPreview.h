#ifndef CJPEG_PREVIEW_H
#define CJPEG_PREVIEW_H

#include <stddef.h>

/* The common case of a preview, a JPEG photo, without libvips: libjpeg-turbo decodes it at
   1/2, 1/4 or 1/8 scale, an area average shrinks it the rest of the way, and libexif's reading
   of its EXIF orientation turns it upright. Loading libvips and its hundred libraries costs more
   than all of that. libjpeg's error handling (longjmp) stays in this C file. */

enum {
  SHELF_JPEG_OK = 0,
  /* A JPEG this path leaves to libvips: CMYK or YCCK, or a large progressive file (libjpeg
     holds a progressive image's coefficients whole). */
  SHELF_JPEG_UNSUPPORTED = 1,
  /* libjpeg could not decode the file (corrupt, truncated); error holds its message. */
  SHELF_JPEG_DECODE_FAILED = 2,
};

/* A decoded, resized JPEG: 8-bit sRGB, alpha 255, 4 bytes a pixel, rows top down. Owned by
   the caller; free with shelf_jpeg_preview_free. */
typedef struct shelf_jpeg_preview {
  unsigned char *rgba;
  int width;
  int height;
  /* 1 when the data ended early: the rest of the picture is grey, and error says so. */
  int truncated;
} shelf_jpeg_preview;

/* Decodes the JPEG at path to fit within max_width × max_height (never enlarged, the aspect
   ratio kept, each side rounded), upright by its EXIF orientation. A file cut short gives
   what it holds, the rest grey, marked truncated (as libvips and ImageMagick show it). */
int shelf_jpeg_preview_file(
  const char *path, int max_width, int max_height, shelf_jpeg_preview *out, char *error,
  size_t error_size);

/* Frees the pixels of a preview. */
void shelf_jpeg_preview_free(shelf_jpeg_preview *preview);

#endif
