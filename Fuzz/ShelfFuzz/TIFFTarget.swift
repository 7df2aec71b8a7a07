import ShelfFacts

/// TIFF and BigTIFF directories (`ImageHeaderReader.readTIFF`) and their EXIF facts.
enum TIFFTarget: FuzzTarget {
  static let name = "tiff"
  static func run(_ input: [UInt8]) {
    _ = try? ImageHeaderReader.readTIFF(MemoryBytes(input))
    _ = EXIFBlockLocator.facts(MemoryBytes(input), mime: "image/tiff")
  }
}
