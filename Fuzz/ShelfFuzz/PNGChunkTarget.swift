import ShelfPNG

/// PNG chunk walks (`PNGChunkReader`, with and without CRC checks) and `PNGHeaderInfo`.
enum PNGChunkTarget: FuzzTarget {
  static let name = "png-chunks"
  static func run(_ input: [UInt8]) {
    _ = try? PNGChunkReader().chunks(of: input)
    _ = try? PNGChunkReader(checkCRC: false).chunks(of: input)
    _ = try? PNGHeaderInfo.read(bytes: input)
    _ = try? PNGHeaderInfo.read { count, offset in
      guard offset >= 0, offset < Int64(input.count), count > 0 else { return [] }
      return Array(input[Int(offset)..<min(input.count, Int(offset) + count)])
    }
  }
}
