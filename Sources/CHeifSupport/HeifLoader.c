/* libheif, loaded on first use.

   Debian's libheif links its codecs (x265, libaom, dav1d, libde265): linking it made every
   shelf process map and relocate them, about 1.8 MiB of resident memory, though only indexing
   a HEIF file needs them. Each libheif function shelf calls is a hidden forwarder (see
   CLazyLibrary.h), so libvips' own libheif never calls back into them. */

#include <stdio.h>
#include <stdlib.h>

#pragma GCC visibility push(hidden)
#include <libheif/heif.h>
#pragma GCC visibility pop

#include "CHeifSupport.h"

#include "CLazyLibrary.h"

/* Every libheif function shelf calls. */
#define SHELF_HEIF_FUNCTIONS(X)                                                                    \
  X(0, heif_context_alloc)                                                                         \
  X(0, heif_context_free)                                                                          \
  X(0, heif_context_get_number_of_top_level_images)                                                \
  X(0, heif_context_get_primary_image_handle)                                                      \
  X(0, heif_context_read_from_reader)                                                              \
  X(0, heif_image_handle_get_height)                                                               \
  X(0, heif_image_handle_get_list_of_metadata_block_IDs)                                           \
  X(0, heif_image_handle_get_luma_bits_per_pixel)                                                  \
  X(0, heif_image_handle_get_metadata)                                                             \
  X(0, heif_image_handle_get_metadata_content_type)                                                \
  X(0, heif_image_handle_get_metadata_size)                                                        \
  X(0, heif_image_handle_get_number_of_metadata_blocks)                                            \
  X(0, heif_image_handle_get_width)                                                                \
  X(0, heif_image_handle_has_alpha_channel)                                                        \
  X(0, heif_image_handle_release)

/* The soname of the ABI the header describes. */
static const char *const library_names[] = {"libheif.so.1"};

SHELF_LAZY_LIBRARIES(shelf_heif_load, "libheif", SHELF_HEIF_FUNCTIONS)
#define CALL SHELF_LAZY_CALL

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
const char *heif_image_handle_get_metadata_content_type(
  const struct heif_image_handle *handle, heif_item_id metadata_id) {
  return CALL(heif_image_handle_get_metadata_content_type)(handle, metadata_id);
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
