import Foundation
import ShelfTestSupport
import Testing

/// Damaged audio files: `show` and `info` agree that the file is bad input (exit 65) and say
/// why in the same one line. FFmpeg's demuxers return `AVERROR(EIO)` for a header that runs
/// past the end of the file, `AVERROR(ENOMEM)` for one that asks for more than its allocation
/// cap, and a negative header field as it is (an AIFF frame count of 0xFFFFFF88 is "error
/// -120"): none of these is an I/O error or the machine running out of memory.
@Suite struct DamagedAudioExitCodeTests {
  static let truncated = "truncated: a header or packet runs past the end of the file"
  static let tooMuchMemory = "corrupt: a header asks for more memory than the file can need"

  /// A second of a 440 Hz tone made by ffmpeg with `codec` in `name`.
  static func tone(_ name: String, codec: [String], in folder: TemporaryDirectory) throws -> [UInt8] {
    let path = folder.file("made-" + name)
    try ExternalTool.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=1"] + codec + [path])
    return [UInt8](FileManager.default.contents(atPath: path)!)
  }

  static func offset(of tag: String, in bytes: [UInt8]) -> Int? {
    let tag = Array(tag.utf8)
    return (0...(bytes.count - tag.count)).first { bytes[$0..<($0 + tag.count)].elementsEqual(tag) }
  }

  /// Runs `show` and `info` on `bytes` written to `name`; both must exit 65 with `reason`.
  static func expectBadInput(
    _ bytes: [UInt8], as name: String, in folder: TemporaryDirectory, reason: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let path = try folder.write(name, bytes)
    let show = try ShelfProcess.run(["show", "--width", "40", path], timeout: 30)
    #expect(show.status == 65, "show \(name): \(show.stderr)", sourceLocation: sourceLocation)
    #expect(show.stderr == "error: \(path): \(reason)\n", "show \(name)", sourceLocation: sourceLocation)
    let info = try ShelfProcess.run(["info", path], timeout: 30)
    #expect(info.status == 65, "info \(name): \(info.stderr)", sourceLocation: sourceLocation)
    #expect(info.stderr == "error: \(path): \(reason)\n", "info \(name)", sourceLocation: sourceLocation)
  }

  @Test func aFLACWhoseMetadataRunsPastTheEndIsTruncated() throws {
    let folder = try TemporaryDirectory()
    let flac = try Self.tone("t.flac", codec: ["-c:a", "flac"], in: folder)
    #expect(flac.starts(with: Array("fLaC".utf8)))
    // STREAMINFO's 24-bit length (bytes 5-7) says 8 MiB: FFmpeg's read of it comes up short.
    var long = flac
    long.replaceSubrange(5..<8, with: [0x7F, 0xFF, 0xFF])
    try Self.expectBadInput(long, as: "long-streaminfo.flac", in: folder, reason: Self.truncated)
    // Cut inside the metadata blocks.
    try Self.expectBadInput(Array(flac[..<60]), as: "cut.flac", in: folder, reason: Self.truncated)
  }

  @Test func anAIFFWithANegativeFrameCountIsCorrupt() throws {
    let folder = try TemporaryDirectory()
    let aiff = try Self.tone("t.aiff", codec: ["-c:a", "pcm_s16be"], in: folder)
    let comm = try #require(Self.offset(of: "COMM", in: aiff))
    // COMM: tag, size, channels (2), numSampleFrames (4). FFmpeg returns the frame count
    // read as a negative int as its error code: -120 ("is a named type file"), and INT_MIN,
    // which shelf used to negate (a trap: signal 4).
    for (frames, name) in [
      ([UInt8]([0xFF, 0xFF, 0xFF, 0x88]), "minus120.aiff"), ([0x80, 0, 0, 0], "intmin.aiff"),
    ] {
      var bytes = aiff
      bytes.replaceSubrange((comm + 10)..<(comm + 14), with: frames)
      try Self.expectBadInput(
        bytes, as: name, in: folder, reason: "corrupt: a header holds an impossible value")
    }
  }

  @Test func aWAVWhoseBextChunkAsksForGigabytesIsCorruptNotOutOfMemory() throws {
    let folder = try TemporaryDirectory()
    func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    // 8 kHz mono 16-bit, then a `bext` chunk declaring 2 GiB (FFmpeg allocates its coding
    // history, beyond the 256 MiB cap), then the data.
    let fmt = Array("fmt ".utf8) + le32(16) + [1, 0, 1, 0] + le32(8000) + le32(16000) + [2, 0, 16, 0]
    let bext = Array("bext".utf8) + le32(0x7FFF_FFF0) + [UInt8](repeating: 0, count: 100)
    let data = Array("data".utf8) + le32(16000) + [UInt8](repeating: 0, count: 16000)
    let body = Array("WAVE".utf8) + fmt + bext + data
    let wav = Array("RIFF".utf8) + le32(UInt32(body.count)) + body
    try Self.expectBadInput(wav, as: "bext.wav", in: folder, reason: Self.tooMuchMemory)
  }

  /// Six seconds of Opus whose last page says 2^62 samples: with its checksum left as it was
  /// (FFmpeg drops the page, libsndfile believes it; `info` said 0:05 and exit 0, `show` "287688
  /// of 9223372036854775807 frames decoded"), with its checksum made right (the length beyond
  /// any file), and with 2^48 - 1 samples (within the frame limit, beyond what a page can add).
  @Test func anOpusFileWhoseLastGranuleLiesIsBadInputToBoth() throws {
    let folder = try TemporaryDirectory()
    let path = folder.file("made.opus")
    try ExternalTool.ffmpeg([
      "-f", "lavfi", "-i", "sine=frequency=440:duration=6", "-c:a", "libopus", "-b:a", "32k", path,
    ])
    let opus = [UInt8](FileManager.default.contents(atPath: path)!)
    let last = try #require(
      (0..<(opus.count - 4)).last { opus[$0...($0 + 3)].elementsEqual(Array("OggS".utf8)) })
    func patched(_ granule: UInt64, fixChecksum: Bool) -> [UInt8] {
      var bytes = opus
      for k in 0..<8 { bytes[last + 6 + k] = UInt8(truncatingIfNeeded: granule >> (8 * UInt64(k))) }
      if fixChecksum {
        let crc = OggChecksum.of(Array(bytes[last...]))
        for k in 0..<4 { bytes[last + 22 + k] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(k))) }
      }
      return bytes
    }
    try Self.expectBadInput(
      patched(1 << 62, fixChecksum: false), as: "unchecked.opus", in: folder,
      reason: "corrupt: the last Ogg page fails its checksum, so the length it declares cannot be trusted")
    try Self.expectBadInput(
      patched(1 << 62, fixChecksum: true), as: "huge.opus", in: folder,
      reason: "corrupt: declared length of 96076792050570.58 s is out of range")
    try Self.expectBadInput(
      patched(1 << 48 - 1, fixChecksum: true), as: "long.opus", in: folder,
      reason: "corrupt: the last Ogg page declares a length the file cannot hold")
    let good = try ShelfProcess.run(["info", path])
    #expect(good.status == 0)
  }
}

/// Ogg's page checksum, computed independently of shelf's (CRC-32, polynomial 0x04C11DB7,
/// not reflected, the checksum field counted as zeros).
enum OggChecksum {
  static func of(_ page: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0
    for (index, value) in page.enumerated() {
      var byte = UInt32((22..<26).contains(index) ? 0 : value)
      byte <<= 24
      crc ^= byte
      for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
    }
    return crc
  }
}
