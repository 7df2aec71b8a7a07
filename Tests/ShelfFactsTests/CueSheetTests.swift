import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfFacts

// CUE sheets shaped like the ones rippers write: EAC's (REM lines, CRLF, a byte-order mark,
// INDEX 00 pregaps, a data track), one FILE per track with the gap in the previous file,
// Windows code pages, FILE names that no longer match the audio beside them.

/// Bytes of `text` with CR LF line ends.
private func crlf(_ text: String) -> [UInt8] {
  Array(text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n").utf8)
}

private let eacSheet = """
  REM GENRE "Progressive Rock"
  REM DATE 1973
  REM DISCID 860B640B
  REM COMMENT "ExactAudioCopy v1.6"
  REM REPLAYGAIN_ALBUM_GAIN -7.89 dB
  CATALOG 0724384960650
  PERFORMER "Pink Floyd"
  TITLE "The Dark Side of the Moon"
  FILE "Pink Floyd - The Dark Side of the Moon.wav" WAVE
    TRACK 01 AUDIO
      TITLE "Speak to Me"
      ISRC GBN9Y1100001
      INDEX 01 00:00:00
    TRACK 02 AUDIO
      TITLE "Breathe (In the Air)"
      FLAGS DCP PRE
      REM REPLAYGAIN_TRACK_GAIN -6.10 dB
      INDEX 00 01:07:50
      INDEX 01 01:09:10
    TRACK 03 AUDIO
      TITLE "On the Run"
      PERFORMER "Pink Floyd & VCS3"
      SONGWRITER "Gilmour/Waters"
      INDEX 00 03:55:40
      INDEX 01 03:57:52
    TRACK 04 MODE1/2352
      PREGAP 00:02:00
      INDEX 01 07:30:00

  """

@Test func eacSheetWithRemarksCRLFAndByteOrderMark() throws {
  let sheet = try CueSheet.parse(
    [0xEF, 0xBB, 0xBF] + crlf(eacSheet), path: RawPath("/music/dsotm/album.cue"))
  #expect(sheet.encoding == .utf8)
  #expect(sheet.title == "The Dark Side of the Moon")
  #expect(sheet.performer == "Pink Floyd")
  #expect(sheet.catalog == "0724384960650")
  #expect(sheet.remark("genre") == "Progressive Rock")
  #expect(sheet.remark("DATE") == "1973")
  #expect(sheet.remark("COMMENT") == "ExactAudioCopy v1.6")
  #expect(sheet.remark("REPLAYGAIN_ALBUM_GAIN") == "-7.89 dB")
  #expect(sheet.files.map(\.name) == ["Pink Floyd - The Dark Side of the Moon.wav"])
  #expect(sheet.files[0].type == "WAVE")
  #expect(sheet.files[0].path == RawPath("/music/dsotm/Pink Floyd - The Dark Side of the Moon.wav"))
  #expect(sheet.files[0].location == .notLooked)
  #expect(sheet.tracks.map(\.number) == [1, 2, 3, 4])
  #expect(sheet.tracks.map(\.title) == ["Speak to Me", "Breathe (In the Air)", "On the Run", nil])
  #expect(sheet.tracks.map(\.performer) == ["Pink Floyd", "Pink Floyd", "Pink Floyd & VCS3", "Pink Floyd"])
  #expect(sheet.tracks[2].songwriter == "Gilmour/Waters")
  #expect(sheet.tracks[0].isrc == "GBN9Y1100001")
  #expect(sheet.tracks[1].flags == ["DCP", "PRE"])
  #expect(sheet.tracks[1].remarks == [CueSheet.Remark(name: "REPLAYGAIN_TRACK_GAIN", value: "-6.10 dB")])
  // Starts are INDEX 01; a track ends where the next one's INDEX 01 is, so the pregap
  // (INDEX 00) plays at the end of the track before, as on a CD.
  #expect(sheet.tracks.map(\.start.frames) == [0, (69 * 75) + 10, (237 * 75) + 52, 450 * 75])
  #expect(sheet.tracks.map { $0.end?.frames } == [(69 * 75) + 10, (237 * 75) + 52, 450 * 75, nil])
  #expect(sheet.tracks[1].pregap?.time == CueTime("01:07:50"))
  #expect(sheet.tracks[0].pregap == nil)
  #expect(sheet.tracks[3].isAudio == false)
  #expect(sheet.tracks[3].type == "MODE1/2352")
  #expect(sheet.tracks[3].pregapSilence == CueTime(frames: 150))
  #expect(sheet.tracks[1].start.description == "01:09:10")
  #expect(sheet.diagnostics.isEmpty)
}

@Test func cueTimesConvertToSampleFramesExactly() throws {
  let time = try #require(CueTime("04:12:01"))
  #expect(time.frames == 252 * 75 + 1)
  // 588 samples per CD frame at 44.1 kHz, 640 at 48 kHz.
  #expect(time.sampleFrame(rate: 44_100) == Int64(252 * 75 + 1) * 588)
  #expect(time.sampleFrame(rate: 48_000) == Int64(252 * 75 + 1) * 640)
  #expect(time.sampleFrame(rate: 0) == nil)
  #expect(CueTime(frames: Int.max / 2).sampleFrame(rate: Int.max) == nil)
  #expect(CueTime("120:00:00")?.frames == 120 * 60 * 75)
  for bad in ["00:60:00", "00:00:75", "1:2", "-1:00:00", "aa:00:00", "1234567:00:00", "00:00:00:00", ""] {
    #expect(CueTime(bad) == nil, "\(bad)")
  }
  let span = CueTrackSpan(number: 2, start: CueTime(frames: 75), end: CueTime(frames: 150))
  #expect(span.sampleFrames(rate: 44_100)! == (44_100, 88_200))
}

@Test func oneFilePerTrackWithTheGapInThePreviousFile() throws {
  // EAC's "non-compliant" layout: each track a file, track 2's INDEX 00 at the end of 01.flac.
  let text = """
    TITLE "Album"
    PERFORMER "Artist"
    FILE "01 First.flac" WAVE
      TRACK 01 AUDIO
        TITLE "First"
        INDEX 01 00:00:00
      TRACK 02 AUDIO
        TITLE "Second"
        INDEX 00 03:58:12
    FILE "02 Second.flac" WAVE
        INDEX 01 00:00:00
      TRACK 03 AUDIO
        TITLE "Third"
        INDEX 01 02:30:00
    """
  let sheet = try CueSheet.parse(Array(text.utf8), path: RawPath("/m/a.cue"))
  #expect(sheet.files.map(\.path) == [RawPath("/m/01 First.flac"), RawPath("/m/02 Second.flac")])
  #expect(sheet.tracks.map(\.fileIndex) == [0, 1, 1])
  #expect(
    sheet.tracks.map(\.file) == [
      RawPath("/m/01 First.flac"), RawPath("/m/02 Second.flac"), RawPath("/m/02 Second.flac"),
    ])
  // Track 1 runs to the end of its file; track 2 from the start of the next to track 3.
  #expect(sheet.tracks.map { $0.end } == [nil, CueTime("02:30:00"), nil])
  #expect(sheet.tracks[1].pregap?.fileIndex == 0)
  #expect(sheet.tracks[1].pregap?.time == CueTime("03:58:12"))
  let lengths = sheet.trackDurations { path in path == RawPath("/m/01 First.flac") ? 240 : 400 }
  #expect(lengths == [240, 150, 250])
  #expect(sheet.trackDurations { _ in nil } == [nil, 150, nil])
}

@Test func valuesQuotedBareAndInAnyCase() throws {
  let text = """
    performer Bare Name With Spaces
    title "Say "Hi" Again"
    file My Song.mp3 MP3
    track 1 audio
    index 1 00:00:00
    TRACK 2 AUDIO
    TITLE ""
    INDEX 01 00:10:00
    """
  let sheet = try CueSheet.parse(Array(text.utf8), path: RawPath("/a/b.cue"))
  #expect(sheet.performer == "Bare Name With Spaces")
  #expect(sheet.title == "Say \"Hi\" Again")
  #expect(sheet.files[0].name == "My Song.mp3")
  #expect(sheet.files[0].type == "MP3")
  #expect(sheet.tracks.map(\.start) == [CueTime(frames: 0), CueTime(frames: 750)])
  #expect(sheet.tracks[1].title == "")
}

@Test func hostileSheetsCostOnlyTheirBadLines() throws {
  let text = """
    TRACK 01 AUDIO
    INDEX 01 00:00:00
    FILE "a.wav" WAVE
    TRACK 01 AUDIO
    INDEX 01 00:10:00
    TRACK 02 AUDIO
    INDEX 01 00:05:00
    TRACK 99999 AUDIO
    INDEX 01 00:20:00
    TRACK 03 AUDIO
    INDEX 01 00:60:00
    TRACK 04 AUDIO
    INDEX 00 00:30:00
    TRACK 05 AUDIO
    INDEX 01 999999:59:74
    INDEX 01 00:40:00
    """
  let sheet = try CueSheet.parse(Array(text.utf8), path: RawPath("/x/s.cue"))
  // Track 2 starts before track 1 (dropped); 99999 is no number (its INDEX lines go with it);
  // track 3 has no valid INDEX; track 4 starts at its INDEX 00; track 5 takes its last INDEX 01.
  #expect(sheet.tracks.map(\.number) == [1, 4, 5])
  #expect(sheet.tracks.map(\.start) == [CueTime("00:10:00"), CueTime("00:30:00"), CueTime("00:40:00")])
  #expect(sheet.tracks.map(\.end) == [CueTime("00:30:00"), CueTime("00:40:00"), nil])
  let messages = sheet.diagnostics.map(\.description)
  #expect(
    messages == [
      "/x/s.cue:1: TRACK 01 AUDIO: TRACK before any FILE, ignored",
      "/x/s.cue:2: INDEX 01 00:00:00: INDEX outside a TRACK, ignored",
      "/x/s.cue:6: TRACK 2: starts at 00:05:00, not after track 1 (00:10:00): skipped",
      "/x/s.cue:8: TRACK 99999 AUDIO: not a track number, ignored",
      "/x/s.cue:11: INDEX 01 00:60:00: not an INDEX nn mm:ss:ff, ignored",
      "/x/s.cue:10: TRACK 3: no INDEX 01, skipped",
      "/x/s.cue:12: TRACK 4: no INDEX 01, starts at its INDEX 00",
    ])
  for track in sheet.tracks { #expect(track.end.map { $0 > track.start } ?? true) }
}

@Test func windows1252SheetIsDecoded() throws {
  // "Beyoncé", "Déjà vu", "Café del Mar.wav" in Windows-1252, as EAC on a Western Windows writes.
  var bytes = Array("PERFORMER \"Beyonc".utf8) + [0xE9] + Array("\"\r\nTITLE \"D".utf8) + [0xE9, 0x6A, 0xE0]
  bytes += Array(" vu, the last song of the night and a very long title\"\r\nFILE \"Caf".utf8) + [0xE9]
  bytes += Array(" del Mar.wav\" WAVE\r\n  TRACK 01 AUDIO\r\n    TITLE \"Na".utf8) + [0xEF]
  bytes += Array("ve\"\r\n    INDEX 01 00:00:00\r\n".utf8)
  let sheet = try CueSheet.parse(bytes, path: RawPath("/m/x.cue"))
  #expect([.windows1252, .latin1, .iso8859_15].contains(sheet.encoding))
  #expect(sheet.performer == "Beyoncé")
  #expect(sheet.title == "Déjà vu, the last song of the night and a very long title")
  #expect(sheet.tracks.first?.title == "Naïve")
  #expect(sheet.files[0].name == "Café del Mar.wav")
  // The bytes as written first (a file copied with its Windows name), then the UTF-8 name.
  #expect(
    sheet.files[0].spellings == [
      RawPath(bytes: Array("/m/Caf".utf8) + [0xE9] + Array(" del Mar.wav".utf8)),
      RawPath("/m/Café del Mar.wav"),
    ])
}

@Test func missingFileIsFoundUnderAnotherAudioExtension() throws {
  let folder = try TemporaryDirectory()
  try folder.write("Album.FLAC", [1])
  try folder.write("Album.mp3", [1])
  try folder.write(
    "Album.cue", Array("FILE \"Album.wav\" WAVE\nTRACK 01 AUDIO\nTITLE \"A\"\nINDEX 01 00:00:00\n".utf8))
  let sheet = try CueSheet.read(path: folder.raw("Album.cue"))
  // flac comes before mp3 among the extensions tried; the case of the extension is the file's.
  #expect(sheet.files[0].location == .found(folder.raw("Album.FLAC"), .otherExtension))
  #expect(sheet.tracks[0].file == folder.raw("Album.FLAC"))
  #expect(
    sheet.diagnostics.map(\.description) == [
      "\(folder.path)/Album.cue:1: Album.wav: not found, playing Album.FLAC instead"
    ])
  #expect(sheet.diagnostics[0].isNote)
}

@Test func ripperImageNameFallsBackToTheSheetsName() throws {
  let folder = try TemporaryDirectory()
  try folder.write("Live at Leeds.ape", [1])
  try folder.write(
    "Live at Leeds.cue",
    Array(
      "FILE \"C:\\Rips\\Range.wav\" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\nTRACK 02 AUDIO\nINDEX 01 01:00:00\n"
        .utf8))
  let sheet = try CueSheet.read(path: folder.raw("Live at Leeds.cue"))
  #expect(sheet.files[0].location == .found(folder.raw("Live at Leeds.ape"), .sheetName))
  #expect(sheet.files[0].spellings.last == folder.raw("Range.wav"))
  #expect(sheet.tracks.map(\.file) == [folder.raw("Live at Leeds.ape"), folder.raw("Live at Leeds.ape")])
}

@Test func fileMissingUnderEveryNameIsReportedOnce() throws {
  let folder = try TemporaryDirectory()
  try folder.write("other.flac", [1])
  try folder.write(
    "a.cue",
    Array(
      "FILE \"gone.wav\" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\nTRACK 02 AUDIO\nINDEX 01 00:01:00\n".utf8))
  let expansion = try PlaylistResolver().expand(folder.raw("a.cue"))
  #expect(expansion.items.isEmpty)
  #expect(
    expansion.diagnostics.map(\.description) == [
      "\(folder.path)/a.cue:1: gone.wav: no such file (nor under another audio extension)"
    ])
}

@Test func cueSheetExpandsToTrackSpans() throws {
  let folder = try TemporaryDirectory()
  try folder.write("Pink Floyd - The Dark Side of the Moon.flac", [1])
  try folder.write("album.cue", crlf(eacSheet))
  let expansion = try PlaylistResolver().expand(folder.raw("album.cue"))
  let file = folder.raw("Pink Floyd - The Dark Side of the Moon.flac")
  #expect(expansion.format == .cue)
  #expect(
    expansion.items == [
      PlaylistItem(
        path: file, cueTrack: CueTrackSpan(number: 1, start: CueTime(frames: 0), end: CueTime("01:09:10")),
        title: "Speak to Me", performer: "Pink Floyd", album: "The Dark Side of the Moon",
        list: folder.raw("album.cue"), position: 1),
      PlaylistItem(
        path: file, cueTrack: CueTrackSpan(number: 2, start: CueTime("01:09:10")!, end: CueTime("03:57:52")),
        title: "Breathe (In the Air)", performer: "Pink Floyd", album: "The Dark Side of the Moon",
        list: folder.raw("album.cue"), position: 2),
      PlaylistItem(
        path: file, cueTrack: CueTrackSpan(number: 3, start: CueTime("03:57:52")!, end: CueTime("07:30:00")),
        title: "On the Run", performer: "Pink Floyd & VCS3", album: "The Dark Side of the Moon",
        list: folder.raw("album.cue"), position: 3),
    ])
  #expect(expansion.firstItem(track: 2) == 1)
  #expect(expansion.firstItem(track: 4) == nil)
  #expect(
    expansion.diagnostics.map(\.description) == [
      "\(folder.path)/album.cue:9: Pink Floyd - The Dark Side of the Moon.wav: not found, playing Pink Floyd - The Dark Side of the Moon.flac instead",
      "\(folder.path)/album.cue:26: TRACK 4: a data track (MODE1/2352), skipped",
    ])
}

@Test func aTextFileThatIsNoSheetGivesFewWarnings() throws {
  let text = String(repeating: "INDEX 01 nonsense\nTRACK\n", count: 5_000)
  let sheet = try CueSheet.parse(Array(text.utf8), path: RawPath("/n/notes.cue"))
  #expect(sheet.tracks.isEmpty)
  #expect(sheet.diagnostics.count == CueSheetParser.warningLimit + 1)
  #expect(sheet.diagnostics.last?.description == "/n/notes.cue: 9950 more lines that make no sense, ignored")
}
