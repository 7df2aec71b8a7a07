import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf play` of what a phone or a music library holds beyond libsndfile's formats (MP4/M4A,
/// Opus in MP4, WMA, AC-3, E-AC-3, Speex, WavPack, TTA, MOV), into ALSA's `file` plugin; the
/// samples that reach ALSA are compared with ffmpeg's own decode. (Files made by other encoders,
/// AMR, Musepack, DTS and DSF, are in `OtherEncodersFormatsTests`.)
@Suite struct PlayFFmpegFormatsTests {
  /// Makes `name` with ffmpeg from a 2-second stereo sweep with noise.
  static func make(_ folder: TemporaryDirectory, _ name: String, _ options: [String], rate: Int = 44100)
    throws
    -> String
  {
    let path = folder.path + "/" + name
    let source = "aevalsrc=0.4*sin(2*PI*(200+400*t)*t)+0.1*(random(0)-0.5)|0.3*sin(2*PI*330*t):s=\(rate):d=2"
    let result = try AudioE2E.tool(
      ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", source, "-ac", "2"] + options + [path])
    precondition(result.status == 0, result.stderr)
    return path
  }

  /// ffmpeg's decode of the first audio stream as raw samples of `format`.
  static func ffmpegDecode(_ path: String, _ format: String) throws -> [UInt8] {
    let result = try AudioE2E.tool(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-f", format, "-"])
    precondition(result.status == 0, result.stderr)
    return Array(result.stdout)
  }

  /// ffprobe's duration × rate of the first audio stream.
  static func probedFrames(_ path: String) throws -> Int {
    let result = try AudioE2E.tool([
      "ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=duration,sample_rate",
      "-of",
      "csv=p=0", path,
    ])
    let fields = String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(
      in: .whitespacesAndNewlines
    )
    .split(separator: ",")
    guard fields.count == 2, let rate = Double(fields[0]), let duration = Double(fields[1]) else { return -1 }
    return Int((rate * duration).rounded())
  }

  /// Plays `path` into a raw file and returns the bytes ALSA received.
  static func play(_ path: String, in folder: TemporaryDirectory) throws -> (status: Int32, played: [UInt8]) {
    let played = folder.path + "/played-\(UUID().uuidString).raw"
    let result = try ShelfProcess.run(["play", "--no-interactive", "-D", "file:'\(played)',raw", path])
    #expect(result.stderr.isEmpty || result.stderr.hasPrefix("Playing"), "\(result.stderr)")
    return (result.status, AudioE2E.bytes(played))
  }

  /// Each format's samples reach ALSA exactly as FFmpeg decodes them (in the codec's own
  /// sample type: float for AAC, Opus, WMA and AC-3, 16-bit for ALAC, WavPack and TTA of
  /// 16-bit sources), followed only by the silence that pads the last period.
  @Test(arguments: [
    ("aac.m4a", ["-c:a", "aac", "-b:a", "128k"], "f32le"),
    ("alac.m4a", ["-c:a", "alac", "-sample_fmt", "s16p"], "s16le"),
    ("alac24.m4a", ["-c:a", "alac", "-sample_fmt", "s32p"], "s32le"),
    ("voice.m4r", ["-c:a", "aac", "-b:a", "64k", "-f", "ipod"], "f32le"),
    ("book.m4b", ["-c:a", "aac", "-f", "ipod"], "f32le"),
    ("opus.mp4", ["-c:a", "libopus", "-ar", "48000"], "f32le"),
    ("music.wma", ["-c:a", "wmav2"], "f32le"),
    ("film.ac3", ["-c:a", "ac3"], "f32le"),
    ("film.eac3", ["-c:a", "eac3"], "f32le"),
    ("voice.spx", ["-c:a", "libspeex", "-ar", "16000"], "f32le"),
    ("music.wv", ["-c:a", "wavpack", "-sample_fmt", "s16p"], "s16le"),
    ("music.tta", ["-c:a", "tta", "-sample_fmt", "s16"], "s16le"),
    ("clip.3gp", ["-c:a", "aac", "-ar", "16000", "-ac", "1"], "f32le"),
  ])
  func playsExactlyWhatFFmpegDecodes(_ name: String, _ options: [String], _ format: String) throws {
    let folder = try TemporaryDirectory()
    let path = try Self.make(folder, name, options)
    let (status, played) = try Self.play(path, in: folder)
    #expect(status == 0)
    var expected = try Self.ffmpegDecode(path, format)
    let frameBytes = (format == "s16le" ? 2 : 4) * (name == "clip.3gp" ? 1 : 2)
    if [".m4a", ".m4r", ".m4b", ".mp4", ".3gp"].contains(where: name.hasSuffix) {
      // MP4 says its length to the sample: ffprobe's duration is what is heard (gapless), the
      // encoder's padding in the last frame, which ffmpeg's tool keeps, is trimmed.
      let frames = try Self.probedFrames(path)
      #expect(frames > 0 && frames * frameBytes <= expected.count)
      expected = Array(expected.prefix(frames * frameBytes))
    }
    #expect(played.count >= expected.count)
    let same = Array(played.prefix(expected.count)) == expected
    #expect(same, "\(name): \(played.count) bytes played, \(expected.count) expected")
    // What follows is the silence padding the last period (a tenth of a second at most).
    let padding = played.dropFirst(expected.count)
    #expect(padding.allSatisfy { $0 == 0 })
    #expect(padding.count < 48000 / 10 * frameBytes + frameBytes)
  }

  /// The sound of a video plays; a video without sound is one line, exit 65 for that item, and
  /// the playlist goes on.
  @Test func aVideoWithoutSoundIsSkippedWithOneLine() throws {
    let folder = try TemporaryDirectory()
    let silent = folder.path + "/silent.mov"
    let made = try AudioE2E.tool([
      "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=1:size=64x48", "-c:v", "mpeg4", silent,
    ])
    #expect(made.status == 0, "\(made.stderr)")
    let config = try AudioE2E.alsaConfig(in: folder)
    let env = ["ALSA_CONFIG_PATH": config]
    let alone = try ShelfProcess.run(["play", "--no-interactive", silent], environment: env)
    #expect(alone.status == 65)
    #expect(alone.stderr == "error: \(silent): no audio track\n")

    let film = folder.path + "/film.mov"
    let withSound = try AudioE2E.tool([
      "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=1:size=64x48", "-f", "lavfi", "-i",
      "sine=f=440:d=1", "-c:v", "mpeg4", "-c:a", "alac", "-sample_fmt", "s16p", "-ac", "2", film,
    ])
    #expect(withSound.status == 0, "\(withSound.stderr)")
    let both = try ShelfProcess.run(["play", "--json", silent, film], environment: env)
    #expect(both.status == 1)
    #expect(both.stderr == "error: \(silent): no audio track\n")
    let events = both.stdout.split(separator: "\n").map(String.init)
    #expect(events.count == 4)
    #expect(events.first?.hasPrefix("{\"event\":\"error\",\"track\":1,") == true)
    #expect(events.dropFirst().first?.hasPrefix("{\"event\":\"start\",\"track\":2,") == true)
    let expected = try Self.ffmpegDecode(film, "s16le")
    let played = AudioE2E.bytes(folder.path + "/played.raw")
    let same = Array(played.prefix(expected.count)) == expected
    #expect(same, "\(played.count) bytes played, \(expected.count) decoded by ffmpeg")
  }

  /// The decoder is chosen by what the file holds: an M4A named .wav plays, a WAV named .m4a
  /// plays through libsndfile, and a text file named .m4a is "not a recognised audio file".
  @Test func theContentNotTheExtensionChoosesTheDecoder() throws {
    let folder = try TemporaryDirectory()
    let m4a = try Self.make(folder, "real.m4a", ["-c:a", "alac", "-sample_fmt", "s16p"])
    let lying = folder.path + "/lies.wav"
    try FileManager.default.moveItem(atPath: m4a, toPath: lying)
    let (status, played) = try Self.play(lying, in: folder)
    #expect(status == 0)
    let expected = try Self.ffmpegDecode(lying, "s16le")
    let same = Array(played.prefix(expected.count)) == expected
    #expect(same, "\(played.count) bytes played, \(expected.count) decoded by ffmpeg")

    let text = try folder.write("notes.m4a", Array("just some words, not sound\n".utf8))
    let result = try ShelfProcess.run(["play", "--no-interactive", "-D", "null", text])
    #expect(result.status == 65)
    #expect(result.stderr == "error: \(text): not a recognised audio file\n")
  }

  /// An M4A cut short is one line, never a crash or FFmpeg's own log: without its `moov`
  /// (lost at the end) it cannot play (exit 65); with the `moov` up front and the samples cut,
  /// what is present plays and the track ends with "truncated".
  @Test func truncatedM4AIsOneLine() throws {
    let folder = try TemporaryDirectory()
    // moov at the end (ffmpeg's default): cutting the file loses it.
    let whole = try Self.make(folder, "whole.m4a", ["-c:a", "aac"])
    let bytes = AudioE2E.bytes(whole)
    let noMoov = try folder.write("nomoov.m4a", Array(bytes.prefix(bytes.count * 2 / 3)))
    let cut = try ShelfProcess.run(["play", "--no-interactive", "-D", "null", noMoov])
    #expect(cut.status == 65)
    #expect(cut.stderr.hasPrefix("error: \(noMoov): damaged audio file: "))
    #expect(cut.stderr.contains("moov atom not found"))
    #expect(cut.stderr.split(separator: "\n").count == 1)

    // moov up front (faststart), the samples cut off: what is present plays, then one line.
    let fast = folder.path + "/fast.m4a"
    let made = try AudioE2E.tool([
      "ffmpeg", "-v", "error", "-i", whole, "-c", "copy", "-movflags", "faststart", fast,
    ])
    #expect(made.status == 0)
    let fastBytes = AudioE2E.bytes(fast)
    let shortened = try folder.write("short.m4a", Array(fastBytes.prefix(fastBytes.count / 2)))
    let result = try ShelfProcess.run(["play", "--no-interactive", "-D", "null", shortened])
    // The track started (exit 1, as for any track that fails part way) and ends with one line.
    #expect(result.status == 1)
    #expect(result.stderr.hasPrefix("Playing \(shortened): "))
    let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error: ") }
    #expect(errors.count == 1)
    #expect(errors.first?.hasPrefix("error: \(shortened): truncated audio file: ") == true)
    #expect(!result.stderr.contains("[mov,mp4"))
  }
}
