import Foundation
import ShelfTestSupport
import Testing

/// `shelf info --json` on AAC in ADIF and on Shorten, which no Debian program writes: ADIF
/// re-wrapped from the ADTS of ffmpeg's AAC encoder by scripts/adif_writer.py, Shorten written
/// by scripts/shorten_encoder.py and decoded back by ffmpeg to exactly its samples. The facts
/// are exact (the header's rate, channels and bit rate; ADIF's length as mediainfo computes it,
/// Shorten's frames as many as were encoded), and the same files cut short or garbled end in
/// one line, never a crash.
@Suite(.enabled(if: ExternalTool.isInstalled(["ffmpeg", "python3"]), "needs ffmpeg and python3"))
struct ADIFShortenInfoTests {
  static let scripts = ShelfProcess.repositoryRoot.appendingPathComponent("scripts").path

  /// Runs one of the writers; its JSON report.
  static func write(_ script: String, _ arguments: [String]) throws -> [String: Any] {
    let outcome = try ExternalTool.run(["python3", scripts + "/" + script] + arguments)
    #expect(outcome.status == 0, "\(outcome.stderr)")
    return try JSONSerialization.jsonObject(with: outcome.stdout) as? [String: Any] ?? [:]
  }

  static func info(_ path: String) throws -> [String: Any] {
    let result = try ShelfProcess.run(["info", "--json", path])
    #expect(result.status == 0, "\(result.stderr)")
    return try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any] ?? [:]
  }

  struct ADIFCase: CustomTestStringConvertible, Sendable {
    var rate: Int
    var channels: Int
    var profile: String
    var variable: Bool
    var testDescription: String { "\(profile) \(rate) Hz \(channels) ch\(variable ? " VBR" : "")" }
  }

  static let adifCases = [
    ADIFCase(rate: 44100, channels: 2, profile: "aac_low", variable: false),
    ADIFCase(rate: 16000, channels: 1, profile: "aac_main", variable: true),
    ADIFCase(rate: 48000, channels: 6, profile: "aac_ltp", variable: false),
  ]

  @Test(arguments: adifCases)
  func adifFactsAreTheHeaders(_ item: ADIFCase) throws {
    let folder = try TemporaryDirectory()
    let adts = folder.file("tone.adts")
    try ExternalTool.ffmpeg([
      "-f", "lavfi", "-i", "sine=f=440:r=\(item.rate):d=2.5", "-ac", "\(item.channels)", "-c:a", "aac",
      "-strict",
      "-2", "-profile:a", item.profile, "-f", "adts", adts,
    ])
    let path = folder.file("tone.aac")
    let written = try Self.write(
      "adif_writer.py",
      [adts, path] + (item.variable ? ["--vbr", "--copyright", "shelf"] : ["--comment", "test"]))
    let bitrate = try #require(written["bitrate"] as? Int)
    let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    let object = try Self.info(path)
    #expect(object["kind"] as? String == "audio")
    #expect(object["mime"] as? String == "audio/aac")
    #expect(object["error"] == nil)
    let audio = object["audio"] as? [String: Any] ?? [:]
    #expect(audio["codec"] as? String == "aac")
    #expect(audio["format"] as? String == "adif")
    #expect(audio["sample_rate"] as? Int == item.rate)
    #expect(audio["channels"] as? Int == item.channels)
    #expect(audio["bitrate"] as? Int == bitrate)
    // The file's bytes at the header's bit rate, in whole frames.
    let frames = (Double(size) * 8 / Double(bitrate) * Double(item.rate)).rounded()
    #expect(audio["frames"] as? Int == Int(frames))
    let duration = audio["duration"] as? Double ?? 0
    #expect(duration == frames / Double(item.rate))
    // The stream's own time (its blocks of 1,024 samples) is within a header's worth of it.
    let blocks = try #require(written["blocks"] as? Int)
    #expect(abs(duration - Double(blocks * 1024) / Double(item.rate)) < 0.02)
    if !item.variable, ExternalTool.isInstalled(["mediainfo"]) {
      let reference = try ExternalTool.run([
        "mediainfo", "--Inform=Audio;%Duration%|%SamplingRate%|%Channels%", path,
      ])
      let fields = String(decoding: reference.stdout, as: UTF8.self).trimmingCharacters(
        in: .whitespacesAndNewlines
      )
      .split(separator: "|").map(String.init)
      #expect(fields.count == 3, "\(fields)")
      #expect(abs((Double(fields.first ?? "") ?? 0) / 1000 - duration) < 0.0015, "mediainfo: \(fields)")
      #expect(fields.dropFirst().map { Int($0) } == [item.rate, item.channels], "mediainfo: \(fields)")
    }
  }

  struct ShortenCase: CustomTestStringConvertible, Sendable {
    var rate: Int
    var channels: Int
    var bits: Int
    var aiff: Bool
    var seconds: Double
    var testDescription: String { "\(bits)-bit \(rate) Hz \(channels) ch\(aiff ? " AIFF" : "")" }
  }

  static let shortenCases = [
    ShortenCase(rate: 44100, channels: 2, bits: 16, aiff: false, seconds: 1.5),
    ShortenCase(rate: 11025, channels: 1, bits: 8, aiff: false, seconds: 0.9),
    ShortenCase(rate: 22050, channels: 2, bits: 16, aiff: true, seconds: 1.2),
  ]

  @Test(arguments: shortenCases)
  func shortenFactsAreWhatWasEncoded(_ item: ShortenCase) throws {
    let folder = try TemporaryDirectory()
    let wav = folder.file("voice.wav")
    try ExternalTool.ffmpeg([
      "-f", "lavfi", "-i", "aevalsrc=0.4*sin(2*PI*(200+400*t)*t):s=\(item.rate):d=\(item.seconds)", "-ac",
      "\(item.channels)", "-c:a", item.bits == 8 ? "pcm_u8" : "pcm_s16le", wav,
    ])
    let path = folder.file("voice.shn")
    let written = try Self.write(
      "shorten_encoder.py",
      [wav, path, "--blocksize", "700"] + (item.aiff ? ["--aiff", "--version", "3"] : []))
    let frames = try #require(written["frames"] as? Int)
    #expect(frames == Int((Double(item.rate) * item.seconds).rounded()))
    // ffmpeg decodes it to exactly the samples it was made from.
    let format = item.bits == 8 ? "u8" : "s16le"
    let original = try ExternalTool.run(["ffmpeg", "-v", "error", "-i", wav, "-f", format, "-"])
    let decoded = try ExternalTool.run(["ffmpeg", "-v", "error", "-i", path, "-f", format, "-"])
    #expect(decoded.status == 0 && decoded.stdout == original.stdout && !original.stdout.isEmpty)
    let object = try Self.info(path)
    #expect(object["kind"] as? String == "audio")
    #expect(object["mime"] as? String == "audio/x-shorten")
    #expect(object["error"] == nil)
    let audio = object["audio"] as? [String: Any] ?? [:]
    #expect(audio["codec"] as? String == "shorten")
    #expect(audio["frames"] as? Int == frames)
    #expect(audio["sample_rate"] as? Int == item.rate)
    #expect(audio["channels"] as? Int == item.channels)
    #expect(audio["duration"] as? Double == Double(frames) / Double(item.rate))
    // ffprobe agrees on what it gives (no length: its shn demuxer is raw).
    let probe = try ExternalTool.ffprobe(path)
    let stream = (probe["streams"] as? [[String: Any]])?.first ?? [:]
    #expect(stream["codec_name"] as? String == "shorten")
    #expect(stream["sample_rate"] as? String == "\(item.rate)")
    #expect(stream["channels"] as? Int == item.channels)
  }

  /// Text that starts with the word "ADIF" is text: the signature alone does not make audio.
  @Test func textStartingWithTheSignatureIsText() throws {
    let folder = try TemporaryDirectory()
    let path = try folder.write("notes", Array("ADIF is the Audio Data Interchange Format.\n".utf8))
    let object = try Self.info(path)
    #expect(object["kind"] as? String == "text")
  }

  /// Each file cut inside its header, cut in half, or garbled after its signature: `shelf info`
  /// answers in one line (facts, or exit 65 with the reason), within the time limit.
  @Test func damagedFilesEndInOneLine() throws {
    let folder = try TemporaryDirectory()
    let adts = folder.file("tone.adts")
    try ExternalTool.ffmpeg(["-f", "lavfi", "-i", "sine=d=1", "-c:a", "aac", "-f", "adts", adts])
    _ = try Self.write("adif_writer.py", [adts, folder.file("tone.aac")])
    try ExternalTool.ffmpeg(["-f", "lavfi", "-i", "sine=d=1", "-c:a", "pcm_s16le", folder.file("tone.wav")])
    _ = try Self.write("shorten_encoder.py", [folder.file("tone.wav"), folder.file("tone.shn")])
    for name in ["tone.aac", "tone.shn"] {
      let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: folder.file(name))))
      var noise = SeededNoise(seed: UInt64(bytes.count))
      for (kind, damaged) in [
        ("cut", Array(bytes.prefix(12))), ("half", Array(bytes.prefix(bytes.count / 2))),
        ("garbled", Array(bytes.prefix(5)) + (0..<4096).map { _ in noise.next() }),
      ] {
        let path = try folder.write(kind + "-" + name, damaged)
        let result = try ShelfProcess.run(["info", "--json", path], timeout: 30)
        #expect(
          result.status == 0 || result.status == 65, "\(kind) \(name): \(result.status) \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count <= 1, "\(kind) \(name): \(result.stderr)")
      }
      // Cut inside the header: an error that says so.
      let cut = try ShelfProcess.run(["info", folder.file("cut-" + name)], timeout: 30)
      #expect(cut.status == 65)
      #expect(cut.stderr.contains("truncated"), "\(cut.stderr)")
    }
  }
}
