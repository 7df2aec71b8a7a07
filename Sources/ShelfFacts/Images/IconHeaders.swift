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
      colorType: best.alpha ? .rgba : best.bits <= 8 ? .palette : .rgb, alpha: best.alpha,
      interlaced: false,
      cgbi: nil, frames: count)
  }

  /// The size (in points) and scale Pillow's ICNS reader gives each element type it reads:
  /// PNG or JPEG 2000 elements, the 24-bit RLE images and their 8-bit masks. Pillow lists a
  /// file's sizes (its frames) as the set of these sizes present, and shows the largest (by
  /// points, then scale) at its scale.
  static let icnsPillowSizes: [String: (points: Int, scale: Int)] = [
    "ic10": (512, 2), "ic09": (512, 1), "ic14": (256, 2), "ic08": (256, 1), "ic13": (128, 2),
    "ic07": (128, 1), "it32": (128, 1), "t8mk": (128, 1), "icp6": (64, 1), "ic12": (32, 2),
    "ih32": (48, 1), "h8mk": (48, 1), "icp5": (32, 1), "il32": (32, 1), "l8mk": (32, 1),
    "ic11": (16, 2), "icp4": (16, 1), "is32": (16, 1), "s8mk": (16, 1),
  ]

  /// The pixel width of the image elements Pillow does not read (the classic 1-, 4- and 8-bit
  /// icons, the ARGB `ic04`/`ic05`): counted only in a file that has none of Pillow's.
  static let icnsOtherElementWidths: [String: Int] = [
    "ICON": 32, "ICN#": 32, "icm#": 16, "icm4": 16, "icm8": 16, "ics#": 16, "ics4": 16, "ics8": 16,
    "icl4": 32, "icl8": 32, "ich#": 48, "ich4": 48, "ich8": 48, "ic04": 16, "ic05": 32,
  ]

  /// ICNS: frames and size as Pillow counts them (the distinct sizes of the elements it reads;
  /// the largest, in pixels); a file with only older elements counts their distinct sizes.
  /// At most 4,096 elements are read.
  public static func readICNS(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 8, at: 0)
    guard head.fourCC(0) == "icns", let declared = head.be32(4) else {
      throw HeaderError("truncated ICNS: header cut off")
    }
    let end = min(Int64(declared), source.size)
    var offset: Int64 = 8
    var pillowSizes: Set<[Int]> = []
    var otherWidths: Set<Int> = []
    var steps = 0
    while offset + 8 <= end, steps < 4096 {
      steps += 1
      let element = try source.read(count: 8, at: offset)
      guard let length = element.be32(4), length >= 8 else {
        throw HeaderError("corrupt ICNS: bad element length")
      }
      if let size = icnsPillowSizes[element.fourCC(0)] {
        pillowSizes.insert([size.points, size.scale])
      } else if let width = icnsOtherElementWidths[element.fourCC(0)] {
        otherWidths.insert(width)
      }
      offset += Int64(length)
    }
    let largest: Int
    let frames: Int
    if let best = pillowSizes.max(by: { ($0[0], $0[1]) < ($1[0], $1[1]) }) {
      (largest, frames) = (best[0] * best[1], pillowSizes.count)
    } else if let width = otherWidths.max() {
      (largest, frames) = (width, otherWidths.count)
    } else {
      throw HeaderError("corrupt ICNS: no image elements")
    }
    return ImageFacts(
      format: "icns", width: largest, height: largest, bitDepth: 8, colorType: .rgba, alpha: true,
      interlaced: false, cgbi: nil, frames: frames)
  }
}
