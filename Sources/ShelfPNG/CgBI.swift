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
    var out = image.pixels
    out.withUnsafeMutableBufferPointer { p in
      var i = 0
      while i < p.count {
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
    return PNGImage(
      width: image.width, height: image.height, sampleDepth: 8, pixels: out,
      isPremultipliedBGRA: false)
  }

  /// Premultiplied BGRA8 from straight RGBA (16-bit samples are rounded to 8 bits first):
  /// `c' = (c·a + 127) / 255`.
  public static func premultiplied(_ image: PNGImage) -> PNGImage {
    if image.isPremultipliedBGRA { return image }
    var out = image.rgba8()
    out.withUnsafeMutableBufferPointer { p in
      var i = 0
      while i < p.count {
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
    return PNGImage(
      width: image.width, height: image.height, sampleDepth: 8, pixels: out,
      isPremultipliedBGRA: true)
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
    _ image: PNGImage, opaque: Bool, level: PNGOptimizationLevel
  ) -> (cgbi: PNGChunk, header: PNGChunk, data: [UInt8]) {
    precondition(image.isPremultipliedBGRA)
    let rowBytes = image.width * 4
    var best: (bytes: [UInt8], filter: UInt8)?
    for filter: UInt8 in [0, 1] {
      var filtered = [UInt8](repeating: filter, count: image.height * (rowBytes + 1))
      image.pixels.withUnsafeBufferPointer { source in
        filtered.withUnsafeMutableBufferPointer { target in
          for y in 0..<image.height {
            let row = source.baseAddress! + y * rowBytes
            let out = target.baseAddress! + y * (rowBytes + 1) + 1
            if filter == 0 {
              out.update(from: row, count: rowBytes)
            } else {
              for x in 0..<rowBytes { out[x] = x < 4 ? row[x] : row[x] &- row[x - 4] }
            }
          }
        }
      }
      let compressed = filtered.withUnsafeBytes { data in
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
