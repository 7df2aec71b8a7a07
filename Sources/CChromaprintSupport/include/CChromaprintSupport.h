#ifndef CCHROMAPRINT_SUPPORT_H
#define CCHROMAPRINT_SUPPORT_H

#include <stddef.h>

/* Loads libchromaprint (once; later calls return the first result): 0 when loaded, -1 with the
   loader's reason in `error` when the library or a function is missing. shelf does not link
   libchromaprint (Debian's pulls in FFmpeg's codec libraries), so that only `dupes --similar`
   on audio maps it; call this before any chromaprint function. */
int shelf_chromaprint_load(char *error, size_t size);

#endif
