import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfAudio

/// ID3 tags as real files write them, read as mutagen reads them: unsynchronised (the whole
/// tag in 2.2/2.3, per frame or by the header flag in 2.4), extended headers (and the flag set
/// with none), zero-size and empty frames, iTunes' 2.4 tags with plain frame sizes, UTF-16 with
/// a little- or big-endian byte order mark or none, UTF-16BE, UTF-8, `TXXX`/`WXXX` with empty
/// descriptions, several values in one frame or in repeated frames; the ID3 files mutagen ships.
/// `scripts/check-tags.py --write-cases` writes the files (tags from mutagen's frames) and
/// mutagen's reading of each; hostile tags end in skipped frames.
@Suite struct ID3AsWrittenTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path

  static let hasMutagen: Bool = {
    (try? ExternalTool.run(["python3", "-c", "import mutagen"]))?.status == 0
  }()

  @Test(.enabled(if: hasMutagen, "needs the mutagen Python package (pip install mutagen)"))
  func oddTagsReadAsMutagenReadsThem() throws {
    let folder = try TemporaryDirectory()
    try ExternalTool.make(["python3", Self.root + "/scripts/check-tags.py", "--write-cases", folder.path])
    let data = try Data(contentsOf: URL(fileURLWithPath: folder.file("expected.json")))
    let expected = try #require(JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
    #expect(expected.count >= 30)
    for (name, fields) in expected.sorted(by: { $0.key < $1.key }) {
      let file = try RegularFile(path: folder.raw(name))
      let container = name.hasSuffix(".wav") ? "wav" : name.hasSuffix(".aif") ? "aiff" : "mp3"
      let tags = try #require(try MediaFileInfo.id3Tag(container: container, file: file), "\(name)").tags
      let read: [String: String?] = [
        "title": tags.title, "artist": tags.artist, "album": tags.album, "album_artist": tags.albumArtist,
        "date": tags.date, "track": tags.trackNumber.map(String.init),
        "track_total": tags.trackTotal.map(String.init),
        "disc": tags.disc.map(String.init), "disc_total": tags.discTotal.map(String.init),
        "genre": tags.genre,
        "comment": tags.comment,
      ]
      for (field, value) in read {
        let want = fields[field].flatMap { $0 is NSNull ? nil : "\($0)" }
        #expect(value == want, "\(name) \(field)")
      }
    }
  }

  /// The values the cases hold, spelled out once: what a user sees for the oddest of them.
  @Test(.enabled(if: hasMutagen, "needs the mutagen Python package (pip install mutagen)"))
  func anUnsynchronisedITunesStyleTagGivesEveryValue() throws {
    let folder = try TemporaryDirectory()
    try ExternalTool.make(["python3", Self.root + "/scripts/check-tags.py", "--write-cases", folder.path])
    for name in [
      "v24-utf16-no-bom-plain-sizes-big-frame-itunes-comments.mp3",
      "v24-utf16-bom-be-unsync-frames-data-length-extended-empty-frames-empty-descriptions.mp3",
      "v23-utf16-unsync-extended-empty-frames-empty-descriptions-nul-lists-big-frame.mp3",
    ] {
      let tags = try ID3Reader.read(RegularFile(path: folder.raw(name)))
      #expect(tags.title == "Été ÿ 1", "\(name)")
      #expect(tags.artist == "Straße; 日本語の歌", "\(name)")
      #expect(tags.genre == "Jazz; Electronic", "\(name)")
      #expect(tags.comment == "naïve ÿÿ", "\(name)")
      #expect(tags.date == "2004-03-05", "\(name)")
      #expect(
        tags.trackNumber == 3 && tags.trackTotal == 12 && tags.disc == 1 && tags.discTotal == 2, "\(name)")
    }
  }

  // MARK: - Hostile tags

  /// An ID3v2.4 tag of `frames` (id, size field, flags, content), its size as given.
  static func tag(version: UInt8 = 4, flags: UInt8 = 0, _ frames: [(String, [UInt8], UInt16, [UInt8])])
    -> [UInt8]
  {
    var body: [UInt8] = []
    for (id, size, frameFlags, content) in frames {
      body += Array(id.utf8) + size + [UInt8(frameFlags >> 8), UInt8(frameFlags & 0xFF)] + content
    }
    return wrap(body, version: version, flags: flags)
  }

  static func text(_ value: String) -> [UInt8] { [3] + Array(value.utf8) }

  static func size(_ count: Int) -> [UInt8] {
    [
      UInt8((count >> 21) & 0x7F), UInt8((count >> 14) & 0x7F), UInt8((count >> 7) & 0x7F),
      UInt8(count & 0x7F),
    ]
  }

  @Test func emptyFramesAreSkippedAndReadingGoesOn() {
    let bytes = Self.tag([
      ("TIT1", Self.size(0), 0, []), ("TPE1", Self.size(1), 0, [3]),
      ("TIT2", Self.size(6), 0, Self.text("Later")),
    ])
    let found = ID3Reader.parse(tag: bytes)
    #expect(found.tags.title == "Later")
    #expect(found.tags.artist == nil)
  }

  @Test func framesThatLieAboutTheirSizeEndTheTagWithoutATrap() {
    let title = ("TIT2", Self.size(6), UInt16(0), Self.text("First"))
    for lie in [[0x7F, 0x7F, 0x7F, 0x7F], [0xFF, 0xFF, 0xFF, 0xFF], [0, 0, 0, 200]] as [[UInt8]] {
      let found = ID3Reader.parse(tag: Self.tag([title, ("TPE1", lie, 0, Self.text("x"))]))
      #expect(found.tags.title == "First")
      #expect(found.tags.artist == nil)
    }
    // A data length indicator, a grouping byte or a compressed frame with too few bytes.
    for flags: UInt16 in [0x0001, 0x0041, 0x0008, 0x0004, 0x0003] {
      let found = ID3Reader.parse(tag: Self.tag([("TPE1", Self.size(2), flags, [3, 0x41]), title]))
      #expect(found.tags.title == "First", "flags \(flags)")
    }
  }

  @Test func hostileHeadersAndTextGiveNothingOrWhatIsThere() {
    let title = ("TIT2", Self.size(6), UInt16(0), Self.text("First"))
    let titleFrame = Array(Self.tag([title]).dropFirst(10))
    // An extended header larger than the tag.
    #expect(
      ID3Reader.parse(tag: Self.wrap([0x7F, 0x7F, 0x7F, 0x7F, 1, 0] + titleFrame, flags: 0x40)).tags.isEmpty)
    // The extended header flag set with no extended header: the frames follow at once.
    #expect(ID3Reader.parse(tag: Self.wrap(titleFrame, flags: 0x40)).tags.title == "First")
    // A tag cut short, an unknown version, ID3v2.2's compression.
    #expect(ID3Reader.parse(tag: Array(Self.tag([title]).prefix(15))).tags.isEmpty)
    #expect(ID3Reader.parse(tag: Self.tag(version: 5, [title])).tags.isEmpty)
    #expect(ID3Reader.parse(tag: Self.wrap([], version: 2, flags: 0x40)).tags.isEmpty)
    // An unknown encoding; a lone 0xFF ending unsynchronised data; UTF-16 of an odd length.
    #expect(ID3Reader.parse(tag: Self.tag([("TIT2", Self.size(3), 0, [9, 0x41, 0x42])])).tags.title == nil)
    #expect(ID3Reader.parse(tag: Self.tag([("TIT2", Self.size(3), 2, [0, 0x41, 0xFF])])).tags.title == "Aÿ")
    #expect(
      ID3Reader.parse(tag: Self.tag([("TIT2", Self.size(4), 0, [1, 0xFF, 0xFE, 0x41])])).tags.title == nil)
    #expect(
      ID3Reader.parse(tag: Self.tag([("TIT2", Self.size(6), 0, [1, 0xFF, 0xFE, 0x41, 0, 0x42])])).tags.title
        == "A")
  }

  /// An ID3v2 tag around `body`.
  static func wrap(_ body: [UInt8], version: UInt8 = 4, flags: UInt8 = 0) -> [UInt8] {
    Array("ID3".utf8) + [version, 0, flags] + size(body.count) + body
  }

  @Test func manyZeroSizeFramesAreWalkedQuickly() {
    var frames = [(String, [UInt8], UInt16, [UInt8])](
      repeating: ("TXXX", Self.size(0), 0, []), count: 50_000)
    frames.append(("TIT2", Self.size(6), 0, Self.text("Found")))
    let bytes = Self.tag(frames)
    let start = ContinuousClock.now
    #expect(ID3Reader.parse(tag: bytes).tags.title == "Found")
    #expect(ContinuousClock.now - start < .seconds(10))
  }

  // MARK: - M4A

  /// An M4A whose movie header (`mvhd`) says ten times longer or shorter than its audio track,
  /// or nothing: the track's length after its edit list, as ffprobe gives it, is the length.
  @Test func anM4AIsAsLongAsItsAudioTrackWhateverTheMovieHeaderSays() throws {
    let folder = try TemporaryDirectory()
    let path = folder.file("tone.m4a")
    try ExternalTool.ffmpeg([
      "-f", "lavfi", "-i", "sine=frequency=500:sample_rate=44100:duration=2.5", "-c:a", "aac", path,
    ])
    let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let mvhd = try #require(Self.offset(of: "mvhd", in: original))
    // Version 0: the duration is the 32-bit number after version, flags, two dates, timescale.
    let durationAt = mvhd + 4 + 4 + 8 + 4
    let declared = original[durationAt..<(durationAt + 4)].reduce(0) { $0 << 8 | Int($1) }
    for movieDuration in [declared * 10, declared / 10, 0] {
      var bytes = original
      for index in 0..<4 {
        bytes[durationAt + index] = UInt8(truncatingIfNeeded: movieDuration >> (24 - 8 * index))
      }
      let patched = try folder.write("patched-\(movieDuration).m4a", bytes)
      let probed = try ExternalTool.ffprobe(patched)
      let stream = try #require((probed["streams"] as? [[String: Any]])?.first)
      let trackSeconds = try #require((stream["duration"] as? String).flatMap(Double.init))
      let container = try #require(probed["format"] as? [String: Any])
      let format = try #require((container["duration"] as? String).flatMap(Double.init))
      #expect(abs(format - trackSeconds) > 0.5, "the movie header was not changed")
      guard
        case .audio(let info) = try MediaFileInfo.read(RegularFile(path: RawPath(patched)), mime: "audio/mp4")
      else {
        Issue.record("\(patched) is not audio")
        continue
      }
      #expect(info.frames == 110_250)
      #expect(abs(info.duration - trackSeconds) < 0.001)
    }
  }

  static func offset(of name: String, in bytes: [UInt8]) -> Int? {
    let needle = Array(name.utf8)
    guard bytes.count >= needle.count else { return nil }
    return (0...(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle }
  }
}
