internal import CFFmpeg
internal import CFFmpegSupport
public import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Records into MP4 audio (`.m4a`) through FFmpeg: AAC-LC by the native `aac` encoder, as Voice
/// Memos writes, or ALAC.
///
/// While recording, the file is fragmented MP4: an empty `moov` written when the file is
/// created, then a fragment (`moof` + `mdat`) about every second, each written through to the
/// file as soon as the muxer finishes it. So a recorder killed by `kill -9` (even in its first
/// second) or stopped by a full disk leaves a file that ffmpeg, mpv and libavformat open and
/// play with every fragment written; such a file starts with AAC's encoder delay (1024
/// samples), which only an edit list written after the first packet could name.
///
/// `close()` finishes the fragments (and their index), then, for AAC, rewrites the recording as
/// a plain MP4 whose edit list names the encoder delay (`MP4Remuxer`: a copy beside it renamed
/// over it, so the file is whole at every moment), so that it decodes to exactly the captured
/// samples. When that copy cannot be made (a full disk), the fragmented recording stays,
/// complete, with the delay at its start. ALAC has no delay: its fragmented file is final.
public final class M4AFileWriter: RecordingFileWriter {
  /// The codec inside the MP4.
  public enum Codec: String, Sendable {
    /// AAC-LC, lossy (about 64 kbit/s per channel).
    case aac
    /// Apple Lossless, 16 or 24 bits.
    case alac
  }

  public let path: RawPath
  public let sampleRate: Int
  public let channels: Int
  public let codecName: Codec
  public private(set) var framesWritten: Int64 = 0

  private var descriptor: Int32
  private var output: UnsafeMutablePointer<AVFormatContext>?
  private var encoder: UnsafeMutablePointer<AVCodecContext>?
  private var frame: UnsafeMutablePointer<AVFrame>?
  private var packet: UnsafeMutablePointer<AVPacket>?
  private var stream: UnsafeMutablePointer<AVStream>?
  /// Samples waiting for a whole encoder frame, one array per channel, in the encoder's format.
  private var pendingFloat: [[Float]]
  private var pendingInt: [[Int32]]
  private let encoderFormat: AVSampleFormat
  private var encodedFrames: Int64 = 0
  private var finished = false
  /// The sample format stored: ALAC keeps 16 or 24 bits, AAC has none.
  public let storedFormat: SampleFormat

  /// Creates `path` (refusing an existing file unless `overwrite`) and writes the MP4 header.
  ///
  /// Throws `AudioError`: `.exists`, `.cannotCreate`, `.unsupported` (a rate or channel count
  /// the encoder refuses), `.writeFailed`.
  public init(
    path: RawPath, codec: Codec, sampleFormat: SampleFormat, sampleRate: Int, channels: Int,
    overwrite: Bool = false
  ) throws(AudioError) {
    self.path = path
    self.sampleRate = sampleRate
    self.channels = channels
    self.codecName = codec
    pendingFloat = Array(repeating: [], count: channels)
    pendingInt = Array(repeating: [], count: channels)
    storedFormat = codec == .aac ? .float : (sampleFormat == .s16 ? .s16 : .s24)
    encoderFormat =
      codec == .aac ? AV_SAMPLE_FMT_FLTP : (storedFormat == .s16 ? AV_SAMPLE_FMT_S16P : AV_SAMPLE_FMT_S32P)
    var flags = O_RDWR | O_CREAT | O_CLOEXEC
    flags |= overwrite ? O_TRUNC : O_EXCL
    descriptor = path.withCString { open($0, flags, 0o644) }
    guard descriptor >= 0 else {
      let code = errno
      if code == EEXIST {
        throw AudioError(path: path, reason: .exists, message: "file exists (use --force to overwrite)")
      }
      throw AudioError(
        path: path, reason: .cannotCreate,
        message: "cannot create: \(String(cString: strerror(code)).lowercased())")
    }
    do throws(AudioError) {
      try setUp(codec: codec)
    } catch {
      release()
      _ = path.withCString { unlink($0) }
      throw error
    }
  }

  deinit { release() }

  /// Opens the encoder and the muxer and writes the header (ftyp and an empty moov).
  private func setUp(codec: Codec) throws(AudioError) {
    do {
      try FFmpegLibrary.load(path: path)
    } catch {
      throw AudioError(path: path, reason: .unsupported, message: error.message)
    }
    guard let encoderCodec = avcodec_find_encoder(codec == .aac ? AV_CODEC_ID_AAC : AV_CODEC_ID_ALAC),
      let context = avcodec_alloc_context3(encoderCodec)
    else {
      throw AudioError(path: path, reason: .unsupported, message: "FFmpeg has no \(codec.rawValue) encoder")
    }
    encoder = context
    context.pointee.sample_rate = Int32(sampleRate)
    context.pointee.sample_fmt = encoderFormat
    av_channel_layout_default(&context.pointee.ch_layout, Int32(channels))
    context.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
    if codec == .aac {
      context.pointee.bit_rate = Int64(64_000 * min(channels, 4))
      context.pointee.profile = FF_PROFILE_AAC_LOW
    } else {
      context.pointee.bits_per_raw_sample = Int32(storedFormat.bits)
    }
    var muxer: UnsafeMutablePointer<AVFormatContext>?
    guard avformat_alloc_output_context2(&muxer, nil, "ipod", nil) >= 0, let muxer else {
      throw AudioError(path: path, reason: .unsupported, message: "FFmpeg has no MP4 muxer")
    }
    output = muxer
    if muxer.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 {
      context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
    }
    try check("avcodec_open2", .unsupported) { avcodec_open2(context, encoderCodec, nil) }
    let stream = avformat_new_stream(muxer, nil)
    guard let stream else {
      throw AudioError(path: path, reason: .writeFailed, message: "cannot add a stream")
    }
    self.stream = stream
    try check("avcodec_parameters_from_context", .writeFailed) {
      avcodec_parameters_from_context(stream.pointee.codecpar, context)
    }
    stream.pointee.time_base = context.pointee.time_base

    let bufferSize: Int32 = 65536
    guard let buffer = av_malloc(Int(bufferSize)),
      let io = avio_alloc_context(
        buffer.assumingMemoryBound(to: UInt8.self), bufferSize, 1,
        UnsafeMutableRawPointer(bitPattern: Int(descriptor) + 1), nil, writeToDescriptor, seekDescriptor)
    else {
      throw AudioError(path: path, reason: .writeFailed, message: "cannot allocate FFmpeg's output buffer")
    }
    muxer.pointee.pb = io
    var options: OpaquePointer?
    // empty_moov: the moov is on disk before the first sample is captured (delay_moov would
    // hold it back to the first fragment, leaving a file without one for the first second).
    av_dict_set(&options, "movflags", "empty_moov+default_base_moof+frag_keyframe", 0)
    // Audio packets are all key frames: the fragment length comes from frag_duration (µs).
    av_dict_set(&options, "frag_duration", "1000000", 0)
    defer { av_dict_free(&options) }
    try check("avformat_write_header", .writeFailed) { avformat_write_header(muxer, &options) }
    avio_flush(io)
    try checkIO()
    frame = av_frame_alloc()
    packet = av_packet_alloc()
    guard frame != nil, packet != nil else {
      throw AudioError(path: path, reason: .writeFailed, message: "cannot allocate FFmpeg frames")
    }
  }

  private func release() {
    if frame != nil { av_frame_free(&frame) }
    if packet != nil { av_packet_free(&packet) }
    if encoder != nil { avcodec_free_context(&encoder) }
    if let output {
      if output.pointee.pb != nil {
        av_freep(&output.pointee.pb.pointee.buffer)
        avio_context_free(&output.pointee.pb)
      }
      avformat_free_context(output)
      self.output = nil
    }
    if descriptor >= 0 {
      Glibc.close(descriptor)
      descriptor = -1
    }
  }

  public var bytesOnDisk: Int64 {
    var status = stat()
    guard descriptor >= 0, fstat(descriptor, &status) == 0 else { return 0 }
    return Int64(status.st_size)
  }

  public func write(_ buffer: UnsafeRawPointer, frames: Int, as type: PCMSampleType) throws(AudioError) {
    guard !finished, frames > 0 else { return }
    let samples = frames * channels
    if codecName == .aac {
      for channel in 0..<channels {
        pendingFloat[channel].reserveCapacity(pendingFloat[channel].count + frames)
      }
      switch type {
      case .int16:
        let p = buffer.assumingMemoryBound(to: Int16.self)
        for i in 0..<samples { pendingFloat[i % channels].append(Float(p[i]) / 32768) }
      case .int32:
        let p = buffer.assumingMemoryBound(to: Int32.self)
        for i in 0..<samples { pendingFloat[i % channels].append(Float(Double(p[i]) / 2_147_483_648)) }
      case .float32:
        let p = buffer.assumingMemoryBound(to: Float.self)
        for i in 0..<samples { pendingFloat[i % channels].append(p[i]) }
      }
    } else {
      // ALAC takes 16-bit samples as they are and 24-bit ones left-justified in 32 bits.
      switch type {
      case .int16:
        let p = buffer.assumingMemoryBound(to: Int16.self)
        let shift: Int32 = storedFormat == .s16 ? 0 : 16
        for i in 0..<samples { pendingInt[i % channels].append(Int32(p[i]) << shift) }
      case .int32:
        let p = buffer.assumingMemoryBound(to: Int32.self)
        if storedFormat == .s16 {
          for i in 0..<samples { pendingInt[i % channels].append(p[i] >> 16) }
        } else {
          for i in 0..<samples { pendingInt[i % channels].append(p[i] & ~0xFF) }
        }
      case .float32:
        let p = buffer.assumingMemoryBound(to: Float.self)
        let scale: Double = storedFormat == .s16 ? 32767 : 8_388_607
        let shift: Int32 = storedFormat == .s16 ? 0 : 8
        for i in 0..<samples {
          let value = Int32((Double(max(-1, min(1, p[i]))) * scale).rounded())
          pendingInt[i % channels].append(value << shift)
        }
      }
    }
    framesWritten += Int64(frames)
    try encodeWholeFrames(final: false)
  }

  /// Encodes every whole encoder frame that is pending (and, when `final`, the rest).
  private func encodeWholeFrames(final: Bool) throws(AudioError) {
    guard let encoder, let frame else { return }
    let size = Int(encoder.pointee.frame_size > 0 ? encoder.pointee.frame_size : 4096)
    while true {
      let pending = codecName == .aac ? pendingFloat[0].count : pendingInt[0].count
      let count = min(size, pending)
      guard count == size || (final && count > 0) else { return }
      av_frame_unref(frame)
      frame.pointee.nb_samples = Int32(count)
      frame.pointee.format = encoderFormat.rawValue
      frame.pointee.sample_rate = Int32(sampleRate)
      av_channel_layout_copy(&frame.pointee.ch_layout, &encoder.pointee.ch_layout)
      try check("av_frame_get_buffer", .writeFailed) { av_frame_get_buffer(frame, 0) }
      for channel in 0..<channels {
        let plane = UnsafeMutableRawPointer(frame.pointee.extended_data[channel]!)
        if codecName == .aac {
          pendingFloat[channel].withUnsafeBytes {
            plane.copyMemory(from: $0.baseAddress!, byteCount: count * 4)
          }
          pendingFloat[channel].removeFirst(count)
        } else if encoderFormat == AV_SAMPLE_FMT_S16P {
          let out = plane.assumingMemoryBound(to: Int16.self)
          for i in 0..<count { out[i] = Int16(truncatingIfNeeded: pendingInt[channel][i]) }
          pendingInt[channel].removeFirst(count)
        } else {
          pendingInt[channel].withUnsafeBytes {
            plane.copyMemory(from: $0.baseAddress!, byteCount: count * 4)
          }
          pendingInt[channel].removeFirst(count)
        }
      }
      frame.pointee.pts = encodedFrames
      encodedFrames += Int64(count)
      try check("avcodec_send_frame", .writeFailed) { avcodec_send_frame(encoder, frame) }
      try writePackets()
    }
  }

  /// Hands every packet the encoder has ready to the muxer, and what the muxer wrote to the file.
  private func writePackets() throws(AudioError) {
    guard let encoder, let packet, let output, let stream else { return }
    while true {
      let code = avcodec_receive_packet(encoder, packet)
      if code == shelf_averror_eagain || code == shelf_averror_eof { break }
      try check("avcodec_receive_packet", .writeFailed) { code }
      av_packet_rescale_ts(packet, encoder.pointee.time_base, stream.pointee.time_base)
      packet.pointee.stream_index = stream.pointee.index
      try check("av_interleaved_write_frame", .writeFailed) { av_interleaved_write_frame(output, packet) }
    }
    // A finished fragment goes to the file at once, not when FFmpeg's buffer fills.
    avio_flush(output.pointee.pb)
    try checkIO()
  }

  public func close() throws(AudioError) {
    guard !finished else { return }
    finished = true
    defer { release() }
    guard let encoder, let output else { return }
    let encoderDelay = Int64(max(0, encoder.pointee.initial_padding))
    try encodeWholeFrames(final: true)
    _ = avcodec_send_frame(encoder, nil)
    try writePackets()
    try check("av_write_trailer", .writeFailed) { av_write_trailer(output) }
    avio_flush(output.pointee.pb)
    try checkIO()
    let closed = Glibc.close(descriptor)
    descriptor = -1
    if closed != 0 {
      throw AudioError(
        path: path, reason: .writeFailed,
        message: "cannot close: \(String(cString: strerror(errno)).lowercased())")
    }
    // The fragmented recording is complete on disk; the plain copy only adds the edit list.
    if encoderDelay > 0 {
      try? MP4Remuxer.markEncoderDelay(
        path, delay: encoderDelay, frames: framesWritten, sampleRate: sampleRate)
    }
  }

  /// Turns a write error FFmpeg's I/O layer recorded (disk full…) into an error.
  private func checkIO() throws(AudioError) {
    guard let io = output?.pointee.pb, io.pointee.error < 0 else { return }
    throw AudioError(
      path: path, reason: .writeFailed,
      message: "write failed: \(String(cString: strerror(-io.pointee.error)).lowercased())")
  }

  /// Runs one FFmpeg call through the one checking helper; a failure becomes an `AudioError`
  /// of `reason`, or `.writeFailed` naming the system's reason when a write failed beneath it.
  private func check(_ call: String, _ reason: AudioError.Reason, _ body: () -> Int32) throws(AudioError) {
    do {
      try FFmpegError.check(call, path: path, body)
    } catch {
      try checkIO()
      throw AudioError(path: path, reason: reason, message: "\(call) failed: \(error.message)")
    }
  }
}

/// FFmpeg's write callback: the descriptor travels in the opaque pointer (plus one, so that it
/// is never null). Retries interrupted and short writes; returns a negative errno on failure.
private func writeToDescriptor(
  _ opaque: UnsafeMutableRawPointer?, _ buffer: UnsafeMutablePointer<UInt8>?, _ size: Int32
)
  -> Int32
{
  guard let opaque, let buffer else { return -EINVAL }
  let descriptor = Int32(Int(bitPattern: opaque) - 1)
  var done = 0
  while done < Int(size) {
    let n = Glibc.write(descriptor, buffer + done, Int(size) - done)
    if n < 0 {
      if errno == EINTR { continue }
      return -errno
    }
    done += n
  }
  return size
}

/// FFmpeg's seek callback over the descriptor (`AVSEEK_SIZE` asks for the file's size).
private func seekDescriptor(_ opaque: UnsafeMutableRawPointer?, _ offset: Int64, _ whence: Int32) -> Int64 {
  guard let opaque else { return -Int64(EINVAL) }
  let descriptor = Int32(Int(bitPattern: opaque) - 1)
  if whence & AVSEEK_SIZE != 0 {
    var status = stat()
    return fstat(descriptor, &status) == 0 ? Int64(status.st_size) : -Int64(errno)
  }
  let position = lseek(descriptor, off_t(offset), whence & ~AVSEEK_FORCE)
  return position < 0 ? -Int64(errno) : Int64(position)
}
