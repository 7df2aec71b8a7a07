/* FFmpeg's libraries, loaded on first use.

   Debian's libavcodec and libavformat pull in about 130 shared libraries (x264, x265, librsvg,
   GnuTLS, libxml2, ...): linking them made every shelf process, `shelf --help` included, map and
   relocate all of them, about 25 MiB of resident memory. shelf therefore does not link them:
   each FFmpeg function shelf calls is a hidden forwarder (see CLazyLibrary.h), so the
   libraries' own calls between themselves never come back through it. */

/* The C library's headers first, outside the hidden region: only FFmpeg's declarations turn hidden. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#pragma GCC visibility push(hidden)
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/dict.h>
#include <libavutil/frame.h>
#include <libavutil/mathematics.h>
#include <libavutil/mem.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#pragma GCC visibility pop

#include "CFFmpegSupport.h"

#include "CLazyLibrary.h"

enum { AVUTIL, SWRESAMPLE, SWSCALE, AVCODEC, AVFORMAT, LIBRARY_COUNT };

/* Sonames of the major versions the headers describe: an ABI-compatible library only. */
static const char *const library_names[LIBRARY_COUNT] = {
    "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
    "libswresample.so." AV_STRINGIFY(LIBSWRESAMPLE_VERSION_MAJOR),
    "libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR),
    "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
};

/* Every FFmpeg function shelf calls, with the library that defines it. */
#define SHELF_FFMPEG_FUNCTIONS(X)                                                                  \
  X(AVUTIL, av_channel_layout_copy)                                                                \
  X(AVUTIL, av_channel_layout_default)                                                             \
  X(AVUTIL, av_dict_free)                                                                          \
  X(AVUTIL, av_dict_get)                                                                           \
  X(AVUTIL, av_dict_set)                                                                           \
  X(AVUTIL, av_frame_alloc)                                                                        \
  X(AVUTIL, av_frame_free)                                                                         \
  X(AVUTIL, av_frame_get_buffer)                                                                   \
  X(AVUTIL, av_frame_unref)                                                                        \
  X(AVUTIL, av_free)                                                                               \
  X(AVUTIL, av_freep)                                                                              \
  X(AVUTIL, av_get_bytes_per_sample)                                                               \
  X(AVUTIL, av_get_packed_sample_fmt)                                                              \
  X(AVUTIL, av_log_set_callback)                                                                   \
  X(AVUTIL, av_malloc)                                                                             \
  X(AVUTIL, av_max_alloc)                                                                          \
  X(AVUTIL, av_rescale_q)                                                                          \
  X(AVUTIL, av_sample_fmt_is_planar)                                                               \
  X(AVUTIL, av_strerror)                                                                           \
  X(SWRESAMPLE, swr_alloc_set_opts2)                                                               \
  X(SWRESAMPLE, swr_convert)                                                                       \
  X(SWRESAMPLE, swr_free)                                                                          \
  X(SWRESAMPLE, swr_get_out_samples)                                                               \
  X(SWRESAMPLE, swr_init)                                                                          \
  X(SWSCALE, sws_freeContext)                                                                      \
  X(SWSCALE, sws_getContext)                                                                       \
  X(SWSCALE, sws_scale)                                                                            \
  X(AVCODEC, av_packet_alloc)                                                                      \
  X(AVCODEC, av_packet_free)                                                                       \
  X(AVCODEC, av_packet_get_side_data)                                                              \
  X(AVCODEC, av_packet_rescale_ts)                                                                 \
  X(AVCODEC, av_packet_unref)                                                                      \
  X(AVCODEC, avcodec_alloc_context3)                                                               \
  X(AVCODEC, avcodec_descriptor_get)                                                               \
  X(AVCODEC, avcodec_find_decoder)                                                                 \
  X(AVCODEC, avcodec_find_encoder)                                                                 \
  X(AVCODEC, avcodec_flush_buffers)                                                                \
  X(AVCODEC, avcodec_free_context)                                                                 \
  X(AVCODEC, avcodec_get_name)                                                                     \
  X(AVCODEC, avcodec_open2)                                                                        \
  X(AVCODEC, avcodec_parameters_copy)                                                              \
  X(AVCODEC, avcodec_parameters_from_context)                                                      \
  X(AVCODEC, avcodec_parameters_to_context)                                                        \
  X(AVCODEC, avcodec_receive_frame)                                                                \
  X(AVCODEC, avcodec_receive_packet)                                                               \
  X(AVCODEC, avcodec_send_frame)                                                                   \
  X(AVCODEC, avcodec_send_packet)                                                                  \
  X(AVFORMAT, av_find_input_format)                                                                \
  X(AVFORMAT, av_interleaved_write_frame)                                                          \
  X(AVFORMAT, av_read_frame)                                                                       \
  X(AVFORMAT, av_stream_get_side_data)                                                             \
  X(AVFORMAT, av_write_frame)                                                                      \
  X(AVFORMAT, av_write_trailer)                                                                    \
  X(AVFORMAT, avformat_alloc_context)                                                              \
  X(AVFORMAT, avformat_alloc_output_context2)                                                      \
  X(AVFORMAT, avformat_close_input)                                                                \
  X(AVFORMAT, avformat_find_stream_info)                                                           \
  X(AVFORMAT, avformat_free_context)                                                               \
  X(AVFORMAT, avformat_index_get_entries_count)                                                    \
  X(AVFORMAT, avformat_index_get_entry)                                                            \
  X(AVFORMAT, avformat_new_stream)                                                                 \
  X(AVFORMAT, avformat_open_input)                                                                 \
  X(AVFORMAT, avformat_seek_file)                                                                  \
  X(AVFORMAT, avformat_write_header)                                                               \
  X(AVFORMAT, avio_alloc_context)                                                                  \
  X(AVFORMAT, avio_context_free)                                                                   \
  X(AVFORMAT, avio_flush)

SHELF_LAZY_LIBRARIES(shelf_ffmpeg_load, "FFmpeg's libraries", SHELF_FFMPEG_FUNCTIONS)
#define CALL SHELF_LAZY_CALL

/* libavutil */
int av_channel_layout_copy(AVChannelLayout *dst, const AVChannelLayout *src) {
  return CALL(av_channel_layout_copy)(dst, src);
}
void av_channel_layout_default(AVChannelLayout *ch_layout, int nb_channels) {
  CALL(av_channel_layout_default)(ch_layout, nb_channels);
}
void av_dict_free(AVDictionary **m) { CALL(av_dict_free)(m); }
AVDictionaryEntry *av_dict_get(const AVDictionary *m, const char *key, const AVDictionaryEntry *prev, int flags) {
  return CALL(av_dict_get)(m, key, prev, flags);
}
int av_dict_set(AVDictionary **pm, const char *key, const char *value, int flags) {
  return CALL(av_dict_set)(pm, key, value, flags);
}
AVFrame *av_frame_alloc(void) { return CALL(av_frame_alloc)(); }
void av_frame_free(AVFrame **frame) { CALL(av_frame_free)(frame); }
int av_frame_get_buffer(AVFrame *frame, int align) { return CALL(av_frame_get_buffer)(frame, align); }
void av_frame_unref(AVFrame *frame) { CALL(av_frame_unref)(frame); }
void av_free(void *ptr) { CALL(av_free)(ptr); }
void av_freep(void *ptr) { CALL(av_freep)(ptr); }
int av_get_bytes_per_sample(enum AVSampleFormat sample_fmt) { return CALL(av_get_bytes_per_sample)(sample_fmt); }
enum AVSampleFormat av_get_packed_sample_fmt(enum AVSampleFormat sample_fmt) {
  return CALL(av_get_packed_sample_fmt)(sample_fmt);
}
void av_log_set_callback(void (*callback)(void *, int, const char *, va_list)) {
  CALL(av_log_set_callback)(callback);
}
void *av_malloc(size_t size) { return CALL(av_malloc)(size); }
void av_max_alloc(size_t max) { CALL(av_max_alloc)(max); }
int64_t av_rescale_q(int64_t a, AVRational bq, AVRational cq) { return CALL(av_rescale_q)(a, bq, cq); }
int av_sample_fmt_is_planar(enum AVSampleFormat sample_fmt) { return CALL(av_sample_fmt_is_planar)(sample_fmt); }
int av_strerror(int errnum, char *errbuf, size_t errbuf_size) {
  return CALL(av_strerror)(errnum, errbuf, errbuf_size);
}

/* libswresample */
int swr_alloc_set_opts2(struct SwrContext **ps, AVChannelLayout *out_ch_layout,
                        enum AVSampleFormat out_sample_fmt, int out_sample_rate,
                        AVChannelLayout *in_ch_layout, enum AVSampleFormat in_sample_fmt,
                        int in_sample_rate, int log_offset, void *log_ctx) {
  return CALL(swr_alloc_set_opts2)(ps, out_ch_layout, out_sample_fmt, out_sample_rate, in_ch_layout,
                                   in_sample_fmt, in_sample_rate, log_offset, log_ctx);
}
int swr_convert(struct SwrContext *s, uint8_t **out, int out_count, const uint8_t **in, int in_count) {
  return CALL(swr_convert)(s, out, out_count, in, in_count);
}
void swr_free(struct SwrContext **s) { CALL(swr_free)(s); }
int swr_get_out_samples(struct SwrContext *s, int in_samples) { return CALL(swr_get_out_samples)(s, in_samples); }
int swr_init(struct SwrContext *s) { return CALL(swr_init)(s); }

/* libswscale */
void sws_freeContext(struct SwsContext *swsContext) { CALL(sws_freeContext)(swsContext); }
struct SwsContext *sws_getContext(int srcW, int srcH, enum AVPixelFormat srcFormat, int dstW, int dstH,
                                  enum AVPixelFormat dstFormat, int flags, SwsFilter *srcFilter,
                                  SwsFilter *dstFilter, const double *param) {
  return CALL(sws_getContext)(srcW, srcH, srcFormat, dstW, dstH, dstFormat, flags, srcFilter, dstFilter, param);
}
int sws_scale(struct SwsContext *c, const uint8_t *const srcSlice[], const int srcStride[], int srcSliceY,
              int srcSliceH, uint8_t *const dst[], const int dstStride[]) {
  return CALL(sws_scale)(c, srcSlice, srcStride, srcSliceY, srcSliceH, dst, dstStride);
}

/* libavcodec */
AVPacket *av_packet_alloc(void) { return CALL(av_packet_alloc)(); }
void av_packet_free(AVPacket **pkt) { CALL(av_packet_free)(pkt); }
uint8_t *av_packet_get_side_data(const AVPacket *pkt, enum AVPacketSideDataType type, size_t *size) {
  return CALL(av_packet_get_side_data)(pkt, type, size);
}
void av_packet_rescale_ts(AVPacket *pkt, AVRational tb_src, AVRational tb_dst) {
  CALL(av_packet_rescale_ts)(pkt, tb_src, tb_dst);
}
void av_packet_unref(AVPacket *pkt) { CALL(av_packet_unref)(pkt); }
AVCodecContext *avcodec_alloc_context3(const AVCodec *codec) { return CALL(avcodec_alloc_context3)(codec); }
const AVCodecDescriptor *avcodec_descriptor_get(enum AVCodecID id) { return CALL(avcodec_descriptor_get)(id); }
const AVCodec *avcodec_find_decoder(enum AVCodecID id) { return CALL(avcodec_find_decoder)(id); }
const AVCodec *avcodec_find_encoder(enum AVCodecID id) { return CALL(avcodec_find_encoder)(id); }
void avcodec_flush_buffers(AVCodecContext *avctx) { CALL(avcodec_flush_buffers)(avctx); }
void avcodec_free_context(AVCodecContext **avctx) { CALL(avcodec_free_context)(avctx); }
const char *avcodec_get_name(enum AVCodecID id) { return CALL(avcodec_get_name)(id); }
int avcodec_open2(AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options) {
  return CALL(avcodec_open2)(avctx, codec, options);
}
int avcodec_parameters_copy(AVCodecParameters *dst, const AVCodecParameters *src) {
  return CALL(avcodec_parameters_copy)(dst, src);
}
int avcodec_parameters_from_context(AVCodecParameters *par, const AVCodecContext *codec) {
  return CALL(avcodec_parameters_from_context)(par, codec);
}
int avcodec_parameters_to_context(AVCodecContext *codec, const AVCodecParameters *par) {
  return CALL(avcodec_parameters_to_context)(codec, par);
}
int avcodec_receive_frame(AVCodecContext *avctx, AVFrame *frame) { return CALL(avcodec_receive_frame)(avctx, frame); }
int avcodec_receive_packet(AVCodecContext *avctx, AVPacket *avpkt) {
  return CALL(avcodec_receive_packet)(avctx, avpkt);
}
int avcodec_send_frame(AVCodecContext *avctx, const AVFrame *frame) { return CALL(avcodec_send_frame)(avctx, frame); }
int avcodec_send_packet(AVCodecContext *avctx, const AVPacket *avpkt) {
  return CALL(avcodec_send_packet)(avctx, avpkt);
}

/* libavformat */
const AVInputFormat *av_find_input_format(const char *short_name) { return CALL(av_find_input_format)(short_name); }
int av_interleaved_write_frame(AVFormatContext *s, AVPacket *pkt) { return CALL(av_interleaved_write_frame)(s, pkt); }
int av_read_frame(AVFormatContext *s, AVPacket *pkt) { return CALL(av_read_frame)(s, pkt); }
uint8_t *av_stream_get_side_data(const AVStream *stream, enum AVPacketSideDataType type, size_t *size) {
  return CALL(av_stream_get_side_data)(stream, type, size);
}
int av_write_frame(AVFormatContext *s, AVPacket *pkt) { return CALL(av_write_frame)(s, pkt); }
int av_write_trailer(AVFormatContext *s) { return CALL(av_write_trailer)(s); }
AVFormatContext *avformat_alloc_context(void) { return CALL(avformat_alloc_context)(); }
int avformat_alloc_output_context2(AVFormatContext **ctx, const AVOutputFormat *oformat, const char *format_name,
                                   const char *filename) {
  return CALL(avformat_alloc_output_context2)(ctx, oformat, format_name, filename);
}
void avformat_close_input(AVFormatContext **s) { CALL(avformat_close_input)(s); }
int avformat_find_stream_info(AVFormatContext *ic, AVDictionary **options) {
  return CALL(avformat_find_stream_info)(ic, options);
}
void avformat_free_context(AVFormatContext *s) { CALL(avformat_free_context)(s); }
int avformat_index_get_entries_count(const AVStream *st) { return CALL(avformat_index_get_entries_count)(st); }
const AVIndexEntry *avformat_index_get_entry(AVStream *st, int idx) { return CALL(avformat_index_get_entry)(st, idx); }
AVStream *avformat_new_stream(AVFormatContext *s, const AVCodec *c) { return CALL(avformat_new_stream)(s, c); }
int avformat_open_input(AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options) {
  return CALL(avformat_open_input)(ps, url, fmt, options);
}
int avformat_seek_file(AVFormatContext *s, int stream_index, int64_t min_ts, int64_t ts, int64_t max_ts, int flags) {
  return CALL(avformat_seek_file)(s, stream_index, min_ts, ts, max_ts, flags);
}
int avformat_write_header(AVFormatContext *s, AVDictionary **options) {
  return CALL(avformat_write_header)(s, options);
}
AVIOContext *avio_alloc_context(unsigned char *buffer, int buffer_size, int write_flag, void *opaque,
                                int (*read_packet)(void *opaque, uint8_t *buf, int buf_size),
                                int (*write_packet)(void *opaque, uint8_t *buf, int buf_size),
                                int64_t (*seek)(void *opaque, int64_t offset, int whence)) {
  return CALL(avio_alloc_context)(buffer, buffer_size, write_flag, opaque, read_packet, write_packet, seek);
}
void avio_context_free(AVIOContext **s) { CALL(avio_context_free)(s); }
void avio_flush(AVIOContext *s) { CALL(avio_flush)(s); }
