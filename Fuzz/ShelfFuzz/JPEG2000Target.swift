import ShelfFacts

/// JPEG 2000 boxes and codestreams (`ImageHeaderReader.readJPEG2000`).
enum JPEG2000Target: FuzzTarget {
  static let name = "jpeg2000"
  static func run(_ input: [UInt8]) {
    _ = try? ImageHeaderReader.readJPEG2000(MemoryBytes(input))
  }
}
