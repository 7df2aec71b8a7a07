import ShelfFacts

/// The whole extraction (`MetadataExtractor.extract`) of the input as a file: sniffing, then
/// the image, EXIF, text, plist or media reader it leads to, FFmpeg, libexif and libheif
/// through shelf's wrappers included. The first byte picks the extension that breaks ties.
enum ExtractTarget: FuzzTarget {
  static let name = "extract"
  static func run(_ input: [UInt8]) {
    let (fileExtension, bytes) = FuzzInput.pick(input, SniffTarget.extensions)
    _ = try? MetadataExtractor.extract(FuzzInput.file(bytes), fileExtension: fileExtension)
  }
}
