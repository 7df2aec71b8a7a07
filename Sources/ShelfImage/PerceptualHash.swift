public import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A 64-bit perceptual hash of a picture: what `dupes --similar` compares to find one
/// photograph resized, recompressed or converted to another format.
///
/// The picture is decoded small by `ImagePreviewDecoder` (a JPEG at 1/8 scale by libjpeg-turbo,
/// other formats shrunk on load by libvips' thumbnail), upright by its EXIF orientation, so a
/// 12-megapixel JPEG never decodes at full size. Its luma is averaged down to 32 × 32
/// and the hash is a DCT pHash: the 8 × 8 lowest frequencies of the 2-D DCT, each bit set where
/// the coefficient is above their median (the DC term, the mean brightness, left out).
///
/// The DCT hash was chosen over a dHash (the signs of 9 × 8 horizontal gradients) by
/// measurement on 23 real photographs with three copies each (PerceptualHashTests): both keep
/// every copy within 2 bits of its original, but the dHash puts two unrelated photographs with
/// level horizons and smooth bands of colour (dune grass before the sea, a lake at dusk) 5 bits apart, inside the
/// default distance, where the DCT hash keeps every pair of distinct photographs 20 or more
/// bits apart.
public enum PerceptualHash {
  /// The largest Hamming distance (bits of 64) at which two hashes are taken for the same
  /// picture by default: copies measured at most 2 bits from their originals, distinct
  /// photographs at least 20 apart (PerceptualHashTests); 6 leaves room for harsher copies
  /// than those and stays far from unrelated pictures.
  public static let defaultDistance = 6

  /// The side of the box the picture is decoded into before hashing: large enough for an
  /// area average to 32 × 32 to be a true average, small enough that a JPEG decodes at 1/8.
  static let previewSide = 128

  /// The perceptual hash of the image at `path`, decoded by `ImagePreviewDecoder` (any format
  /// the previews read). Throws `ImagePreviewError` (and `FileError` for an unreadable file).
  /// A damaged picture that decodes only in part is refused: the grey that stands for its
  /// missing part would make it look like every other damaged picture.
  public static func imageHash(path: RawPath) throws -> UInt64 {
    let image = try ImagePreviewDecoder.preview(path: path, maxWidth: previewSide, maxHeight: previewSide)
    if let damage = image.damage { throw ImagePreviewError(.corrupt(damage), path: path) }
    return imageHash(of: image)
  }

  /// The perceptual hash of pixels already decoded (at least 32 pixels a side for a
  /// meaningful hash; smaller pictures are stretched).
  public static func imageHash(of image: PreviewImage) -> UInt64 {
    dctHash(luma(image, width: 32, height: 32))
  }

  /// The number of bits in which two hashes differ (0…64).
  public static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }

  /// The DCT pHash of 32 × 32 luma values (row-major).
  static func dctHash(_ luma: [Double]) -> UInt64 {
    let side = 32
    let keep = 8
    // cos((2x + 1) u π / 64) for the 8 frequencies kept.
    var basis = [Double](repeating: 0, count: keep * side)
    for u in 0..<keep {
      for x in 0..<side {
        basis[u * side + x] = cos(Double((2 * x + 1) * u) * Double.pi / Double(2 * side))
      }
    }
    // Rows first (32 rows × 8 frequencies), then columns of those.
    var rows = [Double](repeating: 0, count: side * keep)
    for y in 0..<side {
      for u in 0..<keep {
        var sum = 0.0
        for x in 0..<side { sum += luma[y * side + x] * basis[u * side + x] }
        rows[y * keep + u] = sum
      }
    }
    var coefficients = [Double](repeating: 0, count: keep * keep)
    for v in 0..<keep {
      for u in 0..<keep {
        var sum = 0.0
        for y in 0..<side { sum += rows[y * keep + u] * basis[v * side + y] }
        coefficients[v * keep + u] = sum
      }
    }
    // The DC term (the mean brightness) says nothing about the picture's shape: the median and
    // bit 0 leave it out, so a brightened copy keeps its hash.
    let sorted = coefficients.dropFirst().sorted()
    let median = (sorted[31] + sorted[32]) / 2
    var hash: UInt64 = 0
    for index in 1..<(keep * keep) where coefficients[index] > median {
      hash |= 1 << UInt64(index)
    }
    return hash
  }

  /// The dHash of 9 × 8 luma values (row-major): a bit per horizontally adjacent pair, set
  /// where brightness rises. Kept for the measurement that chose the DCT hash.
  static func differenceHash(_ luma: [Double]) -> UInt64 {
    var hash: UInt64 = 0
    for y in 0..<8 {
      for x in 0..<8 where luma[y * 9 + x + 1] > luma[y * 9 + x] {
        hash |= 1 << UInt64(y * 8 + x)
      }
    }
    return hash
  }

  /// The picture's luma (Rec. 601 weights, 0…255), area-averaged to `width` × `height`: each
  /// target cell is the mean of the source pixels it covers, fractions weighted.
  static func luma(_ image: PreviewImage, width: Int, height: Int) -> [Double] {
    let sourceWidth = image.width
    let sourceHeight = image.height
    var source = [Double](repeating: 0, count: sourceWidth * sourceHeight)
    image.rgba.withUnsafeBufferPointer { rgba in
      for index in 0..<(sourceWidth * sourceHeight) {
        let offset = index * 4
        source[index] =
          0.299 * Double(rgba[offset]) + 0.587 * Double(rgba[offset + 1]) + 0.114 * Double(rgba[offset + 2])
      }
    }
    let columns = coverage(from: sourceWidth, to: width)
    let rows = coverage(from: sourceHeight, to: height)
    var result = [Double](repeating: 0, count: width * height)
    for (y, rowSpans) in rows.enumerated() {
      for (x, columnSpans) in columns.enumerated() {
        var sum = 0.0
        var weight = 0.0
        for (sourceY, rowWeight) in rowSpans {
          for (sourceX, columnWeight) in columnSpans {
            let w = rowWeight * columnWeight
            sum += source[sourceY * sourceWidth + sourceX] * w
            weight += w
          }
        }
        result[y * width + x] = weight > 0 ? sum / weight : 0
      }
    }
    return result
  }

  /// For each of `target` cells along one axis, the source indices it covers and by how much
  /// (a source smaller than the target is stretched: each cell samples the pixel under it).
  static func coverage(from source: Int, to target: Int) -> [[(Int, Double)]] {
    let scale = Double(source) / Double(target)
    return (0..<target).map { cell in
      let start = Double(cell) * scale
      let end = Double(cell + 1) * scale
      if scale <= 1 { return [(min(source - 1, Int(start + scale / 2)), 1)] }
      var spans: [(Int, Double)] = []
      var index = Int(start)
      while Double(index) < end, index < source {
        let covered = min(end, Double(index + 1)) - max(start, Double(index))
        if covered > 0 { spans.append((index, covered)) }
        index += 1
      }
      return spans
    }
  }
}
