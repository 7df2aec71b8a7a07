import ShelfCore

extension ImageHeaderReader {
  /// WebP: the VP8, VP8L or VP8X header, and the ANMF frames of an animation (chunk headers
  /// only, at most 100,000 of them) with the loop count of its ANIM chunk.
  public static func readWebP(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 40, at: 0)
    guard head.count >= 30 else { throw HeaderError("truncated WebP: header cut off") }
    switch head.fourCC(12) {
    case "VP8 ":
      guard head[23] == 0x9D, head[24] == 0x01, head[25] == 0x2A, let w = head.le16(26), let h = head.le16(28)
      else { throw HeaderError("corrupt WebP: bad VP8 frame header") }
      return ImageFacts(
        format: "webp", width: w & 0x3FFF, height: h & 0x3FFF, bitDepth: 8, colorType: .rgb,
        alpha: false, interlaced: false, cgbi: nil, frames: 1)
    case "VP8L":
      guard head[20] == 0x2F, let bits = head.le32(21) else {
        throw HeaderError("corrupt WebP: bad VP8L header")
      }
      let alpha = (bits >> 28) & 1 == 1
      return ImageFacts(
        format: "webp", width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1, bitDepth: 8,
        colorType: alpha ? .rgba : .rgb, alpha: alpha, interlaced: false, cgbi: nil, frames: 1)
    case "VP8X":
      let flags = head[20]
      let width = (Int(head[24]) | Int(head[25]) << 8 | Int(head[26]) << 16) + 1
      let height = (Int(head[27]) | Int(head[28]) << 8 | Int(head[29]) << 16) + 1
      let alpha = flags & 0x10 != 0
      var frames = 1
      var loop: Int?
      if flags & 0x02 != 0 {
        // Count the ANMF chunks, reading chunk headers only.
        frames = 0
        var offset: Int64 = 30
        var steps = 0
        while offset + 8 <= source.size && steps < 100_000 {
          steps += 1
          let chunk = try source.read(count: 8, at: offset)
          guard let length = chunk.le32(4) else { break }
          if chunk.fourCC(0) == "ANMF" { frames += 1 }
          // ANIM: the background colour (4 bytes), then the loop count (16 bits).
          if chunk.fourCC(0) == "ANIM", length >= 6 {
            loop = try source.read(count: 2, at: offset + 12).le16(0)
          }
          offset += 8 + Int64(length) + Int64(length & 1)
        }
      }
      return ImageFacts(
        format: "webp", width: width, height: height, bitDepth: 8, colorType: alpha ? .rgba : .rgb,
        alpha: alpha, interlaced: false, cgbi: nil, frames: frames, loop: loop)
    default:
      throw HeaderError("corrupt WebP: unknown chunk \(head.fourCC(12))")
    }
  }
}
