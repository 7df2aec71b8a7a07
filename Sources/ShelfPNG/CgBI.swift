/// Apple's iPhone-optimized PNG variant (CgBI): premultiplied B, G, R, A in a raw deflate
/// stream, marked by a `CgBI` chunk before `IHDR`.
public enum CgBI {
  /// The CgBI chunk data Xcode writes for an opaque image (alpha ignored).
  static let opaqueFlags: [UInt8] = [0x50, 0x00, 0x20, 0x06]
  /// The CgBI chunk data Xcode writes for an image with alpha (premultiplied).
  static let alphaFlags: [UInt8] = [0x50, 0x00, 0x20, 0x02]

  /// Straight RGBA8 from premultiplied BGRA8, rounding as Apple does:
  /// `c = (c·255 + a/2) / a`, clamped to 255; `a = 0` gives 0.
  public static func unpremultiplied(_ image: PNGImage) -> PNGImage {
    guard image.isPremultipliedBGRA else { return image }
    var image = image
    unpremultiply(&image)
    return image
  }

  /// `unpremultiplied(_:)` in place: no copy when the caller holds the only reference.
  public static func unpremultiply(_ image: inout PNGImage) {
    guard image.isPremultipliedBGRA else { return }
    image.pixels.withUnsafeMutableBufferPointer { unpremultiply($0) }
    image.isPremultipliedBGRA = false
  }

  /// Premultiplied BGRA8 pixels made straight RGBA8 in place.
  static func unpremultiply(_ p: UnsafeMutableBufferPointer<UInt8>) {
    var i = 0
    while i + 3 < p.count {
      let b = Int(p[i]), g = Int(p[i + 1]), r = Int(p[i + 2]), a = Int(p[i + 3])
      if a == 0 {
        p[i] = 0; p[i + 1] = 0; p[i + 2] = 0
      } else if a == 255 {
        p[i] = UInt8(r); p[i + 2] = UInt8(b)
      } else {
        p[i] = UInt8(min(255, (r * 255 + a / 2) / a))
        p[i + 1] = UInt8(min(255, (g * 255 + a / 2) / a))
        p[i + 2] = UInt8(min(255, (b * 255 + a / 2) / a))
      }
      i += 4
    }
  }

  /// Premultiplied BGRA8 from straight RGBA (16-bit samples are rounded to 8 bits first):
  /// `c' = (c·a + 127) / 255`.
  public static func premultiplied(_ image: PNGImage) -> PNGImage {
    var image = image
    premultiply(&image)
    return image
  }

  /// `premultiplied(_:)` in place for 8-bit images held by the caller alone; a 16-bit image is
  /// replaced by a new 8-bit one.
  public static func premultiply(_ image: inout PNGImage) {
    if image.isPremultipliedBGRA { return }
    if image.sampleDepth == 16 {
      image = PNGImage(
        width: image.width, height: image.height, sampleDepth: 8, pixels: image.rgba8(spare: image.height))
    }
    image.pixels.withUnsafeMutableBufferPointer { premultiply($0) }
    image.isPremultipliedBGRA = true
  }

  /// Straight RGBA8 pixels made premultiplied BGRA8 in place.
  static func premultiply(_ p: UnsafeMutableBufferPointer<UInt8>) {
    var i = 0
    while i + 3 < p.count {
      let r = Int(p[i]), g = Int(p[i + 1]), b = Int(p[i + 2]), a = Int(p[i + 3])
      if a == 255 {
        p[i] = UInt8(b); p[i + 2] = UInt8(r)
      } else {
        p[i] = UInt8((b * a + 127) / 255)
        p[i + 1] = UInt8((g * a + 127) / 255)
        p[i + 2] = UInt8((r * a + 127) / 255)
      }
      i += 4
    }
  }

  /// Whether every pixel of an image is opaque.
  static func isOpaque(_ image: PNGImage) -> Bool {
    let step = image.bytesPerPixel
    return image.pixels.withUnsafeBufferPointer { p in
      var i = step - 1
      while i < p.count {
        if p[i] != 0xFF { return false }
        if step == 8 && p[i - 1] != 0xFF { return false }
        i += step
      }
      return true
    }
  }

  /// The IHDR, CgBI and IDAT chunks of a CgBI file for a premultiplied BGRA8 image:
  /// 8-bit colour type 6, non-interlaced, rows filtered None or Sub (whichever compresses
  /// smaller, flagged in the CgBI chunk as Xcode does), raw deflate.
  static func imageChunks(
    _ image: inout PNGImage, opaque: Bool, level: PNGOptimizationLevel
  ) -> (cgbi: PNGChunk, header: PNGChunk, data: [UInt8]) {
    precondition(image.isPremultipliedBGRA)
    let (width, height) = (image.width, image.height)
    var best: (bytes: [UInt8], filter: UInt8)?
    for filter: UInt8 in [0, 1] {
      // Filtered in place and restored: the pixels are held once.
      let compressed = RowFilter.withFilteredInPlace(
        &image.pixels, height: height, rowBytes: width * 4, unit: 4,
        rowFilters: [UInt8](repeating: filter, count: height)
      ) { data in
        Deflate.smallest(
          level.usesZopfli
            ? Deflate.rawZopfli(data, iterations: level.zopfliIterations(for: data.count))
            : Deflate.raw(data, level: level.finalDeflateLevel),
          orEntropyCodingOf: data, raw: true)
      }
      if best == nil || compressed.count < best!.bytes.count { best = (compressed, filter) }
    }
    var flags = opaque ? opaqueFlags : alphaFlags
    if best!.filter == 1 { flags[0] = 0x30 }
    var header: [UInt8] = []
    header.appendBigEndian(UInt32(image.width))
    header.appendBigEndian(UInt32(image.height))
    header.append(contentsOf: [8, 6, 0, 0, 0])
    return (PNGChunk("CgBI", data: flags), PNGChunk("IHDR", data: header), best!.bytes)
  }
}
