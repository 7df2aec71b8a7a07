/* libchromaprint, loaded on first use.

   Debian's libchromaprint links libavcodec, libavutil and libswresample, and libavformat in
   turn links libchromaprint: linking it would map FFmpeg's codecs into every shelf process,
   though only fingerprinting audio for `dupes --similar` needs it. Each chromaprint function
   shelf calls is a hidden forwarder (see CLazyLibrary.h), so that FFmpeg's own calls into its
   libchromaprint (its chromaprint muxer) never come back into them. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* chromaprint.h marks each function visibility("default") explicitly, which the visibility
   pragma does not override: rewrite the attribute while the header is read, so the forwarders
   below stay hidden as HeifLoader.c's do. */
#define visibility(kind) visibility("hidden")
#include <chromaprint.h>
#undef visibility

#include "CChromaprintSupport.h"

#include "CLazyLibrary.h"

/* Every chromaprint function shelf calls. */
#define SHELF_CHROMAPRINT_FUNCTIONS(X)                                                             \
  X(0, chromaprint_new)                                                                            \
  X(0, chromaprint_free)                                                                           \
  X(0, chromaprint_start)                                                                          \
  X(0, chromaprint_feed)                                                                           \
  X(0, chromaprint_finish)                                                                         \
  X(0, chromaprint_get_raw_fingerprint)                                                            \
  X(0, chromaprint_get_item_duration_ms)                                                           \
  X(0, chromaprint_dealloc)

/* The soname of the ABI the header describes. */
static const char *const library_names[] = {"libchromaprint.so.1"};

SHELF_LAZY_LIBRARIES(shelf_chromaprint_load, "libchromaprint", SHELF_CHROMAPRINT_FUNCTIONS)
#define CALL SHELF_LAZY_CALL

ChromaprintContext *chromaprint_new(int algorithm) { return CALL(chromaprint_new)(algorithm); }
void chromaprint_free(ChromaprintContext *ctx) { CALL(chromaprint_free)(ctx); }
int chromaprint_start(ChromaprintContext *ctx, int sample_rate, int num_channels) {
  return CALL(chromaprint_start)(ctx, sample_rate, num_channels);
}
int chromaprint_feed(ChromaprintContext *ctx, const int16_t *data, int size) {
  return CALL(chromaprint_feed)(ctx, data, size);
}
int chromaprint_finish(ChromaprintContext *ctx) { return CALL(chromaprint_finish)(ctx); }
int chromaprint_get_raw_fingerprint(ChromaprintContext *ctx, uint32_t **fingerprint, int *size) {
  return CALL(chromaprint_get_raw_fingerprint)(ctx, fingerprint, size);
}
int chromaprint_get_item_duration_ms(ChromaprintContext *ctx) { return CALL(chromaprint_get_item_duration_ms)(ctx); }
void chromaprint_dealloc(void *ptr) { CALL(chromaprint_dealloc)(ptr); }
