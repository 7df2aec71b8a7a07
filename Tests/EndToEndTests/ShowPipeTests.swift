import Foundation
import ShelfTestSupport
import Testing

/// `show` into a pipe prints plain facts (no terminal graphics), takes several files under
/// head(1)'s headers, and names containers as `info` and `ls` do.
@Suite struct ShowPipeTests {
  private func sample(_ relative: String) -> String {
    ShelfProcess.repositoryRoot.appendingPathComponent("SampleMedia/" + relative).path
  }

  private static let toneFacts = """
      wav, PCM signed 16-bit little-endian, 44100 Hz, 1 channel
      duration 0:01 (44100 frames)
      codec pcm_s16le, 706 kb/s
      title: A440 Tone
      artist: Shelf Test Signals
      album: Shelf Sample Media
      date: 2024
      track: 1
      genre: Test Tone

    """

  @Test func audioIntoAPipeIsItsFactsWithoutAWaveform() throws {
    let tone = sample("Documents/tone-440-mono.wav")
    let piped = try ShelfProcess.run(["show", tone], environment: ["NO_COLOR": ""])
    #expect(piped.status == 0)
    #expect(piped.stderr.isEmpty)
    #expect(piped.stdout == "\(tone)\n" + Self.toneFacts)
    // Asked for, the waveform is drawn into the pipe too: one line of a steady level.
    let drawn = try ShelfProcess.run(["show", "--graphics", "blocks", "--width", "12", tone])
    #expect(drawn.status == 0)
    let lines = drawn.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 12)
    #expect(lines.dropLast(2).joined(separator: "\n") + "\n" == "\(tone)\n" + Self.toneFacts)
    let waveform = String(lines[10])
    #expect(waveform.hasPrefix("  ") && waveform.count == 12)
    #expect(Set(waveform.dropFirst(2)).count == 1)
    #expect(!Set(waveform.dropFirst(2)).contains(" "))
  }

  @Test func severalFilesComeUnderHeadHeadersAndFollowTheBatchRule() throws {
    let scratch = try TemporaryDirectory()
    let tone = sample("Documents/tone-440-mono.wav")
    let note = try scratch.write("note.txt", Array("first line\nsecond line\n".utf8))
    let missing = scratch.path + "/none.txt"
    let empty = try scratch.write("empty.txt", [])
    let all = try ShelfProcess.run(["show", note, tone])
    #expect(all.status == 0)
    #expect(all.stderr.isEmpty)
    #expect(
      all.stdout
        == "==> \(note) <==\nfirst line\nsecond line\n\n==> \(tone) <==\n\(tone)\n" + Self.toneFacts)

    // The batch rule: 1 when some files were shown, the most severe failure's code (a missing
    // file, 66, before bad data, 65) when none was.
    let some = try ShelfProcess.run(["show", note, missing])
    #expect(some.status == 1)
    #expect(some.stdout == "==> \(note) <==\nfirst line\nsecond line\n\n==> \(missing) <==\n")
    #expect(some.stderr == "error: \(missing): no such file or directory\n")
    let none = try ShelfProcess.run(["show", empty, missing])
    #expect(none.status == 66)
    #expect(
      none.stderr == "error: \(empty): file is empty\nerror: \(missing): no such file or directory\n")
    #expect(try ShelfProcess.run(["show", empty, empty]).status == 65)
    #expect(try ShelfProcess.run(["show", empty, note]).status == 1)

    // --json: one document per file, one after the other (jq reads them in turn).
    let json = try ShelfProcess.run(["show", "--json", tone, sample("Documents/settings.plist")])
    #expect(json.status == 0)
    #expect(!json.stdout.contains("==>"))
    let documents = json.stdout.components(separatedBy: "\n}\n").filter { !$0.isEmpty }.map { $0 + "\n}" }
    try #require(documents.count == 2)
    let record = try JSONSerialization.jsonObject(with: Data(documents[0].utf8)) as? [String: Any]
    #expect(record?["path"] as? String == tone)
    #expect(try JSONSerialization.jsonObject(with: Data(documents[1].utf8)) is [String: Any])

    // --raw concatenates the bytes as cat does, without headers.
    let raw = try ShelfProcess.run(["show", "--raw", note, note])
    #expect(raw.stdout == "first line\nsecond line\nfirst line\nsecond line\n")
  }

  @Test func showNamesTheContainerAsInfoDoes() throws {
    let song = sample("Documents/Music/morning-chord.m4a")
    let shown = try ShelfProcess.run(["show", song])
    #expect(shown.status == 0)
    let lines = shown.stdout.split(separator: "\n").map(String.init)
    #expect(lines.dropFirst().first == "  mp4, AAC (Advanced Audio Coding), 44100 Hz, 2 channels")
    let info = try ShelfProcess.run(["info", song])
    #expect(info.stdout.contains("\nformat:        mp4, AAC (Advanced Audio Coding)\n"), "\(info.stdout)")
    let flac = try ShelfProcess.run(["show", sample("Documents/chord-stereo.flac")])
    #expect(
      flac.stdout.split(separator: "\n").dropFirst().first
        == "  flac, FLAC (Free Lossless Audio Codec), 44100 Hz, 2 channels")
  }
}
