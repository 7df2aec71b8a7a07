/// A decoded image held exactly: RGBA with 8 or 16 bits per sample (16-bit big-endian), plus
/// what the file said about its original format.
///
/// Every PNG colour type and bit depth maps into this form without loss: gray is stored as
/// R = G = B, palette entries and tRNS become RGBA, 1/2/4-bit gray is scaled as libpng scales it
/// (an exact, reversible mapping), and 16-bit samples stay 16-bit.
public struct PNGImage: Sendable, Equatable {
  /// Pixels per row.
  public var width: Int
  /// Rows.
  public var height: Int
  /// Bits per sample of `pixels`: 8 or 16.
  public var sampleDepth: Int
  /// Row-major RGBA samples; 16-bit samples are big-endian byte pairs.
  ///
  /// For a CgBI image decoded without conversion (`isPremultipliedBGRA`), the bytes are
  /// B, G, R, A with premultiplied colour, as stored in the file.
  public var pixels: [UInt8]
  /// Whether `pixels` hold CgBI's premultiplied B, G, R, A rather than straight RGBA.
  public var isPremultipliedBGRA: Bool

  /// Creates an image; `pixels` must hold `width * height * 4 * sampleDepth / 8` bytes.
  public init(
    width: Int, height: Int, sampleDepth: Int, pixels: [UInt8], isPremultipliedBGRA: Bool = false
  ) {
    precondition(sampleDepth == 8 || sampleDepth == 16, "sample depth must be 8 or 16")
    precondition(pixels.count == width * height * 4 * sampleDepth / 8, "pixel count mismatch")
    self.width = width
    self.height = height
    self.sampleDepth = sampleDepth
    self.pixels = pixels
    self.isPremultipliedBGRA = isPremultipliedBGRA
  }

  /// Bytes per pixel in `pixels` (4 or 8).
  public var bytesPerPixel: Int { sampleDepth / 2 }

  /// Straight (not premultiplied) RGBA with 8 bits per sample, e.g. for a terminal preview.
  ///
  /// 16-bit samples are rounded to 8 bits as libpng's `png_set_scale_16` rounds them (exactly
  /// round(v / 257), the PNG specification's `v·255 / 65535` rounded); CgBI pixels are
  /// un-premultiplied as Apple does.
  public func rgba8() -> [UInt8] { rgba8(spare: 0) }

  /// `rgba8()` in an array with room for `spare` more bytes (for filtering in place).
  func rgba8(spare: Int) -> [UInt8] {
    if isPremultipliedBGRA { return CgBI.unpremultiplied(self).rgba8(spare: spare) }
    if sampleDepth == 8 { return pixels }
    let count = width * height * 4
    return pixels.withUnsafeBufferPointer { source in
      [UInt8](unsafeUninitializedCapacity: count + spare) { target, initialized in
        for index in 0..<count {
          let value = Int(source[2 * index]) << 8 | Int(source[2 * index + 1])
          target[index] = UInt8((value * 255 + 32895) >> 16)
        }
        initialized = count
      }
    }
  }

  /// The same pixels with 16-bit samples, scaling 8-bit ones by 257 (an exact widening).
  func widenedTo16() -> PNGImage {
    if sampleDepth == 16 { return self }
    var out = [UInt8](repeating: 0, count: pixels.count * 2)
    for index in 0..<pixels.count {
      out[2 * index] = pixels[index]
      out[2 * index + 1] = pixels[index]
    }
    return PNGImage(
      width: width, height: height, sampleDepth: 16, pixels: out,
      isPremultipliedBGRA: isPremultipliedBGRA)
  }

  /// Whether two images hold the same pixels, comparing 8-bit against 16-bit exactly
  /// (v8 equals v16 when v16 == v8 * 257); with `ignoringTransparentColor`, the colour of
  /// fully transparent pixels does not matter.
  public func hasSamePixels(as other: PNGImage, ignoringTransparentColor: Bool = false) -> Bool {
    guard width == other.width, height == other.height,
      isPremultipliedBGRA == other.isPremultipliedBGRA
    else { return false }
    if sampleDepth != other.sampleDepth {
      return widenedTo16().hasSamePixels(
        as: other.widenedTo16(), ignoringTransparentColor: ignoringTransparentColor)
    }
    if !ignoringTransparentColor { return pixels == other.pixels }
    let step = bytesPerPixel
    return pixels.withUnsafeBufferPointer { a in
      other.pixels.withUnsafeBufferPointer { b in
        var index = 0
        while index < a.count {
          let alphaZero =
            step == 4 ? a[index + 3] == 0 : (a[index + 6] == 0 && a[index + 7] == 0)
          if alphaZero {
            for k in (step * 3 / 4)..<step where a[index + k] != b[index + k] { return false }
          } else {
            for k in 0..<step where a[index + k] != b[index + k] { return false }
          }
          index += step
        }
        return true
      }
    }
  }
}
