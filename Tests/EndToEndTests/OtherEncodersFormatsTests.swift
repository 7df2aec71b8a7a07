import Foundation
import ShelfTestSupport
import Testing

/// Audio made by other programs than the ones shelf's other tests use: AMR-NB voicemail by
/// sox (through libopencore-amrnb), AMR-WB by VisualOn's encoder library, Musepack by
/// `mpcenc`, Monkey's Audio by JMAC, DTS and E-AC-3 raw streams, MP4 audio under its other
/// brands and extensions (M4B, M4R, 3GP), and a DSF and an AAC-in-CAF wrapped by scripts of
/// ours (no Debian program writes them). Each is played into ALSA's `file` plugin, where the
/// samples must be FFmpeg's own decode (less what the container says is not part of the
/// stream), and catalogued (`shelf index`, `ls --json`) with the facts ffprobe reports and the
/// length decoding yields.
@Suite struct OtherEncodersFormatsTests {
  /// Where the reference length comes from.
  enum LengthReference: Sendable {
    /// ffprobe's stream duration × rate: exact for containers that declare their length (MP4's
    /// edit list trims the encoder's padding, which ffmpeg's tool hands out).
    case ffprobe
    /// The samples ffmpeg decodes: the raw AMR, DTS and E-AC-3 streams declare no length
    /// (ffprobe's duration is an estimate from the bit rate).
    case decodedByFFmpeg
    /// The samples the reference decoder `mpcdec` writes: Musepack SV8 declares its length to
    /// the sample, but ffprobe rounds it down to whole frames and ffmpeg's decoder hands out the
    /// last frame whole.
    case mpcdec
    /// The source's 88,200 frames, which a CAF packet table declares valid after 1,024 frames of
    /// AAC priming: FFmpeg 5.1 counts and decodes whole packets, priming and padding included.
    case cafPacketTable
  }

  struct Sample: Sendable, CustomTestStringConvertible {
    var name: String
    var mime: String
    var codec: String
    var length: LengthReference
    /// Makes the file at the path given from `source.wav` (2 s, 44.1 kHz stereo) in `folder`.
    var make: @Sendable (_ folder: TemporaryDirectory, _ path: String) throws -> Void
    var testDescription: String { name }
  }

  static let scripts = ShelfProcess.repositoryRoot.appendingPathComponent("scripts").path

  static let samples: [Sample] = [
    Sample(name: "voicemail.amr", mime: "audio/amr", codec: "amr_nb", length: .ffprobe) { folder, path in
      try ExternalTool.make(["sox", folder.file("source.wav"), "-r", "8000", "-c", "1", "-t", "amr-nb", path])
    },
    Sample(name: "voice.awb", mime: "audio/amr-wb", codec: "amr_wb", length: .decodedByFFmpeg) {
      folder, path in
      let narrow = folder.file("16k.wav")
      try ExternalTool.make(["sox", folder.file("source.wav"), "-r", "16000", "-c", "1", "-b", "16", narrow])
      try ExternalTool.make(["python3", scripts + "/make-amr-wb.py", narrow, path])
    },
    Sample(name: "music.mpc", mime: "audio/x-musepack", codec: "musepack8", length: .mpcdec) { folder, path in
      try ExternalTool.make(["mpcenc", "--silent", folder.file("source.wav"), path])
    },
    // Monkey's Audio by JMAC (Debian's libjmac-java, a port of Monkey's Audio 3.97).
    Sample(name: "music.ape", mime: "audio/x-ape", codec: "ape", length: .ffprobe) { folder, path in
      try ExternalTool.make(["jmac", "c2", folder.file("source.wav"), path])
    },
    Sample(name: "film.dts", mime: "audio/vnd.dts", codec: "dts", length: .decodedByFFmpeg) { folder, path in
      try ExternalTool.make([
        "ffmpeg", "-v", "error", "-i", folder.file("source.wav"), "-strict", "-2", "-c:a", "dca", path,
      ])
    },
    Sample(name: "film.eac3", mime: "audio/eac3", codec: "eac3", length: .decodedByFFmpeg) { folder, path in
      try ExternalTool.make(["ffmpeg", "-v", "error", "-i", folder.file("source.wav"), "-c:a", "eac3", path])
    },
    // An audiobook with iTunes' own brand, under a name that says nothing: found by content.
    Sample(name: "audiobook.bin", mime: "audio/mp4", codec: "aac", length: .ffprobe) { folder, path in
      try ExternalTool.make([
        "ffmpeg", "-v", "error", "-i", folder.file("source.wav"), "-c:a", "aac", "-f", "ipod", "-brand",
        "M4B ",
        path,
      ])
    },
    Sample(name: "book.m4b", mime: "audio/mp4", codec: "aac", length: .ffprobe) { folder, path in
      try ExternalTool.make([
        "ffmpeg", "-v", "error", "-i", folder.file("source.wav"), "-c:a", "aac", "-f", "ipod", path,
      ])
    },
    Sample(name: "ringtone.m4r", mime: "audio/mp4", codec: "aac", length: .ffprobe) { folder, path in
      try ExternalTool.make([
        "ffmpeg", "-v", "error", "-i", folder.file("source.wav"), "-c:a", "aac", "-b:a", "64k", "-f", "ipod",
        path,
      ])
    },
    Sample(name: "clip.3gp", mime: "audio/3gpp", codec: "aac", length: .ffprobe) { folder, path in
      try ExternalTool.make([
        "ffmpeg", "-v", "error", "-i", folder.file("source.wav"), "-c:a", "aac", "-ar", "16000", "-ac", "1",
        path,
      ])
    },
    // Debian's FFmpeg cannot write AAC into CAF: scripts/make-caf-aac.py (ours) wraps the
    // packets of FFmpeg's AAC encoder, with a packet table naming its priming.
    Sample(name: "memo.caf", mime: "audio/x-caf", codec: "aac", length: .cafPacketTable) { folder, path in
      let adts = folder.file("memo.aac")
      try ExternalTool.make([
        "ffmpeg", "-v", "error", "-i", folder.file("source.wav"), "-c:a", "aac", "-f", "adts", adts,
      ])
      try ExternalTool.make(["python3", scripts + "/make-caf-aac.py", adts, path, "--frames", "88200"])
    },
    // Debian has no DSD encoder: this DSF is written by scripts/make-dsf.py (ours), and ffprobe,
    // an independent reader, is what its facts are checked against.
    Sample(name: "tone.dsf", mime: "audio/x-dsf", codec: "dsd_lsbf_planar", length: .ffprobe) { _, path in
      try ExternalTool.make(["python3", scripts + "/make-dsf.py", path])
    },
  ]

  /// ffprobe's facts about the first audio stream.
  struct Probed {
    var codec: String
    var sampleRate: Int
    var channels: Int
    var sampleFormat: String
    var duration: Double
  }

  static func probe(_ path: String) throws -> Probed {
    let result = try AudioE2E.tool([
      "ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
      "stream=codec_name,sample_rate,channels,sample_fmt,duration", "-of", "default=nw=1", path,
    ])
    var fields: [String: String] = [:]
    for line in String(decoding: result.stdout, as: UTF8.self).split(separator: "\n") {
      let parts = line.split(separator: "=", maxSplits: 1)
      if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
    }
    return Probed(
      codec: fields["codec_name"] ?? "", sampleRate: Int(fields["sample_rate"] ?? "") ?? 0,
      channels: Int(fields["channels"] ?? "") ?? 0, sampleFormat: fields["sample_fmt"] ?? "",
      duration: Double(fields["duration"] ?? "") ?? -1)
  }

  /// FFmpeg's raw format for the decoder's own sample type (what shelf hands ALSA unchanged).
  static func rawFormat(_ sampleFormat: String) -> (name: String, width: Int) {
    switch sampleFormat {
    case "s16", "s16p": return ("s16le", 2)
    case "s32", "s32p": return ("s32le", 4)
    default: return ("f32le", 4)
    }
  }

  /// `mpcdec`'s length of a Musepack file, in samples per channel.
  static func mpcdecFrames(_ path: String, in folder: TemporaryDirectory) throws -> Int {
    let wav = folder.file("mpcdec.wav")
    try ExternalTool.make(["mpcdec", path, wav])
    let probed = try probe(wav)
    return Int((probed.duration * Double(probed.sampleRate)).rounded())
  }

  @Test(arguments: samples)
  func playsAndIsCataloguedAsFFprobeSees(_ sample: Sample) throws {
    let folder = try TemporaryDirectory()
    let source =
      "aevalsrc=0.4*sin(2*PI*(200+400*t)*t)+0.1*(random(0)-0.5)|0.3*sin(2*PI*330*t):s=44100:d=2"
    try ExternalTool.make([
      "ffmpeg", "-v", "error", "-f", "lavfi", "-i", source, "-c:a", "pcm_s16le", folder.file("source.wav"),
    ])
    try folder.makeDirectory("library")
    let path = folder.file("library/" + sample.name)
    try sample.make(folder, path)
    let probed = try Self.probe(path)
    #expect(probed.codec == sample.codec)
    let (format, width) = Self.rawFormat(probed.sampleFormat)
    let frameBytes = width * probed.channels
    var decoded = try PlayFFmpegFormatsTests.ffmpegDecode(path, format)
    let frames: Int
    switch sample.length {
    case .ffprobe:
      frames = Int((probed.duration * Double(probed.sampleRate)).rounded())
      #expect(frames > 0 && frames * frameBytes <= decoded.count)
    case .decodedByFFmpeg: frames = decoded.count / frameBytes
    case .mpcdec:
      frames = try Self.mpcdecFrames(path, in: folder)
      #expect(frames * frameBytes < decoded.count, "ffmpeg hands out the last frame whole")
    case .cafPacketTable:
      frames = 88200
      #expect(Int((probed.duration * Double(probed.sampleRate)).rounded()) == 88 * 1024, "whole packets")
      decoded = Array(decoded.dropFirst(1024 * frameBytes))
    }
    #expect(frames > probed.sampleRate / 10)

    // Played: FFmpeg's decode to the last sample of the stream, then only the silence that pads
    // the last period.
    let played = folder.file("played.raw")
    let result = try ShelfProcess.run(["play", "--no-interactive", "-D", "file:'\(played)',raw", path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.hasPrefix("Playing \(path): "))
    let heard = AudioE2E.bytes(played)
    let expected = Array(decoded.prefix(frames * frameBytes))
    let same = Array(heard.prefix(expected.count)) == expected
    #expect(same, "\(sample.name): \(heard.count) bytes played, \(expected.count) expected")
    let padding = heard.dropFirst(expected.count)
    #expect(padding.allSatisfy { $0 == 0 })
    #expect(padding.count < probed.sampleRate / 5 * frameBytes)

    // Catalogued by content with ffprobe's facts and the length decoding yields.
    let db = folder.file("catalog.sqlite")
    let indexed = try ShelfProcess.run(["--db", db, "index", folder.file("library")])
    #expect(indexed.status == 0, "\(indexed.stderr)")
    let listed = try ShelfProcess.run(["--db", db, "ls", "--json"])
    let entries = try #require(
      try JSONSerialization.jsonObject(with: Data(listed.stdoutBytes)) as? [[String: Any]])
    let entry = try #require(entries.first)
    #expect(entries.count == 1)
    #expect(entry["kind"] as? String == "audio")
    #expect(entry["mime"] as? String == sample.mime)
    #expect(entry["error"] == nil || entry["error"] is NSNull)
    let audio = try #require(entry["audio"] as? [String: Any], "\(entry)")
    #expect(audio["codec"] as? String == probed.codec)
    #expect(audio["sample_rate"] as? Int == probed.sampleRate)
    #expect(audio["channels"] as? Int == probed.channels)
    #expect(audio["frames"] as? Int == frames)
    let duration = try #require(audio["duration"] as? Double)
    #expect(abs(duration - Double(frames) / Double(probed.sampleRate)) < 1e-9)
  }

  /// An AMR file of no frames at all (sox writes just the magic line for empty input) is one
  /// line, exit 65, whether played or described; the catalogue keeps the reason.
  @Test func anAMRFileOfNoFramesIsOneLine() throws {
    let folder = try TemporaryDirectory()
    try folder.makeDirectory("library")
    let path = folder.file("library/empty.amr")
    try ExternalTool.make(["sox", "-n", "-r", "8000", "-c", "1", "-t", "amr-nb", path, "trim", "0", "0"])
    #expect(AudioE2E.bytes(path) == Array("#!AMR\n".utf8))
    let played = try ShelfProcess.run(["play", "--no-interactive", "-D", "null", path])
    #expect(played.status == 65)
    #expect(played.stderr == "error: \(path): no AMR frames\n")
    let db = folder.file("catalog.sqlite")
    _ = try ShelfProcess.run(["--db", db, "index", folder.file("library")])
    let listed = try ShelfProcess.run(["--db", db, "ls", "--json"])
    let entries = try #require(
      try JSONSerialization.jsonObject(with: Data(listed.stdoutBytes)) as? [[String: Any]])
    #expect(entries.first?["mime"] as? String == "audio/amr")
    #expect((entries.first?["error"] as? String)?.hasSuffix("no AMR frames") == true, "\(entries)")
  }
}
