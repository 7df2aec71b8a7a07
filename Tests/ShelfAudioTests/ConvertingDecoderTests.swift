import Foundation
import ShelfAudio
import ShelfCore
import ShelfTestSupport
import Testing

/// The conversion `play` applies for a device that does not take a file's rate or channel
/// count, checked against ffmpeg's own conversion (libswresample with its defaults) of the same
/// file: the same number of frames, and the same signal within a rounding step or two.
@Suite struct ConvertingDecoderTests {
  /// Little-endian 16-bit samples.
  static func int16s(_ bytes: [UInt8]) -> [Int16] {
    stride(from: 0, to: bytes.count - 1, by: 2).map {
      Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
    }
  }

  /// Pearson correlation of two equally long signals.
  static func correlation(_ a: [Int16], _ b: [Int16]) -> Double {
    let n = Double(a.count)
    let meanA = a.reduce(0.0) { $0 + Double($1) } / n
    let meanB = b.reduce(0.0) { $0 + Double($1) } / n
    var product = 0.0
    var squaresA = 0.0
    var squaresB = 0.0
    for (x, y) in zip(a, b) {
      product += (Double(x) - meanA) * (Double(y) - meanB)
      squaresA += (Double(x) - meanA) * (Double(x) - meanA)
      squaresB += (Double(y) - meanB) * (Double(y) - meanB)
    }
    return product / (squaresA * squaresB).squareRoot()
  }

  /// Converts `path` to `rate` × `channels` as 16-bit samples, and returns them with ffmpeg's.
  static func bothConversions(_ path: String, rate: Int, channels: Int) throws -> (
    ours: [Int16], ffmpeg: [Int16], declared: Int64
  ) {
    let converted = try ConvertingDecoder(
      try AudioDecoders.open(path: RawPath(path)), sampleRate: rate, channels: channels)
    #expect(converted.format.sampleRate == rate)
    #expect(converted.format.channels == channels)
    let ours = try converted.readAll(Int16.self)
    let reference = int16s(
      Array(
        try FFmpegTool.run([
          "ffmpeg", "-v", "error", "-i", path, "-ar", "\(rate)", "-ac", "\(channels)", "-f", "s16le", "-",
        ])))
    return (ours, reference, converted.format.frames)
  }

  /// 44.1 kHz to 48 kHz (what a `hw:` device of most laptops takes), in one read after another.
  @Test(arguments: [(44100, 48000), (48000, 44100), (22050, 48000)])
  func resamplesAsFFmpegDoes(from source: Int, to target: Int) throws {
    let folder = try TemporaryDirectory()
    let path = try FFmpegTool.make(
      folder, "in-\(source).wav", ["-c:a", "pcm_s16le"], seconds: 2, rate: source)
    let (ours, reference, declared) = try Self.bothConversions(path, rate: target, channels: 2)
    #expect(ours.count == reference.count)
    #expect(Int64(ours.count / 2) == declared)
    #expect(Self.correlation(ours, Array(reference.prefix(ours.count))) > 0.999)
  }

  /// Mono to stereo and 5.1 to stereo are remixed with FFmpeg's default matrices.
  @Test(arguments: [1, 6])
  func remixesChannelsAsFFmpegDoes(channels: Int) throws {
    let folder = try TemporaryDirectory()
    let path = try FFmpegTool.make(folder, "in-\(channels).wav", ["-c:a", "pcm_s16le"], channels: channels)
    let (ours, reference, declared) = try Self.bothConversions(path, rate: 44100, channels: 2)
    #expect(ours.count == reference.count)
    #expect(Int64(ours.count / 2) == declared)
    let largestDifference = zip(ours, reference).map { abs(Int($0) - Int($1)) }.max() ?? 0
    #expect(largestDifference <= 1)
  }

  /// A seek lands on the converted frame: reading on from there gives what reading straight
  /// through gives at that frame.
  @Test func seeksInTheConvertedRate() throws {
    let folder = try TemporaryDirectory()
    let path = try FFmpegTool.make(folder, "in.wav", ["-c:a", "pcm_s16le"], seconds: 2)
    let straight = try ConvertingDecoder(
      try AudioDecoders.open(path: RawPath(path)), sampleRate: 48000, channels: 2
    )
    .readAll(Int16.self)
    let seeking = try ConvertingDecoder(
      try AudioDecoders.open(path: RawPath(path)), sampleRate: 48000, channels: 2)
    try seeking.seek(toFrame: 48000)
    #expect(seeking.position == 48000)
    let rest = try seeking.readAll(Int16.self)
    #expect(rest.count == straight.count - 96000)
    #expect(Self.correlation(rest, Array(straight.suffix(rest.count))) > 0.999)
  }
}
