/// The magic numbers of the older image formats people still meet (PCX and DCX, SGI, Sun
/// raster, XBM, DDS, EPS, FITS), kept apart from `ContentSniffer` so that its table stays short.
/// Several of these start like text (XBM is C source, EPS PostScript, FITS 80-column cards):
/// `ContentSniffer` asks here before it decides a file is text.
enum ClassicImageMagic {
  /// The MIME type of a file whose first bytes are one of these formats', or nil.
  static func mime(forPrefix p: [UInt8]) -> String? {
    guard p.count >= 4 else { return nil }
    switch (p[0], p[1], p[2], p[3]) {
    case (0x59, 0xA6, 0x6A, 0x95): return "image/x-sun-raster"
    case (0xB1, 0x68, 0xDE, 0x3A): return "image/x-dcx"
    case (0xC5, 0xD0, 0xD3, 0xC6): return "image/x-eps"  // a DOS EPS binary header
    case (0x44, 0x44, 0x53, 0x20): return p.le32(4) == 124 ? "image/x-dds" : nil
    default: break
    }
    if isPCX(p) { return "image/vnd.zbrush.pcx" }
    if isSGI(p) { return "image/x-sgi" }
    if isEPS(p) { return "image/x-eps" }
    if isFITS(p) { return "image/fits" }
    if ImageHeaderReader.xbmSize(p) != nil { return "image/x-xbitmap" }
    return nil
  }

  /// The extensions of these formats, by MIME type.
  static let extensions: [(mime: String, extensions: [String])] = [
    ("image/vnd.zbrush.pcx", ["pcx"]), ("image/x-dcx", ["dcx"]),
    ("image/x-sgi", ["sgi", "rgb", "rgba", "bw"]), ("image/x-sun-raster", ["ras", "sun"]),
    ("image/x-xbitmap", ["xbm"]), ("image/x-dds", ["dds"]),
    ("image/x-eps", ["eps", "epsf", "epsi", "ept"]), ("image/fits", ["fits", "fit", "fts"]),
  ]

  /// PCX: manufacturer 10, a version ZSoft defined (0–5), encoding 0 or 1 (RLE), 1, 2, 4 or 8
  /// bits per pixel, 1 to 4 planes, and a window whose end is not before its start. Byte 0 is a
  /// line feed, but the control bytes after it rule out text.
  private static func isPCX(_ p: [UInt8]) -> Bool {
    guard p.count >= 128, p[0] == 0x0A, p[1] <= 5, p[2] <= 1, [1, 2, 4, 8].contains(p[3]),
      (1...4).contains(p[65]), let x0 = p.le16(4), let y0 = p.le16(6), let x1 = p.le16(8),
      let y1 = p.le16(10)
    else { return false }
    return x1 >= x0 && y1 >= y0
  }

  /// SGI: magic 474, storage verbatim or RLE, 1 or 2 bytes per channel, 1 to 3 dimensions.
  private static func isSGI(_ p: [UInt8]) -> Bool {
    p.count >= 12 && p[0] == 0x01 && p[1] == 0xDA && p[2] <= 1 && (p[3] == 1 || p[3] == 2)
      && (1...3).contains(p.be16(4) ?? 0)
  }

  /// Encapsulated PostScript: the `%!PS-Adobe-n.n EPSF-n.n` first line (PostScript that does
  /// not say EPSF stays text).
  private static func isEPS(_ p: [UInt8]) -> Bool {
    guard p.starts(with: Array("%!PS-Adobe-".utf8)) else { return false }
    let line = p.prefix(80).prefix { $0 != 0x0A && $0 != 0x0D }
    return String(decoding: line, as: UTF8.self).contains(" EPSF-")
  }

  /// FITS: the first card is `SIMPLE  =` with the logical `T` in column 30.
  private static func isFITS(_ p: [UInt8]) -> Bool {
    p.count >= 80 && p.starts(with: Array("SIMPLE  =".utf8)) && p[29] == 0x54
  }
}
