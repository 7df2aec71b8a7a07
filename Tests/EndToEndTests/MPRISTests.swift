import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A private D-Bus session bus for one test (`dbus-daemon --session`), never the machine's;
/// stopped when released.
final class PrivateSessionBus {
  let address: String
  let pid: pid_t

  init() throws {
    // Its output goes to files: the forked daemon keeps the descriptors it was given, so a pipe
    // read to its end would never end.
    let folder = try TemporaryDirectory()
    let launcher = try ShelfProcess.spawn(
      "/usr/bin/dbus-daemon",
      ["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1"].map { Array($0.utf8) },
      environment: [:], stdinPath: nil, stdoutPath: folder.file("out"), stderrPath: folder.file("err"))
    let status = ShelfProcess.wait(for: launcher, timeout: 30)
    let lines = String(decoding: AudioE2E.bytes(folder.file("out")), as: UTF8.self).split(separator: "\n")
    guard status == 0, lines.count == 2, let pid = pid_t(lines[1]) else {
      throw ShelfProcessError.spawn("dbus-daemon: \(AudioE2E.bytes(folder.file("err")))", status ?? -1)
    }
    address = String(lines[0])
    self.pid = pid
  }

  deinit { kill(pid, SIGTERM) }

  var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

  /// Runs a D-Bus client (`playerctl`, `dbus-send`) on this bus.
  func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let result = try AudioE2E.tool(["env", "DBUS_SESSION_BUS_ADDRESS=\(address)"] + arguments)
    return (result.status, String(decoding: result.stdout, as: UTF8.self), result.stderr)
  }

  func playerctl(_ arguments: String...) throws -> String { try run(["playerctl"] + arguments).stdout }

  /// Asks `playerctl` until it prints `expected` (the player acts within its period, and
  /// tells within 0.1 s) or `timeout` seconds pass; returns the last output.
  @discardableResult
  func playerctl(_ arguments: [String], until expected: String, timeout: Double = 15) throws -> String {
    var output = ""
    _ = try ObservableWait.until(timeout: timeout) {
      output = try run(["playerctl"] + arguments).stdout
      return output == expected
    }
    return output
  }

  /// The position playerctl reports, in seconds.
  func position(of player: String = "shelf") throws -> Double {
    Double(try playerctl("-p", player, "position").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
  }
}

/// MPRIS: a playing shelf is driven by playerctl on a private session bus, with its sound
/// going through ALSA's file plugin into a FIFO read at real-time pace.
@Suite(.serialized) struct MPRISTests {
  /// `playerctl metadata`'s lines: the player, the key in 26 columns, the value.
  static func metadataLines(_ fields: [(String, String)]) -> String {
    fields.map { "shelf \($0.0.padding(toLength: 26, withPad: " ", startingAt: 0))\($0.1)\n" }.joined()
  }

  /// A 30-second WAV (sox's sweep) tagged with title, artist and album by ffmpeg (RIFF INFO).
  static func taggedTrack(_ folder: TemporaryDirectory, from wav: String, _ name: String, title: String)
    throws
    -> String
  {
    let path = folder.path + "/" + name
    let made = try AudioE2E.tool([
      "ffmpeg", "-v", "error", "-i", wav, "-c", "copy", "-metadata", "title=\(title)", "-metadata",
      "artist=Singer", "-metadata", "album=Record", path,
    ])
    #expect(made.status == 0, "\(made.stderr)")
    return path
  }

  @Test func playerctlDrivesAPlayingShelf() throws {
    let bus = try PrivateSessionBus()
    let folder = try TemporaryDirectory()
    let (wav, fifo, reader) = try AudioE2E.longSignalAndPacedFIFO(folder)
    let first = try Self.taggedTrack(folder, from: wav, "first.wav", title: "First")
    let second = try Self.taggedTrack(folder, from: wav, "second.wav", title: "Second")
    let monitor = Process()
    monitor.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-monitor")
    monitor.arguments = ["--address", bus.address, "type='signal',path='/org/mpris/MediaPlayer2'"]
    let signals = try folder.write("signals.txt", [])
    monitor.standardOutput = FileHandle(forWritingAtPath: signals)
    try monitor.run()
    defer { monitor.terminate() }
    let shelf = try AudioE2E.Running(
      ["play", "--json", "-D", "file:'\(fifo)',raw", first, second], environment: bus.environment,
      in: folder.path)

    #expect(try bus.playerctl(["-l"], until: "shelf\n") == "shelf\n")
    #expect(try bus.playerctl(["-p", "shelf", "status"], until: "Playing\n") == "Playing\n")
    #expect(
      try bus.playerctl("-p", "shelf", "metadata")
        == Self.metadataLines([
          ("mpris:trackid", "'/shelf/track/1'"), ("mpris:length", "30000000"), ("xesam:title", "First"),
          ("xesam:artist", "Singer"), ("xesam:album", "Record"),
        ]))
    #expect(
      try bus.playerctl(
        "-p", "shelf", "metadata", "--format", "{{title}}|{{artist}}|{{album}}|{{mpris:length}}")
        == "First|Singer|Record|30000000\n")
    let playing = try bus.position()
    #expect(playing >= 0 && playing < 15, "\(playing)")

    // Pause: the player stops writing, so the reader empties the pipe, and the position holds.
    _ = try bus.playerctl("-p", "shelf", "pause")
    #expect(try bus.playerctl(["-p", "shelf", "status"], until: "Paused\n") == "Paused\n")
    let pausedAt = try bus.position()
    #expect(ObservableWait.until { reader.pipeIsEmpty })
    let heard = reader.collected.count
    #expect(try bus.position() == pausedAt)
    #expect(reader.collected.count == heard)

    // Play: writing goes on (more than the pipe and a period could have held).
    _ = try bus.playerctl("-p", "shelf", "play")
    #expect(try bus.playerctl(["-p", "shelf", "status"], until: "Playing\n") == "Playing\n")
    #expect(ObservableWait.until { reader.collected.count > heard + 65536 + 17640 })

    // SetPosition (position 20) and Volume.
    _ = try bus.playerctl("-p", "shelf", "position", "20")
    #expect(ObservableWait.until { ((try? bus.position()) ?? 0) >= 20 })
    _ = try bus.playerctl("-p", "shelf", "volume", "0.5")
    #expect(try bus.playerctl(["-p", "shelf", "volume"], until: "0.500000\n") == "0.500000\n")

    // Hostile input: wrong types are D-Bus errors, and shelf plays on.
    let send = [
      "dbus-send", "--session", "--print-reply", "--dest=org.mpris.MediaPlayer2.shelf",
      "/org/mpris/MediaPlayer2",
    ]
    let badSeek = try bus.run(send + ["org.mpris.MediaPlayer2.Player.Seek", "string:x"])
    #expect(badSeek.status == 1)
    #expect(
      badSeek.stderr
        == "Error org.freedesktop.DBus.Error.InvalidArgs: Invalid arguments 's' to call org.mpris.MediaPlayer2.Player.Seek(), expecting 'x'.\n"
    )
    let setVolume =
      send + ["org.freedesktop.DBus.Properties.Set", "string:org.mpris.MediaPlayer2.Player", "string:Volume"]
    let badVolume = try bus.run(setVolume + ["variant:string:loud"])
    #expect(
      badVolume.stderr
        == "Error org.freedesktop.DBus.Error.InvalidArgs: Incorrect parameters for property 'Volume', expected 'd', got 's'.\n"
    )
    let notANumber = try bus.run(setVolume + ["variant:double:nan"])
    #expect(
      notANumber.stderr == "Error org.freedesktop.DBus.Error.InvalidArgs: The volume is not a number.\n")
    let openURI = try bus.run(send + ["org.mpris.MediaPlayer2.Player.OpenUri", "string:file:///etc/passwd"])
    #expect(
      openURI.stderr
        == "Error org.freedesktop.DBus.Error.NotSupported: shelf plays only the playlist it was given.\n")
    #expect(try bus.playerctl("-p", "shelf", "status") == "Playing\n")
    #expect(try bus.playerctl("-p", "shelf", "volume") == "0.500000\n")

    // Next: the second track starts, with its own track id.
    _ = try bus.playerctl("-p", "shelf", "next")
    let next = "Second|'/shelf/track/2'\n"
    #expect(
      try bus.playerctl(["-p", "shelf", "metadata", "--format", "{{title}}|{{mpris:trackid}}"], until: next)
        == next)

    // Stop: shelf ends as after q (exit 0), and its name goes with it.
    _ = try bus.playerctl("-p", "shelf", "stop")
    #expect(shelf.wait() == 0)
    #expect(shelf.stderr == "")
    let events = shelf.stdout.split(separator: "\n").map { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["event"] as? String ?? "?"
    }
    #expect(events == ["start", "pause", "resume", "seek", "volume", "end", "start", "finish"])
    #expect(
      shelf.stdout.hasSuffix(
        "{\"event\":\"finish\",\"played\":2,\"failed\":0,\"quit\":true,\"underruns\":0}\n"))
    #expect(try bus.playerctl("-l") == "")

    // What clients were told: PropertiesChanged on pause and on the next track (never for
    // Position), Seeked after the seek to 20 s, and Stopped at the end.
    let stopped = "string \"PlaybackStatus\"\n         variant             string \"Stopped\""
    var told = ""
    #expect(
      ObservableWait.until {
        told = String(decoding: AudioE2E.bytes(signals), as: UTF8.self)
        return told.contains(stopped)
      })
    #expect(told.contains("string \"PlaybackStatus\"\n         variant             string \"Paused\""))
    #expect(told.contains("object path \"/shelf/track/2\""))
    #expect(!told.contains("\"Position\""))
    let seeked = told.firstMatch(of: #/member=Seeked\n   int64 (\d+)/#).flatMap { Int($0.output.1) } ?? 0
    #expect(seeked >= 20_000_000 && seeked < 22_000_000, "\(told)")
  }

  @Test func aSecondShelfOwnsTheInstanceName() throws {
    let bus = try PrivateSessionBus()
    let folder = try TemporaryDirectory()
    let (wav, fifo, _) = try AudioE2E.longSignalAndPacedFIFO(folder)
    let fifo2 = folder.path + "/fifo2"
    #expect(mkfifo(fifo2, 0o600) == 0)
    let reader2 = AudioE2E.PacedReader(fifo: fifo2, bytesPerSecond: 176_400)
    try FileManager.default.createDirectory(atPath: folder.path + "/b", withIntermediateDirectories: false)
    let a = try AudioE2E.Running(
      ["play", "--no-interactive", "-D", "file:'\(fifo)',raw", wav], environment: bus.environment,
      in: folder.path)
    #expect(try bus.playerctl(["-l"], until: "shelf\n") == "shelf\n")
    let b = try AudioE2E.Running(
      ["play", "--no-interactive", "-D", "file:'\(fifo2)',raw", wav], environment: bus.environment,
      in: folder.path + "/b")
    let both = "shelf\nshelf.instance\(b.pid)\n"
    let listed = try bus.playerctl(["-l"], until: both)
    #expect(listed == both)
    #expect(try bus.playerctl(["-p", "shelf.instance\(b.pid)", "status"], until: "Playing\n") == "Playing\n")
    _ = try bus.playerctl("-a", "stop")
    #expect(a.wait() == 0)
    #expect(b.wait() == 0)
    #expect(reader2.collected.count > 0)
    #expect(try bus.playerctl("-l") == "")
  }

  /// Without a session bus, or with one that never answers, shelf plays as always: the same
  /// samples, the same messages, and no wait (sd-bus's call timeout is 25 s).
  @Test func withoutABusItPlaysAsAlwaysSilentlyAndAtOnce() throws {
    let folder = try TemporaryDirectory()
    let wav = try AudioE2E.makeSignal(folder, "short.wav", seconds: 1)
    let expected = try AudioE2E.decoded(wav)
    // A socket that takes connections but never reads them.
    let silent = folder.path + "/silent-bus"
    let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(socket) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in silent.utf8.enumerated() { raw[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    #expect(bound == 0)
    #expect(listen(socket, 8) == 0)
    for (name, bus) in [("none", "unix:path=/nonexistent"), ("silent", "unix:path=\(silent)")] {
      let out = folder.path + "/\(name).raw"
      let started = Date()
      let result = try ShelfProcess.run(
        ["play", "--no-interactive", "-D", "file:'\(out)',raw", wav],
        environment: ["DBUS_SESSION_BUS_ADDRESS": bus],
        timeout: 60)
      #expect(Date().timeIntervalSince(started) < 10, "\(name)")
      #expect(result.status == 0, "\(name)")
      #expect(result.stderr == "Playing \(wav): Signed 16 bit PCM, 44100 Hz, stereo, 0:01\n", "\(name)")
      #expect(Array(AudioE2E.bytes(out).prefix(expected.count)) == expected, "\(name)")
    }
  }

  /// libsystemd (and its six libraries) is loaded by `play` only.
  @Test func onlyPlayLoadsLibsystemd() throws {
    let version = try LazyLibraryLoadingTests.run(["--version"])
    #expect(version.status == 0)
    #expect(version.loaded.contains { $0.hasPrefix("libc.so") })
    #expect(!version.loaded.contains { $0.hasPrefix("libsystemd") || $0.hasPrefix("libgcrypt") })
    let folder = try TemporaryDirectory()
    let wav = try AudioE2E.makeSignal(folder, "short.wav", seconds: 0.1)
    let play = try LazyLibraryLoadingTests.run(["play", "--no-interactive", "-D", "null", wav])
    #expect(play.status == 0)
    #expect(play.loaded.contains { $0.hasPrefix("libsystemd.so") })
  }
}
