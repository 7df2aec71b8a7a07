#ifndef CALSA_SUPPORT_H
#define CALSA_SUPPORT_H

#include <stddef.h>

/* What Swift cannot do with alsa-lib: install a variadic error callback. */

/* Replaces ALSA's default error printer (which writes to stderr) with one that formats the
   message into a per-thread buffer, so that shelf can name the reason in its own one-line error. */
void shelf_alsa_capture_errors(void);

/* Replaces ALSA's error printer with one that drops every message. */
void shelf_alsa_silence_errors(void);

/* Copies the last message ALSA reported on this thread (empty when none) into buffer. */
void shelf_alsa_last_error(char *buffer, size_t size);

/* Forgets the last message of this thread. */
void shelf_alsa_clear_error(void);

#endif
