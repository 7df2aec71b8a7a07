import ShelfFacts

/// HEIF boxes through libheif (`HEIFContainer`): the facts and the `Exif` and XMP items.
enum HEIFTarget: FuzzTarget {
  static let name = "heif"
  static func run(_ input: [UInt8]) {
    guard let container = try? HEIFContainer(MemoryBytes(input), format: "heic") else { return }
    _ = container.facts()
    _ = try? container.metadataBlocks(type: "Exif")
    _ = try? container.metadataBlocks(type: "mime")
    _ = EXIFBlockLocator.facts(MemoryBytes(input), mime: "image/heic")
  }
}
