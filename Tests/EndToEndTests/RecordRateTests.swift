import Foundation
import ShelfTestSupport
import Testing

/// The rates a recording's format holds: Opus records at 48 kHz unless told, and a rate the
/// format cannot hold is a usage error naming the ones it can, before anything is opened.
@Suite(.serialized) struct RecordRateTests {
  @Test func opusRecordsAt48kHzWithANote() throws {
    let (folder, env) = try AudioE2E.captureFolder()
    let output = folder.file("memo.opus")
    let result = try ShelfProcess.run(["record", "-d", "0.5", "--no-interactive", output], environment: env)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stderr.hasPrefix(
        "Opus cannot hold 44100 Hz: recording at 48000 Hz\nRecorded 0.50 s (24000 frames, 48000 Hz, 2 ch, float) to \(output), "
      ), "\(result.stderr)")
    // The OpusHead's input rate (bytes 12-15 after its magic) is what was encoded.
    let bytes = AudioE2E.bytes(output)
    let magic = Array("OpusHead".utf8)
    let head = try #require((0..<(bytes.count - 16)).first { Array(bytes[$0..<($0 + 8)]) == magic })
    let inputRate = (12..<16).reversed().reduce(0) { $0 << 8 | Int(bytes[head + $1]) }
    #expect(inputRate == 48000)
  }

  @Test(arguments: [
    (
      "memo.opus", "44100",
      "Opus cannot be recorded at 44100 Hz: it holds 8000, 12000, 16000, 24000 or 48000 Hz"
    ),
    (
      "memo.mp3", "96000",
      "MP3 cannot be recorded at 96000 Hz: it holds 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100 or 48000 Hz"
    ),
    ("memo.ogg", "256000", "Ogg Vorbis cannot be recorded at 256000 Hz: it holds at most 200000 Hz"),
    ("memo.flac", "700000", "FLAC cannot be recorded at 700000 Hz: it holds at most 655350 Hz"),
    (
      "memo.m4a", "22000",
      "AAC in M4A cannot be recorded at 22000 Hz: it holds 7350, 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200 or 96000 Hz"
    ),
  ])
  func aRateTheFormatCannotHoldIsAUsageError(_ name: String, _ rate: String, _ message: String) throws {
    let (folder, env) = try AudioE2E.captureFolder()
    let output = folder.file(name)
    let result = try ShelfProcess.run(["record", "-r", rate, "-d", "0.2", output], environment: env)
    #expect(result.status == 64)
    #expect(result.stderr == "error: \(output): \(message)\n")
    #expect(!FileManager.default.fileExists(atPath: output))
  }

  @Test func ratesTheFormatsHoldRecord() throws {
    let (folder, env) = try AudioE2E.captureFolder()
    for (name, rate) in [("a.opus", "16000"), ("a.mp3", "22050"), ("a.ogg", "200000"), ("a.m4a", "7350")] {
      let output = folder.file(name)
      let result = try ShelfProcess.run(["record", "-r", rate, "-d", "0.2", output], environment: env)
      #expect(result.status == 0, "\(name) \(result.stderr)")
      #expect(result.stderr.contains(" \(rate) Hz, 2 ch"), "\(result.stderr)")
    }
  }
}
