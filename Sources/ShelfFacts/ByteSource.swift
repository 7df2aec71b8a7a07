import ShelfCore

/// Random access to a file's bytes, so that header readers read only what they need.
public protocol ByteSource {
  /// The total size in bytes.
  var size: Int64 { get }
  /// Up to `count` bytes at `offset` (fewer at the end).
  func read(count: Int, at offset: Int64) throws -> [UInt8]
}

/// Bytes held in memory (tests, and small files read whole).
public struct MemoryBytes: ByteSource {
  public var bytes: [UInt8]
  /// Wraps bytes held in memory.
  public init(_ bytes: [UInt8]) { self.bytes = bytes }
  public var size: Int64 { Int64(bytes.count) }
  /// Up to `count` bytes at `offset`.
  public func read(count: Int, at offset: Int64) throws -> [UInt8] {
    guard offset >= 0, offset < Int64(bytes.count), count > 0 else { return [] }
    let start = Int(offset)
    return Array(bytes[start..<min(bytes.count, start + count)])
  }
}

extension RegularFile: ByteSource {
  public var size: Int64 { status.size }
}

extension PropertyList {
  /// Parses an XML or binary plist from a file or other byte source, refusing huge ones.
  public static func parse(_ source: any ByteSource) throws -> PropertyList {
    guard source.size <= sizeLimit else {
      throw HeaderError("property list larger than \(sizeLimit >> 20) MiB")
    }
    let bytes = try source.read(count: Int(source.size), at: 0)
    return try parse(bytes)
  }

  /// The catalogue facts: format, root type, top-level keys.
  public var facts: PlistFacts {
    var keys: [String] = []
    if case .dictionary(let pairs) = root { keys = pairs.map(\.0) }
    return PlistFacts(format: format, root: root.typeName, keys: keys)
  }
}

/// Little helpers for reading integers out of byte arrays, bounds-checked.
extension Array where Element == UInt8 {
  func u8(_ offset: Int) -> Int? { offset >= 0 && offset < count ? Int(self[offset]) : nil }

  func be16(_ offset: Int) -> Int? {
    guard offset >= 0, offset + 2 <= count else { return nil }
    return Int(self[offset]) << 8 | Int(self[offset + 1])
  }

  func le16(_ offset: Int) -> Int? {
    guard offset >= 0, offset + 2 <= count else { return nil }
    return Int(self[offset + 1]) << 8 | Int(self[offset])
  }

  func be32(_ offset: Int) -> Int? {
    guard offset >= 0, offset + 4 <= count else { return nil }
    return Int(self[offset]) << 24 | Int(self[offset + 1]) << 16 | Int(self[offset + 2]) << 8
      | Int(self[offset + 3])
  }

  func le32(_ offset: Int) -> Int? {
    guard offset >= 0, offset + 4 <= count else { return nil }
    return Int(self[offset + 3]) << 24 | Int(self[offset + 2]) << 16 | Int(self[offset + 1]) << 8
      | Int(self[offset])
  }

  func be64(_ offset: Int) -> UInt64? {
    guard offset >= 0, offset + 8 <= count else { return nil }
    var value: UInt64 = 0
    for index in offset..<offset + 8 { value = value << 8 | UInt64(self[index]) }
    return value
  }

  func le64(_ offset: Int) -> UInt64? {
    guard offset >= 0, offset + 8 <= count else { return nil }
    var value: UInt64 = 0
    for index in (offset..<offset + 8).reversed() { value = value << 8 | UInt64(self[index]) }
    return value
  }

  func fourCC(_ offset: Int) -> String {
    guard offset >= 0, offset + 4 <= count else { return "" }
    return String(decoding: self[offset..<offset + 4], as: UTF8.self)
  }
}
