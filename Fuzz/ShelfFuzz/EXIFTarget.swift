import ShelfFacts

/// EXIF: the block locator of each container (JPEG APP1, PNG `eXIf`, WebP `EXIF`, TIFF), and
/// libexif through `EXIFReader` on the input as a block (with and without the `Exif\0\0` header).
enum EXIFTarget: FuzzTarget {
  static let name = "exif"
  static func run(_ input: [UInt8]) {
    let source = MemoryBytes(input)
    for mime in ["image/jpeg", "image/png", "image/webp", "image/tiff"] {
      _ = EXIFBlockLocator.facts(source, mime: mime)
    }
    _ = EXIFReader.facts(block: input.starts(with: EXIFReader.header) ? input : EXIFReader.header + input)
  }
}
