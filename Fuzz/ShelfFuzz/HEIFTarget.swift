import ShelfFacts

/// HEIF boxes through libheif (`HEIFContainer`): the facts and the `Exif` and XMP items; and
/// `readHEIF`, which reads the `ispe` of an item libheif refuses and a sequence's track itself.
enum HEIFTarget: FuzzTarget {
  static let name = "heif"
  static func run(_ input: [UInt8]) {
    _ = try? ImageHeaderReader.readHEIF(MemoryBytes(input), format: "heic")
    guard let container = try? HEIFContainer(MemoryBytes(input), format: "heic") else { return }
    _ = container.facts()
    _ = try? container.metadataBlocks(type: "Exif")
    _ = try? container.metadataBlocks(type: "mime")
    _ = EXIFBlockLocator.facts(MemoryBytes(input), mime: "image/heic")
  }
}
