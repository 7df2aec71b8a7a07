internal import CChromaprint
internal import CChromaprintSupport
public import ShelfCore

/// The Chromaprint fingerprint of the start of a recording: what `dupes --similar` compares to
/// find one recording in several encodings (FLAC, MP3, Opus, AAC…).
///
/// The raw fingerprint is one 32-bit item per ≈ 0.124 s of sound (Chromaprint's default
/// algorithm: 4096-sample frames at 11025 Hz, a third overlapping); each bit says whether
/// an energy difference between chroma bands rose or fell. A lossy encoding flips a few of
/// those bits, another recording about half of them.
public struct AudioFingerprint: Sendable, Equatable {
  /// Chromaprint's raw items, in order.
  public let raw: [UInt32]

  /// A fingerprint from items computed elsewhere (a catalogue cache).
  public init(raw: [UInt32]) { self.raw = raw }

  /// Seconds of sound one raw item stands for (Chromaprint's item duration, 1365 samples at
  /// 11025 Hz).
  public static let itemSeconds = 1365.0 / 11025.0

  /// The smallest `similarity` at which two fingerprints are taken for the same recording: 0.6,
  /// a bit error rate of 0.2 at the best alignment.
  ///
  /// Measured on real music (AudioFingerprintTests: the seven tracks of Debian's xmoto-data, one
  /// game's soundtrack, 71–161 s): LAME -V 5 MP3, 64 kbit/s and 24 kbit/s Opus encodings of each
  /// track's FLAC score 0.88–0.996 against it (bit error rates 0.003–0.058); two different
  /// tracks score at most 0.17 (a bit error rate of 0.41: unrelated fingerprints differ in half
  /// their bits, and the best of 81 alignments finds a little shared structure). 0.6 sits in the
  /// middle of that gap, leaving room for worse encodings below and for tracks more alike than
  /// these above.
  public static let sameRecordingSimilarity = 0.6

  /// How far apart in time two fingerprints may be aligned, in items (≈ 5 s): encoder delays,
  /// a second of silence added or cut at the start.
  public static let maxOffsetItems = 40

  /// Fingerprints `path` from its first `maxSeconds` seconds, decoded by the project's decoders
  /// (`AudioDecoders.open`: libsndfile, else FFmpeg) as 16-bit samples at the file's own rate
  /// and channel count (Chromaprint downmixes and resamples to 11025 Hz mono itself).
  ///
  /// Throws `AudioError`: the decoders' errors (missing, not audio, damaged), and
  /// `.unsupported` when libchromaprint cannot be loaded or refuses the stream.
  public static func compute(path: RawPath, maxSeconds: Double = 120) throws(AudioError) -> AudioFingerprint {
    try loadLibrary(path: path)
    let decoder = try AudioDecoders.open(path: path)
    defer { decoder.close() }
    let rate = decoder.format.sampleRate
    let channels = decoder.format.channels
    guard rate > 0, channels > 0 else {
      throw AudioError(path: path, reason: .unsupported, message: "no sample rate or channels to fingerprint")
    }
    guard let context = chromaprint_new(Int32(CHROMAPRINT_ALGORITHM_DEFAULT.rawValue)) else {
      throw AudioError(path: path, reason: .unsupported, message: "chromaprint_new failed")
    }
    defer { chromaprint_free(context) }
    guard chromaprint_start(context, Int32(rate), Int32(channels)) == 1 else {
      throw AudioError(
        path: path, reason: .unsupported, message: "Chromaprint refuses \(rate) Hz × \(channels) channels")
    }
    let limit = Int64((max(0, maxSeconds) * Double(rate)).rounded(.up))
    let block = 8192
    var buffer = [Int16](repeating: 0, count: block * channels)
    var fed: Int64 = 0
    while fed < limit {
      let wanted = Int(min(Int64(block), limit - fed))
      let result = buffer.withUnsafeMutableBytes { raw -> Result<Int, AudioError> in
        do throws(AudioError) {
          return .success(try decoder.read(into: raw.baseAddress!, frames: wanted, as: .int16))
        } catch { return .failure(error) }
      }
      let got = try result.get()
      if got == 0 { break }
      let accepted = buffer.withUnsafeBufferPointer { samples in
        chromaprint_feed(context, samples.baseAddress, Int32(got * channels))
      }
      guard accepted == 1 else {
        throw AudioError(path: path, reason: .unsupported, message: "chromaprint_feed failed")
      }
      fed += Int64(got)
    }
    guard chromaprint_finish(context) == 1 else {
      throw AudioError(path: path, reason: .unsupported, message: "chromaprint_finish failed")
    }
    var items: UnsafeMutablePointer<UInt32>?
    var count: Int32 = 0
    guard chromaprint_get_raw_fingerprint(context, &items, &count) == 1 else {
      throw AudioError(path: path, reason: .unsupported, message: "chromaprint_get_raw_fingerprint failed")
    }
    defer { chromaprint_dealloc(items) }
    guard let items, count > 0 else { return AudioFingerprint(raw: []) }
    return AudioFingerprint(raw: Array(UnsafeBufferPointer(start: items, count: Int(count))))
  }

  /// How alike two fingerprints are, 0…1: 1 − 2 × the bit error rate at the best alignment
  /// within `maxOffsetItems`, clamped at 0. Identical fingerprints score 1, unrelated ones about
  /// 0 (half their bits differ); two encodings of one recording score above
  /// `sameRecordingSimilarity`.
  ///
  /// Alignments where fewer than half of the shorter fingerprint's items (and fewer than 8)
  /// overlap are not considered, so a short sound is not found inside a long one. A fingerprint
  /// of fewer than 8 items (a file shorter than about 3.6 s: Chromaprint's frame and filters take
  /// ~2.6 s before the first item) is like nothing: 0.
  public func similarity(to other: AudioFingerprint) -> Double {
    raw.withUnsafeBufferPointer { a in
      other.raw.withUnsafeBufferPointer { b in
        Self.similarity(a, b, maxOffset: Self.maxOffsetItems)
      }
    }
  }

  /// The best-alignment score of `a` against `b` (see `similarity(to:)`).
  static func similarity(_ a: UnsafeBufferPointer<UInt32>, _ b: UnsafeBufferPointer<UInt32>, maxOffset: Int)
    -> Double
  {
    let shorter = min(a.count, b.count)
    let minimumOverlap = max(8, (shorter + 1) / 2)
    guard shorter >= minimumOverlap else { return 0 }
    var bestErrorRate = 1.0
    // offset > 0: item i of a lines up with item i − offset of b.
    for offset in -maxOffset...maxOffset {
      let startA = max(0, offset)
      let startB = max(0, -offset)
      let overlap = min(a.count - startA, b.count - startB)
      guard overlap >= minimumOverlap else { continue }
      var differing = 0
      for index in 0..<overlap {
        differing &+= (a[startA + index] ^ b[startB + index]).nonzeroBitCount
      }
      bestErrorRate = min(bestErrorRate, Double(differing) / Double(32 * overlap))
    }
    return max(0, 1 - 2 * bestErrorRate)
  }

  /// Loads libchromaprint on the first fingerprint (shelf does not link it: see
  /// ChromaprintLoader.c).
  private static func loadLibrary(path: RawPath) throws(AudioError) {
    var reason = [CChar](repeating: 0, count: 512)
    guard shelf_chromaprint_load(&reason, reason.count) != 0 else { return }
    let message = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    throw AudioError(path: path, reason: .unsupported, message: "cannot load libchromaprint: \(message)")
  }
}
