import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfAudio

/// The SV8 stream header read for a Musepack file's length, and the damaged headers it must
/// survive (a fuzz regression: a packet size of 2^63 − 1 overflowed the walk).
@Suite struct MusepackHeaderTests {
  /// `MPCK`, then `packets`, then a stream header (CRC, version 8, 256 samples of which 16 are
  /// beginning silence) and an end packet.
  static func file(_ folder: TemporaryDirectory, before packets: [UInt8] = []) throws -> RegularFile {
    let header: [UInt8] = [0, 0, 0, 0, 8, 0x82, 0x00, 0x10]
    let bytes =
      Array("MPCK".utf8) + packets + Array("SH".utf8) + [UInt8(3 + header.count)] + header
      + Array("SE".utf8) + [3] + [UInt8](repeating: 0, count: 32)
    return try RegularFile(path: RawPath(try folder.write("stream.mpc", bytes)))
  }

  @Test func readsTheStreamHeaderAfterOtherPackets() throws {
    let folder = try TemporaryDirectory()
    let length = MusepackHeader.read(try Self.file(folder, before: Array("XX".utf8) + [5, 0, 0]))
    #expect(length == MusepackHeader.Length(frames: 240, leadIn: 16))
  }

  @Test func aPacketSizeBeyondTheHeaderEndsTheWalk() throws {
    let folder = try TemporaryDirectory()
    let huge: [UInt8] = Array("XX".utf8) + [UInt8](repeating: 0xFF, count: 8) + [0x7F]
    #expect(MusepackHeader.read(try Self.file(folder, before: huge)) == nil)
  }
}
