import Foundation
import ShelfAudio
import ShelfCore
import ShelfFacts
import ShelfTestSupport
import Testing

@testable import ShelfCatalog

/// How the positional arguments of `play`, `gain`, `crush`, `info` and `show` are read
/// (`Operand`), what folders named among them hold (`FolderContents`), and what `play` and
/// `gain` make of them (`AudioOperands`), on real files in a temporary folder.
@Suite struct OperandTests {
  /// A folder of audio and other files, a list, and the names of an iPhone backup (which its
  /// names alone make one).
  func scratchFolder() throws -> TemporaryDirectory {
    let scratch = try TemporaryDirectory()
    try scratch.write("music/b.flac", [1])
    try scratch.write("music/a.mp3", [1])
    try scratch.write("music/notes.txt", [1])
    try scratch.write("music/.hidden.mp3", [1])
    try scratch.write("music/disc 2/c.ogg", [1])
    try scratch.write("music/art/Cover.PNG", [1])
    try scratch.write("music/.thumbs/t.png", [1])
    try scratch.write("music/art/x.png.txt", [1])
    try scratch.write("song.wav", [1])
    try scratch.write("list.m3u", Array("music/a.mp3\ngone.mp3\nmusic/disc 2\n".utf8))
    try scratch.write("kind:audio", [1])
    try scratch.write("phone/Info.plist", [1])
    try scratch.write("phone/Manifest.db", [1])
    return scratch
  }

  @Test func eachArgumentIsReadForWhatItNames() throws {
    let scratch = try scratchFolder()
    let all: Operand.Kinds = [.playlists, .backupEntries, .queryTerms, .standardInput]
    let entry = scratch.raw("phone/CameraRollDomain/Media/DCIM/IMG_0001.HEIC")
    #expect(Operand(scratch.raw("music"), accepting: []) == .folder(scratch.raw("music")))
    #expect(Operand(scratch.raw("song.wav"), accepting: all) == .file(scratch.raw("song.wav")))
    #expect(Operand(scratch.raw("list.m3u"), accepting: all) == .playlist(scratch.raw("list.m3u")))
    // A playlist is a file to a command that does not expand lists (gain, crush).
    #expect(Operand(scratch.raw("list.m3u"), accepting: .queryTerms) == .file(scratch.raw("list.m3u")))
    #expect(Operand(entry, accepting: all) == .backupEntry(entry))
    #expect(Operand(entry, accepting: .queryTerms) == .missing(entry))
    #expect(
      Operand(scratch.raw("phone/Info.plist"), accepting: all) == .file(scratch.raw("phone/Info.plist")))
    #expect(Operand(RawPath("-"), accepting: all) == .standardInput)
    #expect(Operand(RawPath("-"), accepting: .backupEntries) == .missing(RawPath("-")))
  }

  /// A term naming a field is one by its form alone; another missing word is one unless it
  /// looks like a path (a slash, an audio extension).
  @Test func queryTermsAreToldFromMissingFiles() throws {
    let scratch = try scratchFolder()
    #expect(Operand(RawPath("kind:audio"), accepting: .queryTerms) == .queryTerm("kind:audio"))
    #expect(Operand(scratch.raw("kind:audio"), accepting: []) == .file(scratch.raw("kind:audio")))
    #expect(Operand(RawPath("Bach"), accepting: .queryTerms) == .queryTerm("Bach"))
    #expect(Operand(RawPath("kidn:audio"), accepting: .queryTerms) == .queryTerm("kidn:audio"))
    #expect(Operand(RawPath("Bach"), accepting: .backupEntries) == .missing(RawPath("Bach")))
    #expect(Operand(RawPath("missing.flac"), accepting: .queryTerms) == .missing(RawPath("missing.flac")))
    #expect(Operand(RawPath("music/Bach"), accepting: .queryTerms) == .missing(RawPath("music/Bach")))
    #expect(Operand(RawPath(""), accepting: .queryTerms) == .missing(RawPath("")))
  }

  @Test func foldersHoldTheirFilesOfOneKindInNameOrder() throws {
    let scratch = try scratchFolder()
    let music = scratch.raw("music")
    let audio = try FolderContents.audio(in: music)
    #expect(audio.names == [RawPath("a.mp3"), RawPath("b.flac"), RawPath("disc 2/c.ogg")])
    #expect(
      audio.paths == [
        scratch.raw("music/a.mp3"), scratch.raw("music/b.flac"), scratch.raw("music/disc 2/c.ogg"),
      ])
    #expect(audio.unreadable.isEmpty)
    // PNGs: hidden ones too, the extension in any case.
    let png = try FolderContents.png(in: music)
    #expect(png.names == [RawPath(".thumbs/t.png"), RawPath("art/Cover.PNG")])
    #expect(throws: FileError.self) { try FolderContents.png(in: scratch.raw("song.wav")) }
    #expect(throws: FileError.self) { try FolderContents.audio(in: scratch.raw("none")) }
  }

  @Test func playOperandsComeToTracksInOrderWithTheirProblems() throws {
    let scratch = try scratchFolder()
    let entry = scratch.raw("phone/CameraRollDomain/Media/Recordings/memo.m4a")
    var reported: [AudioOperands.Diagnostic] = []
    let operands = try AudioOperands.resolve(
      [
        scratch.raw("song.wav"), scratch.raw("music"), RawPath("Bach"), scratch.raw("gone.flac"), entry,
        scratch.raw("list.m3u"), RawPath("artist:Bach"),
      ],
      accepting: [.playlists, .backupEntries, .queryTerms]
    ) { reported.append($0) }
    let music = scratch.raw("music")
    #expect(
      operands.tracks.map(\.path) == [
        scratch.raw("song.wav"), music.appending("a.mp3"), music.appending("b.flac"),
        music.appending("disc 2/c.ogg"), entry, music.appending("a.mp3"), music.appending("disc 2/c.ogg"),
      ])
    #expect(operands.tracks[0].album == "folder:" + scratch.path)
    #expect(operands.tracks[4].album == nil)
    // The folder named, and the one the list names: found, not named.
    #expect(operands.foundInFolders == [1, 2, 3, 6])
    #expect(operands.queryTerms == ["Bach", "artist:Bach"])
    #expect(
      reported == [
        .missing(scratch.raw("gone.flac")),
        .listEntries(
          list: scratch.raw("list.m3u"),
          [
            PlaylistDiagnostic(
              list: scratch.raw("list.m3u"), line: 2, entry: "gone.mp3", message: "no such file, skipped")
          ]),
      ])
    // Several items: no list, no resume key.
    #expect(operands.list == nil && operands.resumeKey == nil)
    #expect(operands.index(ofTrack: 7) == 6 && operands.index(ofTrack: 8) == nil)
  }

  @Test func aListAloneIsWhatTrackNumbersCountIn() throws {
    let scratch = try scratchFolder()
    let list = scratch.raw("list.m3u")
    let operands = try AudioOperands.resolve([list], accepting: [.playlists]) { _ in }
    #expect(operands.list == list.absolute && operands.resumeKey == list.absolute)
    // Entry 1 is the first track, entry 2 was skipped, entry 3 (a folder) starts at the second.
    #expect(operands.listStarts == [1: 0, 3: 1])
    #expect(operands.index(ofTrack: 2) == 1)
    let folder = try AudioOperands.resolve([scratch.raw("music")], accepting: []) { _ in }
    #expect(folder.resumeKey == scratch.raw("music").absolute && folder.list == nil)
  }

  /// `gain` takes lists as files and backup entries as missing, as it always has.
  @Test func gainOperandsTakeNoListsNorBackupEntries() throws {
    let scratch = try scratchFolder()
    let entry = scratch.raw("phone/HomeDomain/Library/a.mp3")
    var reported: [AudioOperands.Diagnostic] = []
    let operands = try AudioOperands.resolve([scratch.raw("list.m3u"), entry], accepting: .queryTerms) {
      reported.append($0)
    }
    #expect(operands.tracks.map(\.path) == [scratch.raw("list.m3u")])
    #expect(reported == [.missing(entry)])
  }

  @Test func aListThatCannotBeReadIsReported() throws {
    let scratch = try scratchFolder()
    var reported: [AudioOperands.Diagnostic] = []
    // More lines than any list has.
    try scratch.write("long.m3u", Array(repeating: UInt8(ascii: "\n"), count: 100_001))
    let operands = try AudioOperands.resolve([scratch.raw("long.m3u")], accepting: .playlists) {
      reported.append($0)
    }
    #expect(operands.tracks.isEmpty)
    #expect(
      reported == [
        .unreadableList(
          PlaylistError(path: scratch.raw("long.m3u"), reason: "more than 100000 lines: not a list"))
      ])
  }
}
