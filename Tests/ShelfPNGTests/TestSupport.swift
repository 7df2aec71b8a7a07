import Foundation
import ShelfPNG
import ShelfTestSupport

/// Fixtures shipped in the repository (Tests/Fixtures/pngsuite), read without touching them.
enum Fixtures {
  static let pngSuite: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/pngsuite")

  static func suiteNames() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: pngSuite.path)) ?? []
    return names.filter { $0.hasSuffix(".png") }.sorted()
  }

  static func validSuiteNames() -> [String] { suiteNames().filter { !$0.hasPrefix("x") } }
  static func corruptSuiteNames() -> [String] { suiteNames().filter { $0.hasPrefix("x") } }

  static func bytes(_ name: String) -> [UInt8] {
    [UInt8](try! Data(contentsOf: pngSuite.appendingPathComponent(name)))
  }
}

/// Builds small PNG files chunk by chunk for bad-input tests.
enum Synth {
  static func header(width: UInt32, height: UInt32, depth: UInt8, colorType: UInt8, interlace: UInt8 = 0)
    -> PNGChunk
  {
    var data: [UInt8] = []
    for v in [width, height] {
      data += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
    data += [depth, colorType, 0, 0, interlace]
    return PNGChunk("IHDR", data: data)
  }

  static func file(_ chunks: [PNGChunk]) -> [UInt8] { PNGChunkWriter().bytes(of: chunks) }

  /// A zlib stream made of stored blocks (no compression), valid for any data.
  static func storedZlib(_ data: [UInt8]) -> [UInt8] { StoredZlib.stream(data) }

  /// An 8-bit RGBA image file (filter None rows) from pixels.
  static func rgbaFile(width: Int, height: Int, pixels: [UInt8]) -> [UInt8] {
    var raw: [UInt8] = []
    for y in 0..<height {
      raw.append(0)
      raw += pixels[(y * width * 4)..<((y + 1) * width * 4)]
    }
    return file([
      header(width: UInt32(width), height: UInt32(height), depth: 8, colorType: 6),
      PNGChunk("IDAT", data: storedZlib(raw)), PNGChunk("IEND", data: []),
    ])
  }
}
