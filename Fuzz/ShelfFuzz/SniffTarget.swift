import ShelfFacts

/// Content sniffing (`ContentSniffer.sniff` over a byte source), with the extension that breaks
/// ties picked by the first byte.
enum SniffTarget: FuzzTarget {
  static let name = "sniff"
  static let extensions = [
    "", "txt", "plist", "png", "jpg", "mp3", "wav", "heic", "tif", "strings", "svg", "db",
  ]
  static func run(_ input: [UInt8]) {
    let (fileExtension, bytes) = FuzzInput.pick(input, extensions)
    _ = try? ContentSniffer.sniff(MemoryBytes(bytes), fileExtension: fileExtension)
    _ = ContentSniffer.sniff(prefix: bytes, fileExtension: fileExtension)
  }
}
