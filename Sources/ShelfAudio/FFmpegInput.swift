internal import CFFmpeg
internal import CFFmpegSupport
public import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

/// Why FFmpeg's libraries could not open, probe, read or decode a file.
///
/// `description` is one line: the path, then FFmpeg's reason (`av_strerror`'s text, followed by
/// the last error line FFmpeg logged while the call ran, when it logged one), e.g.
/// `a.m4a: invalid data found when processing input: moov atom not found`.
public struct FFmpegError: ShelfError, Equatable {
  /// The file concerned.
  public var path: RawPath
  /// The FFmpeg function (or system call) that failed, e.g. `avformat_open_input`.
  public var call: String
  /// FFmpeg's return code: `-errno` or a negative `FFERRTAG` code.
  public var code: Int32
  /// The reason, in words.
  public var message: String
  public var failure: FailureKind

  /// Creates an error from a failed call's return `code`, classified and worded by
  /// `classify` from the code, the captured log `line` (empty when FFmpeg logged nothing) and
  /// what the I/O layer saw during the call (`reading`; nil for calls that read nothing).
  init(path: RawPath, call: String, code: Int32, logLine: String = "", reading: ReadObservation? = nil) {
    self.path = path
    self.call = call
    self.code = code
    (self.failure, self.message) = Self.classify(code, call: call, logLine: logLine, reading: reading)
  }

  /// A fixed-size allocation of shelf's own (a packet, a context) that failed: the machine is
  /// out of memory, whatever the file holds.
  static func outOfMemory(path: RawPath, call: String) -> FFmpegError {
    FFmpegError(path: path, call: call, code: -ENOMEM, message: "out of memory", failure: .io)
  }

  /// Creates an error with a message of shelf's own (a file FFmpeg opened but that has no usable
  /// stream, a limit exceeded, an open that failed before FFmpeg saw the file).
  public init(path: RawPath, call: String, code: Int32, message: String, failure: FailureKind) {
    self.path = path
    self.call = call
    self.code = code
    self.message = message
    self.failure = failure
  }

  public var description: String { "\(path.escaped): \(message)" }

  /// True when the call reported the end of the input (`AVERROR_EOF`).
  public var isEndOfFile: Bool { code == shelf_averror_eof }

  /// The one checking helper for FFmpeg calls: forgets the log line of this thread (and what
  /// `reading`, the I/O layer of the input the call reads, saw before), runs `body` (one FFmpeg
  /// call returning a code), and turns a negative code into an `FFmpegError` naming `call`, the
  /// path and the reason. Returns the (non-negative) code otherwise.
  @discardableResult
  static func check(_ call: String, path: RawPath, _ body: () -> Int32) throws(FFmpegError) -> Int32 {
    try check(call, path: path, reading: nil, body)
  }

  @discardableResult
  fileprivate static func check(
    _ call: String, path: RawPath, reading: DescriptorIO?, _ body: () -> Int32
  ) throws(FFmpegError) -> Int32 {
    try FFmpegLibrary.load(path: path)
    shelf_ffmpeg_clear_log()
    reading?.forgetObservation()
    let code = body()
    guard code < 0 else { return code }
    throw FFmpegError(
      path: path, call: call, code: code, logLine: FFmpegLibrary.lastLogLine(), reading: reading?.observation)
  }

  /// `av_strerror`'s text for `code`, starting in lower case as shelf's messages do.
  static func text(of code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 128)
    if av_strerror(code, &buffer, buffer.count) < 0 { return "ffmpeg error \(code)" }
    var text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if let first = text.first, text.dropFirst().first?.isLowercase ?? true {
      text = first.lowercased() + text.dropFirst()
    }
    return text
  }
}

/// Process-wide set-up of FFmpeg's libraries, done once before the first call: loading them
/// (shelf does not link them, so that commands which never decode do not pay for mapping them and
/// their dependencies), routing their log and capping their allocations.
enum FFmpegLibrary {
  /// The largest single block FFmpeg may allocate. Large enough for the sample tables of a
  /// day-long audiobook and the frames of 8K video, small enough that a file declaring billions
  /// of samples fails with an error instead of exhausting memory.
  static let maximumAllocation = 256 << 20

  /// The loader's reason when the libraries could not be loaded; nil once they are set up.
  private static let loadFailure: String? = {
    var buffer = [CChar](repeating: 0, count: 512)
    guard shelf_ffmpeg_load(&buffer, buffer.count) == 0 else {
      return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    shelf_ffmpeg_capture_log()
    av_max_alloc(maximumAllocation)
    return nil
  }()

  /// Loads FFmpeg's libraries, routes their log into the capture buffer (nothing reaches the
  /// terminal) and caps their allocations; cheap after the first call. Throws (naming `path`,
  /// the file that needed FFmpeg) when a library is missing.
  static func load(path: RawPath) throws(FFmpegError) {
    guard let reason = loadFailure else { return }
    throw FFmpegError(
      path: path, call: "dlopen", code: -ENOSYS,
      message: "FFmpeg's libraries could not be loaded: \(reason)", failure: .io)
  }

  /// The last error line FFmpeg logged on this thread, made printable on one line.
  static func lastLogLine() -> String {
    var buffer = [CChar](repeating: 0, count: 512)
    shelf_ffmpeg_last_log(&buffer, buffer.count)
    let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return String(line.map { $0.isNewline || $0 == "\t" ? " " : $0 })
  }
}

/// Key/value metadata as FFmpeg's demuxers export it (container or stream level), in file order.
///
/// Keys are FFmpeg's normalised names (`title`, `artist`, `album_artist`, `track`, `disc`,
/// `date`, `genre`, `creation_time`, `com.apple.quicktime.creationdate`, …).
public struct FFmpegTags: Sendable, Equatable {
  /// One tag.
  public struct Entry: Sendable, Equatable {
    public var key: String
    public var value: String
  }

  /// The tags in the order FFmpeg holds them.
  public var entries: [Entry]

  /// The first value of `key` (compared case-insensitively), or nil.
  public subscript(key: String) -> String? {
    let wanted = key.lowercased()
    return entries.first { $0.key.lowercased() == wanted }?.value
  }

  /// Tags read by shelf itself (an ID3v2 tag's TXXX frames), to name them as FFmpeg would.
  init(entries: [Entry]) { self.entries = entries }

  init(_ dictionary: OpaquePointer?) {
    entries = []
    guard let dictionary else { return }
    var previous: UnsafeMutablePointer<AVDictionaryEntry>? = nil
    while let entry = av_dict_get(dictionary, "", previous, AV_DICT_IGNORE_SUFFIX) {
      if let key = entry.pointee.key, let value = entry.pointee.value {
        entries.append(Entry(key: String(cString: key), value: String(cString: value)))
      }
      previous = entry
    }
  }
}

/// What one stream of a media file holds, as FFmpeg's demuxer and probe describe it.
public struct FFmpegStream: Sendable, Equatable {
  /// The kind of data a stream carries.
  public enum MediaType: String, Sendable {
    case audio, video, subtitle, data, attachment, unknown
  }

  /// The stream's index in the file.
  public var index: Int
  public var type: MediaType
  /// FFmpeg's codec name: `aac`, `alac`, `mp3`, `h264`, `hevc`, `mjpeg`, `pcm_s16le`, …
  public var codec: String
  /// FFmpeg's long name of the codec, e.g. `AAC (Advanced Audio Coding)`.
  public var codecDescription: String
  /// True when the codec is lossless (PCM, FLAC, ALAC, WavPack, …).
  public var isLossless: Bool
  /// Bits per sample as stored, for PCM and lossless codecs that say.
  public var bitsPerSample: Int?
  /// Sample rate (audio).
  public var sampleRate: Int?
  /// Channel count (audio).
  public var channels: Int?
  /// Length in seconds as the container declares it, when it declares one.
  public var duration: Double?
  /// Frames (audio) or pictures (video) as the container declares them (`nb_frames`).
  public var declaredFrames: Int64?
  /// Bits per second, when known.
  public var bitrate: Int?
  /// Samples the decoder's first output includes before the real start (the encoder delay).
  public var initialPadding: Int
  /// Samples of padding after the real end, when the container says.
  public var trailingPadding: Int
  /// The stream's own tags (language, handler, rotation, …).
  public var tags: FFmpegTags
  /// True for a still picture attached to an audio file (cover art), not a video.
  public var isAttachedPicture: Bool
  /// Picture size (video and attached pictures).
  public var width: Int?
  public var height: Int?
  /// Pictures per second (video).
  public var frameRate: Double?
  /// Degrees to turn the picture clockwise for display (0, 90, 180 or 270), from the display
  /// matrix: what exiftool calls `Rotation` and what phones write for portrait video.
  public var rotation: Int
}

/// The one owner of an `AVFormatContext`: a media file opened and probed by libavformat, read
/// through a descriptor shelf opened itself, with bounded probing and allocation and FFmpeg's
/// log captured rather than printed.
///
/// Reading goes through a custom `AVIOContext` over the descriptor, so the file is never opened
/// by path a second time (the catalogue opens with `O_NOFOLLOW` and checks what it opened), and
/// the container is chosen by content, never by the file's extension.
public final class FFmpegInput {
  /// How much of a file probing may read and how far into it probing may look.
  public struct Limits: Sendable, Equatable {
    /// Bytes `avformat_find_stream_info` may read (`probesize`).
    public var probeSize: Int64
    /// Microseconds of media `avformat_find_stream_info` may analyse (`analyzeduration`).
    public var analyzeDuration: Int64

    public init(probeSize: Int64, analyzeDuration: Int64) {
      self.probeSize = probeSize
      self.analyzeDuration = analyzeDuration
    }

    /// FFmpeg's own defaults (5 MB, 5 s), stated here so that they stay bounded.
    public static let standard = Limits(probeSize: 5_000_000, analyzeDuration: 5_000_000)
  }

  /// Whether `avformat_find_stream_info` (which reads packets and opens decoders) runs.
  public enum StreamProbing: Sendable, Equatable {
    /// Always: the codec parameters a decoder needs are complete.
    case always
    /// Only when the headers leave a stream's rate, channels or picture size, or every
    /// length, unknown (raw streams such as AC-3 or ADTS AAC): cataloguing an MP4, FLAC, WAV,
    /// Ogg or MP3 with a Xing header then reads its headers only.
    case whenHeadersAreIncomplete
    /// Never: the caller reads what it needs itself (shelf counts MP3 and AMR frames).
    case never
  }

  /// The path the file was opened from (for messages).
  public let path: RawPath
  /// The file's size in bytes when opened.
  public var fileSize: Int64 { io.size }
  /// FFmpeg's short name(s) of the container, e.g. `mov,mp4,m4a,3gp,3g2,mj2`, `mp3`, `ogg`.
  public let formatName: String
  /// Length in seconds as the container (or the probe) reports it.
  public let duration: Double?
  /// Overall bits per second, when known.
  public let bitrate: Int?
  /// The container's tags.
  public let tags: FFmpegTags
  /// The streams, in file order.
  public let streams: [FFmpegStream]
  /// True when the container's length is only FFmpeg's estimate from the bit rate: raw streams
  /// without an index or a declared length (AC-3, E-AC-3, DTS, ADTS AAC).
  public let lengthIsEstimated: Bool

  private var context: UnsafeMutablePointer<AVFormatContext>?
  /// Declared after `context`, so it outlives it: the format context reads through it to the end.
  private let io: DescriptorIO

  /// Opens and probes the regular file at `path` (refusing FIFOs, devices and folders).
  public convenience init(
    path: RawPath, limits: Limits = .standard, probing: StreamProbing = .always, demuxer: String? = nil
  ) throws(FFmpegError) {
    let file: RegularFile
    do {
      file = try RegularFile(path: path)
    } catch {
      throw FFmpegError(
        path: path, call: "open", code: -(error.code ?? EIO), message: error.reason, failure: error.failure)
    }
    try self.init(file: file, limits: limits, probing: probing, demuxer: demuxer)
  }

  /// Opens and probes a file already open; reads through a duplicate of its descriptor, so the
  /// caller keeps its `RegularFile`.
  public convenience init(
    file: RegularFile, limits: Limits = .standard, probing: StreamProbing = .always, demuxer: String? = nil
  ) throws(FFmpegError) {
    let descriptor: Int32
    do {
      descriptor = try file.duplicateDescriptor()
    } catch {
      throw FFmpegError(
        path: file.path, call: "dup", code: -(error.code ?? EIO), message: error.reason, failure: .io)
    }
    try self.init(descriptor: descriptor, path: file.path, limits: limits, probing: probing, demuxer: demuxer)
  }

  /// Opens and probes the file open as `descriptor`, which this input owns from now on (it is
  /// closed when the input goes away, or before this throws). `path` names the file in errors.
  /// `demuxer` (FFmpeg's short name, e.g. `mp3`, `mov`) skips FFmpeg's own recognition, for a
  /// caller that recognised the content already; nil lets FFmpeg probe the content.
  public init(
    descriptor: Int32, path: RawPath, limits: Limits = .standard, probing: StreamProbing = .always,
    demuxer: String? = nil
  ) throws(FFmpegError) {
    try FFmpegLibrary.load(path: path)
    self.path = path
    let io = try DescriptorIO(descriptor: descriptor, path: path)
    self.io = io
    guard let allocated = avformat_alloc_context() else {
      throw FFmpegError.outOfMemory(path: path, call: "avformat_alloc_context")
    }
    allocated.pointee.pb = io.context
    allocated.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
    allocated.pointee.probesize = limits.probeSize
    allocated.pointee.max_analyze_duration = limits.analyzeDuration
    var opening: UnsafeMutablePointer<AVFormatContext>? = allocated
    // No file name: the container is recognised by content alone, or named by a caller that
    // sniffed the content already (avformat_open_input frees the context itself when it fails).
    let format = demuxer.flatMap { av_find_input_format($0) }
    try FFmpegError.check("avformat_open_input", path: path, reading: io) {
      avformat_open_input(&opening, "", format, nil)
    }
    guard let opened = opening else {
      throw FFmpegError.outOfMemory(path: path, call: "avformat_open_input")
    }
    do {
      if probing == .always || (probing == .whenHeadersAreIncomplete && !Self.headersAreComplete(opened)) {
        try FFmpegError.check("avformat_find_stream_info", path: path, reading: io) {
          avformat_find_stream_info(opened, nil)
        }
      }
    } catch {
      opening = opened
      avformat_close_input(&opening)
      throw error
    }

    formatName = opened.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
    let nopts = shelf_av_nopts_value
    duration =
      opened.pointee.duration == nopts || opened.pointee.duration <= 0
      ? nil : Double(opened.pointee.duration) / Double(AV_TIME_BASE)
    bitrate = opened.pointee.bit_rate > 0 ? Int(opened.pointee.bit_rate) : nil
    tags = FFmpegTags(opened.pointee.metadata)
    lengthIsEstimated = opened.pointee.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE
    var described: [FFmpegStream] = []
    for index in 0..<Int(opened.pointee.nb_streams) {
      guard let stream = opened.pointee.streams[index] else { continue }
      described.append(Self.describe(stream, index: index))
    }
    streams = described
    context = opened
  }

  deinit { avformat_close_input(&context) }

  /// The first audio stream that is not cover art, if any.
  public var audioStream: FFmpegStream? { streams.first { $0.type == .audio } }

  /// The first video stream that is a real video (not cover art), if any.
  public var videoStream: FFmpegStream? {
    streams.first { $0.type == .video && !$0.isAttachedPicture }
  }

  /// True when a picture is attached to the file (cover art).
  public var hasAttachedPicture: Bool { streams.contains { $0.isAttachedPicture } }

  /// The seconds of stream `index` whose packets lie inside the file, when its index (an MP4
  /// sample table) points past the end of the file; nil when every indexed packet is present
  /// or the container keeps no index.
  func presentDuration(stream index: Int, fileSize: Int64) -> Double? {
    guard let context, index >= 0, index < Int(context.pointee.nb_streams),
      let stream = context.pointee.streams[index]
    else { return nil }
    let count = avformat_index_get_entries_count(stream)
    guard count > 0 else { return nil }
    let timeBase = stream.pointee.time_base
    let start = stream.pointee.start_time == shelf_av_nopts_value ? 0 : stream.pointee.start_time
    for entry in 0..<count {
      guard let item = avformat_index_get_entry(stream, entry) else { break }
      if item.pointee.pos + Int64(item.pointee.size) > fileSize {
        return Double(max(item.pointee.timestamp - start, 0)) * Double(timeBase.num) / Double(timeBase.den)
      }
    }
    return nil
  }

  /// The seconds stream `index` spans by its index (an AVI's `idx1`), its last entry's time plus
  /// one picture at `frameRate`: the length of a file whose headers leave it at 0 (an AVI
  /// whose writer never went back to fill them in). Nil when the stream has no index.
  func indexedDuration(stream index: Int, frameRate: Double?) -> Double? {
    guard let context, index >= 0, index < Int(context.pointee.nb_streams),
      let stream = context.pointee.streams[index]
    else { return nil }
    let count = avformat_index_get_entries_count(stream)
    let timeBase = stream.pointee.time_base
    guard count > 0, timeBase.num > 0, timeBase.den > 0,
      let last = avformat_index_get_entry(stream, count - 1)
    else { return nil }
    let start = stream.pointee.start_time == shelf_av_nopts_value ? 0 : stream.pointee.start_time
    let seconds = Double(last.pointee.timestamp) - Double(start)
    let total =
      seconds * Double(timeBase.num) / Double(timeBase.den) + (frameRate.map { $0 > 0 ? 1 / $0 : 0 } ?? 0)
    return total.isFinite && total > 0 ? total : nil
  }

  /// Reads the next packet of any stream into `packet` (which the caller owns and unreferences).
  /// Returns false at the end of the file.
  func readPacket(into packet: UnsafeMutablePointer<AVPacket>) throws(FFmpegError) -> Bool {
    guard let context else { return false }
    do {
      try FFmpegError.check("av_read_frame", path: path, reading: io) { av_read_frame(context, packet) }
    } catch  where error.isEndOfFile {
      return false
    }
    return true
  }

  /// Seeks stream `index` to the packet at or before `timestamp` (in the stream's time base):
  /// the caller decodes forward and discards up to the exact position.
  /// The samples per channel of audio stream `index`, counted by reading every packet to the end
  /// (split by FFmpeg's parser, not decoded): the exact length of a raw stream whose declared
  /// length is an estimate. Leaves the input at its end.
  func countedFrames(stream index: Int, sampleRate: Int) throws(FFmpegError) -> Int64 {
    guard let timeBase = timeBase(stream: index), timeBase.den > 0, sampleRate > 0 else { return 0 }
    var packet = av_packet_alloc()
    guard let current = packet else { throw FFmpegError.outOfMemory(path: path, call: "av_packet_alloc") }
    defer { av_packet_free(&packet) }
    // Each packet's duration is its sample count rounded down to the time base (finer than a
    // sample): rounding each back up recovers the count exactly.
    let scale = Int64(timeBase.num) * Int64(sampleRate)
    let base = Int64(timeBase.den)
    var frames: Int64 = 0
    while try readPacket(into: current) {
      if current.pointee.stream_index == Int32(index) && current.pointee.duration > 0 {
        frames += (current.pointee.duration * scale + base - 1) / base
      }
      av_packet_unref(current)
    }
    return frames
  }

  func seek(stream index: Int, to timestamp: Int64) throws(FFmpegError) {
    guard let context else { return }
    try FFmpegError.check("avformat_seek_file", path: path, reading: io) {
      avformat_seek_file(context, Int32(index), Int64.min, timestamp, timestamp, 0)
    }
  }

  /// The first timestamp and the length of stream `index` in its time base, as the container
  /// declares them (nil where it does not): exact where `FFmpegStream.duration` is rounded.
  func timestamps(stream index: Int) -> (start: Int64?, duration: Int64?) {
    guard let context, index >= 0, index < Int(context.pointee.nb_streams),
      let stream = context.pointee.streams[index]
    else { return (nil, nil) }
    let nopts = shelf_av_nopts_value
    return (
      stream.pointee.start_time == nopts ? nil : stream.pointee.start_time,
      stream.pointee.duration == nopts || stream.pointee.duration <= 0 ? nil : stream.pointee.duration
    )
  }

  /// The codec parameters of stream `index`, for `avcodec_parameters_to_context`; valid while
  /// this input lives.
  func codecParameters(stream index: Int) -> UnsafePointer<AVCodecParameters>? {
    guard let context, index >= 0, index < Int(context.pointee.nb_streams),
      let stream = context.pointee.streams[index]
    else { return nil }
    return UnsafePointer(stream.pointee.codecpar)
  }

  /// The time base of stream `index` (seconds per timestamp unit).
  func timeBase(stream index: Int) -> AVRational? {
    guard let context, index >= 0, index < Int(context.pointee.nb_streams),
      let stream = context.pointee.streams[index]
    else { return nil }
    return stream.pointee.time_base
  }

  /// True when every audio stream has its rate and channels, every video stream (but cover
  /// art) its size and picture rate, and some length is known.
  private static func headersAreComplete(_ context: UnsafeMutablePointer<AVFormatContext>) -> Bool {
    let count = Int(context.pointee.nb_streams)
    guard count > 0 else { return false }
    var lengthKnown = context.pointee.duration != shelf_av_nopts_value && context.pointee.duration > 0
    for index in 0..<count {
      guard let stream = context.pointee.streams[index] else { return false }
      let parameters = stream.pointee.codecpar.pointee
      if parameters.codec_id == AV_CODEC_ID_NONE { return false }
      switch parameters.codec_type {
      case AVMEDIA_TYPE_AUDIO:
        guard parameters.sample_rate > 0, parameters.ch_layout.nb_channels > 0 else { return false }
      case AVMEDIA_TYPE_VIDEO:
        // Cover art is sized only by decoding it; nothing shelf describes depends on it. A
        // picture rate some headers leave out (ASF, Ogg Theora) is found by probing.
        let isCoverArt = Int32(stream.pointee.disposition) & AV_DISPOSITION_ATTACHED_PIC != 0
        let rates = [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate]
        let rateKnown = rates.contains { $0.num > 0 && $0.den > 0 }
        guard isCoverArt || (parameters.width > 0 && parameters.height > 0 && rateKnown) else { return false }
      default: break
      }
      if stream.pointee.duration != shelf_av_nopts_value && stream.pointee.duration > 0 { lengthKnown = true }
    }
    return lengthKnown
  }

  private static func describe(_ stream: UnsafeMutablePointer<AVStream>, index: Int) -> FFmpegStream {
    let parameters = stream.pointee.codecpar.pointee
    let type: FFmpegStream.MediaType
    switch parameters.codec_type {
    case AVMEDIA_TYPE_AUDIO: type = .audio
    case AVMEDIA_TYPE_VIDEO: type = .video
    case AVMEDIA_TYPE_SUBTITLE: type = .subtitle
    case AVMEDIA_TYPE_DATA: type = .data
    case AVMEDIA_TYPE_ATTACHMENT: type = .attachment
    default: type = .unknown
    }
    let timeBase = stream.pointee.time_base
    let duration: Double? =
      stream.pointee.duration == shelf_av_nopts_value || stream.pointee.duration <= 0 || timeBase.den == 0
      ? nil : Double(stream.pointee.duration) * Double(timeBase.num) / Double(timeBase.den)
    var frameRate: Double? = nil
    for rate in [stream.pointee.avg_frame_rate, stream.pointee.r_frame_rate]
    where rate.num > 0 && rate.den > 0 {
      frameRate = Double(rate.num) / Double(rate.den)
      break
    }
    let isAudio = type == .audio
    let descriptor = avcodec_descriptor_get(parameters.codec_id)
    let bits =
      parameters.bits_per_raw_sample > 0 ? parameters.bits_per_raw_sample : parameters.bits_per_coded_sample
    let isPicture = type == .video || parameters.width > 0
    return FFmpegStream(
      index: index, type: type, codec: String(cString: avcodec_get_name(parameters.codec_id)),
      codecDescription: descriptor.flatMap { $0.pointee.long_name.map { String(cString: $0) } } ?? "unknown",
      isLossless: descriptor.map { $0.pointee.props & AV_CODEC_PROP_LOSSLESS != 0 } ?? false,
      bitsPerSample: isAudio && bits > 0 ? Int(bits) : nil,
      sampleRate: isAudio && parameters.sample_rate > 0 ? Int(parameters.sample_rate) : nil,
      channels: isAudio && parameters.ch_layout.nb_channels > 0 ? Int(parameters.ch_layout.nb_channels) : nil,
      duration: duration, declaredFrames: stream.pointee.nb_frames > 0 ? stream.pointee.nb_frames : nil,
      bitrate: parameters.bit_rate > 0 ? Int(parameters.bit_rate) : nil,
      initialPadding: Int(max(parameters.initial_padding, 0)),
      trailingPadding: Int(max(parameters.trailing_padding, 0)),
      tags: FFmpegTags(stream.pointee.metadata),
      isAttachedPicture: Int32(stream.pointee.disposition) & AV_DISPOSITION_ATTACHED_PIC != 0,
      width: isPicture && parameters.width > 0 ? Int(parameters.width) : nil,
      height: isPicture && parameters.height > 0 ? Int(parameters.height) : nil,
      frameRate: type == .video ? frameRate : nil, rotation: rotation(of: stream))
  }

  /// The clockwise rotation the display matrix asks for, rounded to a quarter turn; what
  /// `av_display_rotation_get` computes (with the opposite sign), read here without its header.
  private static func rotation(of stream: UnsafeMutablePointer<AVStream>) -> Int {
    var size = 0
    guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size),
      size >= 9 * MemoryLayout<Int32>.size
    else { return 0 }
    var matrix = [Int32](repeating: 0, count: 9)
    matrix.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: data, count: 36)) }
    let fixed = { (value: Int32) in Double(value) / 65536 }
    let scaleX = (fixed(matrix[0]) * fixed(matrix[0]) + fixed(matrix[3]) * fixed(matrix[3])).squareRoot()
    let scaleY = (fixed(matrix[1]) * fixed(matrix[1]) + fixed(matrix[4]) * fixed(matrix[4])).squareRoot()
    guard scaleX > 0, scaleY > 0 else { return 0 }
    let degrees = atan2(fixed(matrix[1]) / scaleY, fixed(matrix[0]) / scaleX) * 180 / Double.pi
    let quarter = Int((degrees / 90).rounded()) * 90
    return ((quarter % 360) + 360) % 360
  }
}

/// The one owner of the custom `AVIOContext` (and its buffer) through which an input reads its
/// descriptor.
fileprivate final class DescriptorIO {
  let context: UnsafeMutablePointer<AVIOContext>
  private let source: DescriptorSource
  /// The file's size (from `fstat`), or -1 when unknown.
  var size: Int64 { source.size }
  /// What the reads since `forgetObservation` saw.
  var observation: FFmpegError.ReadObservation { source.observation }

  /// Starts a new observation (before each FFmpeg call that reads).
  func forgetObservation() { source.observation = FFmpegError.ReadObservation() }

  /// Takes ownership of `descriptor` (closed when this goes away, or before this throws).
  init(descriptor: Int32, path: RawPath) throws(FFmpegError) {
    source = DescriptorSource(descriptor: descriptor)
    let bufferSize = 64 * 1024
    guard let buffer = av_malloc(bufferSize) else {
      throw FFmpegError.outOfMemory(path: path, call: "av_malloc")
    }
    guard
      let made = avio_alloc_context(
        buffer.assumingMemoryBound(to: UInt8.self), Int32(bufferSize), 0,
        Unmanaged.passUnretained(source).toOpaque(), DescriptorSource.read, nil, DescriptorSource.seek)
    else {
      av_free(buffer)
      throw FFmpegError.outOfMemory(path: path, call: "avio_alloc_context")
    }
    context = made
  }

  deinit {
    // FFmpeg may have replaced the buffer since allocation: free the current one.
    av_freep(&context.pointee.buffer)
    var owned: UnsafeMutablePointer<AVIOContext>? = context
    avio_context_free(&owned)
  }
}

/// The state of the custom `AVIOContext`: a descriptor read with `pread` at a position of its
/// own, so that nothing else sharing the open file can move it.
private final class DescriptorSource {
  let descriptor: Int32
  var position: Int64 = 0
  let size: Int64
  /// What reads saw: a real system error, the end of the file.
  var observation = FFmpegError.ReadObservation()

  init(descriptor: Int32) {
    self.descriptor = descriptor
    var status = stat()
    size = fstat(descriptor, &status) == 0 ? Int64(status.st_size) : -1
  }

  deinit { close(descriptor) }

  /// `read_packet`: fills `buffer`, retrying EINTR; `AVERROR_EOF` at the end.
  static let read: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = {
    opaque, buffer, count in
    guard let opaque, let buffer, count > 0 else { return -EINVAL }
    let source = Unmanaged<DescriptorSource>.fromOpaque(opaque).takeUnretainedValue()
    while true {
      let result = pread(source.descriptor, buffer, Int(count), off_t(source.position))
      if result < 0 {
        if errno == EINTR { continue }
        source.observation.systemError = errno
        return -errno
      }
      if result == 0 {
        source.observation.reachedEnd = true
        return shelf_averror_eof
      }
      source.position += Int64(result)
      return Int32(result)
    }
  }

  /// `seek`: SEEK_SET/CUR/END, and `AVSEEK_SIZE` for the file's size.
  static let seek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = {
    opaque, offset, whence in
    guard let opaque else { return Int64(-EINVAL) }
    let source = Unmanaged<DescriptorSource>.fromOpaque(opaque).takeUnretainedValue()
    let mode = whence & ~Int32(AVSEEK_FORCE)
    let target: Int64
    switch mode {
    case Int32(AVSEEK_SIZE): return source.size >= 0 ? source.size : Int64(-ENOSYS)
    case SEEK_SET: target = offset
    case SEEK_CUR: target = source.position + offset
    case SEEK_END:
      guard source.size >= 0 else { return Int64(-ENOSYS) }
      target = source.size + offset
    default: return Int64(-EINVAL)
    }
    guard target >= 0 else { return Int64(-EINVAL) }
    source.position = target
    return target
  }
}
