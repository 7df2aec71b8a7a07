#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A file-system path kept as raw bytes, because file names on Linux need not be UTF-8.
///
/// `String` would replace invalid sequences with U+FFFD and lose the name; this type keeps
/// the bytes, and offers an escaped form for terminals and a base64 form for JSON.
public struct RawPath: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The path's bytes, without a terminating NUL.
  public var bytes: [UInt8]

  /// Creates a path from its raw bytes.
  public init(bytes: [UInt8]) { self.bytes = bytes }

  /// Creates a path from a Swift string (always valid UTF-8).
  public init(_ string: String) { self.bytes = Array(string.utf8) }

  /// The path as a string when its bytes are valid UTF-8, else nil.
  public var utf8String: String? {
    String(validating: bytes, as: UTF8.self)
  }

  /// True when the bytes are valid UTF-8 without control characters, so printing is lossless.
  public var isPlainUTF8: Bool {
    guard let string = utf8String else { return false }
    return !string.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
  }

  /// The path for display: valid UTF-8 printed as is, control characters and invalid bytes
  /// escaped (`\n`, `\t`, `\x1b`, `\xff`), the way `ls -b` shows them.
  public var escaped: String {
    var out = ""
    var index = 0
    while index < bytes.count {
      guard case .scalar(let scalar, let length) = UTF8Scalars.sequence(in: bytes, at: index) else {
        out += Self.hexEscape(bytes[index])
        index += 1
        continue
      }
      switch scalar.value {
      case 0x0A: out += "\\n"
      case 0x09: out += "\\t"
      case 0x0D: out += "\\r"
      case 0x5C: out += "\\\\"
      case 0..<0x20, 0x7F: out += Self.hexEscape(UInt8(scalar.value))
      default: out.unicodeScalars.append(scalar)
      }
      index += length
    }
    return out
  }

  public var description: String { escaped }

  /// The bytes in standard base64, for the `path_b64` JSON field.
  public var base64: String { Base64.encode(bytes) }

  /// The last path component.
  public var lastComponent: RawPath {
    var end = bytes.count
    while end > 1 && bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
    let start = bytes[..<end].lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
    return RawPath(bytes: Array(bytes[start..<end]))
  }

  /// The folder holding this path: everything before the last slash (`.` when there is none,
  /// `/` for a top-level path).
  public var parent: RawPath {
    var end = bytes.count
    while end > 1 && bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
    guard let slash = bytes[..<end].lastIndex(of: UInt8(ascii: "/")) else { return RawPath(".") }
    return slash == 0 ? RawPath("/") : RawPath(bytes: Array(bytes[..<slash]))
  }

  /// The bytes as the path part of a `file:` URI (SQLite's URI names): every byte but the
  /// unreserved ones and `/` percent-encoded, so any file name survives.
  public var fileURIPath: String {
    let hex = Array("0123456789ABCDEF".utf8)
    var result: [UInt8] = []
    for byte in bytes {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "~"), UInt8(ascii: "/"):
        result.append(byte)
      default:
        result += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
      }
    }
    return String(decoding: result, as: UTF8.self)
  }

  /// The extension of the last component, lower-cased, without the dot; empty when none.
  public var lowercasedExtension: String {
    let name = lastComponent.bytes
    guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0, dot < name.count - 1 else {
      return ""
    }
    return String(decoding: name[(dot + 1)...], as: UTF8.self).lowercased()
  }

  /// This path with `component` appended after a slash.
  public func appending(_ component: RawPath) -> RawPath {
    var result = bytes
    if result.last != UInt8(ascii: "/") { result.append(UInt8(ascii: "/")) }
    result += component.bytes
    return RawPath(bytes: result)
  }

  /// This path with a UTF-8 component appended after a slash.
  public func appending(_ component: String) -> RawPath { appending(RawPath(component)) }

  /// The absolute form of this path (relative to the current directory), with `.` and
  /// duplicate slashes removed and `..` resolved lexically.
  public var absolute: RawPath {
    var full = bytes
    if full.first != UInt8(ascii: "/") {
      full = RawPath.currentDirectory.bytes + [UInt8(ascii: "/")] + full
    }
    var parts: [ArraySlice<UInt8>] = []
    for part in full.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
      if part.elementsEqual([UInt8(ascii: ".")]) { continue }
      if part.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
        _ = parts.popLast()
        continue
      }
      parts.append(part)
    }
    var result: [UInt8] = []
    for part in parts { result.append(UInt8(ascii: "/")); result += part }
    return RawPath(bytes: result.isEmpty ? [UInt8(ascii: "/")] : result)
  }

  /// The process's current directory.
  public static var currentDirectory: RawPath {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return RawPath("/") }
    return RawPath(bytes: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
  }

  /// Calls `body` with the path as a NUL-terminated C string.
  public func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
    // The copy with its terminating NUL lives on the stack (on the heap only when long): a scan
    // or a search hands the C library one path per file.
    try withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer in
      bytes.withUnsafeBytes { source in
        UnsafeMutableRawBufferPointer(buffer).copyMemory(from: source)
      }
      buffer[bytes.count] = 0
      return try body(buffer.baseAddress!)
    }
  }

  /// Byte order (as `memcmp`): listings and groups sort thousands of paths.
  public static func < (lhs: RawPath, rhs: RawPath) -> Bool { order(lhs.bytes, rhs.bytes) < 0 }

  /// The order of two byte strings by `memcmp`, the shorter first when one begins the other:
  /// negative, zero or positive. What path order and the indexer's path keys compare with.
  public static func order(_ left: [UInt8], _ right: [UInt8]) -> Int {
    left.withUnsafeBufferPointer { a in
      right.withUnsafeBufferPointer { b in
        let common = min(a.count, b.count)
        let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
        return order != 0 ? Int(order) : a.count - b.count
      }
    }
  }

  private static func hexEscape(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return "\\x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
  }
}

/// Standard base64 (RFC 4648) encoding and decoding, without Foundation.
public enum Base64 {
  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  /// Encodes bytes as padded base64 text.
  public static func encode(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var index = 0
    while index < bytes.count {
      let b0 = bytes[index]
      let b1 = index + 1 < bytes.count ? bytes[index + 1] : 0
      let b2 = index + 2 < bytes.count ? bytes[index + 2] : 0
      out.append(alphabet[Int(b0 >> 2)])
      out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
      out.append(index + 1 < bytes.count ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : UInt8(ascii: "="))
      out.append(index + 2 < bytes.count ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
      index += 3
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Decodes padded or unpadded base64 text; nil when it contains other characters.
  public static func decode(_ text: String) -> [UInt8]? {
    var values: [UInt8] = []
    for byte in text.utf8 where byte != UInt8(ascii: "=") {
      guard let value = alphabet.firstIndex(of: byte) else { return nil }
      values.append(UInt8(value))
    }
    var out: [UInt8] = []
    var index = 0
    while index + 1 < values.count {
      out.append(values[index] << 2 | values[index + 1] >> 4)
      if index + 2 < values.count { out.append(values[index + 1] << 4 | values[index + 2] >> 2) }
      if index + 3 < values.count { out.append(values[index + 2] << 6 | values[index + 3]) }
      index += 4
    }
    return out
  }
}
