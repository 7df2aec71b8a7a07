import ShelfCore

extension ImageHeaderReader {
  /// The DIB header sizes: OS/2 1.x core (12), OS/2 2.x (16 or 64), Windows INFO (40),
  /// V2 (52), V3 (56), V4 (108), V5 (124).
  static let dibHeaderSizes: Set<Int> = [12, 16, 40, 52, 56, 64, 108, 124]

  /// BMP, and a bare DIB (a `.dib` or clipboard file: the same header without the 14-byte
  /// `BM` file header). Every header version is read; the bit count is checked against the
  /// values the format allows; alpha comes from the alpha mask, which only counts when the
  /// compression is BI_BITFIELDS or BI_ALPHABITFIELDS (as Pillow reads it); a negative height
  /// means top-down rows.
  public static func readBMP(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 14 + 56, at: 0)
    let base = head.starts(with: Array("BM".utf8)) ? 14 : 0
    guard let dib = head.le32(base) else { throw HeaderError("truncated BMP: header cut off") }
    guard dibHeaderSizes.contains(dib) else { throw HeaderError("corrupt BMP: unknown header size \(dib)") }
    let width: Int
    let height: Int
    let bitCount: Int
    var compression = 0
    if dib == 12 {
      guard let w = head.le16(base + 4), let h = head.le16(base + 6), let b = head.le16(base + 10) else {
        throw HeaderError("truncated BMP: header cut off")
      }
      (width, height, bitCount) = (w, h, b)
      guard [1, 4, 8, 24].contains(bitCount) else {
        throw HeaderError("corrupt BMP: invalid bit count \(bitCount)")
      }
    } else {
      guard let w = head.le32(base + 4), let h = head.le32(base + 8), let b = head.le16(base + 14) else {
        throw HeaderError("truncated BMP: header cut off")
      }
      width = Int(Int32(truncatingIfNeeded: w))
      height = abs(Int(Int32(truncatingIfNeeded: h)))
      bitCount = b
      if dib >= 40 { compression = head.le32(base + 16) ?? 0 }
      // JPEG (4) and PNG (5) payloads may leave the bit count 0.
      let allowed: Set<Int> =
        compression == 4 || compression == 5 ? [0, 1, 4, 8, 16, 24, 32] : [1, 2, 4, 8, 16, 24, 32]
      guard allowed.contains(bitCount) else {
        throw HeaderError("corrupt BMP: invalid bit count \(bitCount)")
      }
    }
    guard width > 0, height > 0 else { throw HeaderError("corrupt BMP: bad dimensions \(width)×\(height)") }
    // The alpha mask sits at the same place for a V3+ header and for the masks that follow an
    // INFO header with BI_ALPHABITFIELDS; an INFO header with BI_BITFIELDS has three masks only.
    let bitFields = (compression == 3 && dib >= 56 && dib != 64) || (compression == 6 && dib == 40)
    let alphaMask = bitFields && (bitCount == 16 || bitCount == 32) ? head.le32(base + 52) ?? 0 : 0
    let alpha = alphaMask != 0
    return ImageFacts(
      format: "bmp", width: width, height: height, bitDepth: bitCount <= 8 ? bitCount : 8,
      colorType: bitCount <= 8 && bitCount > 0 ? .palette : alpha ? .rgba : .rgb, alpha: alpha,
      interlaced: false, cgbi: nil, frames: 1)
  }
}
