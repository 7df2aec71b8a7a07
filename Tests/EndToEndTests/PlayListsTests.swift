import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `play` of M3U and CUE files: a CUE sheet's tracks play gaplessly from INDEX 01 to the next
/// track's with the sheet's titles, `--track N` counts the sheet's tracks, a FILE under another
/// extension is found, lists in lists are followed with their loops and URLs reported, and
/// `--resume` keys a list's point by the list.
@Suite(.serialized) struct PlayListsTests {
  /// The `start` events of a `--json` run: track number and title.
  static func starts(_ stdout: String) -> [String] {
    stdout.split(separator: "\n").filter { $0.hasPrefix("{\"event\":\"start\"") }.compactMap { line in
      guard let track = line.firstMatch(of: #/"track":(\d+)/#) else { return nil }
      let title = line.firstMatch(of: #/"title":"([^"]*)"/#).map { String($0.output.1) } ?? "-"
      return "\(track.output.1) \(title)"
    }
  }

  /// A 3-second WAV and a CUE sheet of three tracks starting at 0, 1 s and 2.5 s (CD frame
  /// 187 + 38/75 … written as 00:02:37 = 2 s + 37 frames).
  static func album(_ folder: TemporaryDirectory, fileLine: String = "FILE \"cd.wav\" WAVE") throws -> (
    wav: String, cue: String
  ) {
    let wav = try AudioE2E.makeSignal(folder, "cd.wav", seconds: 3)
    let cue = """
      REM GENRE Test\r
      PERFORMER "The Shelf Band"\r
      TITLE "Cue Album"\r
      \(fileLine)\r
        TRACK 01 AUDIO\r
          TITLE "One"\r
          INDEX 01 00:00:00\r
        TRACK 02 AUDIO\r
          TITLE "Two"\r
          PERFORMER "Guest"\r
          INDEX 00 00:00:60\r
          INDEX 01 00:01:00\r
        TRACK 03 AUDIO\r
          TITLE "Three"\r
          INDEX 01 00:02:37\r

      """
    return (wav, try folder.write("album.cue", Array(cue.utf8)))
  }

  @Test func aCueSheetPlaysItsTracksGaplesslyWithTheSheetsTitles() throws {
    let folder = try TemporaryDirectory()
    let (wav, cue) = try Self.album(folder)
    let out = folder.path + "/out.raw"
    let result = try ShelfProcess.run(["play", "--json", "--force", "-D", "file:" + out, cue])
    try #require(result.status == 0, "\(result.stderr)")
    #expect(Self.starts(result.stdout) == ["1 One", "2 Two", "3 Three"])
    #expect(
      result.stdout.contains(
        "\"title\":\"Two\",\"artist\":\"Guest\",\"album\":\"Cue Album\",\"duration\":1.493"))
    let whole = try AudioE2E.decoded(wav)
    let played = AudioE2E.bytes(out)
    #expect(Array(played.prefix(whole.count)) == whole)
    #expect(played.dropFirst(whole.count).allSatisfy { $0 == 0 })

    // --track 2: from INDEX 01 of track 2 (1 s) on.
    let second = try ShelfProcess.run(["play", "--json", "--track", "2", "--force", "-D", "file:" + out, cue])
    #expect(Self.starts(second.stdout) == ["2 Two", "3 Three"])
    #expect(Array(AudioE2E.bytes(out).prefix(whole.count - 176_400)) == Array(whole[176_400...]))
    let missing = try ShelfProcess.run(["play", "--track", "4", "-D", "null", cue])
    #expect(missing.status == 64)
    #expect(missing.stderr.hasPrefix("error: --track 4: the playlist has 3 tracks\n"))
  }

  @Test func aCueWhoseFileIsUnderAnotherExtensionFindsIt() throws {
    let folder = try TemporaryDirectory()
    let (wav, cue) = try Self.album(folder)
    let flac = folder.path + "/cd.flac"
    #expect(try AudioE2E.tool(["sox", wav, flac]).status == 0)
    #expect(unlink(wav) == 0)
    let out = folder.path + "/out.raw"
    let result = try ShelfProcess.run(["play", "--json", "--force", "-D", "file:" + out, cue])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("cd.flac"), "\(result.stderr)")
    #expect(Self.starts(result.stdout).count == 3)
    let whole = try AudioE2E.decoded(flac)
    #expect(Array(AudioE2E.bytes(out).prefix(whole.count)) == whole)
  }

  @Test func anM3UInALegacyEncodingWithURLsMissingEntriesAndALoopPlaysWhatItCan() throws {
    let folder = try TemporaryDirectory()
    let one = try AudioE2E.makeSignal(folder, "caf\u{E9}.wav", seconds: 0.2)
    let two = try AudioE2E.makeSignal(folder, "two.wav", seconds: 0.2)
    // Windows-1252: é is 0xE9. The inner list names the outer one: a loop.
    var outer = Array("#EXTM3U\n#EXTINF:1,Someone - Caf".utf8) + [0xE9] + Array("\ncaf".utf8) + [0xE9]
    outer += Array(".wav\nhttp://radio.example/stream\nmissing.wav\ninner.m3u\n".utf8)
    let list = try folder.write("list.m3u", outer)
    _ = try folder.write("inner.m3u", Array("two.wav\nlist.m3u\n".utf8))
    let out = folder.path + "/out.raw"
    let result = try ShelfProcess.run(["play", "--json", "--force", "-D", "file:" + out, list])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(Self.starts(result.stdout).map { $0.prefix(2) } == ["1 ", "2 "])
    let warnings = result.stderr.split(separator: "\n")
    #expect(warnings.filter { $0.contains("http://radio.example/stream") }.count == 1, "\(result.stderr)")
    #expect(warnings.filter { $0.contains("missing.wav") }.count == 1)
    #expect(warnings.filter { $0.contains("includes itself") }.count == 1)
    let expected = try AudioE2E.decoded(one) + AudioE2E.decoded(two)
    #expect(Array(AudioE2E.bytes(out).prefix(expected.count)) == expected)
  }

  @Test func resumeOfACueSheetIsKeyedByTheSheet() throws {
    let folder = try TemporaryDirectory()
    let state = folder.path + "/state"
    let (wav, cue) = try Self.album(folder)
    let fifo = folder.path + "/fifo"
    #expect(mkfifo(fifo, 0o600) == 0)
    let reader = AudioE2E.PacedReader(fifo: fifo, bytesPerSecond: 176_400, limit: .max)
    let running = try AudioE2E.Running(
      ["play", "--no-interactive", "-D", "file:'\(fifo)',raw", cue], environment: ["XDG_STATE_HOME": state],
      in: folder.path)
    // Into track 2 (1 s to 2.49 s): 1.3 s heard.
    #expect(ObservableWait.until(timeout: 30) { reader.collected.count > 229_320 })
    kill(running.pid, SIGTERM)
    #expect(running.wait() == 130)
    let line = String(decoding: AudioE2E.bytes(state + "/shelf/resume"), as: UTF8.self)
    let fields = line.split(separator: "\t").map(String.init)
    try #require(fields.count == 6, "\(line)")
    #expect(Data(base64Encoded: fields[0]).map { String(decoding: $0, as: UTF8.self) } == cue)
    // The position belongs to the track's file, which the point names.
    #expect(
      Data(base64Encoded: fields[5].trimmingCharacters(in: .newlines)).map {
        String(decoding: $0, as: UTF8.self)
      }
        == wav)
    #expect(fields[1] == "1")
    let position = try #require(Double(fields[2]))
    #expect(position > 0.2 && position < 1.49, "\(position)")

    let out = folder.path + "/out.raw"
    let resumed = try ShelfProcess.run(
      ["play", "--resume", "--json", "--force", "-D", "file:" + out, cue],
      environment: ["XDG_STATE_HOME": state])
    #expect(Self.starts(resumed.stdout) == ["2 Two", "3 Three"])
    let frame = 44100 + Int(position * 44100)
    let expected = Array(try AudioE2E.decoded(wav)[(frame * 4)...])
    #expect(Array(AudioE2E.bytes(out).prefix(expected.count)) == expected)
    #expect(String(decoding: AudioE2E.bytes(state + "/shelf/resume"), as: UTF8.self) == "")
  }
}
