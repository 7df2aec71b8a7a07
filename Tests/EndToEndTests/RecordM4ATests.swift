import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf record` into M4A (AAC, ALAC) and ALAC CAF through the file-backed capture device,
/// checked with ffmpeg and ffprobe as the independent readers.
@Suite(.serialized) struct RecordM4ATests {
  /// Ten seconds of known 16-bit stereo "signal" as the capture input.
  static let inputBytes = AudioE2E.randomBytes(44100 * 4 * 10)

  func setUp() throws -> (TemporaryDirectory, [String: String]) {
    let folder = try TemporaryDirectory()
    try folder.write("input.raw", Self.inputBytes)
    let config = try AudioE2E.alsaConfig(in: folder, played: "/dev/null")
    return (folder, ["ALSA_CONFIG_PATH": config])
  }

  /// ffprobe's `key=value` lines for the first audio stream.
  static func probe(_ path: String, _ entries: String) throws -> [String: String] {
    let result = try AudioE2E.tool([
      "ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", entries, "-of", "default=nw=1",
      path,
    ])
    var values: [String: String] = [:]
    for line in String(decoding: result.stdout, as: UTF8.self).split(separator: "\n") {
      let parts = line.split(separator: "=", maxSplits: 1)
      if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
    }
    return values
  }

  /// ffmpeg's decode as 16-bit little-endian samples; fails on any decoding error.
  static func ffmpegDecode(_ path: String) throws -> [UInt8] {
    let result = try AudioE2E.tool(["ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-"])
    #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
    return Array(result.stdout)
  }

  @Test func m4aIsAACLowComplexityInMP4WithTheRecordedLength() throws {
    let (folder, env) = try setUp()
    let output = folder.path + "/memo.m4a"
    let result = try ShelfProcess.run(["record", "-d", "2", "-c", "1", output], environment: env)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.hasPrefix("Recorded 2.00 s (88200 frames, 44100 Hz, 1 ch, float) to \(output)"))
    let facts = try Self.probe(output, "stream=codec_name,profile,sample_rate,channels:format=format_name")
    #expect(facts["codec_name"] == "aac")
    #expect(facts["profile"] == "LC")
    #expect(facts["sample_rate"] == "44100")
    #expect(facts["channels"] == "1")
    #expect(facts["format_name"]?.contains("mp4") == true)
    // ffmpeg decodes it cleanly; the edit list names the encoder delay, so the stream starts
    // at the first captured sample: ffprobe's duration less that delay is what was captured.
    let decoded = try Self.ffmpegDecode(output)
    #expect(decoded.count >= 88200 * 2)
    let timing = try Self.probe(output, "stream=start_pts,duration_ts")
    let start = Int(timing["start_pts"] ?? "") ?? 0
    #expect(start < 0)
    #expect((Int(timing["duration_ts"] ?? "") ?? 0) + start == 88200)
    // shelf plays back exactly the recorded length.
    let played = folder.path + "/played.raw"
    let play = try ShelfProcess.run(
      ["play", "--json", "-D", "file:'\(played)',raw", output], environment: env)
    #expect(play.status == 0, "\(play.stderr)")
    #expect(play.stdout.contains("\"duration\":2,"))
  }

  /// ALAC in M4A and in CAF holds the captured samples bit for bit.
  @Test(arguments: ["take.m4a", "take.caf"])
  func alacHoldsTheExactSignal(_ name: String) throws {
    let (folder, env) = try setUp()
    let output = folder.path + "/" + name
    let result = try ShelfProcess.run(["record", "-d", "1.5", "--codec", "alac", output], environment: env)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try Self.probe(output, "stream=codec_name")["codec_name"] == "alac")
    let decoded = try Self.ffmpegDecode(output)
    let same = decoded == Array(Self.inputBytes.prefix(66150 * 4))
    #expect(same, "\(decoded.count) bytes decoded")
  }

  /// A recorder killed by SIGKILL leaves an M4A that plays every fragment it wrote: with ALAC,
  /// the samples decoded are exactly the captured ones, up to at most the fragment in flight.
  @Test func killNineLeavesAnM4AThatPlaysEveryWrittenFragment() throws {
    let (folder, env) = try setUp()
    let output = folder.path + "/take.m4a"
    let process = try AudioE2E.Running(
      ["record", "--no-interactive", "--codec", "alac", output], environment: env, in: folder.path)
    // Several fragments (a second, 176 kB each) have reached the file.
    #expect(ObservableWait.until { ObservableWait.size(output) > 4 * 176_400 })
    kill(process.pid, SIGKILL)
    #expect(process.wait() == 128 + SIGKILL)
    let size = AudioE2E.bytes(output).count
    let result = try AudioE2E.tool(["ffmpeg", "-v", "error", "-i", output, "-f", "s16le", "-"])
    #expect(result.status == 0, "\(result.stderr)")
    let decoded = Array(result.stdout)
    // ALAC of noise is about as large as the samples: all but the last fragment decode.
    #expect(decoded.count >= 3 * 176_400)
    #expect(decoded.count > size - 2 * 176_400)
    // (Past the input's ten seconds the file device repeats stale data: compare within them.)
    let same = zip(decoded, Self.inputBytes).allSatisfy { $0 == $1 }
    #expect(same, "\(decoded.count) bytes decoded from a \(size)-byte file")
  }

  /// The same for AAC: after SIGKILL, every packet of every fragment decodes.
  @Test func killNineLeavesAnAACMemoThatDecodes() throws {
    let (folder, env) = try setUp()
    let output = folder.path + "/memo.m4a"
    let process = try AudioE2E.Running(
      ["record", "--no-interactive", output], environment: env, in: folder.path)
    #expect(ObservableWait.until { ObservableWait.size(output) > 80_000 })
    kill(process.pid, SIGKILL)
    #expect(process.wait() == 128 + SIGKILL)
    let packets = try Self.probe(output, "stream=codec_name")
    let counted = try AudioE2E.tool([
      "ffprobe", "-v", "error", "-count_packets", "-select_streams", "a:0", "-show_entries",
      "stream=nb_read_packets", "-of", "csv=p=0", output,
    ])
    let count =
      Int(String(decoding: counted.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
      ?? 0
    #expect(packets["codec_name"] == "aac")
    // 128 kbit/s is 16 kB a second: more than four seconds were written, every packet decodes.
    #expect(count >= 4 * 43)
    let decoded = try Self.ffmpegDecode(output)
    #expect(decoded.count == count * 1024 * 4)
  }

  @Test func aCodecTheFormatCannotHoldIsAUsageError() throws {
    let (folder, env) = try setUp()
    let flac = try ShelfProcess.run(["record", "--codec", "alac", folder.path + "/a.flac"], environment: env)
    #expect(flac.status == 64)
    #expect(flac.stderr.hasPrefix("error: FLAC has a codec of its own; --codec applies to m4a and caf\n"))
    let m4a = try ShelfProcess.run(["record", "--codec", "pcm", folder.path + "/a.m4a"], environment: env)
    #expect(m4a.status == 64)
    #expect(m4a.stderr.hasPrefix("error: invalid value 'pcm' for '--codec': expected aac or alac\n"))
    #expect(!FileManager.default.fileExists(atPath: folder.path + "/a.m4a"))
  }
}
