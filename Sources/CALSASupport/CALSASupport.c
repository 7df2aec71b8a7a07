#include "CALSASupport.h"

#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static __thread char last_message[512];

static void quiet_handler(const char *file, int line, const char *function, int err,
                          const char *fmt, ...) {
  (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static void capturing_handler(const char *file, int line, const char *function, int err,
                              const char *fmt, ...) {
  (void)file; (void)line; (void)function;
  va_list args;
  va_start(args, fmt);
  int used = vsnprintf(last_message, sizeof last_message, fmt, args);
  va_end(args);
  if (used < 0) { last_message[0] = 0; return; }
  if (err != 0 && (size_t)used < sizeof last_message) {
    snprintf(last_message + used, sizeof last_message - (size_t)used, ": %s", snd_strerror(err));
  }
}

void shelf_alsa_capture_errors(void) { snd_lib_error_set_handler(capturing_handler); }

void shelf_alsa_silence_errors(void) { snd_lib_error_set_handler(quiet_handler); }

void shelf_alsa_last_error(char *buffer, size_t size) {
  if (size == 0) return;
  strncpy(buffer, last_message, size - 1);
  buffer[size - 1] = 0;
}

void shelf_alsa_clear_error(void) { last_message[0] = 0; }
