#include <sqlite3.h>

/* Turns off SQLite's memory statistics, which take a global mutex around every allocation
   (sqlite3_config is variadic: Swift cannot call it). Must run before the first connection
   opens; later it returns SQLITE_MISUSE and changes nothing. */
static inline int shelf_sqlite_disable_memory_statistics(void) {
  return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
