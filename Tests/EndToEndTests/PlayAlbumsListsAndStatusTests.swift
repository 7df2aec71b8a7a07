import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The player's everyday promises: `--album-shuffle` plays an album in track order, a list of
/// thousands of missing entries says so in a few lines, `--resume FOLDER` goes back to the file
/// it stopped in (and only that file), and at 80 columns the status line keeps the shuffle and
/// repeat state.
@Suite(.serialized) struct PlayAlbumsListsAndStatusTests {
  /// A short FLAC tagged as track `track` of disc `disc` of `album`.
  static func tagged(
    _ folder: TemporaryDirectory, _ name: String, album: String, track: Int, disc: Int? = nil
  )
    throws -> String
  {
    let path = folder.file(name)
    let seconds = 0.05 + Double(track) * 0.01
    let made = try AudioE2E.tool(
      [
        "ffmpeg", "-v", "error", "-f", "lavfi", "-i",
        "sine=frequency=\(200 * track):sample_rate=44100:d=\(seconds)",
        "-metadata", "album=\(album)", "-metadata", "artist=Shelf", "-metadata", "track=\(track)/4",
      ] + (disc.map { ["-metadata", "disc=\($0)"] } ?? []) + [path])
    precondition(made.status == 0, made.stderr)
    return path
  }

  static func startedPaths(_ stdout: String) -> [String] {
    stdout.split(separator: "\n").compactMap { line in
      guard line.hasPrefix("{\"event\":\"start\""), let match = line.firstMatch(of: #/"path":"([^"]*)"/#)
      else {
        return nil
      }
      return String(match.output.1).replacingOccurrences(of: "\\/", with: "/")
    }
  }

  @Test func albumShufflePlaysEachAlbumInTrackOrder() throws {
    let folder = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: folder.file("one"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: folder.file("two"), withIntermediateDirectories: true)
    let one = try (1...4).map { try Self.tagged(folder, "one/0\($0).flac", album: "One", track: $0) }
    // Disc before track: disc 1's track 3 comes before disc 2's track 1.
    let twoDisc2 = try Self.tagged(folder, "two/a.flac", album: "Two", track: 1, disc: 2)
    let twoDisc1 = try Self.tagged(folder, "two/b.flac", album: "Two", track: 3, disc: 1)
    let given = [one[1], one[3], twoDisc2, one[0], twoDisc1, one[2]]
    for seed in 1...4 {
      let result = try ShelfProcess.run(
        ["play", "--json", "--album-shuffle", "--seed", "\(seed)", "-D", "null"] + given)
      #expect(result.status == 0, "\(result.stderr)")
      let played = Self.startedPaths(result.stdout)
      #expect(
        played == one + [twoDisc1, twoDisc2] || played == [twoDisc1, twoDisc2] + one,
        "seed \(seed): \(played)")
    }
  }

  @Test func aListOfTenThousandMissingEntriesSaysSoInAFewLines() throws {
    let folder = try TemporaryDirectory()
    _ = try AudioE2E.makeSignal(folder, "here.wav", seconds: 0.05)
    var text = ""
    for number in 1...10_000 { text += "gone-\(number).wav\n" }
    text += "here.wav\n"
    let list = try folder.write("list.m3u", Array(text.utf8))
    let result = try ShelfProcess.run(["play", "--no-interactive", "-D", "null", list])
    #expect(result.status == 0, "\(result.stderr)")
    let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
    #expect(warnings.count == 6, "\(warnings.prefix(8))")
    #expect(warnings.prefix(5).allSatisfy { $0.hasPrefix("warning: \(list):") })
    #expect(warnings.first?.contains("gone-1.wav") == true)
    #expect(warnings.last == "warning: \(list): 9995 more entries skipped (10000 in all)")
    #expect(result.stderr.contains("Playing \(folder.file("here.wav"))"))
  }

  @Test func resumeOfAFolderGoesBackToTheFileItStoppedInAndOnlyThatFile() throws {
    let folder = try TemporaryDirectory()
    let state = folder.file("state")
    let music = folder.file("music")
    try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
    let first = try AudioE2E.makeSignal(folder, "music/a.wav", seconds: 0.5)
    let second = try AudioE2E.makeSignal(folder, "music/b.wav", seconds: 30)
    // Stop two seconds into b.wav.
    let fifo = folder.file("fifo")
    #expect(mkfifo(fifo, 0o600) == 0)
    let reader = AudioE2E.PacedReader(fifo: fifo, bytesPerSecond: 176_400, limit: .max)
    let running = try AudioE2E.Running(
      ["play", "--no-interactive", "-D", "file:'\(fifo)',raw", music], environment: ["XDG_STATE_HOME": state],
      in: folder.path)
    #expect(ObservableWait.until(timeout: 30) { reader.collected.count > 2_5 * 176_400 / 10 })
    kill(running.pid, SIGTERM)
    #expect(running.wait() == 130)
    let lines = PlayResumeTests.stateLines(state)
    try #require(lines.count == 1, "\(lines)")
    let position = try #require(Double(lines[0][2]))
    #expect(position > 1 && position < 25, "\(position)")

    // A file added before it moves b.wav down the folder: play goes on in b.wav all the same.
    _ = try AudioE2E.makeSignal(folder, "music/0.wav", seconds: 0.3)
    let out = folder.file("resumed.raw")
    let resumed = try ShelfProcess.run(
      ["play", "--resume", "--json", "-D", "file:" + out, music], environment: ["XDG_STATE_HOME": state])
    #expect(resumed.status == 0, "\(resumed.stderr)")
    #expect(Self.startedPaths(resumed.stdout) == [second], "\(resumed.stdout)")
    let expected = Array(try AudioE2E.decoded(second)[(Int(position * 44100) * 4)...])
    #expect(Array(AudioE2E.bytes(out).prefix(expected.count)) == expected)

    // Stopped in b.wav again, then b.wav goes: the position is b.wav's, so play starts at the top.
    try Self.stopIn(music, fifo: folder.file("fifo2"), folder: folder, state: state, after: 0.8 + 2)
    try FileManager.default.removeItem(atPath: second)
    let fromTop = folder.file("top.raw")
    let top = try ShelfProcess.run(
      ["play", "--resume", "--json", "-D", "file:" + fromTop, music], environment: ["XDG_STATE_HOME": state])
    #expect(top.status == 0, "\(top.stderr)")
    #expect(Self.startedPaths(top.stdout) == [folder.file("music/0.wav"), first])
    let whole = try AudioE2E.decoded(folder.file("music/0.wav")) + AudioE2E.decoded(first)
    #expect(Array(AudioE2E.bytes(fromTop).prefix(whole.count)) == whole)
  }

  @Test func aStartPositionIsNotPassedOnToTheTrackAfterOneThatFails() throws {
    let folder = try TemporaryDirectory()
    let broken = try folder.write("broken.wav", Array("not audio at all".utf8))
    let good = try AudioE2E.makeSignal(folder, "good.wav", seconds: 0.5)
    let out = folder.file("out.raw")
    let result = try ShelfProcess.run([
      "play", "--no-interactive", "--start", "0.2", "-D", "file:" + out, broken, good,
    ])
    #expect(result.status == 1, "\(result.stderr)")
    let whole = try AudioE2E.decoded(good)
    #expect(Array(AudioE2E.bytes(out).prefix(whole.count)) == whole)
  }

  /// Plays `music` into a paced FIFO and stops it once `seconds` have been heard.
  static func stopIn(
    _ music: String, fifo: String, folder: TemporaryDirectory, state: String, after seconds: Double
  )
    throws
  {
    #expect(mkfifo(fifo, 0o600) == 0)
    let reader = AudioE2E.PacedReader(fifo: fifo, bytesPerSecond: 176_400, limit: .max)
    let running = try AudioE2E.Running(
      ["play", "--no-interactive", "-D", "file:'\(fifo)',raw", music], environment: ["XDG_STATE_HOME": state],
      in: folder.path)
    #expect(ObservableWait.until(timeout: 30) { Double(reader.collected.count) > seconds * 176_400 })
    kill(running.pid, SIGTERM)
    #expect(running.wait() == 130)
  }

  @Test func at80ColumnsTheStatusLineKeepsShuffleAndRepeat() throws {
    let folder = try TemporaryDirectory()
    let (wav, fifo, _) = try AudioE2E.longSignalAndPacedFIFO(folder)
    let long = folder.file("an-interview-recorded-on-a-long-afternoon-in-the-garden-part-one.wav")
    try FileManager.default.moveItem(atPath: wav, toPath: long)
    let tmux = try AudioE2E.Tmux(
      "\(ShelfProcess.binary) play --shuffle --repeat all -D \"file:'\(fifo)',raw\" \(long); echo \"EXIT=$?\"; sleep 60",
      width: 80)
    let screen = tmux.waitFor("0:01 / 0:30")
    let line = try #require(screen.split(separator: "\n").first { $0.hasPrefix("> 1/1 ") }, "\(screen)")
    #expect(line.hasSuffix(" shuffle repeat all"), "\(line)")
    #expect(line.contains("an-interview-rec"), "\(line)")
    #expect(line.count <= 79, "\(line)")
    try tmux.send("q")
    #expect(tmux.waitFor("EXIT=").contains("EXIT=0"))
  }
}
