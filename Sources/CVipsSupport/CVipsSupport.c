/* dladdr */
#define _GNU_SOURCE
#include "CVipsSupport.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>

/* The libvips and GLib entry points shelf uses, resolved from the dlopen'ed library. Declared
   with the headers' own types, so a mismatch is a compile error. */
static struct {
  __typeof__(vips_init) *init;
  __typeof__(vips_error_buffer) *error_buffer;
  __typeof__(vips_error_clear) *error_clear;
  __typeof__(vips_cache_set_max) *cache_set_max;
  __typeof__(vips_foreign_find_load) *find_load;
  __typeof__(vips_thumbnail) *thumbnail;
  __typeof__(vips_thumbnail_image) *thumbnail_image;
  __typeof__(vips_image_new_from_memory) *new_from_memory;
  __typeof__(vips_image_new_from_file) *new_from_file;
  __typeof__(vips_image_write_to_memory) *write_to_memory;
  __typeof__(vips_colourspace) *colourspace;
  __typeof__(vips_cast) *cast;
  __typeof__(vips_bandjoin_const1) *bandjoin_const1;
  __typeof__(vips_extract_band) *extract_band;
  __typeof__(vips_image_get_width) *get_width;
  __typeof__(vips_image_get_height) *get_height;
  __typeof__(vips_image_get_bands) *get_bands;
  __typeof__(vips_image_get_format) *get_format;
  __typeof__(vips_image_get_interpretation) *get_interpretation;
  __typeof__(g_object_unref) *unref;
  __typeof__(g_free) *free;
  __typeof__(g_log_set_handler) *log_set_handler;
  __typeof__(vips_version) *version;
  __typeof__(g_module_open) *module_open;
} vips;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];

/* libvips and its loaders report warnings (an ignored colour profile, extra bytes after an
   image) through GLib's log; a preview has no place for them. */
static void drop_log_message(
  const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
  (void)domain;
  (void)level;
  (void)message;
  (void)data;
}

static void load_vips(void) {
  void *library = dlopen("libvips.so.42", RTLD_LAZY | RTLD_LOCAL);
  if (!library) {
    snprintf(load_error, sizeof load_error, "cannot load libvips: %s", dlerror());
    return;
  }
#define RESOLVE(field, name)                                                              \
  if (!(vips.field = (__typeof__(vips.field))dlsym(library, name))) {                     \
    snprintf(load_error, sizeof load_error, "libvips has no %s", name);                   \
    return;                                                                               \
  }
  RESOLVE(init, "vips_init")
  RESOLVE(error_buffer, "vips_error_buffer")
  RESOLVE(error_clear, "vips_error_clear")
  RESOLVE(cache_set_max, "vips_cache_set_max")
  RESOLVE(find_load, "vips_foreign_find_load")
  RESOLVE(thumbnail, "vips_thumbnail")
  RESOLVE(thumbnail_image, "vips_thumbnail_image")
  RESOLVE(new_from_memory, "vips_image_new_from_memory")
  RESOLVE(new_from_file, "vips_image_new_from_file")
  RESOLVE(write_to_memory, "vips_image_write_to_memory")
  RESOLVE(colourspace, "vips_colourspace")
  RESOLVE(cast, "vips_cast")
  RESOLVE(bandjoin_const1, "vips_bandjoin_const1")
  RESOLVE(extract_band, "vips_extract_band")
  RESOLVE(get_width, "vips_image_get_width")
  RESOLVE(get_height, "vips_image_get_height")
  RESOLVE(get_bands, "vips_image_get_bands")
  RESOLVE(get_format, "vips_image_get_format")
  RESOLVE(get_interpretation, "vips_image_get_interpretation")
  RESOLVE(unref, "g_object_unref")
  RESOLVE(free, "g_free")
  RESOLVE(log_set_handler, "g_log_set_handler")
  RESOLVE(version, "vips_version")
  RESOLVE(module_open, "g_module_open")
#undef RESOLVE
  /* vips_init loads every module in PREFIX/LIBDIR/vips-modules-X.Y (ImageMagick, poppler,
     OpenSlide, libheif, libjxl: a hundred more libraries to map and bind), and takes PREFIX
     from VIPSHOME. A prefix under /dev/null has no modules folder, so none are loaded here:
     load_modules_for adds the ones a file needs. PREFIX also names the folder of libvips's
     message catalogues, which shelf does not use (it never sets a locale). */
  setenv("VIPSHOME", "/dev/null", 1);
  if (vips.init("shelf") != 0) {
    snprintf(load_error, sizeof load_error, "cannot initialise libvips: %s", vips.error_buffer());
    vips.thumbnail = NULL;
    return;
  }
  GLogLevelFlags quiet = G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO | G_LOG_LEVEL_DEBUG;
  vips.log_set_handler("VIPS", quiet, drop_log_message, NULL);
  vips.log_set_handler(NULL, quiet, drop_log_message, NULL);
  /* One preview per process: nothing to gain from keeping operations around. */
  vips.cache_set_max(0);
}

/* The modules that add picture loaders, the most common formats first: libheif (HEIC, AVIF),
   ImageMagick (BMP, ICO, CUR, PSD, TGA, …), libjxl (JPEG XL). */
static const char *const picture_modules[] = {"heif", "magick", "jxl"};
static size_t modules_loaded = 0;

/* Loads the next picture module from libvips's own modules folder (beside libvips itself);
   0 when there are no more. Each module registers its loaders when it is opened. */
static int load_next_module(void) {
  if (modules_loaded >= sizeof picture_modules / sizeof picture_modules[0]) return 0;
  const char *module = picture_modules[modules_loaded++];
  Dl_info library;
  if (!dladdr((void *)vips.init, &library) || !library.dli_fname) return 1;
  const char *slash = strrchr(library.dli_fname, '/');
  if (!slash) return 1;
  char path[4096];
  snprintf(
    path, sizeof path, "%.*s/vips-modules-%d.%d/vips-%s.so", (int)(slash - library.dli_fname),
    library.dli_fname, vips.version(0), vips.version(1), module);
  /* A module that is missing or fails to load leaves its formats unknown, as libvips does. */
  vips.module_open(path, G_MODULE_BIND_LAZY);
  return 1;
}

/* The loader libvips chooses for path, loading picture modules one by one until one of them
   recognises the file; NULL when none does. */
static const char *find_loader(const char *path) {
  static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&modules_lock);
  const char *loader = vips.find_load(path);
  while (!loader && load_next_module()) {
    vips.error_clear();
    loader = vips.find_load(path);
  }
  pthread_mutex_unlock(&modules_lock);
  return loader;
}

static int ensure_loaded(char *error, size_t error_size) {
  pthread_once(&load_once, load_vips);
  if (vips.thumbnail && vips.unref) return SHELF_VIPS_OK;
  snprintf(error, error_size, "%s", load_error);
  return SHELF_VIPS_UNAVAILABLE;
}

/* libvips's error buffer (one line per report, the newest last) as one line. */
static void take_error(char *error, size_t error_size) {
  const char *buffer = vips.error_buffer();
  size_t length = strlen(buffer);
  while (length > 0 && (buffer[length - 1] == '\n' || buffer[length - 1] == ' ')) length--;
  size_t copied = length < error_size - 1 ? length : error_size - 1;
  memcpy(error, buffer, copied);
  error[copied] = 0;
  for (size_t index = 0; index < copied; index++) {
    if (error[index] == '\n') error[index] = ';';
  }
  if (copied == 0) snprintf(error, error_size, "cannot decode the image");
  vips.error_clear();
}

/* Replaces *image by step's result, releasing the old one. */
#define STEP(image, call)                 \
  do {                                    \
    VipsImage *next = NULL;               \
    int failed = (call);                  \
    vips.unref(image);                    \
    image = next;                         \
    if (failed) goto fail;                \
  } while (0)

/* Brings a loaded, resized image to 8-bit sRGB with alpha and copies its pixels out; consumes
   image. */
static int finish(VipsImage *image, shelf_vips_preview *out, char *error, size_t error_size) {
  if (vips.get_interpretation(image) != VIPS_INTERPRETATION_sRGB ||
      vips.get_format(image) != VIPS_FORMAT_UCHAR) {
    STEP(image, vips.colourspace(image, &next, VIPS_INTERPRETATION_sRGB, NULL));
  }
  if (vips.get_format(image) != VIPS_FORMAT_UCHAR) {
    STEP(image, vips.cast(image, &next, VIPS_FORMAT_UCHAR, NULL));
  }
  if (vips.get_bands(image) == 3) {
    STEP(image, vips.bandjoin_const1(image, &next, 255.0, NULL));
  } else if (vips.get_bands(image) > 4) {
    STEP(image, vips.extract_band(image, &next, 0, "n", 4, NULL));
  }
  if (vips.get_bands(image) != 4) {
    vips.unref(image);
    snprintf(error, error_size, "cannot convert the image to RGBA");
    return SHELF_VIPS_DECODE_FAILED;
  }
  size_t size = 0;
  /* The whole pipeline (load, shrink, rotate, convert) runs here; a failure anywhere in it
     leaves no pixels. */
  void *pixels = vips.write_to_memory(image, &size);
  int width = vips.get_width(image);
  int height = vips.get_height(image);
  vips.unref(image);
  if (!pixels) {
    take_error(error, error_size);
    return SHELF_VIPS_DECODE_FAILED;
  }
  out->rgba = malloc(size);
  if (!out->rgba) {
    vips.free(pixels);
    snprintf(error, error_size, "out of memory");
    return SHELF_VIPS_DECODE_FAILED;
  }
  memcpy(out->rgba, pixels, size);
  vips.free(pixels);
  out->width = width;
  out->height = height;
  return SHELF_VIPS_OK;
fail:
  take_error(error, error_size);
  return SHELF_VIPS_DECODE_FAILED;
}

/* The loaders of picture formats. Others that libvips has (CSV, matrix, FITS, PDF, OpenSlide, its
   own .v) would turn a table or a document into pixels. */
static int is_picture_loader(const char *name) {
  static const char *const families[] = {
    "Jpeg", "Png", "Nsgif", "Gif", "Webp", "Tiff", "Heif", "Ppm", "Magick", "Jp2k", "Svg", "Jxl",
  };
  for (size_t index = 0; index < sizeof families / sizeof families[0]; index++) {
    if (strstr(name, families[index])) return 1;
  }
  return 0;
}

int shelf_vips_thumbnail_file(
  const char *path, int page, int max_width, int max_height, int partial, shelf_vips_preview *out,
  char *error, size_t error_size) {
  int status = ensure_loaded(error, error_size);
  if (status != SHELF_VIPS_OK) return status;
  const char *loader = find_loader(path);
  if (!loader || !is_picture_loader(loader)) {
    vips.error_clear();
    snprintf(error, error_size, "no decoder for this format");
    return SHELF_VIPS_UNKNOWN_FORMAT;
  }
  /* libvips reads load options from a [...] suffix of the name. Always giving one keeps a
     name that itself ends in brackets from being taken apart; the loader fails on truncated
     data rather than filling the rest with black, unless asked for what it can decode. */
  const char *fail_on = partial ? "none" : "truncated";
  size_t length = strlen(path) + 64;
  char *name = malloc(length);
  if (!name) {
    snprintf(error, error_size, "out of memory");
    return SHELF_VIPS_DECODE_FAILED;
  }
  if (page > 0) {
    snprintf(name, length, "%s[fail_on=%s,page=%d]", path, fail_on, page);
  } else {
    snprintf(name, length, "%s[fail_on=%s]", path, fail_on);
  }
  VipsSize size = VIPS_SIZE_DOWN;
  if (strstr(loader, "Svg")) {
    /* A drawing has no pixel size of its own to keep: librsvg renders it to fill the box. */
    size = VIPS_SIZE_BOTH;
  } else if (strstr(loader, "Jp2k")) {
    /* libvips 8.14 shrinks a JPEG 2000 image to its smallest resolution level when asked only
       to downsize: ask for a plain fit instead, within the image's own size (from its header). */
    VipsImage *header = vips.new_from_file(name, NULL);
    if (header) {
      if (vips.get_width(header) < max_width) max_width = vips.get_width(header);
      if (vips.get_height(header) < max_height) max_height = vips.get_height(header);
      vips.unref(header);
      size = VIPS_SIZE_BOTH;
    }
    vips.error_clear();
  }
  VipsImage *image = NULL;
  int failed = vips.thumbnail(
    name, &image, max_width, "height", max_height, "size", size, "fail_on",
    partial ? VIPS_FAIL_ON_NONE : VIPS_FAIL_ON_TRUNCATED, NULL);
  free(name);
  if (failed) {
    take_error(error, error_size);
    return SHELF_VIPS_DECODE_FAILED;
  }
  return finish(image, out, error, error_size);
}

int shelf_vips_thumbnail_rgba(
  const unsigned char *rgba, int width, int height, int max_width, int max_height,
  shelf_vips_preview *out, char *error, size_t error_size) {
  int status = ensure_loaded(error, error_size);
  if (status != SHELF_VIPS_OK) return status;
  VipsImage *image = vips.new_from_memory(
    rgba, (size_t)width * (size_t)height * 4, width, height, 4, VIPS_FORMAT_UCHAR);
  if (!image) {
    take_error(error, error_size);
    return SHELF_VIPS_DECODE_FAILED;
  }
  STEP(image, vips.thumbnail_image(
    image, &next, max_width, "height", max_height, "size", VIPS_SIZE_DOWN, NULL));
  return finish(image, out, error, error_size);
fail:
  take_error(error, error_size);
  return SHELF_VIPS_DECODE_FAILED;
}

void shelf_vips_preview_free(shelf_vips_preview *preview) {
  free(preview->rgba);
  preview->rgba = NULL;
}
