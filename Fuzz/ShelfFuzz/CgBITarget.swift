import ShelfPNG

/// Whole decodes of PNG and CgBI files (`PNGDecoder`: CgBI's raw deflate, byte order and
/// premultiplied alpha, then libpng), bounded to a megapixel so that inputs stay fast.
enum CgBITarget: FuzzTarget {
  static let name = "cgbi"
  static func run(_ input: [UInt8]) {
    guard let decoded = try? PNGDecoder(pixelLimit: 1 << 20).decode(bytes: input) else { return }
    if decoded.image.isPremultipliedBGRA { _ = CgBI.unpremultiplied(decoded.image) }
  }
}
