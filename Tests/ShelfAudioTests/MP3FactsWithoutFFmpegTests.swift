import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfAudio

/// An MP3's facts come from shelf's frame scanner and ID3 reader alone (FFmpeg is not loaded
/// for it): they are the facts the FFmpeg path gives, for MP3s written by ffmpeg and lame with
/// ID3v2.3/2.4 and ID3v1 tags, cover art, a Xing header or none, MPEG-1 layer II (untagged), and the
/// sample library's own MP3s.
@Suite struct MP3FactsWithoutFFmpegTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path

  /// Makes the MP3s in `folder` and returns their paths.
  static func makeFiles(_ folder: TemporaryDirectory) throws -> [String] {
    let wav = folder.file("source.wav")
    try ExternalTool.ffmpeg([
      "-f", "lavfi", "-i", "sine=frequency=330:sample_rate=44100:duration=1.3", "-ac", "2", wav,
    ])
    let cover = folder.file("cover.png")
    try ExternalTool.ffmpeg(["-f", "lavfi", "-i", "color=c=red:s=16x16", "-frames:v", "1", cover])
    let tags = [
      "-metadata", "title=Morning", "-metadata", "artist=Shelf Test", "-metadata", "album=Takes",
      "-metadata", "album_artist=Various", "-metadata", "track=3/12", "-metadata", "disc=1/2",
      "-metadata", "genre=Dance", "-metadata", "date=2024", "-metadata", "comment=made for a test",
    ]
    var paths: [String] = []
    let variants: [(String, [String])] = [
      ("v24.mp3", ["-i", wav, "-c:a", "libmp3lame", "-b:a", "128k"] + tags),
      (
        "v23-cover.mp3",
        [
          "-i", wav, "-i", cover, "-map", "0:a", "-map", "1:v", "-c:a", "libmp3lame",
          "-c:v", "png", "-id3v2_version", "3", "-disposition:v", "attached_pic",
        ] + tags
      ),
      ("no-xing.mp3", ["-i", wav, "-c:a", "libmp3lame", "-write_xing", "0", "-q:a", "4"] + tags),
      ("v1-only.mp3", ["-i", wav, "-c:a", "libmp3lame", "-id3v2_version", "0"]),
      ("layer2.mp2", ["-i", wav, "-c:a", "mp2", "-b:a", "192k", "-f", "mp2"]),
      ("mono-22k.mp3", ["-i", wav, "-ac", "1", "-ar", "22050", "-c:a", "libmp3lame"] + tags),
    ]
    for (name, options) in variants {
      let path = folder.file(name)
      try ExternalTool.ffmpeg(options + [path])
      paths.append(path)
    }
    // An ID3v1 tag (ffmpeg writes none without an ID3v2 one) ends the untagged file.
    let v1Path = paths[3]
    let audio = [UInt8](try Data(contentsOf: URL(fileURLWithPath: v1Path)))
    try Data(audio + id3v1(title: "Morning", artist: "Shelf Test", track: 3, genre: 3))
      .write(to: URL(fileURLWithPath: v1Path))
    return paths
  }

  /// An ID3v1.1 tag: title, artist, album, year, comment, track and genre number.
  static func id3v1(title: String, artist: String, track: UInt8, genre: UInt8) -> [UInt8] {
    func field(_ text: String, _ length: Int) -> [UInt8] {
      Array(Array(text.utf8).prefix(length)) + [UInt8](repeating: 0, count: max(0, length - text.utf8.count))
    }
    return Array("TAG".utf8) + field(title, 30) + field(artist, 30) + field("Takes", 30) + field("2024", 4)
      + field("", 28) + [0, track, genre]
  }

  @Test func theFactsAreThoseOfTheFFmpegPath() throws {
    let folder = try TemporaryDirectory()
    let samples = ["SampleMedia/Documents/Music/no-xing-cover.mp3", "SampleMedia/Documents/beeps-stereo.mp3"]
      .map { Self.root + "/" + $0 }
    for path in try Self.makeFiles(folder) + samples {
      let file = try RegularFile(path: RawPath(path))
      let own = try #require(MediaFileInfo.mp3Info(file), "\(path)")
      guard case .audio(var throughFFmpeg) = try MediaFileInfo.readThroughFFmpeg(file, demuxer: "mp3") else {
        Issue.record("\(path) is not audio through FFmpeg")
        continue
      }
      // FFmpeg's MP3 demuxer names every layer mp3 until a decoder has seen a frame; the
      // layer in the frame headers decides, as ffprobe (which decodes) says.
      let probed = try ExternalTool.ffprobe(path)
      let codec = (probed["streams"] as? [[String: Any]])?.first?["codec_name"] as? String
      #expect(own.codec == codec, "\(path)")
      throughFFmpeg.codec = own.codec
      throughFFmpeg.encodingName = own.encodingName
      #expect(own == throughFFmpeg, "\(path)")
      #expect(try MediaFileInfo.read(file, mime: "audio/mpeg") == .audio(own))
    }
  }

  /// An APEv2 tag at the end of an MP3 is not audio: the frames before it are counted, as
  /// FFmpeg decodes them (FFmpeg 5.1 reads no APEv2 tag from an MP3, and neither does shelf).
  @Test func anAPETagIsSkipped() throws {
    let folder = try TemporaryDirectory()
    let path = folder.file("ape.mp3")
    try ExternalTool.ffmpeg([
      "-f", "lavfi", "-i", "sine=frequency=330:sample_rate=44100:duration=1", "-c:a", "libmp3lame",
      "-id3v2_version", "0", path,
    ])
    // An APEv2 tag with two items and its footer at the end: what mutagen and foobar2000 write.
    func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
    func item(_ key: String, _ value: String) -> [UInt8] {
      le32(value.utf8.count) + le32(0) + Array(key.utf8) + [0] + Array(value.utf8)
    }
    let items = item("Title", "Apex") + item("Album Artist", "Summit")
    let footer =
      Array("APETAGEX".utf8) + le32(2000) + le32(items.count + 32) + le32(2) + le32(0)
      + [UInt8](repeating: 0, count: 8)
    let audio = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    try Data(audio + items + footer).write(to: URL(fileURLWithPath: path))
    let file = try RegularFile(path: RawPath(path))
    let own = try #require(MediaFileInfo.mp3Info(file))
    #expect(MediaFileInfo.audio(own) == (try MediaFileInfo.readThroughFFmpeg(file, demuxer: "mp3")))
    let decoded = try ExternalTool.run(["ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-"])
    #expect(own.frames == Int64(decoded.stdout.count / 2))
    #expect(own.defect == nil)
  }
}
