import ShelfFacts

/// Image headers: `ImageHeaderReader.read` with the MIME type the sniffer finds, and every
/// header reader but libheif's (its own target) on every input, so that each format's parser
/// sees the mutants whose magic number the sniffer no longer recognises.
enum ImageHeaderTarget: FuzzTarget {
  static let name = "image-header"
  static let mimes = [
    "image/png", "image/jpeg", "image/gif", "image/bmp", "image/tiff", "image/webp",
    "image/vnd.microsoft.icon", "image/x-win-bitmap", "image/x-icns", "image/vnd.adobe.photoshop",
    "image/x-tga", "image/x-qoi", "image/x-portable-pixmap", "image/x-xpixmap", "image/jp2", "image/svg+xml",
    "image/vnd.zbrush.pcx", "image/x-dcx", "image/x-sgi", "image/x-sun-raster", "image/x-xbitmap",
    "image/x-dds",
    "image/x-eps", "image/fits",
  ]
  static func run(_ input: [UInt8]) {
    let source = MemoryBytes(input)
    if let sniff = try? ContentSniffer.sniff(source, fileExtension: ""), sniff.kind == .image,
      !sniff.mime.hasPrefix("image/hei"), sniff.mime != "image/avif"
    {
      _ = try? ImageHeaderReader.read(source, mime: sniff.mime)
    }
    for mime in mimes { _ = try? ImageHeaderReader.read(source, mime: mime) }
  }
}
