internal import CFFmpeg
internal import CFFmpegSupport
public import ShelfCore

/// Decodes the audio stream of anything FFmpeg reads (MP4/M4A/MOV, AMR, APE, WavPack, WMA, AC-3,
/// Musepack, DSF, the sound of a video…) into interleaved samples, block by block.
///
/// Samples come out as the codec makes them: the decoder's own format is interleaved without
/// conversion (so that at volume 100 they reach ALSA unchanged), and libswresample is used only
/// when a caller asks for another sample type. Gapless: the encoder delay and padding the
/// container declares (MP4 edit list, skip-samples side data) are trimmed by libavcodec, and
/// iTunes' `iTunSMPB` is honoured where the file has no edit list, a CAF packet table's priming
/// and valid frames where FFmpeg does not trim them, and a Musepack header's sample count.
/// Seeking is exact: the demuxer
/// lands on a packet before the target, and the frames before it are decoded and discarded.
public final class FFmpegDecoder: AudioDecoder {
  public let path: RawPath
  public let format: AudioStreamFormat
  public let naturalSampleType: PCMSampleType
  public private(set) var position: Int64 = 0
  public let tags: AudioTags

  private let input: FFmpegInput
  private var codec: UnsafeMutablePointer<AVCodecContext>?
  private var packet: UnsafeMutablePointer<AVPacket>?
  private var frame: UnsafeMutablePointer<AVFrame>?
  private let streamIndex: Int
  private let timeBase: AVRational
  /// The decoded frame being handed out: the index of its next sample and its sample count.
  private var frameOffset = 0
  private var frameSamples = 0
  /// Samples still to throw away before `read` hands any out (after a seek, gapless trimming).
  private var discard: Int64 = 0
  /// After a seek: the decoded sample (counted from `origin`) the next frame must be aligned to,
  /// from its timestamp.
  private var alignTo: Int64?
  /// The timestamp of the first decoded sample: frame 0 of the stream.
  private var origin: Int64?
  /// Frames to hand out in all (an MP4 edit list's length, or iTunSMPB's), nil when the
  /// stream's own end applies.
  private var gaplessLength: Int64?
  /// Encoder delay to skip at the start (from iTunSMPB), 0 when the codec's own trimming applies.
  private var leadIn: Int64 = 0
  /// The encoder delay and length that iTunSMPB or a CAF packet table declare, until the first
  /// packet shows whether the demuxer trims the delay itself (it then carries skip-samples side
  /// data).
  private var pendingGapless: (delay: Int64, frames: Int64)?
  /// Whether samples stamped before time 0 are encoder delay to drop (MP4's edit list).
  private let trimsNegativeTimestamps: Bool
  private var draining = false
  private var ended = false
  /// Why reading stopped before the end of the file, reported once the frames before it are out.
  private var readFailure: AudioError?
  /// Set when the container's index points past the end of the file: reported at the end.
  private var truncation: AudioError?
  private var converter: SampleConverter?
  /// How far before a seek target decoding restarts: a lossy decoder's first frames after a
  /// flush lack the previous frame's overlap (AAC, Opus pre-roll) or bit reservoir (MP3).
  private static let seekPreroll: Int64 = 8192

  /// Opens the audio stream of `file` (the best one when there are several).
  ///
  /// Throws `AudioError`: `.unrecognised` when FFmpeg does not know the content or the file has
  /// no audio stream (`no audio track`), `.unsupported` for a codec without a decoder,
  /// `.damaged` for a file FFmpeg cannot read through (no `moov`, cut off).
  public init(file: RegularFile) throws(AudioError) {
    path = file.path
    do {
      input = try FFmpegInput(file: file)
    } catch {
      throw FFmpegDecoder.openError(error)
    }
    guard let audio = input.audioStream, let parameters = input.codecParameters(stream: audio.index),
      let timeBase = input.timeBase(stream: audio.index)
    else {
      throw AudioError(path: path, reason: .noAudioTrack, message: "no audio track")
    }
    streamIndex = audio.index
    self.timeBase = timeBase
    // The raw AMR demuxer estimates its length from the bit rate: count the frames (and refuse
    // a file of none, which would otherwise "play" for no time at all).
    var amrFrames: Int64? = nil
    if input.formatName == "amr" {
      guard let scanned = try? AMRScanner.scan(file), scanned.frames > 0 else {
        throw AudioError(path: path, reason: .damaged, message: "no AMR frames")
      }
      amrFrames = scanned.frames
    }
    guard let decoder = avcodec_find_decoder(parameters.pointee.codec_id) else {
      throw AudioError(path: path, reason: .unsupported, message: "unsupported audio codec \(audio.codec)")
    }
    guard let context = avcodec_alloc_context3(decoder) else {
      throw AudioError(path: path, reason: .damaged, message: "cannot allocate an FFmpeg decoder")
    }
    codec = context
    packet = av_packet_alloc()
    frame = av_frame_alloc()
    do throws(FFmpegError) {
      try FFmpegError.check("avcodec_parameters_to_context", path: path) {
        avcodec_parameters_to_context(context, parameters)
      }
      context.pointee.pkt_timebase = timeBase
      try FFmpegError.check("avcodec_open2", path: path) { avcodec_open2(context, decoder, nil) }
    } catch {
      throw AudioError(path: path, reason: .damaged, message: "damaged audio file: \(error.message)")
    }

    let rate = Int(context.pointee.sample_rate)
    let channels = Int(context.pointee.ch_layout.nb_channels)
    guard rate > 0, channels > 0 else {
      throw AudioError(
        path: path, reason: .damaged, message: "damaged audio file: no channels or sample rate")
    }
    naturalSampleType = FFmpegDecoder.bufferType(for: context.pointee.sample_fmt)
    let samplesPerTick = AVRational(num: 1, den: Int32(rate))
    let (start, duration) = input.timestamps(stream: audio.index)
    // A fragmented MP4 whose edit list only shifts the start (its length unknown when written)
    // gives the encoder delay negative timestamps: those frames are not part of the stream.
    trimsNegativeTimestamps = input.formatName.contains("mp4")
    let lead = trimsNegativeTimestamps ? min(0, av_rescale_q(start ?? 0, timeBase, samplesPerTick)) : 0
    let declared = max(0, (duration.map { av_rescale_q($0, timeBase, samplesPerTick) } ?? 0) + lead)
    let iTunes = (input.tags["iTunSMPB"] ?? audio.tags["iTunSMPB"]).flatMap(FFmpegDecoder.iTunesGapless)
    pendingGapless = iTunes
    // The mov demuxer trims an edit list's start but hands out the last frame whole: its
    // length (the stream's duration) ends the stream to the sample.
    if trimsNegativeTimestamps && declared > 0 { gaplessLength = declared }
    var frames = iTunes?.frames ?? declared
    switch input.formatName {
    case "mpc8":
      // Musepack SV8 says its length to the sample; the decoder hands out the last frame whole.
      if let length = MusepackHeader.read(file) {
        frames = length.frames
        gaplessLength = length.frames
        leadIn = length.leadIn
        discard = length.leadIn
      }
    case "amr": frames = amrFrames ?? frames
    case "caf":
      // AAC in CAF: the packet table names the priming and the valid frames, which FFmpeg's
      // demuxer counts but does not trim (it hands out whole packets).
      if let table = try? IFFChunks.cafPacketTable(file), table.primingFrames > 0 {
        frames = table.validFrames
        pendingGapless = (table.primingFrames, table.validFrames)
      }
    default: break
    }
    // An MP4 whose sample table points past the end of the file was cut short: what is there
    // plays, then the track ends with an error saying so.
    if let present = input.presentDuration(stream: audio.index, fileSize: file.status.size) {
      let presentFrames = Int64((present * Double(rate)).rounded())
      if presentFrames < frames {
        truncation = AudioError(
          path: path, reason: .damaged,
          message: "truncated audio file: \(presentFrames) of \(frames) frames present")
        frames = presentFrames
      }
    }
    format = AudioStreamFormat(
      sampleRate: rate, channels: channels, frames: frames, formatName: input.formatName,
      encodingName: audio.codecDescription, isLossless: audio.isLossless,
      bitsPerSample: audio.isLossless ? audio.bitsPerSample : nil)
    let container = input.formatName
    tags = TagMapping.tags(
      from: [input.tags, audio.tags], vorbisJoined: container == "ogg" || container == "flac")
  }

  /// The decoder's error for a file FFmpeg could not open: content it does not recognise at all
  /// (it logged no reason) is `.unrecognised`, so that libsndfile's naming of it stands; a file
  /// it recognised but cannot read through (no `moov`, cut off) is `.damaged`, with its reason.
  private static func openError(_ error: FFmpegError) -> AudioError {
    switch error.failure {
    case .missingInput: return AudioError(path: error.path, reason: .missingFile, message: error.message)
    case .io: return AudioError(path: error.path, reason: .damaged, message: error.message)
    default:
      let recognised = error.call != "avformat_open_input" || error.message.contains(": ")
      return AudioError(
        path: error.path, reason: recognised ? .damaged : .unrecognised,
        message: recognised ? "damaged audio file: \(error.message)" : "not a recognised audio file")
    }
  }

  deinit { close() }

  /// Frees the decoder now; the input's format context goes with this object.
  public func close() {
    converter = nil
    ended = true
    if frame != nil { av_frame_free(&frame) }
    if packet != nil { av_packet_free(&packet) }
    if codec != nil { avcodec_free_context(&codec) }
  }

  public func read(into buffer: UnsafeMutableRawPointer, frames: Int, as type: PCMSampleType)
    throws(AudioError) -> Int
  {
    let frameBytes = format.channels * type.byteWidth
    var filled = 0
    while filled < frames {
      if let gaplessLength, position >= gaplessLength { break }
      if frameOffset < frameSamples {
        var count = min(frames - filled, frameSamples - frameOffset)
        if let gaplessLength { count = Int(min(Int64(count), gaplessLength - position)) }
        try copy(count, to: buffer + filled * frameBytes, as: type)
        frameOffset += count
        filled += count
        position += Int64(count)
        continue
      }
      guard try decodeFrame() else { break }
    }
    return filled
  }

  public func seek(toFrame frame: Int64) throws(AudioError) {
    // The stream's first timestamp is frame 0: decode the first frame to learn it.
    if origin == nil { _ = try decodeFrame() }
    guard let codec, let origin else { return }
    var target = max(0, frame)
    if format.frames > 0 { target = min(target, format.frames) }
    // Land early enough that the decoder's overlap and bit reservoir are primed at the target.
    let early = max(0, target + leadIn - FFmpegDecoder.seekPreroll)
    let stamp = origin + av_rescale_q(early, AVRational(num: 1, den: Int32(format.sampleRate)), timeBase)
    var landed = true
    do {
      try input.seek(stream: streamIndex, to: stamp)
    } catch {
      landed = false
    }
    avcodec_flush_buffers(codec)
    frameOffset = 0
    frameSamples = 0
    draining = false
    ended = false
    readFailure = nil
    if landed {
      alignTo = target + leadIn
    } else {
      // The container cannot seek there (some raw streams): start over and decode forward.
      do {
        try input.seek(stream: streamIndex, to: Int64.min)
      } catch {
        throw AudioError(path: path, reason: .damaged, message: "cannot seek: \(error.message)")
      }
      alignTo = nil
      discard = target + leadIn
    }
    position = target
  }

  /// Decodes the next frame with samples to hand out; false at the end of the stream.
  private func decodeFrame() throws(AudioError) -> Bool {
    guard let codec, let frame, let packet, !ended else { return false }
    while true {
      let received = avcodec_receive_frame(codec, frame)
      if received == 0 {
        if accept(frame) { return true }
        continue
      }
      if received == shelf_averror_eof || (received == shelf_averror_eagain && draining) {
        ended = true
        if let failure = readFailure ?? truncation { throw failure }
        return false
      }
      guard received == shelf_averror_eagain else {
        throw AudioError(
          path: path, reason: .damaged, message: "cannot decode: \(FFmpegError.text(of: received))")
      }
      let more: Bool
      do {
        more = try input.readPacket(into: packet)
      } catch {
        // A cut-off or damaged file: hand out what the decoder still holds, then say why.
        readFailure = AudioError(
          path: path, reason: .damaged, message: "damaged audio file: \(error.message)")
        more = false
      }
      if !more {
        draining = true
        avcodec_send_packet(codec, nil)
        continue
      }
      defer { av_packet_unref(packet) }
      guard packet.pointee.stream_index == streamIndex else { continue }
      if let declared = pendingGapless {
        pendingGapless = nil
        // The mov demuxer trims iTunSMPB's delay itself (skip-samples side data on the first
        // packet) but not its padding; other demuxers trim neither.
        if av_packet_get_side_data(packet, AV_PKT_DATA_SKIP_SAMPLES, nil) == nil {
          leadIn = declared.delay
          discard += leadIn
        }
        gaplessLength = declared.frames
      }
      // A packet the decoder rejects (a damaged frame) is skipped, as ffmpeg and mpv do.
      _ = avcodec_send_packet(codec, packet)
    }
  }

  /// Places a freshly decoded frame for `read`: aligned after a seek, trimmed of samples still
  /// to discard. False when nothing of it is to be heard.
  private func accept(_ frame: UnsafeMutablePointer<AVFrame>) -> Bool {
    let count = Int64(frame.pointee.nb_samples)
    let stamp = frame.pointee.best_effort_timestamp
    if origin == nil {
      if stamp == shelf_av_nopts_value {
        origin = 0
      } else if trimsNegativeTimestamps && stamp < 0 {
        origin = 0
        discard += av_rescale_q(-stamp, timeBase, AVRational(num: 1, den: Int32(format.sampleRate)))
      } else {
        origin = stamp
      }
    }
    if let target = alignTo {
      alignTo = nil
      if stamp != shelf_av_nopts_value, let origin {
        let start = av_rescale_q(
          stamp - origin, timeBase, AVRational(num: 1, den: Int32(format.sampleRate)))
        discard = max(0, target - start)
      }
    }
    guard count > 0 else { return false }
    let skipped = min(discard, count)
    discard -= skipped
    frameOffset = Int(skipped)
    frameSamples = Int(count)
    return skipped < count
  }

  /// Copies `count` frames from the current frame at `frameOffset` into `destination`.
  private func copy(_ count: Int, to destination: UnsafeMutableRawPointer, as type: PCMSampleType)
    throws(AudioError)
  {
    guard let frame else { return }
    let sampleFormat = AVSampleFormat(rawValue: frame.pointee.format)
    let channels = format.channels
    if type == naturalSampleType && FFmpegDecoder.bufferType(for: sampleFormat) == type
      && FFmpegDecoder.isDirect(sampleFormat) && Int(frame.pointee.ch_layout.nb_channels) == channels
    {
      let width = type.byteWidth
      if av_sample_fmt_is_planar(sampleFormat) != 0 {
        FFmpegDecoder.interleave(
          frame.pointee.extended_data, channels: channels, offset: frameOffset, count: count, width: width,
          into: destination)
      } else {
        let source = UnsafeRawPointer(frame.pointee.extended_data[0]!) + frameOffset * channels * width
        destination.copyMemory(from: source, byteCount: count * channels * width)
      }
      return
    }
    if converter == nil || !converter!.converts(frame, to: type) {
      converter = try SampleConverter(frame, to: type, channels: channels, path: path)
    }
    try converter!.convert(frame, offset: frameOffset, count: count, into: destination)
  }

  /// Interleaves `count` samples per channel from planar buffers.
  private static func interleave(
    _ planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, channels: Int, offset: Int, count: Int,
    width: Int, into destination: UnsafeMutableRawPointer
  ) {
    switch width {
    case 2:
      let out = destination.assumingMemoryBound(to: Int16.self)
      for channel in 0..<channels {
        let plane = UnsafeRawPointer(planes[channel]!).assumingMemoryBound(to: Int16.self) + offset
        for index in 0..<count { out[index * channels + channel] = plane[index] }
      }
    default:
      let out = destination.assumingMemoryBound(to: UInt32.self)
      for channel in 0..<channels {
        let plane = UnsafeRawPointer(planes[channel]!).assumingMemoryBound(to: UInt32.self) + offset
        for index in 0..<count { out[index * channels + channel] = plane[index] }
      }
    }
  }

  /// The buffer type that carries a decoder's samples exactly (or as closely as shelf carries).
  static func bufferType(for sampleFormat: AVSampleFormat) -> PCMSampleType {
    switch av_get_packed_sample_fmt(sampleFormat) {
    case AV_SAMPLE_FMT_U8, AV_SAMPLE_FMT_S16: return .int16
    case AV_SAMPLE_FMT_S32: return .int32
    default: return .float32
    }
  }

  /// The packed FFmpeg sample format a resampler makes to fill a buffer of `type`.
  static func sampleFormat(for type: PCMSampleType) -> AVSampleFormat {
    switch type {
    case .int16: AV_SAMPLE_FMT_S16
    case .int32: AV_SAMPLE_FMT_S32
    case .float32: AV_SAMPLE_FMT_FLT
    }
  }

  /// Whether samples of this format are copied as they are (no conversion of values).
  private static func isDirect(_ sampleFormat: AVSampleFormat) -> Bool {
    switch av_get_packed_sample_fmt(sampleFormat) {
    case AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_FLT: return true
    default: return false
    }
  }

  /// Encoder delay and length from iTunes' `iTunSMPB` comment (` 00000000 00000840 0000003C
  /// 0000000000A2B1C4 …`: reserved, delay, padding, frames in hex).
  static func iTunesGapless(_ text: String) -> (delay: Int64, frames: Int64)? {
    let fields = text.split(separator: " ").compactMap { Int64($0, radix: 16) }
    guard fields.count >= 4, fields[1] >= 0, fields[3] > 0 else { return nil }
    return (fields[1], fields[3])
  }
}

/// Converts decoded frames to another sample type through libswresample, at the same rate and
/// with the stream's channel count (the player asks for another type only when the device
/// cannot take the codec's own).
private final class SampleConverter {
  private var context: OpaquePointer?
  private let sourceFormat: Int32
  private let sourceChannels: Int
  private let type: PCMSampleType
  private let channels: Int

  init(_ frame: UnsafeMutablePointer<AVFrame>, to type: PCMSampleType, channels: Int, path: RawPath)
    throws(AudioError)
  {
    sourceFormat = frame.pointee.format
    sourceChannels = Int(frame.pointee.ch_layout.nb_channels)
    self.type = type
    self.channels = channels
    let target = FFmpegDecoder.sampleFormat(for: type)
    // The stream's channel count, whatever a frame carries: a stream that changes its layout
    // part way is remixed rather than overrunning the caller's buffer.
    var outputLayout = AVChannelLayout()
    av_channel_layout_default(&outputLayout, Int32(channels))
    var inputLayout = frame.pointee.ch_layout
    let rate = frame.pointee.sample_rate
    let code = swr_alloc_set_opts2(
      &context, &outputLayout, target, rate, &inputLayout, AVSampleFormat(rawValue: sourceFormat), rate, 0,
      nil)
    guard code >= 0, let context, swr_init(context) >= 0 else {
      throw AudioError(path: path, reason: .unsupported, message: "cannot convert the decoded samples")
    }
  }

  deinit { swr_free(&context) }

  func converts(_ frame: UnsafeMutablePointer<AVFrame>, to type: PCMSampleType) -> Bool {
    frame.pointee.format == sourceFormat && self.type == type
      && Int(frame.pointee.ch_layout.nb_channels) == sourceChannels
  }

  func convert(
    _ frame: UnsafeMutablePointer<AVFrame>, offset: Int, count: Int, into destination: UnsafeMutableRawPointer
  ) throws(AudioError) {
    let sampleFormat = AVSampleFormat(rawValue: sourceFormat)
    let width = Int(av_get_bytes_per_sample(sampleFormat))
    let planar = av_sample_fmt_is_planar(sampleFormat) != 0
    let planes = planar ? sourceChannels : 1
    let step = planar ? offset * width : offset * width * sourceChannels
    var sources = (0..<planes).map { UnsafePointer<UInt8>?(frame.pointee.extended_data[$0]! + step) }
    var output: UnsafeMutablePointer<UInt8>? = destination.assumingMemoryBound(to: UInt8.self)
    _ = sources.withUnsafeMutableBufferPointer { inputs in
      swr_convert(context, &output, Int32(count), inputs.baseAddress, Int32(count))
    }
  }
}
