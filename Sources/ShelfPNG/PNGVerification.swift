internal import CDeflate

/// What an optimized file must decode to, kept as a digest of every row (CRC-32 and Adler-32)
/// rather than a copy of the image, so that the encoder can transform the only copy in place.
struct RowDigests {
  /// How the input's pixels become what the output holds.
  enum Transform {
    case none
    /// Straight RGBA (8 or 16-bit) to CgBI's premultiplied BGRA8.
    case premultiply
    /// CgBI's premultiplied BGRA8 to straight RGBA8.
    case unpremultiply
  }

  var width: Int
  var height: Int
  /// The sample depth the digests were taken at (output rows are widened to it).
  var sampleDepth: Int
  var ignoringTransparentColor: Bool
  var digests: [UInt64]

  init(_ image: PNGImage, transform: Transform, ignoringTransparentColor: Bool) {
    let sampleDepth = transform == .none ? image.sampleDepth : 8
    let inRow = image.width * image.bytesPerPixel
    var scratch = [UInt8](repeating: 0, count: image.width * 4 * sampleDepth / 8)
    var digests: [UInt64] = []
    digests.reserveCapacity(image.height)
    image.pixels.withUnsafeBufferPointer { pixels in
      scratch.withUnsafeMutableBufferPointer { row in
        for y in 0..<image.height {
          let source = pixels.baseAddress! + y * inRow
          if image.sampleDepth == 16 && sampleDepth == 8 {
            for i in 0..<row.count {
              row[i] = UInt8(((Int(source[2 * i]) << 8 | Int(source[2 * i + 1])) * 255 + 32895) >> 16)
            }
          } else {
            row.baseAddress!.update(from: source, count: row.count)
          }
          switch transform {
          case .none: break
          case .premultiply: CgBI.premultiply(row)
          case .unpremultiply: CgBI.unpremultiply(row)
          }
          digests.append(RowDigests.digest(row, cleaning: ignoringTransparentColor, depth: sampleDepth))
        }
      }
    }
    self.width = image.width
    self.height = image.height
    self.sampleDepth = sampleDepth
    self.ignoringTransparentColor = ignoringTransparentColor
    self.digests = digests
  }

  /// Decodes `output` row by row and checks every row against its digest.
  func verify(_ output: [UInt8], decoder: PNGDecoder) throws(PNGError) {
    var scratch = [UInt8](repeating: 0, count: width * 4 * sampleDepth / 8)
    var mismatch = false
    let size: (width: Int, height: Int, sampleDepth: Int)
    do {
      size = try decoder.decodeRows(bytes: output) { y, row in
        guard y < digests.count, row.count * sampleDepth / 8 >= scratch.count / 2 else {
          mismatch = true
          return false
        }
        let digest = scratch.withUnsafeMutableBufferPointer { scratch -> UInt64 in
          if row.count == scratch.count {
            scratch.baseAddress!.update(from: row.baseAddress!, count: row.count)
          } else {
            // 8-bit output of a 16-bit input (reduced exactly): widened by 257.
            for i in 0..<row.count {
              scratch[2 * i] = row[i]
              scratch[2 * i + 1] = row[i]
            }
          }
          return Self.digest(scratch, cleaning: ignoringTransparentColor, depth: sampleDepth)
        }
        if digest != digests[y] { mismatch = true }
        return !mismatch
      }
    } catch {
      throw PNGError(.verificationFailed("output does not decode: \(error.message)"))
    }
    guard size.width == width, size.height == height, !mismatch else {
      throw PNGError(.verificationFailed("pixels differ after re-decoding"))
    }
  }

  /// CRC-32 and Adler-32 of a row; with `cleaning`, fully transparent pixels' colour is set to
  /// 0 first (the row is changed).
  static func digest(_ row: UnsafeMutableBufferPointer<UInt8>, cleaning: Bool, depth: Int) -> UInt64 {
    if cleaning {
      let step = depth / 2
      var i = 0
      while i + step <= row.count {
        let transparent = step == 4 ? row[i + 3] == 0 : (row[i + 6] == 0 && row[i + 7] == 0)
        if transparent { for k in 0..<(step * 3 / 4) { row[i + k] = 0 } }
        i += step
      }
    }
    let crc = UInt64(libdeflate_crc32(0, row.baseAddress, row.count))
    let adler = UInt64(libdeflate_adler32(1, row.baseAddress, row.count))
    return crc << 32 | adler
  }
}
