/* libheif, loaded on first use.

   Debian's libheif links its codecs (x265, libaom, dav1d, libde265): linking it made every
   shelf process map and relocate them, about 1.8 MiB of resident memory, though only indexing
   a HEIF file needs them. This file defines each libheif function shelf calls, with libheif's
   own prototype (the compiler checks it against the header), as a forwarder through a table
   that `shelf_heif_load` fills with dlopen and dlsym the first time. The forwarders are hidden
   (not exported from the executable), so libvips' own libheif never calls back into them. */

#include <stdio.h>
#include <stdlib.h>

#pragma GCC visibility push(hidden)
#include <libheif/heif.h>
#pragma GCC visibility pop

#include "CHeifSupport.h"

#include <dlfcn.h>
#include <pthread.h>

/* Every libheif function shelf calls. */
#define SHELF_HEIF_FUNCTIONS(X)                                                                    \
  X(heif_context_alloc)                                                                            \
  X(heif_context_free)                                                                             \
  X(heif_context_get_number_of_top_level_images)                                                   \
  X(heif_context_get_primary_image_handle)                                                         \
  X(heif_context_read_from_reader)                                                                 \
  X(heif_image_handle_get_height)                                                                  \
  X(heif_image_handle_get_list_of_metadata_block_IDs)                                              \
  X(heif_image_handle_get_luma_bits_per_pixel)                                                     \
  X(heif_image_handle_get_metadata)                                                                \
  X(heif_image_handle_get_metadata_size)                                                           \
  X(heif_image_handle_get_number_of_metadata_blocks)                                               \
  X(heif_image_handle_get_width)                                                                   \
  X(heif_image_handle_has_alpha_channel)                                                           \
  X(heif_image_handle_release)

static struct {
#define SHELF_HEIF_FIELD(name) __typeof__(&name) name;
  SHELF_HEIF_FUNCTIONS(SHELF_HEIF_FIELD)
#undef SHELF_HEIF_FIELD
} table;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[512];

/* The soname of the ABI the header describes. */
static const char library_name[] = "libheif.so.1";

static void load(void) {
  void *library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    snprintf(load_error, sizeof load_error, "%s", reason ? reason : library_name);
    return;
  }
#define SHELF_HEIF_RESOLVE(name)                                                                   \
  table.name = (__typeof__(&name))dlsym(library, #name);                                           \
  if (!table.name) {                                                                               \
    snprintf(load_error, sizeof load_error, "%s: no function %s", library_name, #name);            \
    return;                                                                                        \
  }
  SHELF_HEIF_FUNCTIONS(SHELF_HEIF_RESOLVE)
#undef SHELF_HEIF_RESOLVE
  loaded = 1;
}

int shelf_heif_load(char *error, size_t size) {
  pthread_once(&load_once, load);
  if (loaded) return 0;
  if (size > 0) snprintf(error, size, "%s", load_error);
  return -1;
}

/* The table, loaded. shelf's Swift code loads libheif (and reports a failure as an error)
   before its first libheif call, so failing here means a call path skipped that step. */
#define CALL(name) (require_loaded(), table.name)
static inline void require_loaded(void) {
  pthread_once(&load_once, load);
  if (__builtin_expect(!loaded, 0)) {
    fprintf(stderr, "shelf: libheif could not be loaded: %s\n", load_error);
    abort();
  }
}

struct heif_context *heif_context_alloc(void) { return CALL(heif_context_alloc)(); }
void heif_context_free(struct heif_context *context) { CALL(heif_context_free)(context); }
int heif_context_get_number_of_top_level_images(struct heif_context *ctx) {
  return CALL(heif_context_get_number_of_top_level_images)(ctx);
}
struct heif_error heif_context_get_primary_image_handle(struct heif_context *ctx, struct heif_image_handle **handle) {
  return CALL(heif_context_get_primary_image_handle)(ctx, handle);
}
struct heif_error heif_context_read_from_reader(
  struct heif_context *context, const struct heif_reader *reader, void *userdata,
  const struct heif_reading_options *options) {
  return CALL(heif_context_read_from_reader)(context, reader, userdata, options);
}
int heif_image_handle_get_height(const struct heif_image_handle *handle) {
  return CALL(heif_image_handle_get_height)(handle);
}
int heif_image_handle_get_list_of_metadata_block_IDs(
  const struct heif_image_handle *handle, const char *type_filter, heif_item_id *ids, int count) {
  return CALL(heif_image_handle_get_list_of_metadata_block_IDs)(handle, type_filter, ids, count);
}
int heif_image_handle_get_luma_bits_per_pixel(const struct heif_image_handle *handle) {
  return CALL(heif_image_handle_get_luma_bits_per_pixel)(handle);
}
struct heif_error heif_image_handle_get_metadata(
  const struct heif_image_handle *handle, heif_item_id metadata_id, void *out_data) {
  return CALL(heif_image_handle_get_metadata)(handle, metadata_id, out_data);
}
size_t heif_image_handle_get_metadata_size(const struct heif_image_handle *handle, heif_item_id metadata_id) {
  return CALL(heif_image_handle_get_metadata_size)(handle, metadata_id);
}
int heif_image_handle_get_number_of_metadata_blocks(const struct heif_image_handle *handle, const char *type_filter) {
  return CALL(heif_image_handle_get_number_of_metadata_blocks)(handle, type_filter);
}
int heif_image_handle_get_width(const struct heif_image_handle *handle) {
  return CALL(heif_image_handle_get_width)(handle);
}
int heif_image_handle_has_alpha_channel(const struct heif_image_handle *handle) {
  return CALL(heif_image_handle_has_alpha_channel)(handle);
}
void heif_image_handle_release(const struct heif_image_handle *handle) { CALL(heif_image_handle_release)(handle); }
