import ShelfCore

extension ImageHeaderReader {
  /// ICO and CUR: the directory's entries are the frames; the size is the largest entry's (a
  /// PNG entry's own IHDR, since its directory byte stops at 256; a 0 byte means 256).
  public static func readICO(_ source: any ByteSource, format: String) throws -> ImageFacts {
    let head = try source.read(count: 6, at: 0)
    guard let count = head.le16(4), count > 0 else {
      throw HeaderError("corrupt \(format.uppercased()): no entries")
    }
    let directory = try source.read(count: 16 * count, at: 6)
    guard directory.count == 16 * count else {
      throw HeaderError("truncated \(format.uppercased()): directory cut off")
    }
    var best: (width: Int, height: Int, bits: Int, alpha: Bool)?
    for index in 0..<count {
      let entry = Array(directory[index * 16..<index * 16 + 16])
      var width = entry[0] == 0 ? 256 : Int(entry[0])
      var height = entry[1] == 0 ? 256 : Int(entry[1])
      var bits = entry.le16(6) ?? 0
      var alpha = bits == 32
      if let offset = entry.le32(12), offset < source.size {
        let payload = try source.read(count: 26, at: Int64(offset))
        if payload.starts(with: [0x89, 0x50, 0x4E, 0x47]), let w = payload.be32(16), let h = payload.be32(20)
        {
          // PNG dimensions stop at 2^31 - 1, which keeps their product (compared below) in range.
          guard w <= 0x7FFF_FFFF, h <= 0x7FFF_FFFF else {
            throw HeaderError("corrupt \(format.uppercased()): entry \(index + 1) is a PNG of \(w)×\(h)")
          }
          (width, height) = (w, h)
          bits = Int(payload.u8(24) ?? 8)
          alpha = [4, 6].contains(payload.u8(25) ?? 0)
        }
      }
      if let current = best, (width * height, bits) <= (current.width * current.height, current.bits) {
        continue
      }
      best = (width, height, bits, alpha)
    }
    guard let best else { throw HeaderError("corrupt \(format.uppercased()): no entries") }
    return ImageFacts(
      format: format, width: best.width, height: best.height, bitDepth: best.bits <= 8 ? best.bits : 8,
      colorType: best.alpha ? "rgba" : best.bits <= 8 ? "palette" : "rgb", alpha: best.alpha,
      interlaced: false,
      cgbi: nil, frames: count)
  }

  /// The pixel width of each ICNS image element, by type; masks and metadata are absent.
  static let icnsElementWidths: [String: Int] = [
    "ICON": 32, "ICN#": 32, "icm#": 16, "icm4": 16, "icm8": 16, "ics#": 16, "ics4": 16, "ics8": 16,
    "is32": 16, "icl4": 32, "icl8": 32, "il32": 32, "ich#": 48, "ich4": 48, "ich8": 48, "ih32": 48,
    "it32": 128, "icp4": 16, "icp5": 32, "icp6": 64, "ic07": 128, "ic08": 256, "ic09": 512,
    "ic10": 1024, "ic11": 32, "ic12": 64, "ic13": 256, "ic14": 512, "ic04": 16, "ic05": 32,
  ]

  /// ICNS: the image elements are the frames (masks, the table of contents and other metadata
  /// are not); the size is the largest element's, in pixels (`ic10` is 512 points at 2×, 1024
  /// pixels). At most 4,096 elements are read.
  public static func readICNS(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 8, at: 0)
    guard head.fourCC(0) == "icns", let declared = head.be32(4) else {
      throw HeaderError("truncated ICNS: header cut off")
    }
    let end = min(Int64(declared), source.size)
    var offset: Int64 = 8
    var frames = 0
    var largest = 0
    var steps = 0
    while offset + 8 <= end, steps < 4096 {
      steps += 1
      let element = try source.read(count: 8, at: offset)
      guard let length = element.be32(4), length >= 8 else {
        throw HeaderError("corrupt ICNS: bad element length")
      }
      if let width = icnsElementWidths[element.fourCC(0)] {
        frames += 1
        largest = max(largest, width)
      }
      offset += Int64(length)
    }
    guard frames > 0 else { throw HeaderError("corrupt ICNS: no image elements") }
    return ImageFacts(
      format: "icns", width: largest, height: largest, bitDepth: 8, colorType: "rgba", alpha: true,
      interlaced: false, cgbi: nil, frames: frames)
  }
}
