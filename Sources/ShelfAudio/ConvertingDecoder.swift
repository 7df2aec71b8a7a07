internal import CFFmpeg
internal import CFFmpegSupport
public import ShelfCore

/// Another decoder's stream at another sample rate and channel count, converted by
/// libswresample: what `play` sends to a device (a `hw:` device without ALSA's plug layer) that
/// does not take a file's own rate or channel count, as mpv and ffmpeg do, instead of refusing
/// the track.
///
/// Lengths, positions and seeks are in the converted rate. The whole stream comes out: the
/// resampler's tail is flushed at the end, so `frames` of the source become
/// `ceil(frames × rate / source rate)` here, what `ffmpeg -ar RATE` writes for the same file.
/// Channels are remixed with FFmpeg's default matrices (mono to stereo at −3 dB per side,
/// surround to stereo with the centre and surrounds folded in).
public final class ConvertingDecoder: AudioDecoder {
  /// The decoder whose samples are converted.
  public let source: any AudioDecoder
  public let format: AudioStreamFormat
  public var path: RawPath { source.path }
  public var tags: AudioTags { source.tags }
  /// Samples are made as floats (the resampler's own precision) and stored as asked.
  public var naturalSampleType: PCMSampleType { .float32 }
  public private(set) var position: Int64 = 0

  private var context: OpaquePointer?
  /// The sample type the resampler makes now (it is set up again when a read asks for another).
  private var contextType: PCMSampleType?
  /// Source frames read as floats, waiting for the resampler.
  private var input: [Float] = []
  private var sourceEnded = false
  private var flushed = false
  /// How many source frames are read at a time.
  private static let block = 4096

  /// Converts `source` to `sampleRate` and `channels`.
  ///
  /// Throws `AudioError` `.unsupported` when libswresample cannot be set up (or FFmpeg's
  /// libraries cannot be loaded).
  public init(_ source: any AudioDecoder, sampleRate: Int, channels: Int) throws(AudioError) {
    self.source = source
    let from = source.format
    var converted = from
    converted.sampleRate = sampleRate
    converted.channels = channels
    converted.frames =
      from.frames > 0
      ? (from.frames * Int64(sampleRate) + Int64(from.sampleRate) - 1) / Int64(from.sampleRate) : 0
    format = converted
    do {
      try FFmpegLibrary.load(path: source.path)
    } catch {
      throw AudioError(path: source.path, reason: .unsupported, message: error.message)
    }
    try setUp(.float32)
  }

  deinit { swr_free(&context) }

  /// (Re)creates the resampler, making `type`; what it held is dropped.
  private func setUp(_ type: PCMSampleType) throws(AudioError) {
    swr_free(&context)
    let target = FFmpegDecoder.sampleFormat(for: type)
    var inputLayout = AVChannelLayout()
    var outputLayout = AVChannelLayout()
    av_channel_layout_default(&inputLayout, Int32(source.format.channels))
    av_channel_layout_default(&outputLayout, Int32(format.channels))
    let code = swr_alloc_set_opts2(
      &context, &outputLayout, target, Int32(format.sampleRate), &inputLayout, AV_SAMPLE_FMT_FLT,
      Int32(source.format.sampleRate), 0, nil)
    guard code >= 0, let context, swr_init(context) >= 0 else {
      throw AudioError(
        path: path, reason: .unsupported,
        message:
          "cannot convert \(source.format.sampleRate) Hz × \(source.format.channels) to \(format.sampleRate) Hz × \(format.channels)"
      )
    }
    contextType = type
    flushed = false
  }

  public func read(into buffer: UnsafeMutableRawPointer, frames: Int, as type: PCMSampleType)
    throws(AudioError) -> Int
  {
    if contextType != type { try setUp(type) }
    let frameBytes = format.channels * type.byteWidth
    var filled = 0
    while filled < frames {
      let made = try convert(into: buffer + filled * frameBytes, room: frames - filled)
      if made == 0 && flushed { break }
      filled += made
    }
    position += Int64(filled)
    return filled
  }

  /// Makes up to `room` frames: first what the resampler holds, then from new source frames,
  /// and at the source's end the resampler's tail. 0 once everything is out.
  private func convert(into destination: UnsafeMutableRawPointer, room: Int) throws(AudioError) -> Int {
    var output: UnsafeMutablePointer<UInt8>? = destination.assumingMemoryBound(to: UInt8.self)
    if sourceEnded {
      // A null input flushes the resampler's delay line: the last frames of the stream.
      let made = swr_convert(context, &output, Int32(room), nil, 0)
      if made <= 0 { flushed = true }
      return Int(max(made, 0))
    }
    // What is buffered from earlier input first (a non-null input of 0 frames does not flush).
    var empty: Float = 0
    let buffered = withUnsafeMutablePointer(to: &empty) { pointer -> Int32 in
      var inputs: UnsafePointer<UInt8>? = UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self)
      return swr_convert(context, &output, Int32(room), &inputs, 0)
    }
    if buffered > 0 { return Int(buffered) }
    // New source frames, no more than the room left can take once converted.
    let sourceRate = Int64(source.format.sampleRate)
    let wanted = Int(max(1, min(Int64(Self.block), Int64(room) * sourceRate / Int64(format.sampleRate))))
    let channels = source.format.channels
    if input.count < wanted * channels { input = [Float](repeating: 0, count: wanted * channels) }
    let source = self.source
    let got = try input.withUnsafeMutableBytes { raw -> Result<Int, AudioError> in
      do throws(AudioError) {
        return .success(try source.read(into: raw.baseAddress!, frames: wanted, as: .float32))
      } catch { return .failure(error) }
    }.get()
    if got == 0 {
      sourceEnded = true
      return 0
    }
    let made = input.withUnsafeBytes { raw -> Int32 in
      var inputs: UnsafePointer<UInt8>? = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
      return swr_convert(context, &output, Int32(room), &inputs, Int32(got))
    }
    guard made >= 0 else {
      throw AudioError(path: path, reason: .damaged, message: "sample conversion failed")
    }
    return Int(made)
  }

  public func seek(toFrame frame: Int64) throws(AudioError) {
    let target = max(0, format.frames > 0 ? min(frame, format.frames) : frame)
    let sourceFrame = target * Int64(source.format.sampleRate) / Int64(format.sampleRate)
    try source.seek(toFrame: sourceFrame)
    try setUp(contextType ?? .float32)
    sourceEnded = false
    position = sourceFrame * Int64(format.sampleRate) / Int64(source.format.sampleRate)
  }

  public func close() {
    source.close()
    swr_free(&context)
    contextType = nil
  }
}
