#ifndef CPOSTGRES_SUPPORT_H
#define CPOSTGRES_SUPPORT_H

#include <stddef.h>

/* Loads libpq (once; later calls return the first result): 0 when loaded, -1 with the loader's
   reason in `error` when the library or a function is missing. shelf does not link libpq, so
   that commands on a SQLite catalogue do not map it and its dependencies; call this before any
   libpq function. */
int shelf_postgres_load(char *error, size_t size);

#endif
