#include "CLazyLibrary.h"

int shelf_lazy_open(const char *const names[], size_t count, void *handles[], char *error, size_t size) {
  for (size_t index = 0; index < count; index++) {
    handles[index] = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
    if (!handles[index]) {
      const char *reason = dlerror();
      snprintf(error, size, "%s", reason ? reason : names[index]);
      return -1;
    }
  }
  return 0;
}

void shelf_lazy_unloaded(const char *what, const char *reason) {
  fprintf(stderr, "shelf: %s could not be loaded: %s\n", what, reason);
  abort();
}
