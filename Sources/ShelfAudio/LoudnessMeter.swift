internal import CEbur128
public import ShelfCore

/// The EBU R128 integrated loudness and true peak of one stream, through libebur128: the
/// measurement behind ReplayGain 2.0 (`shelf gain`). Owns its libebur128 state; meters of one
/// album are kept until the album's loudness is taken from all of them together.
public final class LoudnessMeter: @unchecked Sendable {
  // @unchecked: the state is only touched by one thread at a time (the one measuring, then
  // the one reading the results after the measuring thread has finished).
  private var state: UnsafeMutablePointer<ebur128_state>?
  /// Channels per frame.
  public let channels: Int
  /// Frames per second.
  public let sampleRate: Int
  /// Frames added so far.
  public private(set) var frames: Int64 = 0

  /// Integrated loudness of silence (LUFS): libebur128 answers −∞ for it, the gain is then
  /// taken against the absolute gate (−70 LUFS) rather than being infinite.
  public static let silence = -70.0

  /// A meter for `channels` interleaved channels at `sampleRate`. A mono stream counts twice
  /// (dual mono), as ReplayGain 2.0 scanners (loudgain, foobar2000) measure it.
  public init(channels: Int, sampleRate: Int, path: RawPath) throws(AudioError) {
    self.channels = channels
    self.sampleRate = sampleRate
    guard channels > 0, channels <= 64, sampleRate > 0, sampleRate <= 2_822_400,
      let state = ebur128_init(
        UInt32(channels), UInt(sampleRate), Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_TRUE_PEAK.rawValue))
    else {
      throw AudioError(
        path: path, reason: .unsupported,
        message: "cannot measure loudness of \(channels) channels at \(sampleRate) Hz")
    }
    self.state = state
    if channels == 1 { _ = ebur128_set_channel(state, 0, Int32(EBUR128_DUAL_MONO.rawValue)) }
  }

  deinit { if state != nil { ebur128_destroy(&state) } }

  /// Adds `count` interleaved frames.
  public func add(_ samples: UnsafePointer<Float>, frames count: Int) {
    guard let state, count > 0 else { return }
    _ = ebur128_add_frames_float(state, samples, count)
    frames += Int64(count)
  }

  /// The integrated loudness in LUFS (`silence` for silence or nothing added).
  public var loudness: Double {
    guard let state else { return Self.silence }
    var out = 0.0
    guard ebur128_loudness_global(state, &out) == 0, out.isFinite else { return Self.silence }
    return max(out, Self.silence)
  }

  /// The largest true peak over the channels (linear, 1.0 is full scale).
  public var truePeak: Double {
    guard let state else { return 0 }
    var peak = 0.0
    for channel in 0..<channels {
      var value = 0.0
      if ebur128_true_peak(state, UInt32(channel), &value) == 0, value.isFinite { peak = max(peak, value) }
    }
    return peak
  }

  /// The integrated loudness of `meters` measured as one programme (an album), in LUFS.
  public static func loudness(of meters: [LoudnessMeter]) -> Double {
    var states = meters.compactMap(\.state).map { Optional($0) }
    guard !states.isEmpty else { return silence }
    var out = 0.0
    let code = states.withUnsafeMutableBufferPointer {
      ebur128_loudness_global_multiple($0.baseAddress, $0.count, &out)
    }
    guard code == 0, out.isFinite else { return silence }
    return max(out, silence)
  }

  /// The ReplayGain 2.0 gain (dB) that brings `loudness` to −18 LUFS.
  public static func gain(loudness: Double) -> Double { ReplayGain.referenceLoudness - loudness }

  /// Decodes the whole of `path` with shelf's decoders (`AudioDecoders`) and measures it; the
  /// decoder's tags come back too (album grouping for files outside the catalogue).
  public static func measure(path: RawPath) throws(AudioError) -> (meter: LoudnessMeter, tags: AudioTags) {
    let file: RegularFile
    do {
      file = try RegularFile(path: path)
    } catch {
      throw AudioError(path: path, reason: .missingFile, message: error.reason)
    }
    return try measure(file)
  }

  /// Measures a file already open (so that what is measured is the file whose status the
  /// caller keeps the result under).
  public static func measure(_ file: RegularFile) throws(AudioError) -> (
    meter: LoudnessMeter, tags: AudioTags
  ) {
    let path = file.path
    let decoder = try AudioDecoders.open(file)
    defer { decoder.close() }
    let format = decoder.format
    let meter = try LoudnessMeter(channels: format.channels, sampleRate: format.sampleRate, path: path)
    let block = 16384
    var buffer = [Float](repeating: 0, count: block * format.channels)
    while true {
      let result = buffer.withUnsafeMutableBufferPointer { pointer -> Result<Int, AudioError> in
        do throws(AudioError) {
          let got = try decoder.read(into: pointer.baseAddress!, frames: block, as: .float32)
          meter.add(pointer.baseAddress!, frames: got)
          return .success(got)
        } catch { return .failure(error) }
      }
      if try result.get() == 0 { break }
    }
    return (meter, decoder.tags)
  }
}
