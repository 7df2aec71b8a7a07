import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfAudio

/// Damaged and misleading media: one line naming the reason, bad input (exit 65 in the CLI),
/// FFmpeg's allocations capped, and the file never changed.
@Suite struct MediaBadInputTests {
  static let music = SampleMediaTests.root.appendingPathComponent("SampleMedia/Documents/Music").path

  /// Reads `bytes` written to `name` as media; checks the file is unchanged afterwards.
  static func read(_ bytes: [UInt8], as name: String) throws -> Result<MediaFileInfo, FFmpegError> {
    let folder = try TemporaryDirectory()
    let path = try folder.write(name, bytes)
    defer { #expect(readBytes(path) == bytes, "\(name) was changed") }
    do {
      return .success(try MediaFileInfo.read(RegularFile(path: RawPath(path))))
    } catch let error as FFmpegError {
      #expect(!error.description.contains("\n"))
      #expect(error.description.hasPrefix(path + ": "))
      return .failure(error)
    }
  }

  static func failure(_ bytes: [UInt8], as name: String) throws -> FFmpegError? {
    guard case .failure(let error) = try read(bytes, as: name) else {
      Issue.record("\(name) was read as media")
      return nil
    }
    #expect(error.failure == .badInput, "\(name)")
    return error
  }

  /// The AAC sample with its `moov` atom moved to the front, as phones write it.
  static func fastStartM4A() throws -> [UInt8] {
    let folder = try TemporaryDirectory()
    try ExternalTool.ffmpeg([
      "-i", music + "/morning-chord.m4a", "-c", "copy", "-movflags", "+faststart", folder.file("fast.m4a"),
    ])
    return readBytes(folder.file("fast.m4a"))
  }

  @Test func anM4AWithoutItsMoovAtomIsBadInput() throws {
    let whole = readBytes(Self.music + "/morning-chord.m4a")
    let moov = try #require(Self.offset(of: "moov", in: whole))
    let error = try Self.failure(Array(whole[..<(moov - 4)]), as: "nomoov.m4a")
    #expect(error?.message == "invalid data found when processing input: moov atom not found")
    _ = try Self.failure(Array(whole[..<(moov + 200)]), as: "cutmoov.m4a")
  }

  @Test func anM4ACutInItsSamplesKeepsTheFramesPresentAndSaysSo() throws {
    let whole = try Self.fastStartM4A()
    guard case .success(.audio(let info)) = try Self.read(Array(whole[..<20000]), as: "cut.m4a") else {
      Issue.record("the cut file was not read")
      return
    }
    #expect(info.frames > 0 && info.frames < 88200)
    #expect(info.frames % 1024 == 0)
    #expect(info.defect?.message == "truncated: \(info.frames) of 88200 frames present")
    #expect(info.defect?.failure == .badInput)
  }

  @Test func aHugeDeclaredSampleTableFailsWithinTheAllocationCap() throws {
    var bytes = try Self.fastStartM4A()
    let stts = try #require(Self.offset(of: "stts", in: bytes))
    // 268 million time-to-sample entries: 2 GiB that FFmpeg may not allocate.
    bytes.replaceSubrange((stts + 8)..<(stts + 12), with: [0x0F, 0xFF, 0xFF, 0xFF])
    let error = try Self.failure(bytes, as: "huge.m4a")
    #expect(error?.message == "corrupt: a header asks for more memory than the file can need")
  }

  @Test func aFileWhoseExtensionLiesIsReadByContent() throws {
    let mp3 = readBytes(Self.music + "/no-xing-cover.mp3")
    guard case .success(.audio(let info)) = try Self.read(mp3, as: "song.m4a") else {
      Issue.record("the MP3 named .m4a was not read")
      return
    }
    #expect(info.codec == "mp3")
    #expect(info.frames == 89856)
    let noise = (0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
    let error = try Self.failure(noise, as: "noise.m4a")
    #expect(error?.message == "invalid data found when processing input")
  }

  @Test func anMP3OfOnlyAnID3TagSaysSo() throws {
    let mp3 = readBytes(Self.music + "/no-xing-cover.mp3")
    let tagSize = 10 + mp3[6..<10].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
    let error = try Self.failure(Array(mp3[..<tagSize]), as: "onlytag.mp3")
    #expect(error?.message == "only an ID3 tag: no MPEG audio frames")
  }

  @Test func anAMRFileOfZeroFramesSaysSo() throws {
    let error = try Self.failure(Array("#!AMR\n".utf8), as: "empty.amr")
    #expect(error?.message == "no AMR frames")
  }

  static func offset(of atom: String, in bytes: [UInt8]) -> Int? {
    let name = Array(atom.utf8)
    guard bytes.count >= 4 else { return nil }
    return (4..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == name }
  }

  /// Only a read the system refused is an I/O error; every code FFmpeg returns about the
  /// content is bad input, worded for what it means (one mapping for every command).
  @Test func ffmpegCodesAreClassifiedByWhatTheIOLayerSaw() {
    let read = FFmpegError.ReadObservation()
    let atEnd = FFmpegError.ReadObservation(systemError: 0, reachedEnd: true)
    let failed = FFmpegError.ReadObservation(systemError: EIO, reachedEnd: false)
    let eio = -EIO
    #expect(
      FFmpegError.classify(eio, call: "av_read_frame", logLine: "", reading: failed) == (
        .io, "input/output error"
      ))
    #expect(
      FFmpegError.classify(eio, call: "avformat_open_input", logLine: "", reading: atEnd)
        == (.badInput, "truncated: a header or packet runs past the end of the file"))
    #expect(FFmpegError.classify(eio, call: "avformat_open_input", logLine: "", reading: read).0 == .badInput)
    #expect(
      FFmpegError.classify(-ENOMEM, call: "avformat_open_input", logLine: "x", reading: read)
        == (.badInput, "corrupt: a header asks for more memory than the file can need"))
    #expect(FFmpegError.classify(-ENOMEM, call: "avcodec_open2", logLine: "", reading: nil).0 == .badInput)
    for code in [Int32.min, -120, -4095] {
      #expect(
        FFmpegError.classify(code, call: "avformat_open_input", logLine: "", reading: read)
          == (.badInput, "corrupt: a header holds an impossible value"), "\(code)")
    }
    #expect(
      FFmpegError.classify(
        -1_094_995_529, call: "avformat_open_input", logLine: "moov atom not found", reading: read)
        == (.badInput, "invalid data found when processing input: moov atom not found"))
  }
}
