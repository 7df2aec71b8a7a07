#ifndef CFFMPEG_SUPPORT_H
#define CFFMPEG_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

/* What Swift cannot do with FFmpeg's libraries: read function-like macros and install the
   variadic log callback. */

/* Loads FFmpeg's libraries (once; later calls return the first result): 0 when loaded, -1 with
   the loader's reason in `error` when a library or a function is missing. shelf links none of
   them, so that commands which never decode do not map them; call this before any FFmpeg
   function. */
int shelf_ffmpeg_load(char *error, size_t size);

/* AVERROR_EOF: the end of a stream (a macro built with FFERRTAG). */
extern const int shelf_averror_eof;
/* AVERROR(EAGAIN): the decoder or encoder needs another call first. */
extern const int shelf_averror_eagain;
/* AV_NOPTS_VALUE: "no timestamp". */
extern const int64_t shelf_av_nopts_value;

/* Routes FFmpeg's log (which writes to stderr by default) into a per-thread buffer that keeps
   the last error-level line, so that shelf can name the reason in its own one-line error and
   nothing of FFmpeg's reaches the terminal. */
void shelf_ffmpeg_capture_log(void);

/* Copies the last error-level line FFmpeg logged on this thread (empty when none). */
void shelf_ffmpeg_last_log(char *buffer, size_t size);

/* Forgets the last line of this thread. */
void shelf_ffmpeg_clear_log(void);

#endif
