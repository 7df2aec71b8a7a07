import ShelfCore

extension ImageHeaderReader {
  /// GIF: the logical screen, then a walk over every block (image descriptors counted as
  /// frames, graphic-control extensions for transparency, the NETSCAPE2.0 or ANIMEXTS1.0
  /// application extension for the loop count) through a small window: time grows
  /// with the file's size and memory stays constant, however many frames it holds. A file cut
  /// off after its header keeps the frames found so far, with the reason.
  public static func readGIF(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 13, at: 0)
    guard head.count == 13, let width = head.le16(6), let height = head.le16(8) else {
      throw HeaderError("truncated GIF: header cut off")
    }
    let packed = Int(head[10])
    var facts = ImageFacts(
      format: "gif", width: width, height: height, bitDepth: (packed & 7) + 1, colorType: .palette,
      alpha: false, interlaced: false, cgbi: nil, frames: nil)
    var window = ByteWindow(source)
    var offset: Int64 = 13
    if packed & 0x80 != 0 { offset += 3 << ((packed & 7) + 1) }
    var frames = 0
    func cutOff(_ what: String) -> PartialImage {
      facts.frames = max(frames, 1)
      return PartialImage(facts: facts, reason: "truncated GIF: \(what) cut off")
    }
    func skipSubBlocks() throws {
      while true {
        guard let length = try window.byte(at: offset) else { throw cutOff("data") }
        offset += 1 + Int64(length)
        if length == 0 { return }
      }
    }
    walk: while let introducer = try window.byte(at: offset) {
      switch introducer {
      case 0x21:
        let extensionHead = try window.bytes(count: 3, at: offset + 1)
        if extensionHead.first == 0xF9, extensionHead.count >= 3, extensionHead[2] & 1 != 0 {
          facts.alpha = true
        }
        // An application extension: block size 11, the application's name, then a sub-block
        // of 3 bytes: 1 and the loop count (little-endian).
        if extensionHead.first == 0xFF, extensionHead.count >= 2, extensionHead[1] == 11 {
          let application = try window.bytes(count: 16, at: offset + 3)
          if application.count == 16,
            application.prefix(11).elementsEqual("NETSCAPE2.0".utf8)
              || application.prefix(11).elementsEqual("ANIMEXTS1.0".utf8),
            application[11] == 3, application[12] == 1, let count = application.le16(13)
          {
            // Repeats after the first play; 0 is forever.
            facts.loop = count == 0 ? 0 : count + 1
          }
        }
        offset += 2
        try skipSubBlocks()
      case 0x2C:
        let descriptor = try window.bytes(count: 10, at: offset)
        guard descriptor.count == 10 else { throw cutOff("image descriptor") }
        let flags = Int(descriptor[9])
        if frames == 0 { facts.interlaced = flags & 0x40 != 0 }
        frames += 1
        offset += 10
        if flags & 0x80 != 0 { offset += 3 << ((flags & 7) + 1) }
        offset += 1  // LZW minimum code size
        try skipSubBlocks()
      default:
        break walk  // the trailer (0x3B), or junk after the last frame: keep what was found
      }
    }
    facts.frames = max(frames, 1)
    return facts
  }
}
