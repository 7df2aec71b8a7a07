import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A small music folder indexed into a new catalogue: tagged songs, one named in Latin-1 (not
/// UTF-8), one untagged, a text file, and an iPhone backup holding a voice recording.
private final class MusicLibrary {
  let scratch: TemporaryDirectory
  let root: String
  let database: String
  /// The bytes of `root/music/café.flac` with `é` as the Latin-1 byte 0xE9.
  let latin1Path: [UInt8]

  init() throws {
    scratch = try TemporaryDirectory()
    root = scratch.path + "/library"
    try scratch.makeDirectory("library/music")
    try scratch.copy(
      fromRepository: "SampleMedia/Documents/chord-stereo.flac", as: "library/music/chord-stereo.flac")
    try scratch.copy(
      fromRepository: "SampleMedia/Documents/tone-440-mono.wav", as: "library/music/tone-440-mono.wav")
    try scratch.copy(
      fromRepository: "SampleMedia/Documents/Music/duet-repeated-artist.flac", as: "library/music/duet.flac")
    let latin1 = Array((root + "/music/caf").utf8) + [0xE9] + Array(".flac".utf8)
    latin1Path = latin1
    let renamed = (root + "/music/duet.flac").withCString { from in
      (latin1 + [0]).withUnsafeBufferPointer { to in
        rename(from, UnsafeRawPointer(to.baseAddress!).assumingMemoryBound(to: CChar.self))
      }
    }
    precondition(renamed == 0)
    // One second of silence, 8 kHz mono 16-bit, without tags.
    var wave = Array("RIFF".utf8) + le32(36 + 16_000) + Array("WAVEfmt ".utf8) + le32(16)
    wave += [1, 0, 1, 0] + le32(8_000) + le32(16_000) + [2, 0, 16, 0] + Array("data".utf8) + le32(16_000)
    wave += [UInt8](repeating: 0, count: 16_000)
    try scratch.write("library/music/untagged.wav", wave)
    try scratch.write("library/notes.txt", Array("not a song\n".utf8))
    try scratch.copy(fromRepository: "SampleMedia/Backups/manifest-db", as: "library/manifest-db")
    database = scratch.path + "/catalog.sqlite"
    let indexed = try run(["index", root])
    precondition(indexed.status == 0, indexed.stderr)
  }

  func run(_ arguments: [String]) throws -> ShelfResult {
    try ShelfProcess.run(["--db", database] + arguments, environment: ["SHELF_TRUST_WINDOW": "0"])
  }
}

private func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }

@Suite struct PlaylistCommandTests {
  @Test func lsM3UWritesExtendedM3UWithRawPaths() throws {
    let library = try MusicLibrary()
    let result = try library.run(["ls", "--m3u"])
    #expect(result.status == 0)
    let music = library.root + "/music"
    var expected =
      Array("#EXTM3U\n#EXTINF:1,First Voice; Second Voice - Duet\n".utf8) + library.latin1Path + [0x0A]
    expected += Array(
      """
      #EXTINF:2,Shelf Test Signals - C Major Chord
      \(music)/chord-stereo.flac
      #EXTINF:1,Shelf Test Signals - A440 Tone
      \(music)/tone-440-mono.wav
      #EXTINF:1,untagged.wav
      \(music)/untagged.wav

      """.utf8)
    #expect(result.stdoutBytes == expected, "\(result.stdout)")
    #expect(
      result.stderr
        == "left out 2 audio files inside iPhone backups, which have no path to play (shelf extract copies them out)\n"
    )
  }

  @Test(.enabled(if: ExternalTool.isInstalled(["mpv"]), "mpv reads the list independently"))
  func mpvPlaysTheM3UInOrder() throws {
    let library = try MusicLibrary()
    let list = try library.scratch.write("list.m3u", try library.run(["ls", "--m3u"]).stdoutBytes)
    let outcome = try ExternalTool.run([
      "mpv", "--no-config", "--ao=null", "--vo=null", "--frames=1", "--playlist=" + list,
    ])
    let lines = (outcome.stdout + Data(outcome.stderr.utf8)).split(separator: 0x0A)
    let playing = lines.filter { $0.starts(with: Array("Playing: ".utf8)) }.map { Array($0.dropFirst(9)) }
    let music = library.root + "/music/"
    #expect(
      playing == [
        library.latin1Path, Array((music + "chord-stereo.flac").utf8),
        Array((music + "tone-440-mono.wav").utf8),
        Array((music + "untagged.wav").utf8),
      ])
  }

  @Test func lsM3U8LeavesOutPathsThatAreNotUTF8() throws {
    let library = try MusicLibrary()
    let result = try library.run(["ls", "--m3u8", "--sort", "title", "name:*.flac"])
    #expect(result.status == 0)
    #expect(
      result.stdout == """
        #EXTM3U
        #EXTINF:2,Shelf Test Signals - C Major Chord
        \(library.root)/music/chord-stereo.flac

        """)
    #expect(
      result.stderr
        == "warning: \(library.root)/music/caf\\xe9.flac: the path is not valid UTF-8, left out of the M3U8 list (--m3u keeps its bytes)\n"
    )
    // Nothing to write is exit status 1, as for any ls that matches nothing.
    let none = try library.run(["ls", "--m3u8", "kind:image"])
    #expect(none.status == 1)
    #expect(none.stdout == "#EXTM3U\n")
    let conflict = try library.run(["ls", "--m3u", "--json"])
    #expect(conflict.status == 64)
  }

  @Test func infoJSONListsACueSheetsTracks() throws {
    let library = try MusicLibrary()
    // The sheet names a WAV that was compressed to FLAC since: the FLAC is found.
    let sheet = """
      REM GENRE Test
      PERFORMER "Shelf Test Signals"
      TITLE "Signals Live"
      FILE "chord-stereo.wav" WAVE
        TRACK 01 AUDIO
          TITLE "Attack"
          INDEX 01 00:00:00
        TRACK 02 AUDIO
          TITLE "Release"
          PERFORMER "Guest"
          INDEX 00 00:01:00
          INDEX 01 00:01:30

      """
    try library.scratch.write(
      "library/music/live.cue", Array(sheet.replacingOccurrences(of: "\n", with: "\r\n").utf8))
    let result = try library.run(["info", "--json", library.root + "/music/live.cue"])
    #expect(result.status == 0, "\(result.stderr)")
    let record = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
    #expect(record["kind"] as? String == "text")
    let cue = try #require(record["cue"] as? [String: Any])
    #expect(cue["title"] as? String == "Signals Live")
    #expect(cue["performer"] as? String == "Shelf Test Signals")
    let tracks = try #require(cue["tracks"] as? [[String: Any]])
    #expect(tracks.map { $0["number"] as? Int } == [1, 2])
    #expect(tracks.map { $0["title"] as? String } == ["Attack", "Release"])
    #expect(tracks.map { $0["performer"] as? String } == ["Shelf Test Signals", "Guest"])
    #expect(tracks.map { $0["start"] as? Double } == [0, 1.4])
    #expect(tracks.map { $0["duration"] as? Double } == [1.4, 0.6])
    #expect(
      tracks.map { $0["file"] as? String }
        == Array(repeating: library.root + "/music/chord-stereo.flac", count: 2))
    #expect(cue["warnings"] == nil)
    // The text form lists the same tracks.
    let text = try library.run(["info", library.root + "/music/live.cue"])
    #expect(text.stdout.contains("album:        Signals Live\n"), "\(text.stdout)")
    #expect(
      text.stdout.contains("track 01:     00:00:00 +0:01  Shelf Test Signals – Attack  [chord-stereo.flac]\n")
    )
    #expect(text.stdout.contains("track 02:     00:01:30 +0:00  Guest – Release  [chord-stereo.flac]\n"))
  }

  @Test func infoOnACueSheetWhoseAudioIsGoneSaysSo() throws {
    let scratch = try TemporaryDirectory()
    let sheet =
      "TITLE \"Lost\"\nFILE \"gone.wav\" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\nTRACK 02 AUDIO\nINDEX 01 01:00:00\n"
    try scratch.write("lost.cue", Array(sheet.utf8))
    let result = try ShelfProcess.run([
      "--db", scratch.path + "/none.sqlite", "info", "--json", scratch.file("lost.cue"),
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let record = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
    let cue = try #require(record["cue"] as? [String: Any])
    let tracks = try #require(cue["tracks"] as? [[String: Any]])
    #expect(tracks.map { $0["start"] as? Double } == [0, 60])
    // The first track's length is known from the second's start; the last one's is not.
    #expect(tracks.map { $0["duration"] as? Double } == [60, nil])
    #expect(tracks[1]["duration"] is NSNull)
    #expect(
      cue["warnings"] as? [String] == [
        "\(scratch.path)/lost.cue:2: gone.wav: no such file (nor under another audio extension)"
      ])
  }
}
