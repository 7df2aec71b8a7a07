internal import CFFmpeg
internal import CFFmpegSupport
import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Rewrites a finished fragmented MP4 recording as a plain MP4 whose edit list names the
/// encoder's delay, packet for packet (nothing is decoded or encoded again).
///
/// A recording is written fragmented with its `moov` up front, so that a kill at any moment
/// leaves a playable file; but that `moov` is written before the first packet, when the muxer
/// cannot yet say how many of the first samples are AAC's encoder delay. After a clean stop the
/// recording is copied into a new file beside it with the packets moved back by that delay
/// (the muxer then writes the edit list, as for any AAC file) and renamed over it: readers see
/// the fragmented file or the whole new one, never a part.
enum MP4Remuxer {
  /// Rewrites `path` with its first `delay` samples (at `sampleRate`) marked as encoder delay
  /// and its length set to the `frames` captured (the last packet's padding trimmed, as the
  /// encoder marks it; a fragment reread does not keep that). On failure the temporary file is
  /// removed and `path` is as it was.
  static func markEncoderDelay(_ path: RawPath, delay: Int64, frames: Int64, sampleRate: Int)
    throws(AudioError)
  {
    let input: FFmpegInput
    do {
      input = try FFmpegInput(path: path, probing: .never, demuxer: "mov")
    } catch {
      throw AudioError(
        path: path, reason: .writeFailed, message: "cannot reread the recording: \(error.message)")
    }
    guard let audio = input.audioStream, let parameters = input.codecParameters(stream: audio.index),
      let inputTimeBase = input.timeBase(stream: audio.index)
    else {
      throw AudioError(
        path: path, reason: .writeFailed, message: "cannot reread the recording: no audio track")
    }
    let file: AtomicFileWriter
    do {
      file = try AtomicFileWriter(target: path)
    } catch {
      throw AudioError(path: path, reason: .writeFailed, message: error.reason)
    }
    let sink = PositionalSink(file)
    var output: UnsafeMutablePointer<AVFormatContext>?
    var packet = av_packet_alloc()
    defer {
      av_packet_free(&packet)
      if let output {
        if output.pointee.pb != nil {
          av_freep(&output.pointee.pb.pointee.buffer)
          avio_context_free(&output.pointee.pb)
        }
        avformat_free_context(output)
      }
    }
    let check = { (call: String, code: Int32) throws(AudioError) in
      guard code < 0 else { return }
      if let failure = sink.failure {
        throw AudioError(path: path, reason: .writeFailed, message: failure.reason)
      }
      throw AudioError(
        path: path, reason: .writeFailed, message: "\(call) failed: \(FFmpegError.text(of: code))")
    }
    do throws(AudioError) {
      try check("avformat_alloc_output_context2", avformat_alloc_output_context2(&output, nil, "ipod", nil))
      guard let output, let packet, let stream = avformat_new_stream(output, nil) else {
        throw AudioError(path: path, reason: .writeFailed, message: "cannot set up the MP4 muxer")
      }
      try check("avcodec_parameters_copy", avcodec_parameters_copy(stream.pointee.codecpar, parameters))
      stream.pointee.codecpar.pointee.codec_tag = 0
      stream.pointee.time_base = inputTimeBase
      let bufferSize: Int32 = 65536
      guard let buffer = av_malloc(Int(bufferSize)),
        let io = avio_alloc_context(
          buffer.assumingMemoryBound(to: UInt8.self), bufferSize, 1,
          Unmanaged.passUnretained(sink).toOpaque(),
          nil, PositionalSink.write, PositionalSink.seek)
      else {
        throw AudioError(path: path, reason: .writeFailed, message: "cannot allocate FFmpeg's output buffer")
      }
      output.pointee.pb = io
      try check("avformat_write_header", avformat_write_header(output, nil))
      let samples = AVRational(num: 1, den: Int32(sampleRate))
      let shift = av_rescale_q(delay, samples, inputTimeBase)
      let frameSize = Int64(parameters.pointee.frame_size > 0 ? parameters.pointee.frame_size : 1024)
      let end = delay + frames
      while true {
        let more: Bool
        do {
          more = try input.readPacket(into: packet)
        } catch {
          throw AudioError(
            path: path, reason: .writeFailed, message: "cannot reread the recording: \(error.message)")
        }
        guard more else { break }
        guard Int(packet.pointee.stream_index) == audio.index else {
          av_packet_unref(packet)
          continue
        }
        // Every packet holds a frame of samples, the last one only those captured.
        if packet.pointee.pts != shelf_av_nopts_value {
          let start = av_rescale_q(packet.pointee.pts, inputTimeBase, samples)
          let length = min(frameSize, end - start)
          guard length > 0 else {
            av_packet_unref(packet)
            continue
          }
          packet.pointee.duration = av_rescale_q(length, samples, inputTimeBase)
          packet.pointee.pts -= shift
        }
        if packet.pointee.dts != shelf_av_nopts_value { packet.pointee.dts -= shift }
        av_packet_rescale_ts(packet, inputTimeBase, stream.pointee.time_base)
        packet.pointee.stream_index = 0
        packet.pointee.pos = -1
        try check("av_interleaved_write_frame", av_interleaved_write_frame(output, packet))
      }
      try check("av_write_trailer", av_write_trailer(output))
      avio_flush(io)
      if let failure = sink.failure {
        throw AudioError(path: path, reason: .writeFailed, message: failure.reason)
      }
      do {
        try file.commit()
      } catch {
        throw AudioError(path: path, reason: .writeFailed, message: error.reason)
      }
    } catch {
      file.discard()
      throw error
    }
  }
}

/// FFmpeg's write and seek callbacks over an `AtomicFileWriter`, at a position of their own
/// (the MP4 muxer goes back to fill in sizes).
private final class PositionalSink {
  let file: AtomicFileWriter
  var position: Int64 = 0
  var size: Int64 = 0
  /// The first write that failed (FFmpeg sees only its errno).
  var failure: FileError?

  init(_ file: AtomicFileWriter) { self.file = file }

  static let write: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 =
    {
      opaque, buffer, count in
      guard let opaque, let buffer, count >= 0 else { return -EINVAL }
      let sink = Unmanaged<PositionalSink>.fromOpaque(opaque).takeUnretainedValue()
      do throws(FileError) {
        try sink.file.write(UnsafeRawBufferPointer(start: buffer, count: Int(count)), at: sink.position)
      } catch {
        if sink.failure == nil { sink.failure = error }
        return -(error.code ?? EIO)
      }
      sink.position += Int64(count)
      sink.size = max(sink.size, sink.position)
      return count
    }

  static let seek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = {
    opaque, offset, whence in
    guard let opaque else { return Int64(-EINVAL) }
    let sink = Unmanaged<PositionalSink>.fromOpaque(opaque).takeUnretainedValue()
    let target: Int64
    switch whence & ~Int32(AVSEEK_FORCE) {
    case Int32(AVSEEK_SIZE): return sink.size
    case SEEK_SET: target = offset
    case SEEK_CUR: target = sink.position + offset
    case SEEK_END: target = sink.size + offset
    default: return Int64(-EINVAL)
    }
    guard target >= 0 else { return Int64(-EINVAL) }
    sink.position = target
    return target
  }
}
