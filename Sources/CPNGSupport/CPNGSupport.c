#include "CPNGSupport.h"
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

int shelf_png_support_version(void) { return PNG_LIBPNG_VER; }

void shelf_png_free(void *pointer) { free(pointer); }

typedef struct decode_context {
  const uint8_t *data;
  size_t size;
  size_t offset;
  int truncated;
  int condition; /* a SHELF_PNG_* code libpng's message was classified as, or 0 */
  char *message;
  size_t message_size;
  shelf_png_warning *warnings; /* malloc'd, grown as libpng warns */
  size_t warning_count;
  size_t warning_capacity;
} decode_context;

/* zlib's messages (inflate.c) and libpng's own for zlib return codes (png_zstream_error). */
static const char *const zlib_messages[] = {
    "incorrect header check", "unknown compression method", "invalid window size",
    "invalid block type", "invalid stored block lengths", "too many length or distance symbols",
    "invalid code lengths set", "invalid bit length repeat", "invalid literal/lengths set",
    "invalid distances set", "invalid literal/length code", "invalid distance code",
    "invalid distance too far back", "incorrect data check", "incorrect length check",
    "damaged LZ stream", "unexpected end of LZ stream", "missing LZ dictionary", NULL};

static void copy_message(decode_context *context, const char *text) {
  if (context->message == NULL || context->message_size == 0) return;
  strncpy(context->message, text ? text : "unknown libpng error", context->message_size - 1);
  context->message[context->message_size - 1] = '\0';
}

/* The code of a libpng error message, or 0 when it is none of the known conditions; for bad
   compressed data the message becomes zlib's reason alone (without libpng's chunk prefix). */
static int classify(decode_context *context, const char *text) {
  if (text == NULL) return 0;
  if (strstr(text, "Not enough image data") != NULL) return SHELF_PNG_IMAGE_DATA_SHORT;
  if (strstr(text, "Insufficient memory") != NULL || strstr(text, "Out of memory") != NULL)
    return SHELF_PNG_NO_MEMORY;
  for (int i = 0; zlib_messages[i] != NULL; i++) {
    if (strstr(text, zlib_messages[i]) != NULL) {
      copy_message(context, zlib_messages[i]);
      return SHELF_PNG_BAD_COMPRESSED_DATA;
    }
  }
  return 0;
}

static void on_error(png_structp png, png_const_charp text) {
  decode_context *context = (decode_context *)png_get_error_ptr(png);
  copy_message(context, text);
  context->condition = classify(context, text);
  png_longjmp(png, 1);
}

/* Records libpng's warning with the input offset it was given at, which lies inside the chunk
   being handled: the caller maps it to that chunk. */
static void on_warning(png_structp png, png_const_charp text) {
  decode_context *context = (decode_context *)png_get_error_ptr(png);
  if (context->warning_count >= SHELF_PNG_MAX_WARNINGS) return;
  if (context->warning_count == context->warning_capacity) {
    size_t capacity = context->warning_capacity == 0 ? 4 : context->warning_capacity * 2;
    shelf_png_warning *grown =
        (shelf_png_warning *)realloc(context->warnings, capacity * sizeof(shelf_png_warning));
    if (grown == NULL) return;
    context->warnings = grown;
    context->warning_capacity = capacity;
  }
  shelf_png_warning *warning = &context->warnings[context->warning_count++];
  warning->offset = context->offset;
  strncpy(warning->text, text ? text : "", sizeof(warning->text) - 1);
  warning->text[sizeof(warning->text) - 1] = '\0';
}

static void on_read(png_structp png, png_bytep out, size_t count) {
  decode_context *context = (decode_context *)png_get_io_ptr(png);
  if (count > context->size - context->offset) {
    context->truncated = 1;
    png_error(png, "data ends early");
  }
  memcpy(out, context->data + context->offset, count);
  context->offset += count;
}

int shelf_png_decode_rows(const uint8_t *data, size_t size, uint64_t max_pixels,
                          uint32_t max_dimension, int ignore_adler32, uint8_t *destination,
                          size_t destination_size, shelf_png_row_sink sink, void *sink_context,
                          shelf_png_decoded *out, char *message, size_t message_size) {
  decode_context context = {data, size, 0, 0, 0, message, message_size, NULL, 0, 0};
  memset(out, 0, sizeof(*out));
  if (message_size > 0) message[0] = '\0';
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &context, on_error, on_warning);
  if (png == NULL) {
    copy_message(&context, "cannot create libpng reader");
    return SHELF_PNG_NO_MEMORY;
  }
  png_infop info = png_create_info_struct(png);
  if (info == NULL) {
    png_destroy_read_struct(&png, NULL, NULL);
    copy_message(&context, "cannot create libpng info");
    return SHELF_PNG_NO_MEMORY;
  }
  /* Volatile: modified between setjmp and a possible longjmp. */
  uint8_t *volatile pixels = NULL; /* ours: a row, or the whole of an interlaced image */
  png_bytep *volatile rows = NULL;
  volatile int status = SHELF_PNG_OK;
  if (setjmp(png_jmpbuf(png))) {
    free(pixels);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    free(context.warnings);
    if (status != SHELF_PNG_OK) return status;
    if (context.truncated) return SHELF_PNG_TRUNCATED;
    return context.condition != 0 ? context.condition : SHELF_PNG_LIBPNG_ERROR;
  }
  png_set_read_fn(png, &context, on_read);
  png_set_benign_errors(png, 1);
#ifdef PNG_SKIP_sRGB_CHECK_PROFILE
  png_set_option(png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
#endif
#ifdef PNG_IGNORE_ADLER32
  if (ignore_adler32) png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
  /* The container's CRCs are checked before libpng sees the data. */
  png_set_crc_action(png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
  png_set_user_limits(png, max_dimension, max_dimension);
  png_set_chunk_cache_max(png, 1000);
  png_set_chunk_malloc_max(png, 16u << 20);
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
  png_read_info(png, info);

  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0, interlace = 0;
  png_get_IHDR(png, info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
  out->width = width;
  out->height = height;
  if ((uint64_t)width * (uint64_t)height > max_pixels) {
    status = SHELF_PNG_TOO_LARGE;
    copy_message(&context, "image too large");
    png_longjmp(png, 1);
  }
  out->source_bit_depth = bit_depth;
  out->source_color_type = color_type;
  out->interlaced = interlace != PNG_INTERLACE_NONE;
  int sample_depth = bit_depth == 16 ? 16 : 8;

  png_set_expand(png);
  if (!(color_type & PNG_COLOR_MASK_COLOR)) png_set_gray_to_rgb(png);
  if (!(color_type & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, info, PNG_INFO_tRNS))
    png_set_add_alpha(png, sample_depth == 16 ? 0xffff : 0xff, PNG_FILLER_AFTER);
  int passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);

  size_t row_bytes = png_get_rowbytes(png, info);
  size_t expected = (size_t)width * 4u * (size_t)(sample_depth / 8);
  if (row_bytes != expected) {
    copy_message(&context, "unexpected row layout after expansion");
    png_longjmp(png, 1);
  }
  if (height > 0 && row_bytes > SIZE_MAX / height) {
    status = SHELF_PNG_TOO_LARGE;
    copy_message(&context, "image too large");
    png_longjmp(png, 1);
  }
  size_t total = row_bytes * (size_t)height;
  out->sample_depth = sample_depth;
  if (destination != NULL && destination_size != total) {
    copy_message(&context, "pixel buffer of the wrong size");
    png_longjmp(png, 1);
  }
  if (destination == NULL && passes == 1) {
    /* Row by row: one row in memory, whatever the image's size. */
    pixels = (uint8_t *)malloc(row_bytes > 0 ? row_bytes : 1);
    if (pixels == NULL) {
      status = SHELF_PNG_NO_MEMORY;
      copy_message(&context, "out of memory");
      png_longjmp(png, 1);
    }
    for (png_uint_32 y = 0; y < height; y++) {
      png_read_row(png, pixels, NULL);
      if (sink(sink_context, y, pixels) != 0) {
        status = SHELF_PNG_STOPPED;
        png_longjmp(png, 1);
      }
    }
  } else {
    /* Interlaced rows are complete only after the last pass: the whole image is held. */
    uint8_t *target = destination;
    if (target == NULL) {
      pixels = (uint8_t *)malloc(total > 0 ? total : 1);
      target = pixels;
    }
    rows = (png_bytep *)malloc(sizeof(png_bytep) * (height > 0 ? height : 1));
    if (target == NULL || rows == NULL) {
      status = SHELF_PNG_NO_MEMORY;
      copy_message(&context, "out of memory");
      png_longjmp(png, 1);
    }
    for (png_uint_32 y = 0; y < height; y++) rows[y] = target + (size_t)y * row_bytes;
    png_read_image(png, rows);
    if (destination == NULL) {
      for (png_uint_32 y = 0; y < height; y++) {
        if (sink(sink_context, y, rows[y]) != 0) {
          status = SHELF_PNG_STOPPED;
          png_longjmp(png, 1);
        }
      }
    }
  }
  png_read_end(png, info); /* with info, libpng checks the chunks after the image data too */

  out->pixels_size = total;
  out->warnings = context.warnings;
  out->warning_count = context.warning_count;
  free(pixels);
  free(rows);
  png_destroy_read_struct(&png, &info, NULL);
  return SHELF_PNG_OK;
}

#include <malloc.h>

void shelf_png_release_free_memory(void) { malloc_trim(0); }
