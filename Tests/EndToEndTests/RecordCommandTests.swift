import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf record` against a capture device backed by a file (ALSA's `file` plugin with an
/// `infile`), checked with sox as an independent reader.
@Suite(.serialized) struct RecordCommandTests {
  static let inputBytes = AudioE2E.captureInput

  func setUp() throws -> (TemporaryDirectory, [String: String]) { try AudioE2E.captureFolder() }

  @Test func recordingHoldsExactlyTheCapturedSignal() throws {
    let (folder, env) = try setUp()
    let output = folder.path + "/take.wav"
    let result = try ShelfProcess.run(["record", "--duration", "1.5", output], environment: env)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr == "Recorded 1.50 s (66150 frames, 44100 Hz, 2 ch, s16) to \(output), 259 KiB\n")
    #expect(try AudioE2E.decoded(output) == Array(Self.inputBytes.prefix(66150 * 4)))
    let header = AudioE2E.bytes(output).prefix(4)
    #expect(Array(header) == Array("RIFF".utf8))
  }

  @Test(arguments: ["flac", "aiff", "caf", "w64"])
  func losslessContainersHoldTheExactSignal(_ ext: String) throws {
    let (folder, env) = try setUp()
    let output = folder.path + "/take.\(ext)"
    let result = try ShelfProcess.run(["record", "-d", "0.5", "--no-interactive", output], environment: env)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try AudioE2E.decoded(output) == Array(Self.inputBytes.prefix(22050 * 4)))
  }

  @Test func monoTwentyFourBitAt48kHz() throws {
    let (folder, env) = try setUp()
    let output = folder.path + "/take.flac"
    let result = try ShelfProcess.run(
      ["record", "-r", "48000", "-c", "1", "--sample-format", "s24", "-d", "0.25", output], environment: env)
    #expect(result.status == 0, "\(result.stderr)")
    let info = try AudioE2E.tool(["soxi", output])
    let text = String(decoding: info.stdout, as: UTF8.self)
    #expect(text.contains("Channels       : 1"))
    #expect(text.contains("Sample Rate    : 48000"))
    #expect(text.contains("Precision      : 24-bit"))
    // The input's bytes, read 3 per sample, are the recorded samples.
    #expect(try AudioE2E.decoded(output, bits: 24) == Array(Self.inputBytes.prefix(12000 * 3)))
  }

  @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
  func stopSignalsFinaliseAValidFile(_ signal: Int32) throws {
    let (folder, env) = try setUp()
    let output = folder.path + "/take.wav"
    // The file-backed device is not paced: a short run records many seconds.
    let process = try AudioE2E.Running(
      ["record", "--no-interactive", output], environment: env, in: folder.path)
    // Recording has begun (and its stop signals are handled) once samples reach the file.
    #expect(ObservableWait.until { ObservableWait.size(output) > 44 + 8 * 44100 })
    kill(process.pid, signal)
    let status = process.wait()
    #expect(status == 0, "\(process.stderr)")
    #expect(process.stderr.hasPrefix("Recorded "))
    let bytes = AudioE2E.bytes(output)
    #expect(bytes.count > 44 + 4 * 44100)
    // The RIFF header counts every byte, and sox reads every frame.
    let riffSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
    #expect(riffSize + 8 == bytes.count)
    let decoded = try AudioE2E.decoded(output)
    #expect(decoded.count % 4 == 0)
    #expect(Array(decoded.prefix(Self.inputBytes.count)) == Array(Self.inputBytes.prefix(decoded.count)))
  }

  @Test func killNineLeavesAFileThatOpensWithEverythingWritten() throws {
    let (folder, env) = try setUp()
    let output = folder.path + "/take.wav"
    let process = try AudioE2E.Running(
      ["record", "--no-interactive", output], environment: env, in: folder.path)
    #expect(ObservableWait.until { ObservableWait.size(output) > 44 + 8 * 44100 })
    kill(process.pid, SIGKILL)
    #expect(process.wait() == 128 + SIGKILL)
    let bytes = AudioE2E.bytes(output)
    #expect(bytes.count > 44)
    let riffSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
    // The kill may fall between a block's data and its header update: the header may lag by
    // that block, never by more than a second of audio.
    #expect(riffSize + 8 <= bytes.count)
    #expect(bytes.count - (riffSize + 8) < 44100 * 4)
    let decoded = try AudioE2E.decoded(output)
    #expect(decoded.count > 0)
    #expect(decoded.count >= bytes.count - 200 - 44100 * 4)
    #expect(Array(decoded.prefix(4 * 44100)) == Array(Self.inputBytes.prefix(min(decoded.count, 4 * 44100))))
  }

  @Test func maxSizeStopsBeforeTheLimit() throws {
    let (folder, env) = try setUp()
    let output = folder.path + "/take.wav"
    let result = try ShelfProcess.run(["record", "--max-size", "100K", output], environment: env)
    #expect(result.status == 0, "\(result.stderr)")
    let size = AudioE2E.bytes(output).count
    #expect(size <= 102_400)
    #expect(size > 102_400 - 4)
    let decoded = try AudioE2E.decoded(output)
    #expect(decoded == Array(Self.inputBytes.prefix(decoded.count)))
  }

  @Test func fullDiskStopsWithAnErrorAndAValidFile() throws {
    let (folder, env) = try setUp()
    let output = folder.path + "/take.wav"
    // A file size limit of 200 KiB stands in for a full disk: writes fail with EFBIG.
    let process = try AudioE2E.Running(
      ["record", "--no-interactive", output], environment: env, in: folder.path,
      shell: "ulimit -f 200; exec \"$@\"")
    let status = process.wait()
    #expect(status == 74, "\(process.stderr)")
    let lines = process.stderr.split(separator: "\n").map(String.init)
    #expect(lines.count == 3)
    #expect(lines.dropFirst().first == "error: \(output): write failed: file too large")
    #expect(lines.last?.hasPrefix("\(output) is complete and valid up to the failure") == true)
    let decoded = try AudioE2E.decoded(output)
    #expect(decoded.count > 100_000)
    #expect(decoded == Array(Self.inputBytes.prefix(decoded.count)))
  }

  @Test func refusesToOverwriteWithoutForce() throws {
    let (folder, env) = try setUp()
    let output = try folder.write("old.wav", Array("keep me".utf8))
    let refused = try ShelfProcess.run(["record", "-d", "0.1", output], environment: env)
    #expect(refused.status == 73)
    #expect(refused.stderr == "error: \(output): file exists (use --force to overwrite)\n")
    #expect(AudioE2E.bytes(output) == Array("keep me".utf8))
    let forced = try ShelfProcess.run(["record", "-d", "0.1", "--force", output], environment: env)
    #expect(forced.status == 0)
    #expect(try AudioE2E.decoded(output).count == 4410 * 4)
  }

  @Test func badRequestsGiveOneLineErrors() throws {
    let (folder, env) = try setUp()
    let device = try ShelfProcess.run(
      ["record", "-D", "nosuchdevice", "-d", "1", folder.path + "/a.wav"], environment: env)
    #expect(device.status == 66)
    #expect(
      device.stderr
        == "error: device nosuchdevice: no such ALSA device (no sound card? try -D null, which records silence)\n"
    )
    #expect(!FileManager.default.fileExists(atPath: folder.path + "/a.wav"))

    let opus = try ShelfProcess.run(
      ["record", "-r", "44100", "-d", "1", folder.path + "/a.opus"], environment: env)
    #expect(opus.status == 64)
    #expect(opus.stderr.hasPrefix("error: \(folder.path)/a.opus: Opus cannot be recorded at 44100 Hz: "))
    #expect(!FileManager.default.fileExists(atPath: folder.path + "/a.opus"))

    let channels = try ShelfProcess.run(
      ["record", "-c", "12", "-d", "1", folder.path + "/a.flac"], environment: env)
    #expect(channels.status == 65)
    #expect(
      channels.stderr == "error: \(folder.path)/a.flac: FLAC cannot hold 12 channel(s) at 44100 Hz as s16\n")

    let sixChannels = try ShelfProcess.run(
      ["record", "-D", "stereoonly", "-c", "6", "-d", "1", folder.path + "/six.wav"], environment: env)
    #expect(sixChannels.status == 65)
    #expect(
      sixChannels.stderr == "error: device stereoonly: device does not support 6 channel(s) (it supports 2)\n"
    )
    #expect(!FileManager.default.fileExists(atPath: folder.path + "/six.wav"))

    let unknown = try ShelfProcess.run(["record", folder.path + "/a.xyz"], environment: env)
    #expect(unknown.status == 64)
    #expect(
      unknown.stderr.hasPrefix(
        "error: cannot tell the file format from '\(folder.path)/a.xyz': add an extension"))

    let folderOutput = try ShelfProcess.run(
      ["record", "-d", "0.1", "-f", "wav", folder.path + "/missing/a"], environment: env)
    #expect(folderOutput.status == 73)
    #expect(
      folderOutput.stderr == "error: \(folder.path)/missing/a: cannot create: no such file or directory\n")
  }

  @Test func aRecordingInsideACataloguedRootIsCatalogued() throws {
    let (folder, env) = try setUp()
    let root = folder.path + "/sandbox"
    try FileManager.default.createDirectory(atPath: root + "/Documents", withIntermediateDirectories: true)
    let db = folder.path + "/catalog.sqlite"
    let index = try ShelfProcess.run(["--db", db, "index", root], environment: env)
    #expect(index.status == 0, "\(index.stderr)")
    let output = root + "/Documents/memo.flac"
    let result = try ShelfProcess.run(["--db", db, "record", "-d", "0.5", output], environment: env)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.hasSuffix("Catalogued \(output)\n"))
    let listed = try ShelfProcess.run(["--db", db, "ls", "kind:audio", "-0"], environment: env)
    #expect(listed.stdout == output + "\u{0}")
    // Outside every root: recorded, not catalogued.
    let outside = try ShelfProcess.run(
      ["--db", db, "record", "-d", "0.1", folder.path + "/x.wav"], environment: env)
    #expect(outside.status == 0)
    #expect(!outside.stderr.contains("Catalogued"))
  }

  @Test func terminalShowsTimeSizeAndAPeakMeterWithClipping() throws {
    let folder = try TemporaryDirectory()
    let fifo = folder.path + "/input.fifo"
    #expect(mkfifo(fifo, 0o600) == 0)
    let config = try AudioE2E.alsaConfig(in: folder, played: "/dev/null", input: fifo)
    // Left channel at full scale, right channel silent, fed at real time in 50 ms blocks.
    var bytes: [UInt8] = []
    for _ in 0..<2205 { bytes += [0xFF, 0x7F, 0x00, 0x00] }
    let block = bytes
    let feeding = Thread {
      // When shelf stops reading, writes must fail with EPIPE rather than kill the tests.
      var pipeSignal = sigset_t()
      sigemptyset(&pipeSignal)
      sigaddset(&pipeSignal, SIGPIPE)
      pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
      let fd = open(fifo, O_WRONLY)
      guard fd >= 0 else { return }
      for _ in 0..<200 {
        let written = block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if written <= 0 { break }
        usleep(50_000)
      }
      close(fd)
    }
    let output = folder.path + "/take.wav"
    let tmux = try AudioE2E.Tmux(
      "ALSA_CONFIG_PATH=\(config) \(ShelfProcess.binary) record --duration 3 \(output); echo \"EXIT=$?\"; sleep 60"
    )
    feeding.start()
    var screen = tmux.waitFor("REC 0:01")
    #expect(screen.contains("REC 0:01  "), "\(screen)")
    #expect(screen.contains("L 0.0 R -inf dBFS  CLIP"), "\(screen)")
    screen = tmux.waitFor("EXIT=")
    #expect(screen.contains("Recorded 3.00 s (132300 frames, 44100 Hz, 2 ch, s16) to \(output)"), "\(screen)")
    #expect(screen.contains("EXIT=0"))
    #expect(!screen.contains("REC 0:"))
  }
}
