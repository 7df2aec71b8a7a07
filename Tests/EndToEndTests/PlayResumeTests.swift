import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `play --resume`: where a play stopped is kept in $XDG_STATE_HOME/shelf/resume and the next
/// `--resume` starts on exactly that sample; a track played to its end, or changed since, starts
/// at 0.
@Suite(.serialized) struct PlayResumeTests {
  /// The lines of the state file under `state`.
  static func stateLines(_ state: String) -> [[String]] {
    String(decoding: AudioE2E.bytes(state + "/shelf/resume"), as: UTF8.self).split(separator: "\n").map {
      $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    }
  }

  /// Plays `wav` into a paced FIFO until about two seconds have been heard, then sends SIGTERM.
  static func playAndStop(_ wav: String, folder: TemporaryDirectory, state: String) throws {
    let fifo = folder.path + "/fifo-\(UUID().uuidString.prefix(8))"
    #expect(mkfifo(fifo, 0o600) == 0)
    let reader = AudioE2E.PacedReader(fifo: fifo, bytesPerSecond: 176_400, limit: .max)
    let running = try AudioE2E.Running(
      ["play", "--no-interactive", "-D", "file:'\(fifo)',raw", wav], environment: ["XDG_STATE_HOME": state],
      in: folder.path)
    #expect(ObservableWait.until(timeout: 30) { reader.collected.count > 2 * 176_400 })
    kill(running.pid, SIGTERM)
    #expect(running.wait() == 130)
    #expect(running.stderr.hasSuffix("error: interrupted\n"), "\(running.stderr)")
  }

  @Test func resumeStartsOnTheSampleWherePlayingStoppedAndForgetsATrackPlayedToItsEnd() throws {
    let folder = try TemporaryDirectory()
    let state = folder.path + "/state"
    let wav = try AudioE2E.makeSignal(folder, "long.wav", seconds: 30)
    try Self.playAndStop(wav, folder: folder, state: state)
    let lines = Self.stateLines(state)
    try #require(lines.count == 1, "\(lines)")
    #expect(Data(base64Encoded: lines[0][0]).map { String(decoding: $0, as: UTF8.self) } == wav)
    #expect(lines[0][1] == "0")
    let position = try #require(Double(lines[0][2]))
    #expect(position > 1.5 && position < 25, "\(position)")
    let status = try FileManager.default.attributesOfItem(atPath: wav)
    #expect(Int64(lines[0][3]) == (status[.size] as? NSNumber)?.int64Value)

    // --resume: the first sample played is the one after the last heard.
    let out = folder.path + "/resumed.raw"
    let resumed = try ShelfProcess.run(
      ["play", "--resume", "--json", "--force", "-D", "file:" + out, wav],
      environment: ["XDG_STATE_HOME": state])
    #expect(resumed.status == 0, "\(resumed.stderr)")
    let frame = Int(position * 44100)
    let expected = Array(try AudioE2E.decoded(wav)[(frame * 4)...])
    let played = AudioE2E.bytes(out)
    #expect(Array(played.prefix(expected.count)) == expected)
    #expect(played.dropFirst(expected.count).allSatisfy { $0 == 0 })
    // Played to its end: forgotten, so --resume starts at 0 again.
    #expect(Self.stateLines(state).isEmpty)
    let again = try ShelfProcess.run(
      ["play", "--resume", "--force", "-D", "file:" + out, wav], environment: ["XDG_STATE_HOME": state])
    #expect(again.status == 0)
    let whole = try AudioE2E.decoded(wav)
    #expect(Array(AudioE2E.bytes(out).prefix(whole.count)) == whole)
  }

  @Test func aFileChangedSinceStartsAtZeroAndStartWinsOverTheResumePoint() throws {
    let folder = try TemporaryDirectory()
    let state = folder.path + "/state"
    let wav = try AudioE2E.makeSignal(folder, "long.wav", seconds: 30)
    try Self.playAndStop(wav, folder: folder, state: state)
    try #require(Self.stateLines(state).count == 1)
    let whole = try AudioE2E.decoded(wav)

    // --start wins over the point.
    let out = folder.path + "/out.raw"
    let started = try ShelfProcess.run(
      ["play", "--resume", "--start", "10", "--force", "-D", "file:" + out, wav],
      environment: ["XDG_STATE_HOME": state])
    #expect(started.status == 0)
    #expect(Array(AudioE2E.bytes(out).prefix(whole.count - 441_000 * 4)) == Array(whole[(441_000 * 4)...]))

    // Stopped again, then the file's time changes: it starts at 0.
    try Self.playAndStop(wav, folder: folder, state: state)
    try #require(Self.stateLines(state).count == 1)
    var times = [timespec(tv_sec: 1_600_000_000, tv_nsec: 0), timespec(tv_sec: 1_600_000_000, tv_nsec: 0)]
    #expect(utimensat(AT_FDCWD, wav, &times, 0) == 0)
    let changed = try ShelfProcess.run(
      ["play", "--resume", "--force", "-D", "file:" + out, wav], environment: ["XDG_STATE_HOME": state])
    #expect(changed.status == 0)
    #expect(Array(AudioE2E.bytes(out).prefix(whole.count)) == whole)
  }

  @Test func aDamagedStateFileIsIgnored() throws {
    let folder = try TemporaryDirectory()
    let state = folder.path + "/state"
    try FileManager.default.createDirectory(atPath: state + "/shelf", withIntermediateDirectories: true)
    let wav = try AudioE2E.makeSignal(folder, "a.wav", seconds: 0.2)
    let key = Data(wav.utf8).base64EncodedString()
    _ = try folder.write(
      "state/shelf/resume",
      Array("garbage\n\(key)\t0\tnan\t1\t2\n\(key)\t-1\t5\t1\t2\n\u{FF}\t\t\n".utf8))
    let out = folder.path + "/out.raw"
    let result = try ShelfProcess.run(
      ["play", "--resume", "--json", "--force", "-D", "file:" + out, wav],
      environment: ["XDG_STATE_HOME": state])
    #expect(result.status == 0)
    #expect(result.stderr == "")
    let whole = try AudioE2E.decoded(wav)
    #expect(Array(AudioE2E.bytes(out).prefix(whole.count)) == whole)
  }
}
