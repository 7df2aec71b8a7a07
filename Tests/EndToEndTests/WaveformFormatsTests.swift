import Foundation
import ShelfTestSupport
import Testing

/// `show`'s waveform for the formats FFmpeg decodes (made by ffmpeg and sox), checked against
/// the peaks of ffmpeg's own decode of the same file: each column's level lies between the peak
/// of the samples in that column and the peak of those within one read block (4096 frames)
/// of it, as the waveform reads in blocks.
@Suite struct WaveformFormatsTests {
  static let columns = 20
  static let levels = Array(" ▁▂▃▄▅▆▇█")

  /// An 8-second 300 Hz tone whose level rises from silence to 0.9 and falls again.
  static func source(_ folder: TemporaryDirectory) throws -> String {
    let path = folder.file("source.wav")
    let made = try AudioE2E.tool([
      "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "aevalsrc=0.9*sin(PI*t/8)*sin(2*PI*300*t):s=44100:d=8",
      "-ac", "2", "-c:a", "pcm_s16le", path,
    ])
    precondition(made.status == 0, made.stderr)
    return path
  }

  @Test(arguments: [
    ("aac.m4a", ["ffmpeg", "-c:a", "aac", "-b:a", "192k"]),
    ("alac.m4a", ["ffmpeg", "-c:a", "alac"]),
    ("wma.wma", ["ffmpeg", "-c:a", "wmav2", "-b:a", "192k"]),
    ("wavpack.wv", ["ffmpeg", "-c:a", "wavpack"]),
    ("adts.aac", ["ffmpeg", "-c:a", "aac", "-b:a", "192k", "-f", "adts"]),
    ("voice.amr", ["sox", "-r", "8000", "-c", "1", "-t", "amr-nb"]),
  ])
  func everyFormatPlayPlaysHasItsWaveform(_ name: String, _ encoder: [String]) throws {
    let folder = try TemporaryDirectory()
    let source = try Self.source(folder)
    let path = folder.file(name)
    let made =
      encoder[0] == "sox"
      ? try AudioE2E.tool(["sox", source] + encoder.dropFirst() + [path])
      : try AudioE2E.tool(["ffmpeg", "-v", "error", "-i", source] + encoder.dropFirst() + [path])
    try #require(made.status == 0, "\(made.stderr)")

    let shown = try ShelfProcess.run(["show", "--graphics", "blocks", "--width", "\(Self.columns + 2)", path])
    #expect(shown.status == 0, "\(shown.stderr)")
    let line = try #require(shown.stdout.split(separator: "\n").last.map(String.init))
    try #require(line.count == Self.columns + 2 && line.hasPrefix("  "), "no waveform: \(shown.stdout)")
    let drawn = line.dropFirst(2).map { Self.levels.firstIndex(of: $0) ?? -1 }

    // ffmpeg's decode, one channel or two, as 16-bit samples.
    let decoded = try AudioE2E.tool(["ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-"])
    try #require(decoded.status == 0)
    let channels = name == "voice.amr" ? 1 : 2
    let samples = Array(decoded.stdout).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    let frames = samples.count / channels
    var framePeaks = [Float](repeating: 0, count: frames)
    for frame in 0..<frames {
      for channel in 0..<channels {
        framePeaks[frame] = max(
          framePeaks[frame], Float(abs(Int(samples[frame * channels + channel]))) / 32768)
      }
    }
    func peak(_ range: Range<Int>) -> Float {
      framePeaks[max(0, range.lowerBound)..<min(frames, range.upperBound)].max() ?? 0
    }
    func level(_ value: Float) -> Int { min(8, max(0, Int((value * 8).rounded(.up)))) }
    for column in 0..<Self.columns {
      let start = column * frames / Self.columns
      let end = (column + 1) * frames / Self.columns
      let low = level(peak(start..<end) - 0.01)
      let high = level(peak((start - 4096)..<(end + 4096)) + 0.01)
      #expect(
        (low...high).contains(drawn[column]),
        "\(name) column \(column): \(drawn[column]) not in \(low)…\(high)")
    }
    // The rise and fall are drawn: near silence at the ends, loud in the middle (0.64 of full
    // scale: ffmpeg spreads the mono tone over two channels 3 dB down).
    #expect(drawn.first! <= 2 && drawn.last! <= 2 && drawn.max()! >= 5, "\(line)")
  }
}
