import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfFacts

#if canImport(Glibc)
  import Glibc
#endif

// M3U, M3U8 and PLS lists as players and people write them: extended M3U with URLs and
// Windows paths, legacy code pages, raw file names, PLS, lists inside lists with a loop.

@Test func extendedM3UEntriesTitlesAndURLs() throws {
  let text = """
    #EXTM3U
    #PLAYLIST:Road trip
    #EXTINF:245,Queen - Bohemian Rhapsody
    Queen/01 Bohemian Rhapsody.flac

    #EXTINF:-1 tvg-id="radio" group-title="News",Radio Four
    http://example.com/stream.mp3
      ./Loose/track.ogg\t
    #EXTINF:61.5,
    file:///srv/music/A%20B/c%C3%A9.mp3
    file://otherhost/x.mp3
    Windows\\Folder\\song.mp3
    /abs/path.wav
    """
  let list = try PlaylistFile.parse(Array(text.utf8), path: RawPath("/home/u/lists/trip.m3u"), format: .m3u)
  #expect(list.encoding == .utf8)
  #expect(
    list.entries.map(\.location) == [
      .file([RawPath("/home/u/lists/Queen/01 Bohemian Rhapsody.flac")]),
      .file([RawPath("/home/u/lists/Loose/track.ogg")]),
      .file([RawPath("/srv/music/A B/cé.mp3")]),
      .file([
        RawPath("/home/u/lists/Windows\\Folder\\song.mp3"), RawPath("/home/u/lists/Windows/Folder/song.mp3"),
      ]),
      .file([RawPath("/abs/path.wav")]),
    ])
  #expect(list.entries.map(\.title) == ["Queen - Bohemian Rhapsody", nil, nil, nil, nil])
  #expect(list.entries.map(\.duration) == [245, nil, 61.5, nil, nil])
  #expect(list.entries.map(\.line) == [4, 8, 10, 12, 13])
  #expect(
    list.diagnostics.map(\.description) == [
      "/home/u/lists/trip.m3u:7: http://example.com/stream.mp3: a URL (shelf plays files only), skipped",
      "/home/u/lists/trip.m3u:11: file://otherhost/x.mp3: a file URL of another host, skipped",
    ])
}

@Test func windows1252M3UFindsTheFileByItsUTF8Name() throws {
  let folder = try TemporaryDirectory()
  try folder.write("Musique/Café.mp3", [1])
  // Written by Winamp on a Western Windows: Windows-1252, CR LF.
  var bytes =
    Array("#EXTM3U\r\n#EXTINF:180,Zaz - Je veux (caf".utf8) + [0xE9] + Array(" de la r".utf8) + [0xE9]
  bytes += Array("publique)\r\nMusique\\Caf".utf8) + [0xE9] + Array(".mp3\r\n".utf8)
  try folder.write("liste.m3u", bytes)
  let list = try PlaylistFile.parse(bytes, path: folder.raw("liste.m3u"), format: .m3u)
  #expect([.windows1252, .latin1, .iso8859_15].contains(list.encoding), "\(list.encoding)")
  #expect(list.entries.first?.title == "Zaz - Je veux (café de la république)")
  let expansion = try PlaylistResolver().expand(folder.raw("liste.m3u"))
  #expect(expansion.items.map(\.path) == [folder.raw("Musique/Café.mp3")])
  #expect(expansion.items.first?.title == "Zaz - Je veux (café de la république)")
  #expect(expansion.items.first?.duration == 180)
  #expect(expansion.diagnostics.isEmpty)
}

@Test func shiftJISM3UIsDecoded() throws {
  let titles = ["東京事変 - 群青日和", "椎名林檎 - 丸の内サディスティック", "宇多田ヒカル - 花束を君に", "スピッツ - 空も飛べるはず"]
  var text = "#EXTM3U\n"
  for (index, title) in titles.enumerated() {
    text += "#EXTINF:\(200 + index),\(title)\n音楽/\(title.split(separator: " ").last!).mp3\n"
  }
  let bytes = TextTranscoder.encode(text, to: "CP932")
  #expect(String(validating: bytes, as: UTF8.self) == nil)
  let list = try PlaylistFile.parse(bytes, path: RawPath("/j/リスト.m3u"), format: .m3u)
  #expect(list.encoding == .shiftJIS)
  #expect(list.entries.map(\.title) == titles)
  #expect(list.entries.map(\.duration) == [200, 201, 202, 203])
  guard case .file(let spellings) = list.entries[0].location else {
    Issue.record("not a file")
    return
  }
  #expect(spellings.count == 2)
  #expect(spellings[1] == RawPath("/j/音楽/群青日和.mp3"))
}

@Test func rawNonUTF8NamesInAnM3UAreKeptAsBytes() throws {
  let folder = try TemporaryDirectory()
  // A Latin-1 file name on a UTF-8 system, as `shelf ls --m3u` writes it.
  let name = Array("caf".utf8) + [0xE9] + Array(".flac".utf8)
  let path = RawPath(bytes: Array(folder.path.utf8) + [0x2F] + name)
  let descriptor = path.withCString { open($0, O_CREAT | O_WRONLY, 0o644) }
  #expect(descriptor >= 0)
  close(descriptor)
  try folder.write(
    "list.m3u", Array("#EXTM3U\n#EXTINF:3,cafe\n".utf8) + path.bytes + [0x0A])
  let expansion = try PlaylistResolver().expand(folder.raw("list.m3u"))
  #expect(expansion.items.map(\.path) == [path])
  #expect(expansion.diagnostics.isEmpty)
}

@Test func plsEntriesPlayInNumberOrder() throws {
  let text = """
    [playlist]
    NumberOfEntries=3
    File2=http://radio.example/live
    Title2=Live radio
    Length2=-1
    File1=../Music/first.mp3
    Title1=First Artist - First Song
    Length1=212
    File3 = /abs/third.ogg
    Length3=abc
    Version=2
    """
  let list = try PlaylistFile.parse(Array(text.utf8), path: RawPath("/home/u/lists/radio.pls"), format: .pls)
  #expect(
    list.entries.map(\.location) == [
      .file([RawPath("/home/u/lists/../Music/first.mp3")]), .file([RawPath("/abs/third.ogg")]),
    ])
  #expect(list.entries.map(\.title) == ["First Artist - First Song", nil])
  #expect(list.entries.map(\.duration) == [212, nil])
  #expect(list.entries.map(\.line) == [6, 9])
  #expect(
    list.diagnostics.map(\.description) == [
      "/home/u/lists/radio.pls:3: http://radio.example/live: a URL (shelf plays files only), skipped"
    ])
}

@Test func utf16PLSWithByteOrderMark() throws {
  let text = "[playlist]\r\nFile1=Été.mp3\r\nTitle1=Été indien\r\n"
  var bytes: [UInt8] = [0xFF, 0xFE]
  for unit in text.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
  let list = try PlaylistFile.parse(bytes, path: RawPath("/p/l.pls"), format: .pls)
  #expect(list.encoding == .utf16le)
  #expect(list.entries.map(\.location) == [.file([RawPath("/p/Été.mp3")])])
  #expect(list.entries.first?.title == "Été indien")
}

@Test func nestedListsWithALoopAreFollowedAndTheLoopReportedOnce() throws {
  let folder = try TemporaryDirectory()
  for name in ["a.flac", "b.flac", "c.flac", "Album.flac"] { try folder.write("music/\(name)", [1]) }
  try folder.write(
    "music/Album.cue",
    Array(
      "TITLE \"Album\"\nFILE \"Album.flac\" WAVE\nTRACK 01 AUDIO\nTITLE \"One\"\nINDEX 01 00:00:00\nTRACK 02 AUDIO\nTITLE \"Two\"\nINDEX 01 01:00:00\n"
        .utf8))
  // top.m3u → a.flac, inner.m3u8, missing.mp3, b.flac; inner.m3u8 → c.flac, Album.cue, top.m3u (a loop),
  // sub/deeper.pls; deeper.pls → ../top.m3u (the same loop again), ../inner.m3u8 (another).
  try folder.write(
    "top.m3u", Array("#EXTM3U\nmusic/a.flac\ninner.m3u8\nmusic/missing.mp3\nmusic/b.flac\ninner.m3u8\n".utf8))
  try folder.write("inner.m3u8", Array("music/c.flac\nmusic/Album.cue\ntop.m3u\nsub/deeper.pls\n".utf8))
  try folder.write(
    "sub/deeper.pls", Array("[playlist]\nFile1=../top.m3u\nFile2=../inner.m3u8\nFile3=../music\n".utf8))
  let expansion = try PlaylistResolver().expand(folder.raw("top.m3u"))
  let music = folder.raw("music")
  let expected: [(RawPath, Int?, Int)] = [
    (music.appending("a.flac"), nil, 1), (music.appending("c.flac"), nil, 2),
    (music.appending("Album.flac"), 1, 2),
    (music.appending("Album.flac"), 2, 2), (folder.raw("sub/../music"), nil, 2),
    (music.appending("b.flac"), nil, 4),
    (music.appending("c.flac"), nil, 5), (music.appending("Album.flac"), 1, 5),
    (music.appending("Album.flac"), 2, 5),
    (folder.raw("sub/../music"), nil, 5),
  ]
  #expect(expansion.items.map(\.path) == expected.map(\.0))
  #expect(expansion.items.map { $0.cueTrack?.number } == expected.map(\.1))
  #expect(expansion.items.map(\.position) == expected.map(\.2))
  #expect(expansion.items.map(\.isFolder) == expected.map { $0.0.lastComponent == RawPath("music") })
  #expect(expansion.items[2].title == "One")
  #expect(expansion.items[2].album == "Album")
  #expect(expansion.items[2].list == folder.raw("music/Album.cue"))
  // Each loop once, though top.m3u names inner.m3u8 twice; the missing file once.
  #expect(
    expansion.diagnostics.map(\.description) == [
      "\(folder.path)/inner.m3u8:3: top.m3u: a list that includes itself (through inner.m3u8), not followed again",
      "\(folder.path)/sub/deeper.pls:3: ../inner.m3u8: a list that includes itself (through deeper.pls), not followed again",
      "\(folder.path)/top.m3u:4: music/missing.mp3: no such file, skipped",
    ])
  #expect(expansion.firstItem(track: 3) == 5)
  #expect(expansion.firstItem(track: 2) == 1)
}

@Test func listsNestDeeperThanEightAreNotFollowed() throws {
  let folder = try TemporaryDirectory()
  try folder.write("song.mp3", [1])
  for depth in 1...10 {
    try folder.write("l\(depth).m3u", Array("song.mp3\nl\(depth + 1).m3u\n".utf8))
  }
  try folder.write("l11.m3u", Array("song.mp3\n".utf8))
  let expansion = try PlaylistResolver().expand(folder.raw("l1.m3u"))
  #expect(expansion.items.count == 8)
  #expect(
    expansion.diagnostics.map(\.description) == [
      "\(folder.path)/l8.m3u:2: l9.m3u: lists nested deeper than 8, not followed"
    ])
}

@Test func oversizedAndBinaryListsAreRefused() throws {
  let folder = try TemporaryDirectory()
  try folder.write("big.m3u", [UInt8](repeating: 0x61, count: PlaylistText.sizeLimit + 1))
  #expect(throws: PlaylistError.self) { try PlaylistResolver().expand(folder.raw("big.m3u")) }
  try folder.write(
    "binary.cue", [0x00, 0x01, 0x02, 0xFF, 0xFE, 0x00, 0x1B, 0x00] + [UInt8](repeating: 0x9B, count: 64))
  #expect(throws: PlaylistError.self) { try PlaylistResolver().expand(folder.raw("binary.cue")) }
  #expect(throws: PlaylistError.self) { try PlaylistResolver().expand(folder.raw("absent.m3u")) }
  #expect(throws: PlaylistError.self) { try PlaylistResolver().expand(folder.raw("song.mp3")) }
  let lines = [UInt8](repeating: 0x0A, count: PlaylistText.lineLimit + 1)
  #expect(throws: PlaylistError.self) { try PlaylistFile.parse(lines, path: RawPath("/l.m3u"), format: .m3u) }
}

@Test func m3uEntriesAreWrittenExactly() throws {
  #expect(M3UWriter.header == Array("#EXTM3U\n".utf8))
  let path = RawPath("/m/Queen/01 Bohemian Rhapsody.flac")
  #expect(
    try M3UWriter.entry(
      path: path, duration: 354.6, artist: "Queen", title: "Bohemian Rhapsody", flavour: .m3u8)
      == Array("#EXTINF:355,Queen - Bohemian Rhapsody\n/m/Queen/01 Bohemian Rhapsody.flac\n".utf8))
  #expect(
    try M3UWriter.entry(path: path, duration: 0, artist: nil, title: "Line\nbreak", flavour: .m3u)
      == Array("#EXTINF:-1,Line break\n/m/Queen/01 Bohemian Rhapsody.flac\n".utf8))
  #expect(
    try M3UWriter.entry(path: path, duration: .nan, artist: "Only Artist", title: " ", flavour: .m3u)
      == Array("#EXTINF:-1,01 Bohemian Rhapsody.flac\n/m/Queen/01 Bohemian Rhapsody.flac\n".utf8))
  let latin1 = RawPath(bytes: Array("/m/caf".utf8) + [0xE9] + Array(".mp3".utf8))
  #expect(
    try M3UWriter.entry(path: latin1, duration: 2.4, artist: nil, title: nil, flavour: .m3u)
      == Array("#EXTINF:2,caf".utf8) + [0xE9] + Array(".mp3\n/m/caf".utf8) + [0xE9] + Array(".mp3\n".utf8))
  #expect(throws: M3UWriter.Refusal.pathNotUTF8) {
    try M3UWriter.entry(path: latin1, duration: 2, artist: nil, title: nil, flavour: .m3u8)
  }
  #expect(throws: M3UWriter.Refusal.lineBreakInPath) {
    try M3UWriter.entry(path: RawPath("/m/a\nb.mp3"), duration: 2, artist: nil, title: nil, flavour: .m3u)
  }
}
