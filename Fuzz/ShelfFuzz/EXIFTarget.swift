import ShelfFacts

/// EXIF and XMP: the block locator of each container (JPEG APP1, PNG `eXIf` and text chunks, WebP
/// `EXIF`/`XMP `, TIFF directories, Photoshop resources, JPEG 2000 `uuid` boxes), libexif through
/// `EXIFReader` on the input as a block (with and without the `Exif\0\0` header; a long one is
/// compacted first), and the input as an XMP packet.
enum EXIFTarget: FuzzTarget {
  static let name = "exif"
  static func run(_ input: [UInt8]) {
    let source = MemoryBytes(input)
    for mime in [
      "image/jpeg", "image/png", "image/webp", "image/tiff", "image/vnd.adobe.photoshop", "image/jp2",
    ] {
      _ = EXIFBlockLocator.facts(source, mime: mime)
    }
    _ = EXIFReader.facts(block: input.starts(with: EXIFReader.header) ? input : EXIFReader.header + input)
    _ = EXIFReader.facts(block: nil, xmp: XMPPacket(input))
  }
}
