import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf record` into M4A (AAC, ALAC) and ALAC CAF through the file-backed capture device,
/// checked with ffmpeg and ffprobe as the independent readers.
@Suite(.serialized) struct RecordM4ATests {
  static let inputBytes = AudioE2E.captureInput

  func setUp() throws -> (TemporaryDirectory, [String: String]) { try AudioE2E.captureFolder() }

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
    // ffmpeg decodes it cleanly. A clean stop leaves a plain MP4 (no fragments left) whose edit
    // list names the encoder delay: the first packet is stamped 1024 samples before time 0, and
    // the stream's length is exactly what was captured.
    let decoded = try Self.ffmpegDecode(output)
    #expect(decoded.count >= 88200 * 2)
    let timing = try Self.probe(output, "stream=start_pts,duration_ts")
    #expect(timing["duration_ts"] == "88200")
    let first = try AudioE2E.tool([
      "ffprobe", "-v", "error", "-select_streams", "a:0", "-read_intervals", "%+#1", "-show_entries",
      "packet=pts", "-of", "csv=p=0", output,
    ])
    #expect(String(decoding: first.stdout, as: UTF8.self).hasPrefix("-1024"))
    #expect(!Self.holdsAtom("moof", output))
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

  /// True when the four-character atom type `name` occurs in the file at `path`.
  static func holdsAtom(_ name: String, _ path: String) -> Bool {
    let bytes = AudioE2E.bytes(path)
    let wanted = Array(name.utf8)
    guard bytes.count >= wanted.count else { return false }
    return (0...(bytes.count - wanted.count)).contains { Array(bytes[$0..<($0 + wanted.count)]) == wanted }
  }

  /// A recorder fed from a FIFO: the capture takes only what the test writes into it, so the
  /// test knows a lower bound of what was captured. Returns the running recorder and the
  /// FIFO's descriptor (open for reading and writing, so that neither side waits to open it).
  static func recordFromFIFO(_ folder: TemporaryDirectory, _ output: String, channels: Int)
    throws -> (AudioE2E.Running, Int32)
  {
    let fifo = folder.path + "/input.fifo"
    #expect(mkfifo(fifo, 0o600) == 0)
    let descriptor = open(fifo, O_RDWR | O_NONBLOCK)
    #expect(descriptor >= 0)
    let config = try AudioE2E.alsaConfig(in: folder, played: "/dev/null", input: fifo)
    let process = try AudioE2E.Running(
      ["record", "--no-interactive", "-c", "\(channels)", output], environment: ["ALSA_CONFIG_PATH": config],
      in: folder.path)
    return (process, descriptor)
  }

  /// Killed before its first fragment, the recorder leaves an M4A that opens (its moov was
  /// written when the file was created), not a header without one.
  @Test func killNineInTheFirstSecondLeavesAnM4AThatOpens() throws {
    let folder = try TemporaryDirectory()
    let output = folder.path + "/memo.m4a"
    let (process, fifo) = try Self.recordFromFIFO(folder, output, channels: 1)
    defer { close(fifo) }
    // Nothing is fed: the recorder waits for its first samples with its header on disk.
    #expect(ObservableWait.until { ObservableWait.size(output) > 0 })
    kill(process.pid, SIGKILL)
    #expect(process.wait() == 128 + SIGKILL)
    let facts = try Self.probe(output, "stream=codec_name,sample_rate,channels")
    #expect(facts["codec_name"] == "aac")
    #expect(facts["sample_rate"] == "44100")
    #expect(facts["channels"] == "1")
    let decoded = try AudioE2E.tool(["ffmpeg", "-v", "error", "-i", output, "-f", "s16le", "-"])
    #expect(decoded.status == 0, "\(decoded.stderr)")
  }

  /// Killed after three seconds were captured, the recorder leaves an M4A that decodes to all
  /// of them but the fragment in flight (a second), the encoder's two frames and a capture block.
  @Test func killNineLosesAtMostTheFragmentInFlight() throws {
    let folder = try TemporaryDirectory()
    let output = folder.path + "/memo.m4a"
    let (process, fifo) = try Self.recordFromFIFO(folder, output, channels: 1)
    defer { close(fifo) }
    // Three seconds of a 440 Hz tone as mono floats (what the recorder asks of the device).
    let fed = 3 * 44100
    var samples = (0..<fed).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 44100)) }
    var offset = 0
    let total = fed * 4
    // Written as the recorder takes it (the pipe holds 64 KiB), then read to the last byte.
    let consumed = ObservableWait.until {
      if offset < total {
        let written = samples.withUnsafeMutableBytes { write(fifo, $0.baseAddress! + offset, total - offset) }
        if written > 0 { offset += written }
        return false
      }
      var pending: Int32 = 0
      return ioctl(fifo, UInt(FIONREAD), &pending) == 0 && pending == 0
    }
    #expect(consumed)
    kill(process.pid, SIGKILL)
    #expect(process.wait() == 128 + SIGKILL)
    let decoded = try AudioE2E.tool(["ffmpeg", "-v", "error", "-i", output, "-f", "s16le", "-"])
    #expect(decoded.status == 0, "\(decoded.stderr)")
    let frames = decoded.stdout.count / 2
    #expect(frames >= fed - 44100 - 2048 - 4410, "\(frames) frames decoded of \(fed) captured")
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
