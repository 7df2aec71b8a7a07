#include "CJPEGPreview.h"

#include <errno.h>
#include <libexif/exif-data.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

/* Progressive JPEGs larger than this many pixels go to libvips: libjpeg holds a progressive
   image's coefficients for the whole picture, whatever the output scale. */
#define PROGRESSIVE_PIXEL_LIMIT (64LL * 1024 * 1024)

/* libjpeg's error manager, with the place to return to when it gives up. */
struct failure {
  struct jpeg_error_mgr manager;
  jmp_buf jump;
  /* Set when the data ended early: libjpeg goes on, filling the rest with grey. */
  int truncated;
};

static void give_up(j_common_ptr info) {
  longjmp(((struct failure *)info->err)->jump, 1);
}

/* libjpeg warns and goes on when the data ends early (filling the rest with grey): the preview
   shows what was there, as libvips and ImageMagick do, and says so. Other warnings (junk
   between markers) are left alone, as libvips leaves them. */
static void on_message(j_common_ptr info, int level) {
  if (level < 0 && info->err->msg_code == JWRN_JPEG_EOF) ((struct failure *)info->err)->truncated = 1;
}

/* The EXIF orientation (1-8) in the APP1 markers saved while reading the header; 1 without one. */
static int exif_orientation(j_decompress_ptr info) {
  for (jpeg_saved_marker_ptr marker = info->marker_list; marker; marker = marker->next) {
    if (marker->marker != JPEG_APP0 + 1 || marker->data_length < 6 ||
        memcmp(marker->data, "Exif\0\0", 6) != 0) {
      continue;
    }
    ExifData *exif = exif_data_new_from_data(marker->data, marker->data_length);
    if (!exif) return 1;
    int orientation = 1;
    ExifEntry *entry = exif_content_get_entry(exif->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
    if (entry && entry->format == EXIF_FORMAT_SHORT && entry->components >= 1 && entry->data) {
      orientation = exif_get_short(entry->data, exif_data_get_byte_order(exif));
    }
    exif_data_unref(exif);
    return orientation >= 1 && orientation <= 8 ? orientation : 1;
  }
  return 1;
}

/* Where input pixel i of n falls among m output pixels (m <= n), in output units: the first
   output pixel it covers and how much of it lies there, and how much in the next one. */
struct span {
  int first;
  float share;
  float rest;
};

static void spans(struct span *out, int n, int m) {
  for (int i = 0; i < n; i++) {
    long long start = (long long)i * m, end = start + m, boundary = (start / n + 1) * n;
    long long inside = (end <= boundary ? end : boundary) - start;
    out[i].first = (int)(start / n);
    out[i].share = (float)inside / (float)n;
    out[i].rest = out[i].first + 1 < m ? (float)(m - inside) / (float)n : 0;
  }
}

int shelf_jpeg_preview_file(
  const char *path, int max_width, int max_height, shelf_jpeg_preview *out, char *error,
  size_t error_size) {
  FILE *file = fopen(path, "rb");
  if (!file) {
    snprintf(error, error_size, "%s", strerror(errno));
    return SHELF_JPEG_DECODE_FAILED;
  }
  struct jpeg_decompress_struct info;
  struct failure failure;
  /* Freed on every way out, the longjmp included. */
  struct span *volatile columns = NULL, *volatile rows = NULL;
  float *volatile sums = NULL, *volatile line_sums = NULL;
  unsigned char *volatile line = NULL;
  int status = SHELF_JPEG_DECODE_FAILED;
  info.err = jpeg_std_error(&failure.manager);
  failure.truncated = 0;
  failure.manager.error_exit = give_up;
  failure.manager.emit_message = on_message;
  if (setjmp(failure.jump)) {
    char message[JMSG_LENGTH_MAX];
    failure.manager.format_message((j_common_ptr)&info, message);
    snprintf(error, error_size, "%s", message);
    status = SHELF_JPEG_DECODE_FAILED;
    goto done;
  }
  jpeg_create_decompress(&info);
  jpeg_stdio_src(&info, file);
  jpeg_save_markers(&info, JPEG_APP0 + 1, 0xFFFF);
  jpeg_read_header(&info, TRUE);
  if (info.jpeg_color_space == JCS_CMYK || info.jpeg_color_space == JCS_YCCK ||
      (info.progressive_mode &&
       (long long)info.image_width * info.image_height > PROGRESSIVE_PIXEL_LIMIT)) {
    status = SHELF_JPEG_UNSUPPORTED;
    goto done;
  }
  int orientation = exif_orientation(&info);
  /* The box in the stored picture's orientation: turned for a quarter turn. */
  int box_width = orientation >= 5 ? max_height : max_width;
  int box_height = orientation >= 5 ? max_width : max_height;
  double scale = 1;
  if ((double)box_width / info.image_width < scale) scale = (double)box_width / info.image_width;
  if ((double)box_height / info.image_height < scale) scale = (double)box_height / info.image_height;
  int width = (int)lround(info.image_width * scale), height = (int)lround(info.image_height * scale);
  if (width < 1) width = 1;
  if (height < 1) height = 1;
  /* The smallest scale libjpeg decodes at that still has every output pixel. */
  info.out_color_space = JCS_RGB;
  info.scale_num = 1;
  for (unsigned denominator = 8; denominator >= 1; denominator /= 2) {
    info.scale_denom = denominator;
    jpeg_calc_output_dimensions(&info);
    if ((int)info.output_width >= width && (int)info.output_height >= height) break;
  }
  jpeg_start_decompress(&info);
  int decoded_width = (int)info.output_width, decoded_height = (int)info.output_height;
  columns = malloc(sizeof(struct span) * decoded_width);
  rows = malloc(sizeof(struct span) * decoded_height);
  sums = calloc((size_t)width * height * 3, sizeof(float));
  line_sums = malloc(sizeof(float) * width * 3);
  line = malloc((size_t)decoded_width * 3);
  if (!columns || !rows || !sums || !line_sums || !line) {
    snprintf(error, error_size, "out of memory");
    goto done;
  }
  spans(columns, decoded_width, width);
  spans(rows, decoded_height, height);
  /* An area average: each decoded pixel adds its colour to the output pixels it overlaps, by
     the overlap. */
  while (info.output_scanline < info.output_height) {
    int y = (int)info.output_scanline;
    JSAMPROW target = line;
    jpeg_read_scanlines(&info, &target, 1);
    memset(line_sums, 0, sizeof(float) * width * 3);
    for (int x = 0; x < decoded_width; x++) {
      struct span span = columns[x];
      float *first = line_sums + span.first * 3;
      const unsigned char *pixel = line + x * 3;
      for (int channel = 0; channel < 3; channel++) first[channel] += pixel[channel] * span.share;
      if (span.rest > 0) {
        for (int channel = 0; channel < 3; channel++) first[3 + channel] += pixel[channel] * span.rest;
      }
    }
    struct span span = rows[y];
    float *first = sums + (size_t)span.first * width * 3;
    for (int index = 0; index < width * 3; index++) first[index] += line_sums[index] * span.share;
    if (span.rest > 0) {
      float *next = first + width * 3;
      for (int index = 0; index < width * 3; index++) next[index] += line_sums[index] * span.rest;
    }
  }
  jpeg_finish_decompress(&info);
  /* Upright: the displayed pixel (x, y) comes from stored pixel (sx, sy). */
  int shown_width = orientation >= 5 ? height : width, shown_height = orientation >= 5 ? width : height;
  unsigned char *rgba = malloc((size_t)shown_width * shown_height * 4);
  if (!rgba) {
    snprintf(error, error_size, "out of memory");
    goto done;
  }
  for (int y = 0; y < shown_height; y++) {
    for (int x = 0; x < shown_width; x++) {
      int sx = x, sy = y;
      switch (orientation) {
      case 2: sx = width - 1 - x; break;
      case 3: sx = width - 1 - x; sy = height - 1 - y; break;
      case 4: sy = height - 1 - y; break;
      case 5: sx = y; sy = x; break;
      case 6: sx = y; sy = height - 1 - x; break;
      case 7: sx = width - 1 - y; sy = height - 1 - x; break;
      case 8: sx = width - 1 - y; sy = x; break;
      default: break;
      }
      const float *sum = sums + ((size_t)sy * width + sx) * 3;
      unsigned char *pixel = rgba + ((size_t)y * shown_width + x) * 4;
      for (int channel = 0; channel < 3; channel++) {
        float value = sum[channel] + 0.5f;
        pixel[channel] = value >= 255 ? 255 : value <= 0 ? 0 : (unsigned char)value;
      }
      pixel[3] = 255;
    }
  }
  out->rgba = rgba;
  out->width = shown_width;
  out->height = shown_height;
  out->truncated = failure.truncated;
  if (failure.truncated) {
    failure.manager.msg_code = JWRN_JPEG_EOF;
    char message[JMSG_LENGTH_MAX];
    failure.manager.format_message((j_common_ptr)&info, message);
    snprintf(error, error_size, "%s", message);
  }
  status = SHELF_JPEG_OK;
done:
  jpeg_destroy_decompress(&info);
  fclose(file);
  free(columns);
  free(rows);
  free(sums);
  free(line_sums);
  free(line);
  return status;
}

void shelf_jpeg_preview_free(shelf_jpeg_preview *preview) {
  free(preview->rgba);
  preview->rgba = NULL;
}
