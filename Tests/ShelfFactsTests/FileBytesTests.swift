import Foundation
import ShelfCore
import ShelfFacts
import ShelfTestSupport
import Testing

/// A file's bytes read once and shared (`FileBytes`): every read gives what the file holds at
/// that place, inside the kept head, across its end and beyond it, and a file cut short while
/// it is read gives fewer bytes, never a trap.
@Suite struct FileBytesTests {
  /// Bytes whose value tells their offset.
  static func pattern(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
  }

  static func open(_ bytes: [UInt8], in folder: TemporaryDirectory) throws -> (FileBytes, String) {
    let path = folder.file("f.bin")
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return (FileBytes(try RegularFile(path: RawPath(path))), path)
  }

  @Test(arguments: [0, 1, 100, 64 << 10, (64 << 10) + 1, 300_000, (1 << 20) + 5000])
  func everyReadGivesTheFilesBytes(size: Int) throws {
    let folder = try TemporaryDirectory()
    let data = Self.pattern(size)
    let (bytes, _) = try Self.open(data, in: folder)
    #expect(bytes.size == Int64(size))
    for (count, offset) in [
      (8192, 0), (26, size - 26), (10, 5), (1 << 20, 0), (100, (1 << 20) - 50), (4096, 300_000), (50, size),
      (50, size + 10), (0, 0), (-3, 0), (10, -1), (Int.max, 1),
    ] {
      let expected =
        count > 0 && offset >= 0 && offset < size
        ? Array(data[offset..<min(size, offset + min(count, size))]) : []
      #expect(try bytes.read(count: count, at: Int64(offset)) == expected, "\(count) at \(offset)")
    }
  }

  @Test func aFileCutShortWhileReadGivesWhatIsLeft() throws {
    let folder = try TemporaryDirectory()
    let data = Self.pattern(200_000)
    let (bytes, path) = try Self.open(data, in: folder)
    #expect(try bytes.read(count: 100, at: 0) == Array(data[0..<100]))
    #expect(truncate(path, 150_000) == 0)
    #expect(try bytes.read(count: 100_000, at: 100_000) == Array(data[100_000..<150_000]))
    #expect(try bytes.read(count: 10, at: 160_000) == [])
    #expect(try bytes.read(count: 10, at: 50) == Array(data[50..<60]))
  }
}
