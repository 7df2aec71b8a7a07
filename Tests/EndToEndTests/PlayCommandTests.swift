import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Helpers for the audio end-to-end tests: ALSA without a sound card (the `file` and `null`
/// plugins), sox as the independent reader of what shelf wrote, and processes to signal.
enum AudioE2E {
  /// Ten seconds of known 16-bit stereo "signal" that the record tests capture.
  static let captureInput = randomBytes(44100 * 4 * 10)

  /// A folder whose `input.raw` holds `captureInput` and the environment that makes ALSA's
  /// `default` capture from it; what the file plugin "plays" meanwhile goes nowhere.
  static func captureFolder() throws -> (TemporaryDirectory, [String: String]) {
    let folder = try TemporaryDirectory()
    try folder.write("input.raw", captureInput)
    let config = try alsaConfig(in: folder, played: "/dev/null")
    return (folder, ["ALSA_CONFIG_PATH": config])
  }

  /// An ALSA configuration that keeps the system's and makes `default` play into `played`
  /// and record from `input`.
  @discardableResult
  static func alsaConfig(in folder: TemporaryDirectory, played: String? = nil, input: String? = nil) throws
    -> String
  {
    let played = played ?? folder.path + "/played.raw"
    let input = input ?? folder.path + "/input.raw"
    let text = """
      </usr/share/alsa/alsa.conf>
      pcm.!default {
        type file
        slave.pcm { type null }
        file "\(played)"
        infile "\(input)"
        format "raw"
      }
      pcm.shelftest {
        type null
        hint { show on description "Shelf test device" }
      }
      pcm.stereoonly {
        type multi
        slaves.a { pcm { type file; slave.pcm { type null }; file "\(folder.path)/stereo-played.raw"; format "raw" } channels 2 }
        bindings.0 { slave a; channel 0 }
        bindings.1 { slave a; channel 1 }
      }

      """
    return try folder.write("asound.conf", Array(text.utf8))
  }

  /// Runs a tool and returns its stdout bytes and exit status.
  static func tool(_ arguments: [String], stdin: String? = nil) throws -> (
    status: Int32, stdout: Data, stderr: String
  ) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    if let stdin { process.standardInput = FileHandle(forReadingAtPath: stdin) }
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, data, String(decoding: errors, as: UTF8.self))
  }

  /// A sine sweep with noise, written by sox: `name` in the given encoding.
  static func makeSignal(
    _ folder: TemporaryDirectory, _ name: String, seconds: Double = 1, rate: Int = 44100, channels: Int = 2,
    bits: Int = 16, extra: [String] = []
  ) throws -> String {
    let path = folder.path + "/" + name
    let result = try tool(
      ["sox", "-n", "-r", "\(rate)", "-c", "\(channels)", "-b", "\(bits)"] + extra + [
        path, "synth", "\(seconds)", "sine", "200-3000", "whitenoise", "vol", "0.5", "dither", "-s",
      ])
    precondition(result.status == 0, result.stderr)
    return path
  }

  /// The samples sox decodes from `path`, as raw little-endian bytes of `bits`-bit signed PCM.
  static func decoded(_ path: String, bits: Int = 16) throws -> [UInt8] {
    let result = try tool(["sox", path, "-t", "raw", "-e", "signed", "-b", "\(bits)", "-L", "-"])
    precondition(result.status == 0, result.stderr)
    return Array(result.stdout)
  }

  static func bytes(_ path: String) -> [UInt8] {
    Array(FileManager.default.contents(atPath: path) ?? Data())
  }

  /// Random bytes (a known "signal") for file-backed capture.
  static func randomBytes(_ count: Int, seed: UInt64 = 42) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 33)
    }
  }

  /// A running shelf process whose output goes to files, to be signalled.
  final class Running {
    let pid: pid_t
    let folder: String

    init(_ arguments: [String], environment: [String: String], in folder: String, shell: String? = nil) throws
    {
      self.folder = folder
      let words: [String]
      let program: String
      if let shell {
        program = "/bin/sh"
        words = ["/bin/sh", "-c", shell, "sh", ShelfProcess.binary] + arguments
      } else {
        program = ShelfProcess.binary
        words = [ShelfProcess.binary] + arguments
      }
      pid = try ShelfProcess.spawn(
        program, words.map { Array($0.utf8) }, environment: environment, stdinPath: nil,
        stdoutPath: folder + "/stdout", stderrPath: folder + "/stderr")
    }

    /// Waits for the exit and returns the status (128 + signal when killed).
    func wait(timeout: Double = 30) -> Int32 {
      ShelfProcess.wait(for: pid, timeout: timeout) ?? -1
    }

    var stderr: String { String(decoding: AudioE2E.bytes(folder + "/stderr"), as: UTF8.self) }
    var stdout: String { String(decoding: AudioE2E.bytes(folder + "/stdout"), as: UTF8.self) }
  }

  /// A 30-second stereo WAV in `folder` and a FIFO beside it that a `PacedReader` drains at
  /// `bytesPerSecond` (up to `limit` bytes): the device for `-D "file:'<fifo>',raw"`.
  static func longSignalAndPacedFIFO(
    _ folder: TemporaryDirectory, bytesPerSecond: Int = 176_400, limit: Int = .max
  ) throws -> (wav: String, fifo: String, reader: PacedReader) {
    let wav = try makeSignal(folder, "long.wav", seconds: 30)
    let fifo = folder.path + "/fifo"
    #expect(mkfifo(fifo, 0o600) == 0)
    return (wav, fifo, PacedReader(fifo: fifo, bytesPerSecond: bytesPerSecond, limit: limit))
  }

  /// Reads a FIFO at `bytesPerSecond` on a thread, so that ALSA's `file` plugin writing into it
  /// is paced like a real device. `collected` holds everything read.
  final class PacedReader: @unchecked Sendable {
    private let lock = NSLock()
    private var data: [UInt8] = []
    private var finished = false
    private var descriptor: Int32 = -1

    /// Reads `fifo` at `bytesPerSecond`; after `limit` bytes it closes the pipe, as a device
    /// that goes away would.
    init(fifo: String, bytesPerSecond: Int, limit: Int = .max) {
      let thread = Thread { [self] in
        let fd = open(fifo, O_RDONLY)
        guard fd >= 0 else { return }
        lock.lock()
        descriptor = fd
        lock.unlock()
        let chunk = bytesPerSecond / 20
        var buffer = [UInt8](repeating: 0, count: chunk)
        while collected.count < limit {
          let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, chunk) }
          if n <= 0 { break }
          lock.lock()
          data += buffer[0..<n]
          lock.unlock()
          usleep(50_000)
        }
        lock.lock()
        close(fd)
        descriptor = -1
        finished = true
        lock.unlock()
      }
      thread.start()
    }

    var collected: [UInt8] {
      lock.lock()
      defer { lock.unlock() }
      return data
    }

    /// True when the pipe holds no bytes for the reader: the player has stopped writing
    /// (while it writes, it keeps the pipe full, being faster than the reader).
    var pipeIsEmpty: Bool {
      lock.lock()
      defer { lock.unlock() }
      guard descriptor >= 0 else { return false }
      var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      return poll(&request, 1, 0) == 0
    }

    var isFinished: Bool {
      lock.lock()
      defer { lock.unlock() }
      return finished
    }
  }

  /// A tmux session running a command, with helpers to type and read the screen.
  final class Tmux {
    let name: String
    /// A private server: other tests (and other people's tmux) on the machine cannot disturb it.
    let socket: String

    init(_ command: String, width: Int = 100, height: Int = 12) throws {
      name = "shelf-test-\(getpid())-\(Int.random(in: 0..<1_000_000))"
      socket = "/tmp/\(name).sock"
      // The tmux server outlives this call: it must not inherit pipes we wait on, nor the
      // test process's blocked or ignored signals (its event loop needs SIGCHLD).
      let arguments = [
        "tmux", "-S", socket, "new-session", "-d", "-s", name, "-x", "\(width)", "-y", "\(height)", command,
      ]
      var actions = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      defer { posix_spawn_file_actions_destroy(&actions) }
      for descriptor in Int32(0)...2 {
        posix_spawn_file_actions_addopen(
          &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
      }
      let argv = arguments.map { strdup($0) } + [nil]
      defer { argv.forEach { free($0) } }
      var pid: pid_t = 0
      let code = ShelfProcess.withDefaultSignals { posix_spawnp(&pid, "tmux", &actions, &$0, argv, environ) }
      precondition(code == 0, "cannot start tmux")
      var status: Int32 = 0
      waitpid(pid, &status, 0)
      precondition(status == 0, "tmux new-session failed")
    }

    deinit {
      _ = try? AudioE2E.tool(["tmux", "-S", socket, "kill-server"])
      unlink(socket)
    }

    func send(_ keys: String...) throws {
      _ = try AudioE2E.tool(["tmux", "-S", socket, "send-keys", "-t", name] + keys)
    }

    var screen: String {
      guard let result = try? AudioE2E.tool(["tmux", "-S", socket, "capture-pane", "-p", "-t", name]) else {
        return "(tmux did not run)"
      }
      return result.status == 0 ? String(decoding: result.stdout, as: UTF8.self) : "(tmux: \(result.stderr))"
    }

    /// Waits until the screen holds the player's playing status line (or the time runs out)
    /// and returns the position it shows, in whole seconds, its filled bar cells, and when
    /// the screen was read (seconds since the reference date).
    func waitForPosition(
      timeout: Double = 15, where accept: ((seconds: Int, filled: Int, at: Double)) -> Bool = { _ in true }
    ) -> (seconds: Int, filled: Int, at: Double)? {
      let line = #/> 1/1 long\.wav  0:(\d\d) / 0:30 \[(#*)-*\] vol \d+%/#
      let deadline = Date().addingTimeInterval(timeout)
      while Date() < deadline {
        let current = screen
        let read = Date().timeIntervalSinceReferenceDate
        if let match = current.firstMatch(of: line), let seconds = Int(match.output.1),
          accept((seconds, match.output.2.count, read))
        {
          return (seconds, match.output.2.count, read)
        }
        usleep(100_000)
      }
      return nil
    }

    /// Waits until the screen contains `text` (or the time runs out) and returns the screen.
    @discardableResult
    func waitFor(_ text: String, timeout: Double = 15) -> String {
      let deadline = Date().addingTimeInterval(timeout)
      var current = screen
      while !current.contains(text) && Date() < deadline {
        usleep(100_000)
        current = screen
      }
      return current
    }
  }
}

@Suite(.serialized) struct PlayCommandTests {
  @Test func playbackSamplesReachALSAExactlyAcrossFormats() throws {
    let folder = try TemporaryDirectory()
    let wav = try AudioE2E.makeSignal(folder, "a.wav", seconds: 0.5)
    let flac = try AudioE2E.makeSignal(folder, "b.flac", seconds: 0.3)
    let aiff = try AudioE2E.makeSignal(folder, "c.aiff", seconds: 0.2)
    let config = try AudioE2E.alsaConfig(in: folder)
    let result = try ShelfProcess.run(
      ["play", "--no-interactive", wav, flac, aiff], environment: ["ALSA_CONFIG_PATH": config])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.contains("Playing \(wav): Signed 16 bit PCM, 44100 Hz, stereo, 0:00\n"))
    let expected = try AudioE2E.decoded(wav) + AudioE2E.decoded(flac) + AudioE2E.decoded(aiff)
    let played = AudioE2E.bytes(folder.path + "/played.raw")
    // Same rate and channels: one stream, no gap between tracks; silence pads the last period.
    #expect(played.count >= expected.count)
    #expect(Array(played.prefix(expected.count)) == expected)
    #expect(played.dropFirst(expected.count).allSatisfy { $0 == 0 })
  }

  @Test func twentyFourBitPlaysBitExactThroughTheFileDevice() throws {
    let folder = try TemporaryDirectory()
    let flac = try AudioE2E.makeSignal(folder, "hi.flac", seconds: 0.4, rate: 96000, bits: 24)
    let played = folder.path + "/out.raw"
    let result = try ShelfProcess.run(["play", "-D", "file:'\(played)',raw", "--no-interactive", flac])
    #expect(result.status == 0, "\(result.stderr)")
    // 24-bit samples travel as S32_LE: compare with sox's 32-bit decoding.
    let expected = try AudioE2E.decoded(flac, bits: 32)
    let bytes = AudioE2E.bytes(played)
    #expect(Array(bytes.prefix(expected.count)) == expected)
  }

  @Test func playsAFolderInNameOrderAndSkipsWhatItCannotDecode() throws {
    let folder = try TemporaryDirectory()
    try FileManager.default.createDirectory(
      atPath: folder.path + "/music/sub", withIntermediateDirectories: true)
    let one = try AudioE2E.makeSignal(folder, "music/01.wav", seconds: 0.2)
    let two = try AudioE2E.makeSignal(folder, "music/sub/02.flac", seconds: 0.2)
    try folder.write("music/notes.txt", Array("hello".utf8))
    try folder.write("music/03.wav", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4])
    let config = try AudioE2E.alsaConfig(in: folder)
    let result = try ShelfProcess.run(
      ["play", "--json", folder.path + "/music"], environment: ["ALSA_CONFIG_PATH": config])
    #expect(result.status == 1)
    #expect(result.stderr == "error: \(folder.path)/music/03.wav: not an audio file (it is a PNG image)\n")
    let events = result.stdout.split(separator: "\n").map(String.init)
    #expect(events.count == 6)
    #expect(
      events[0].hasPrefix(
        "{\"event\":\"start\",\"track\":1,\"path\":\"\(one)\",\"duration\":0.2,\"sample_rate\":44100,\"channels\":2,"
      ))
    #expect(events[1] == "{\"event\":\"end\",\"track\":1,\"path\":\"\(one)\"}")
    #expect(
      events[2].hasPrefix(
        "{\"event\":\"error\",\"track\":2,\"path\":\"\(folder.path)/music/03.wav\",\"message\":"))
    #expect(events[3].hasPrefix("{\"event\":\"start\",\"track\":3,\"path\":\"\(two)\""))
    #expect(events[5] == "{\"event\":\"finish\",\"played\":2,\"failed\":1,\"quit\":false,\"underruns\":0}")
    let expected = try AudioE2E.decoded(one) + AudioE2E.decoded(two)
    #expect(Array(AudioE2E.bytes(folder.path + "/played.raw").prefix(expected.count)) == expected)
  }

  @Test func volumeScalesAndStartSkips() throws {
    let folder = try TemporaryDirectory()
    let wav = try AudioE2E.makeSignal(folder, "a.wav", seconds: 2)
    let config = try AudioE2E.alsaConfig(in: folder)
    let result = try ShelfProcess.run(
      ["play", "--volume", "50", "--start", "1.5", "--no-interactive", wav],
      environment: ["ALSA_CONFIG_PATH": config])
    #expect(result.status == 0, "\(result.stderr)")
    let source = try AudioE2E.decoded(wav)
    var expected: [UInt8] = []
    for index in stride(from: 66150 * 4, to: source.count, by: 2) {
      let sample = Int16(bitPattern: UInt16(source[index]) | UInt16(source[index + 1]) << 8)
      let scaled = Int16(clamping: Int32((Float(sample) * 0.25).rounded()))
      let bits = UInt16(bitPattern: scaled)
      expected += [UInt8(bits & 0xFF), UInt8(bits >> 8)]
    }
    #expect(Array(AudioE2E.bytes(folder.path + "/played.raw").prefix(expected.count)) == expected)
  }

  @Test func badInputsGiveOneLineErrorsAndExitCodes() throws {
    let folder = try TemporaryDirectory()
    let config = try AudioE2E.alsaConfig(in: folder)
    let env = ["ALSA_CONFIG_PATH": config]
    let missing = try ShelfProcess.run(
      ["play", "--no-interactive", folder.path + "/none.wav"], environment: env)
    #expect(missing.status == 66)
    #expect(missing.stderr == "error: \(folder.path)/none.wav: no such file or directory\n")

    let png = try folder.write(
      "image.wav", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 64))
    let mislabelled = try ShelfProcess.run(["play", "--no-interactive", png], environment: env)
    #expect(mislabelled.status == 65)
    #expect(mislabelled.stderr == "error: \(png): not an audio file (it is a PNG image)\n")

    let empty = try folder.write("empty.flac", [])
    let emptyResult = try ShelfProcess.run(["play", "--no-interactive", empty], environment: env)
    #expect(emptyResult.status == 65)
    #expect(emptyResult.stderr == "error: \(empty): empty file\n")

    let good = try AudioE2E.makeSignal(folder, "good.wav", seconds: 0.1)
    let cut = try folder.write("cut.wav", Array(AudioE2E.bytes(good).prefix(30)))
    let truncated = try ShelfProcess.run(["play", "--no-interactive", cut], environment: env)
    #expect(truncated.status == 65)
    #expect(truncated.stderr.hasPrefix("error: \(cut): "))
    #expect(truncated.stderr.split(separator: "\n").count == 1)

    let unreadable = try ShelfProcess.run(
      ["play", "--no-interactive", folder.path + "/none.wav", good], environment: env)
    #expect(unreadable.status == 1)

    let device = try ShelfProcess.run(["play", "-D", "nosuchdevice", "--no-interactive", good])
    #expect(device.status == 66)
    #expect(
      device.stderr.hasSuffix(
        "error: device nosuchdevice: no such ALSA device (no sound card? try -D null, or -D file:/path/out.wav)\n"
      ))

    let typo = try ShelfProcess.run(
      ["--db", folder.path + "/none.sqlite", "play", "Musci"], environment: env)
    #expect(typo.status == 66)
    #expect(
      typo.stderr
        == "error: Musci: no such file or folder, and no catalogue to search (run 'shelf index FOLDER' first)\n"
    )

    let volume = try ShelfProcess.run(["play", "--volume", "120", good])
    #expect(volume.status == 64)
    #expect(
      volume.stderr.hasPrefix(
        "error: invalid value '120' for '--volume': expected an integer from 0 to 100\n"))
  }

  /// A device that takes only two channels (as a `hw:` device without the plug layer) plays a
  /// six-channel file downmixed by libswresample, as ffmpeg downmixes it, instead of refusing it.
  @Test func aChannelCountTheDeviceLacksIsConverted() throws {
    let folder = try TemporaryDirectory()
    let config = try AudioE2E.alsaConfig(in: folder)
    let six = try AudioE2E.makeSignal(folder, "six.wav", seconds: 0.5, channels: 6)
    let result = try ShelfProcess.run(
      ["play", "-D", "stereoonly", "--no-interactive", six], environment: ["ALSA_CONFIG_PATH": config])
    #expect(result.status == 0)
    #expect(result.stderr.hasPrefix("Playing \(six): Signed 16 bit PCM, 44100 Hz, 6 channels"))
    #expect(!result.stderr.contains("error"))
    let played = AudioE2E.bytes(folder.path + "/stereo-played.raw")
    let reference = try AudioE2E.tool(["ffmpeg", "-v", "error", "-i", six, "-ac", "2", "-f", "s16le", "-"])
    #expect(reference.status == 0)
    let expected = Array(reference.stdout)
    #expect(expected.count == 22050 * 4)
    // The stream ends with silence up to the period boundary, after every converted frame.
    #expect(played.count >= expected.count)
    let sample = { (bytes: [UInt8], index: Int) in
      Int(Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8))
    }
    let largestDifference =
      stride(from: 0, to: min(played.count, expected.count) - 1, by: 2).map {
        abs(sample(played, $0) - sample(expected, $0))
      }.max() ?? Int.max
    #expect(largestDifference <= 1)
    #expect(played.dropFirst(expected.count).allSatisfy { $0 == 0 })
  }

  @Test func deviceThatGoesAwayWhilePlayingEndsWithAnIOErrorNotALoop() throws {
    let folder = try TemporaryDirectory()
    // The "device" takes about one second of sound, then disappears.
    let (wav, fifo, _) = try AudioE2E.longSignalAndPacedFIFO(
      folder, bytesPerSecond: 1_764_000, limit: 176_400)
    let device = "file:'\(fifo)',raw"
    let result = try ShelfProcess.run(["play", "--no-interactive", "-D", device, wav], timeout: 30)
    #expect(result.status == 74)
    #expect(result.stderr.hasSuffix("error: device \(device): write failed: Input/output error\n"))
  }

  @Test func interactiveKeysPauseSeekVolumeAndQuitRestoringTheTerminal() throws {
    let folder = try TemporaryDirectory()
    // Real-time pace: 44100 frames × 4 bytes per second.
    let (wav, fifo, reader) = try AudioE2E.longSignalAndPacedFIFO(folder)
    let script = """
      stty -g > \(folder.path)/before; \(ShelfProcess.binary) play -D "file:'\(fifo)',raw" \(wav); \
      echo "EXIT=$?"; stty -g > \(folder.path)/after; sleep 60
      """
    let tmux = try AudioE2E.Tmux(script)
    let before = try #require(tmux.waitForPosition(), "\(tmux.screen)")
    // The bar of 20 cells fills one cell every 1.5 s of the 30: at S.0–S.9 seconds, the cells
    // of S or of S + 1.
    #expect([before.seconds * 2 / 3, (before.seconds + 1) * 2 / 3].contains(before.filled), "\(before)")
    try tmux.send("Right")
    // Five seconds forward, whenever the screen is read: the position gains 5 s more than
    // the time that passed (within the second the display rounds to, and the 0.2 s between
    // redraws, either side), where playing on alone gains none.
    let after = try #require(tmux.waitForPosition { $0.seconds >= before.seconds + 4 }, "\(tmux.screen)")
    let gained = Double(after.seconds - before.seconds) - (after.at - before.at)
    #expect(gained >= 3 && gained <= 7.5, "\(before) \(after)")
    try tmux.send("Down")
    var screen = tmux.waitFor("vol 95%")
    #expect(screen.contains("vol 95%"))
    try tmux.send("Space")
    screen = tmux.waitFor("|| 1/1")
    #expect(screen.contains("|| 1/1 long.wav"))
    let pausedAt = reader.collected.count
    // Paused: the player stops writing, so the reader empties the pipe (a player that went on
    // writing would keep it full), and nothing more than the pipe held reaches the reader.
    #expect(ObservableWait.until { reader.pipeIsEmpty })
    #expect(reader.collected.count - pausedAt <= 65536 + 17640)
    try tmux.send("Space")
    screen = tmux.waitFor("> 1/1")
    try tmux.send("q")
    screen = tmux.waitFor("EXIT=")
    #expect(screen.contains("EXIT=0"), "\(screen)")
    let sttyBefore = String(decoding: AudioE2E.bytes(folder.path + "/before"), as: UTF8.self)
    let sttyAfter = String(decoding: ObservableWait.line(in: folder.path + "/after"), as: UTF8.self)
    #expect(!sttyBefore.isEmpty)
    #expect(sttyBefore == sttyAfter)
  }

  @Test func ctrlCWhilePlayingRestoresTheTerminalAndExits130() throws {
    let folder = try TemporaryDirectory()
    let (wav, fifo, _) = try AudioE2E.longSignalAndPacedFIFO(folder)
    let script = """
      stty -g > \(folder.path)/before; \(ShelfProcess.binary) play -D "file:'\(fifo)',raw" \(wav); \
      echo "EXIT=$?"; stty -g > \(folder.path)/after; sleep 60
      """
    let tmux = try AudioE2E.Tmux(script)
    let playing = tmux.waitFor("0:01 / 0:30")
    #expect(playing.contains("0:01 / 0:30"), "\(playing)")
    try tmux.send("C-c")
    let screen = tmux.waitFor("EXIT=")
    #expect(screen.contains("error: interrupted\nEXIT=130"), "\(screen)")
    #expect(AudioE2E.bytes(folder.path + "/before") == ObservableWait.line(in: folder.path + "/after"))
  }

  @Test func sigtermWhilePlayingRestoresTheTerminalAndExits130() throws {
    let folder = try TemporaryDirectory()
    let (wav, fifo, _) = try AudioE2E.longSignalAndPacedFIFO(folder)
    let script = """
      stty -g > \(folder.path)/before; \(ShelfProcess.binary) play -D "file:'\(fifo)',raw" \(wav) </dev/tty & \
      echo $! > \(folder.path)/pid; wait $!; echo "EXIT=$?"; stty -g > \(folder.path)/after; sleep 60
      """
    let tmux = try AudioE2E.Tmux(script)
    let playing = tmux.waitFor("0:01 / 0:30")
    #expect(playing.contains("0:01 / 0:30"), "\(playing)")
    let pid =
      Int32(
        String(decoding: AudioE2E.bytes(folder.path + "/pid"), as: UTF8.self).trimmingCharacters(
          in: .whitespacesAndNewlines)) ?? 0
    #expect(pid > 0)
    kill(pid, SIGTERM)
    let screen = tmux.waitFor("EXIT=")
    #expect(screen.contains("error: interrupted\nEXIT=130"), "\(screen)")
    #expect(AudioE2E.bytes(folder.path + "/before") == ObservableWait.line(in: folder.path + "/after"))
  }

  @Test func playsACatalogueQuery() throws {
    let folder = try TemporaryDirectory()
    try FileManager.default.createDirectory(
      atPath: folder.path + "/root/Documents", withIntermediateDirectories: true)
    let a = try AudioE2E.makeSignal(folder, "root/Documents/a.wav", seconds: 0.3)
    let b = try AudioE2E.makeSignal(folder, "root/Documents/b.flac", seconds: 0.2, extra: [])
    _ = try AudioE2E.makeSignal(folder, "root/Documents/c.wav", seconds: 0.2, channels: 1)
    let db = folder.path + "/catalog.sqlite"
    let config = try AudioE2E.alsaConfig(in: folder)
    let env = ["ALSA_CONFIG_PATH": config]
    #expect(try ShelfProcess.run(["--db", db, "index", folder.path + "/root"], environment: env).status == 0)
    let result = try ShelfProcess.run(
      ["--db", db, "play", "--json", "kind:audio", "channels:2"], environment: env)
    #expect(result.status == 0, "\(result.stderr)")
    let starts = result.stdout.split(separator: "\n").filter { $0.contains("\"event\":\"start\"") }
    #expect(starts.count == 2)
    let expected = try AudioE2E.decoded(a) + AudioE2E.decoded(b)
    #expect(Array(AudioE2E.bytes(folder.path + "/played.raw").prefix(expected.count)) == expected)

    let nothing = try ShelfProcess.run(["--db", db, "play", "artist:nobody"], environment: env)
    #expect(nothing.status == 1)
    #expect(nothing.stderr == "error: no audio matches 'artist:nobody' in the catalogue\n")
  }

  @Test(arguments: TestCatalogues.kinds) func theImpliedKindAudioCombinesWithTheUsersTerms(
    store: CatalogueStoreKind
  ) throws {
    let sample = try IndexedSample(store)
    let images = try sample.run(["play", "-D", "null", "--no-interactive", "kind:image"])
    #expect(images.status == 1)
    #expect(images.stderr == "error: no audio matches 'kind:image' in the catalogue\n")
    let audio = try sample.run(["play", "-D", "null", "--json", "kind:audio,image", "ext:wav"])
    #expect(audio.status == 0, "\(audio.stderr)")
    let starts = audio.stdout.split(separator: "\n").filter { $0.contains("\"event\":\"start\"") }
    #expect(starts.count == 1)
    #expect(starts.first?.contains("\"path\":\"\(sample.root)/Documents/tone-440-mono.wav\"") == true)
  }

  @Test func aFolderWithLinksToItselfItsParentAndTheRootPlaysItsOneTrack() throws {
    let folder = try TemporaryDirectory()
    let music = folder.path + "/music"
    try FileManager.default.createDirectory(atPath: music + "/sub", withIntermediateDirectories: true)
    let track = try AudioE2E.makeSignal(folder, "music/sub/one.wav", seconds: 0.1)
    #expect(symlink("..", music + "/sub/up") == 0)
    #expect(symlink(".", music + "/self") == 0)
    #expect(symlink("/", music + "/root") == 0)
    #expect(mkfifo(music + "/pipe.wav", 0o600) == 0)
    // A walk without a loop guard never ends: the generous limit turns that into a failure.
    let result = try ShelfProcess.run(["play", "-D", "null", "--no-interactive", music], timeout: 60)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr == "Playing \(track): Signed 16 bit PCM, 44100 Hz, stereo, 0:00\n")
  }

  @Test func aStartPastTheEndSaysSoAndExits1() throws {
    let folder = try TemporaryDirectory()
    let short = try AudioE2E.makeSignal(folder, "short.wav", seconds: 2)
    let result = try ShelfProcess.run(["play", "-D", "null", "--no-interactive", "--start", "5:00", short])
    #expect(result.status == 1)
    #expect(result.stderr == "error: \(short): --start 5:00 is past the end (0:02)\n")
    // Later tracks play from their beginning.
    let two = try ShelfProcess.run(["play", "-D", "null", "--json", "--start", "3", short, short])
    #expect(two.status == 1)
    #expect(two.stdout.split(separator: "\n").filter { $0.contains("\"event\":\"start\"") }.count == 1)
  }
}
