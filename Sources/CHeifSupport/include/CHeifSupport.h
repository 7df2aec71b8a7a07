#ifndef CHEIF_SUPPORT_H
#define CHEIF_SUPPORT_H

#include <stddef.h>

/* Loads libheif (once; later calls return the first result): 0 when loaded, -1 with the
   loader's reason in `error` when the library or a function is missing. shelf does not link
   libheif, so that commands which never read a HEIF file do not map it and its codecs; call
   this before any libheif function. */
int shelf_heif_load(char *error, size_t size);

#endif
