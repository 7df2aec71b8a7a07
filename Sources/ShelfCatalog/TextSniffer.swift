/// The character encodings the catalogue recognises in text files.
public enum TextEncoding: String, Sendable, CaseIterable {
  case ascii
  case utf8 = "utf-8"
  case utf16le = "utf-16le"
  case utf16be = "utf-16be"
  case latin1 = "latin-1"
}

/// An encoding found in a text file, and whether a byte-order mark announced it.
public struct DetectedEncoding: Sendable, Equatable {
  public var encoding: TextEncoding
  public var bom: Bool

  public init(encoding: TextEncoding, bom: Bool) {
    self.encoding = encoding
    self.bom = bom
  }

  /// The length of the byte-order mark in bytes (0 when none).
  public var bomLength: Int {
    guard bom else { return 0 }
    return encoding == .utf8 ? 3 : 2
  }
}

/// Decides whether bytes are text, and in which encoding.
public enum TextSniffer {
  /// The encoding of `bytes` when they look like text, else nil (binary).
  ///
  /// `bytes` may be a prefix of a longer file: a multi-byte sequence cut at the end is allowed.
  public static func detectEncoding(_ bytes: [UInt8]) -> DetectedEncoding? {
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
      return isUTF8(bytes[3...]) ? DetectedEncoding(encoding: .utf8, bom: true) : nil
    }
    if bytes.starts(with: [0xFF, 0xFE]) && !bytes.starts(with: [0xFF, 0xFE, 0, 0]) {
      return isUTF16(bytes[2...], littleEndian: true)
        ? DetectedEncoding(encoding: .utf16le, bom: true) : nil
    }
    if bytes.starts(with: [0xFE, 0xFF]) {
      return isUTF16(bytes[2...], littleEndian: false)
        ? DetectedEncoding(encoding: .utf16be, bom: true) : nil
    }
    if bytes.isEmpty { return nil }
    if bytes.contains(0) {
      // UTF-16 without a byte-order mark: ASCII-range text leaves every other byte zero.
      guard bytes.count >= 4 else { return nil }
      var zeroEven = 0
      var zeroOdd = 0
      for (index, byte) in bytes.enumerated() where byte == 0 {
        if index & 1 == 0 { zeroEven += 1 } else { zeroOdd += 1 }
      }
      let half = bytes.count / 2
      if zeroOdd * 10 >= half * 6 && zeroEven == 0 && isUTF16(bytes[...], littleEndian: true) {
        return DetectedEncoding(encoding: .utf16le, bom: false)
      }
      if zeroEven * 10 >= half * 6 && zeroOdd == 0 && isUTF16(bytes[...], littleEndian: false) {
        return DetectedEncoding(encoding: .utf16be, bom: false)
      }
      return nil
    }
    var highBytes = 0
    for byte in bytes {
      if byte >= 0x80 {
        highBytes += 1
      } else if !isTextControlOK(UInt32(byte)) {
        return nil
      }
    }
    if highBytes == 0 { return DetectedEncoding(encoding: .ascii, bom: false) }
    if isUTF8(bytes[...]) { return DetectedEncoding(encoding: .utf8, bom: false) }
    // Latin-1 (or Windows-1252): mostly ASCII, with accented letters here and there.
    guard highBytes * 10 <= bytes.count * 3 else { return nil }
    for byte in bytes where [0x81, 0x8D, 0x8F, 0x90, 0x9D].contains(byte) { return nil }
    return DetectedEncoding(encoding: .latin1, bom: false)
  }

  /// Control characters that appear in real text: tab, line feed, vertical tab, form feed,
  /// carriage return, backspace, escape (terminal colours) and the DOS end-of-file mark.
  static func isTextControlOK(_ value: UInt32) -> Bool {
    if value >= 0x20 && value != 0x7F { return true }
    return value == 0x09 || value == 0x0A || value == 0x0B || value == 0x0C || value == 0x0D
      || value == 0x08 || value == 0x1B || value == 0x1A
  }

  /// True when the bytes are valid UTF-8 without disallowed control characters, allowing a
  /// sequence cut off in the last three bytes.
  static func isUTF8(_ bytes: ArraySlice<UInt8>) -> Bool {
    var index = bytes.startIndex
    let end = bytes.endIndex
    while index < end {
      let lead = bytes[index]
      if lead < 0x80 {
        if !isTextControlOK(UInt32(lead)) { return false }
        index += 1
        continue
      }
      let length: Int
      var minimum: UInt32
      switch lead {
      case 0xC2...0xDF: length = 2; minimum = 0x80
      case 0xE0...0xEF: length = 3; minimum = 0x800
      case 0xF0...0xF4: length = 4; minimum = 0x10000
      default: return false
      }
      var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
      for offset in 1..<length {
        if index + offset >= end { return true }  // cut off at the end of the prefix
        let byte = bytes[index + offset]
        guard byte & 0xC0 == 0x80 else { return false }
        value = value << 6 | UInt32(byte & 0x3F)
      }
      if value < minimum || value > 0x10FFFF || (0xD800...0xDFFF).contains(value) { return false }
      if value >= 0x80 && value < 0xA0 { return false }  // C1 controls: not text
      minimum = 0
      index += length
    }
    return true
  }

  /// True when the bytes decode as UTF-16 text: paired surrogates, no NUL, few controls.
  static func isUTF16(_ bytes: ArraySlice<UInt8>, littleEndian: Bool) -> Bool {
    var index = bytes.startIndex
    let end = bytes.endIndex
    var pendingHigh = false
    var units = 0
    while index + 1 < end {
      let a = UInt16(bytes[index])
      let b = UInt16(bytes[index + 1])
      let unit = littleEndian ? a | b << 8 : a << 8 | b
      index += 2
      units += 1
      if pendingHigh {
        guard (0xDC00...0xDFFF).contains(unit) else { return false }
        pendingHigh = false
        continue
      }
      if (0xD800...0xDBFF).contains(unit) {
        pendingHigh = true
        continue
      }
      if (0xDC00...0xDFFF).contains(unit) { return false }
      if unit == 0xFFFE || unit == 0xFFFF { return false }
      if !isTextControlOK(UInt32(unit)) || (0x80..<0xA0).contains(unit) { return false }
    }
    return true
  }
}
