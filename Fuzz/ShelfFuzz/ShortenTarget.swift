import ShelfAudio

/// Shorten stream headers and the WAV or AIFF header their first verbatim block carries
/// (`ShortenHeader.parse`, and a file's facts through `ShortenHeader.info`).
enum ShortenTarget: FuzzTarget {
  static let name = "shorten"
  static func run(_ input: [UInt8]) {
    _ = try? ShortenHeader.parse(input)
    _ = try? ShortenHeader.info(FuzzInput.file(input))
  }
}
