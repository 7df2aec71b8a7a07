import ShelfCore

extension ImageHeaderReader {
  /// JPEG: walks the marker segments to the first start-of-frame of any kind (baseline,
  /// extended, progressive, lossless, arithmetic). Bytes that are not a marker where one is
  /// due are skipped up to the next one, as libjpeg does ("extraneous bytes before marker");
  /// an Adobe APP14 segment tells RGB from YCbCr and CMYK from YCCK, and one too short to hold
  /// its transform is ignored, as libjpeg and Pillow ignore it.
  public static func readJPEG(_ source: any ByteSource) throws -> ImageFacts {
    var window = ByteWindow(source)
    var offset: Int64 = 2
    var adobeTransform: Int?
    var sawJFIF = false
    while true {
      guard let (marker, after) = try nextJPEGMarker(&window, from: offset) else {
        throw HeaderError("corrupt JPEG: no frame header")
      }
      offset = after
      switch marker {
      case 0x01, 0xD0...0xD8: continue  // standalone markers
      case 0xD9: throw HeaderError("corrupt JPEG: no frame header")
      case 0xDA: throw HeaderError("corrupt JPEG: scan before the frame header")
      default: break
      }
      let lengthBytes = try window.bytes(count: 2, at: offset)
      guard let length = lengthBytes.be16(0) else {
        throw HeaderError("truncated JPEG: segment header cut off")
      }
      guard length >= 2 else { throw HeaderError("corrupt JPEG: segment length \(length)") }
      let body = offset + 2
      if isStartOfFrame(marker) {
        let frame = try window.bytes(count: min(length - 2, 6 + 3 * 4), at: body)
        guard frame.count >= 6, let height = frame.be16(1), let width = frame.be16(3) else {
          throw HeaderError("truncated JPEG: frame header cut off")
        }
        let components = Int(frame[5])
        let ids = stride(from: 6, to: min(frame.count, 6 + 3 * components), by: 3).map { frame[$0] }
        let colour: ImageColorType
        switch components {
        case 1: colour = .gray
        case 3:
          let rgbIDs = ids == Array("RGB".utf8)
          colour = adobeTransform == 0 || (adobeTransform == nil && !sawJFIF && rgbIDs) ? .rgb : .ycbcr
        case 4: colour = adobeTransform == 2 ? .ycck : .cmyk
        default: colour = .other
        }
        guard width > 0, height > 0 else { throw HeaderError("corrupt JPEG: frame of \(width)×\(height)") }
        let progressive = [0xC2, 0xC6, 0xCA, 0xCE].contains(marker)
        return ImageFacts(
          format: "jpeg", width: width, height: height, bitDepth: Int(frame[0]), colorType: colour,
          alpha: false, interlaced: progressive, cgbi: nil, frames: 1)
      }
      if marker == 0xEE {
        let adobe = try window.bytes(count: min(length - 2, 12), at: body)
        if adobe.count >= 12, adobe.starts(with: Array("Adobe".utf8)) { adobeTransform = Int(adobe[11]) }
      } else if marker == 0xE0 {
        let identifier = try window.bytes(count: min(length - 2, 5), at: body)
        sawJFIF = sawJFIF || identifier == Array("JFIF\0".utf8)
      }
      offset = body + Int64(length - 2)
    }
  }

  /// SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC), which share the range.
  private static func isStartOfFrame(_ marker: UInt8) -> Bool {
    (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
  }

  /// The next marker code at or after `offset` and the offset just past it, skipping junk and
  /// fill bytes; nil at the end of the file.
  private static func nextJPEGMarker(_ window: inout ByteWindow, from offset: Int64) throws -> (UInt8, Int64)?
  {
    var index = offset
    while let byte = try window.byte(at: index) {
      guard byte == 0xFF else {
        index += 1
        continue
      }
      var code = index + 1
      while try window.byte(at: code) == 0xFF { code += 1 }
      guard let marker = try window.byte(at: code) else { return nil }
      if marker != 0x00 { return (marker, code + 1) }
      index = code + 1  // a stuffed 0xFF 0x00 is data, not a marker
    }
    return nil
  }
}
