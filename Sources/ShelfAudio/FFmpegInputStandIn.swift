internal import CFFmpeg
internal import CFFmpegSupport
import ShelfCore
import Glibc

/// Stand-in until media-facts' FFmpegInput lands; replaced on merge.
final class FFmpegInput {
  var context: UnsafeMutablePointer<AVFormatContext>?
  let audioStreamIndex: Int32
  let path: RawPath

  static func openAudio(_ file: RegularFile) throws(AudioError) -> FFmpegInput {
    try FFmpegInput(file)
  }

  private init(_ file: RegularFile) throws(AudioError) {
    path = file.path
    shelf_ffmpeg_capture_log()
    shelf_ffmpeg_clear_log()
    var ctx: UnsafeMutablePointer<AVFormatContext>?
    let fd = (try? file.duplicateDescriptor()) ?? -1
    defer { if fd >= 0 { _ = Glibc.close(fd) } }
    let name = "/proc/self/fd/\(fd)"
    let code = avformat_open_input(&ctx, name, nil, nil)
    guard code >= 0, let ctx else {
      throw AudioError(path: path, reason: .unrecognised, message: "not a recognised audio file: \(FFmpegInput.describe(code))")
    }
    context = ctx
    let found = avformat_find_stream_info(ctx, nil)
    guard found >= 0 else {
      throw AudioError(path: path, reason: .damaged, message: "damaged: \(FFmpegInput.describe(found))")
    }
    var index: Int32 = -1
    for i in 0..<Int(ctx.pointee.nb_streams) where ctx.pointee.streams[i]!.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO {
      index = Int32(i)
      break
    }
    guard index >= 0 else {
      throw AudioError(path: path, reason: .unrecognised, message: "no audio track")
    }
    audioStreamIndex = index
  }

  deinit { close() }

  func close() { if context != nil { avformat_close_input(&context) } }

  func stream(_ i: Int32) -> UnsafeMutablePointer<AVStream> { context!.pointee.streams[Int(i)]! }

  func metadata(_ key: String) -> String? {
    guard let entry = av_dict_get(context!.pointee.metadata, key, nil, 0) else { return nil }
    return String(cString: entry.pointee.value)
  }

  var isMP4Family: Bool { String(cString: context!.pointee.iformat.pointee.name).contains("mp4") }

  func durationFrames(_ i: Int32, rate: Int) -> Int64 {
    let st = stream(i)
    if st.pointee.duration != shelf_av_nopts_value {
      return av_rescale_q(st.pointee.duration, st.pointee.time_base, AVRational(num: 1, den: Int32(rate)))
    }
    return 0
  }

  func startFrames(_ i: Int32, rate: Int) -> Int64 {
    let st = stream(i)
    if st.pointee.start_time != shelf_av_nopts_value {
      return av_rescale_q(st.pointee.start_time, st.pointee.time_base, AVRational(num: 1, den: Int32(rate)))
    }
    return 0
  }

  var formatLongName: String { String(cString: context!.pointee.iformat.pointee.long_name) }

  func readErrorIsFatal(_ code: Int32) -> Bool { false }

  static func describe(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    av_strerror(code, &buffer, 256)
    return String(cString: buffer)
  }
}
