#include "CFFmpegSupport.h"

#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const int shelf_averror_eof = AVERROR_EOF;
const int shelf_averror_eagain = AVERROR(EAGAIN);
const int64_t shelf_av_nopts_value = AV_NOPTS_VALUE;

static _Thread_local char last_line[512];

static void capture(void *context, int level, const char *format, va_list arguments) {
  (void)context;
  if (level > AV_LOG_ERROR) return;
  vsnprintf(last_line, sizeof last_line, format, arguments);
  size_t length = strlen(last_line);
  while (length > 0 && (last_line[length - 1] == '\n' || last_line[length - 1] == '\r')) {
    last_line[--length] = '\0';
  }
}

void shelf_ffmpeg_capture_log(void) { av_log_set_callback(capture); }

void shelf_ffmpeg_last_log(char *buffer, size_t size) {
  if (size == 0) return;
  snprintf(buffer, size, "%s", last_line);
}

void shelf_ffmpeg_clear_log(void) { last_line[0] = '\0'; }
