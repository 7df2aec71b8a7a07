#ifndef CLAZY_LIBRARY_H
#define CLAZY_LIBRARY_H

/* Shared libraries loaded on first use instead of linked.

   Debian's FFmpeg, libpq and libheif each pull in dozens of further libraries (codecs, TLS,
   Kerberos): linking them made every shelf process map and relocate all of them. A loader
   (FFmpegLoader.c, PostgresLoader.c, HeifLoader.c) instead lists the functions shelf calls,
   defines each as a hidden forwarder with the library's own prototype (so the compiler checks
   it against the header), and calls through a table that SHELF_LAZY_LIBRARIES fills with
   dlopen and dlsym the first time. */

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* Opens `count` libraries by soname into `handles`; 0, or -1 with the reason in `error`. */
int shelf_lazy_open(const char *const names[], size_t count, void *handles[], char *error, size_t size);

/* Reports that a forwarder ran before its libraries loaded (a call path skipped the load
   function, whose failure the Swift side turns into an error) and aborts. */
void shelf_lazy_unloaded(const char *what, const char *reason) __attribute__((noreturn));

#define SHELF_LAZY_FIELD(library, name) __typeof__(&name) name;
#define SHELF_LAZY_RESOLVE(library, name)                                                          \
  shelf_lazy_table.name = (__typeof__(&name))dlsym(handles[library], #name);                       \
  if (!shelf_lazy_table.name) {                                                                    \
    snprintf(shelf_lazy_error, sizeof shelf_lazy_error, "%s: no function %s", library_names[library], #name); \
    return;                                                                                        \
  }

/* Defines the table of the functions FUNCTIONS lists (as X(index in library_names, name)),
   `int LOAD(char *error, size_t size)` (loads once; 0, or -1 with the reason), and
   SHELF_LAZY_CALL(name), the loaded table's entry for a forwarder. `WHAT` names the
   libraries in the abort message. `library_names` is a static array of sonames. */
#define SHELF_LAZY_LIBRARIES(LOAD, WHAT, FUNCTIONS)                                                \
  static struct {                                                                                  \
    FUNCTIONS(SHELF_LAZY_FIELD)                                                                    \
  } shelf_lazy_table;                                                                              \
  static pthread_once_t shelf_lazy_once = PTHREAD_ONCE_INIT;                                       \
  static int shelf_lazy_loaded;                                                                    \
  static char shelf_lazy_error[512];                                                               \
  static void shelf_lazy_load(void) {                                                              \
    enum { count = sizeof library_names / sizeof *library_names };                                 \
    void *handles[count];                                                                          \
    if (shelf_lazy_open(library_names, count, handles, shelf_lazy_error, sizeof shelf_lazy_error) != 0) return; \
    FUNCTIONS(SHELF_LAZY_RESOLVE)                                                                  \
    shelf_lazy_loaded = 1;                                                                         \
  }                                                                                                \
  int LOAD(char *error, size_t size) {                                                             \
    pthread_once(&shelf_lazy_once, shelf_lazy_load);                                               \
    if (shelf_lazy_loaded) return 0;                                                               \
    if (size > 0) snprintf(error, size, "%s", shelf_lazy_error);                                   \
    return -1;                                                                                     \
  }                                                                                                \
  static inline void shelf_lazy_require(void) {                                                    \
    pthread_once(&shelf_lazy_once, shelf_lazy_load);                                               \
    if (__builtin_expect(!shelf_lazy_loaded, 0)) shelf_lazy_unloaded(WHAT, shelf_lazy_error);      \
  }

#define SHELF_LAZY_CALL(name) (shelf_lazy_require(), shelf_lazy_table.name)

#endif
