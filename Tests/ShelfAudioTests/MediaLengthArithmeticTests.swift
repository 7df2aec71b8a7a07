import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfAudio

/// Lengths and sizes from lying headers that would make the conversions trap: an RF64 or Ogg
/// length of 2^63 - 1 samples, a Musepack packet size of 2^63 - 1.
@Suite struct MediaLengthArithmeticTests {
  /// The defect of `bytes` read as `name`, which must be read (not refused) with no frames.
  static func lengthDefect(_ bytes: [UInt8], as name: String) throws -> AudioError? {
    guard case .success(.audio(let info)) = try MediaBadInputTests.read(bytes, as: name) else {
      Issue.record("\(name) was not read as audio")
      return nil
    }
    #expect(info.frames == 0)
    #expect(info.duration == 0)
    #expect(info.sampleRate == 8000)
    return info.defect
  }

  @Test func anRF64SampleCountOf2To63Minus1IsACorruptLength() throws {
    let defect = try Self.lengthDefect(try HostileFiles.rf64WithHugeSampleCount(), as: "huge.wav")
    #expect(defect?.message == "corrupt: declared length of \(Double(Int64.max) / 8000) s is out of range")
    #expect(defect?.failure == .badInput)
  }

  @Test func anOggLastGranuleOf2To63Minus1IsACorruptLength() throws {
    let defect = try Self.lengthDefect(try HostileFiles.oggWithHugeLastGranule(), as: "huge.ogg")
    #expect(defect?.message == "corrupt: declared length of \(Double(Int64.max) / 8000) s is out of range")
    #expect(defect?.failure == .badInput)
  }

  @Test func frameCountsBeyondTheLimitOrNotFiniteAreUnknown() {
    #expect(MediaFileInfo.frameCount(seconds: 1.5, rate: 8000) == 12000)
    #expect(MediaFileInfo.frameCount(seconds: Double(Int64.max) / 8000, rate: 8000) == nil)
    #expect(MediaFileInfo.frameCount(seconds: .infinity, rate: 44100) == nil)
    #expect(MediaFileInfo.frameCount(seconds: .nan, rate: 44100) == nil)
    #expect(MediaFileInfo.frameCount(seconds: -1, rate: 44100) == nil)
    #expect(MediaFileInfo.averageBitrate(size: 1 << 40, seconds: 1e-300) == nil)
    #expect(MediaFileInfo.averageBitrate(size: 1000, seconds: 1) == 8000)
  }

  @Test func aMusepackPacketSizeOf2To63Minus1EndsTheHeaderWalk() throws {
    // MPCK, then a packet "XX" whose 9-byte size is 2^63 - 1, then a real SH packet.
    let size: [UInt8] = [UInt8](repeating: 0xFF, count: 8) + [0x7F]
    let sh: [UInt8] = Array("SH".utf8) + [0x10] + [0, 0, 0, 0, 8, 0x20, 0x01]
    let folder = try TemporaryDirectory()
    let path = try folder.write("huge.mpc", Array("MPCK".utf8) + Array("XX".utf8) + size + sh)
    #expect(MusepackHeader.read(try RegularFile(path: RawPath(path))) == nil)
    // Without the lying packet the header reads: 32 samples, 1 of silence.
    let good = try folder.write("good.mpc", Array("MPCK".utf8) + sh)
    #expect(
      MusepackHeader.read(try RegularFile(path: RawPath(good)))
        == MusepackHeader.Length(frames: 31, leadIn: 1))
  }
}

/// CAF chunk walks over sizes near 2^63 (FFmpeg refuses such a file itself, but the packet
/// table is looked for on every CAF).
@Suite struct CAFChunkArithmeticTests {
  static func caf(_ chunks: [(String, [UInt8])], sizes: [UInt64]? = nil) -> [UInt8] {
    var bytes = Array("caff".utf8) + [0, 1, 0, 0]
    for (index, (type, body)) in chunks.enumerated() {
      bytes += Array(type.utf8) + HostileFiles.bigEndian(sizes?[index] ?? UInt64(body.count), count: 8) + body
    }
    return bytes
  }

  @Test func aChunkSizeOf2To63Minus1EndsTheWalk() throws {
    let folder = try TemporaryDirectory()
    let pakt =
      [UInt8](repeating: 0, count: 8) + HostileFiles.bigEndian(4096, count: 8) + [0, 0, 4, 0, 0, 0, 0, 0]
    let hostile = Self.caf([("free", [0, 0, 0, 0]), ("pakt", pakt)], sizes: [UInt64(Int64.max), 24])
    let path = try folder.write("huge.caf", hostile)
    #expect(try IFFChunks.cafPacketTable(RegularFile(path: RawPath(path))) == nil)
    let good = try folder.write("good.caf", Self.caf([("free", [0, 0, 0, 0]), ("pakt", pakt)]))
    #expect(
      try IFFChunks.cafPacketTable(RegularFile(path: RawPath(good)))
        == IFFChunks.CAFPacketTable(validFrames: 4096, primingFrames: 1024))
  }

  @Test func aValidFrameCountBeyondTheLimitIsNoPacketTable() throws {
    let folder = try TemporaryDirectory()
    let pakt =
      [UInt8](repeating: 0, count: 8) + HostileFiles.bigEndian(UInt64(Int64.max), count: 8) + [0, 0, 4, 0]
    let path = try folder.write("huge.caf", Self.caf([("pakt", pakt + [0, 0, 0, 0])]))
    #expect(try IFFChunks.cafPacketTable(RegularFile(path: RawPath(path))) == nil)
  }
}
