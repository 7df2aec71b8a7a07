import Foundation
import ShelfAudio
import ShelfCore
import ShelfTestSupport
import Testing

/// MP3 lengths counted from frame headers, against what ffmpeg decodes from files lame and
/// ffmpeg wrote, with and without a Xing/LAME header, behind tags and cover art.
@Suite struct MP3FramesTests {
  /// A 1.3 s stereo WAV of a sine to encode.
  static func source(_ folder: TemporaryDirectory) throws -> String {
    let path = folder.file("source.wav")
    try ExternalTool.ffmpeg([
      "-f", "lavfi", "-i", "sine=frequency=330:sample_rate=44100:duration=1.3", "-ac", "2", path,
    ])
    return path
  }

  /// Samples per channel ffmpeg decodes.
  static func decodedFrames(_ path: String) throws -> Int64 {
    let outcome = try ExternalTool.run(["ffmpeg", "-v", "error", "-i", path, "-ac", "1", "-f", "s16le", "-"])
    #expect(outcome.status == 0)
    return Int64(outcome.stdout.count / 2)
  }

  /// An ID3v2.3 tag of `size` bytes of padding and one big APIC frame (cover art).
  static func id3WithCover(pictureBytes: Int) -> [UInt8] {
    let body: [UInt8] =
      [0] + Array("image/png".utf8) + [0, 3, 0] + [UInt8](repeating: 0x89, count: pictureBytes)
    let frame =
      Array("APIC".utf8) + [
        UInt8(body.count >> 24), UInt8(body.count >> 16 & 0xFF), UInt8(body.count >> 8 & 0xFF),
        UInt8(body.count & 0xFF), 0, 0,
      ] + body
    let size = frame.count
    return Array("ID3".utf8) + [
      3, 0, 0, UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F),
      UInt8(size & 0x7F),
    ] + frame
  }

  /// An APEv2 tag (header and footer) holding a title, as found before an ID3v1 tag.
  static func apeTag() -> [UInt8] {
    func le(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    let item = le(5) + le(0) + Array("Title".utf8) + [0] + Array("Hello".utf8)
    let size = item.count + 32
    func block(_ flags: Int) -> [UInt8] {
      Array("APETAGEX".utf8) + le(2000) + le(size) + le(1) + le(flags) + [UInt8](repeating: 0, count: 8)
    }
    return block(0xA000_0000) + item + block(0x8000_0000)
  }

  static func id3v1() -> [UInt8] {
    var tag = Array("TAG".utf8) + Array("Old Title".utf8)
    tag += [UInt8](repeating: 0, count: 128 - tag.count)
    tag[127] = 3
    return tag
  }

  @Test(arguments: [["-t"], []])
  func lameFilesBehindTagsAndCoverArtMatchFFmpegsDecodedCount(_ lameOptions: [String]) throws {
    let folder = try TemporaryDirectory()
    let encoded = folder.file("lame.mp3")
    let lame = try ExternalTool.run(
      ["lame", "--quiet", "-b", "128"] + lameOptions + [try Self.source(folder), encoded])
    #expect(lame.status == 0)
    let audio = readBytes(encoded)
    let tagged = folder.file("tagged.mp3")
    writeBytes(tagged, Self.id3WithCover(pictureBytes: 200_000) + audio + Self.apeTag() + Self.id3v1())
    let info = try AudioFileInfo.read(path: RawPath(tagged))
    #expect(info.frames == (try Self.decodedFrames(tagged)))
    #expect(info.frames == (try Self.decodedFrames(encoded)))
    if lameOptions.isEmpty { #expect(info.frames == 57330) }  // 1.3 s exactly: LAME's gapless tag
    #expect(info.hasArtwork)
    #expect(info.codec == "mp3")
    #expect(info.bitrate == 128_000)
    #expect(info.defect == nil)
    #expect(abs(info.duration - Double(info.frames) / 44100) < 1e-9)
  }

  @Test func ffmpegsOwnMP3WithItsLavcTagIsGapless() throws {
    let folder = try TemporaryDirectory()
    let encoded = folder.file("ffmpeg.mp3")
    try ExternalTool.ffmpeg(["-i", try Self.source(folder), "-c:a", "libmp3lame", "-b:a", "96k", encoded])
    let info = try AudioFileInfo.read(path: RawPath(encoded))
    #expect(info.frames == 57330)
    #expect(info.frames == (try Self.decodedFrames(encoded)))
  }

  @Test func anMP3CutInAFrameCountsTheWholeFramesAndSaysSo() throws {
    let folder = try TemporaryDirectory()
    let encoded = folder.file("lame.mp3")
    #expect(
      try ExternalTool.run(["lame", "--quiet", "-t", "-b", "128", try Self.source(folder), encoded]).status
        == 0)
    let audio = readBytes(encoded)
    let cut = folder.file("cut.mp3")
    writeBytes(cut, Array(audio.prefix(audio.count - 100)))
    let info = try AudioFileInfo.read(path: RawPath(cut))
    #expect(info.frames == (try Self.decodedFrames(encoded)) - 1152)
    #expect(info.defect?.message == "truncated: the last MPEG frame is cut short")
    #expect(info.defect?.failure == .badInput)
  }
}
