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

/// An open file whose first bytes are read once and kept: the sniffer reads a prefix, then (for
/// text) a sample of the whole file, and the reader of the file's kind reads its header or its
/// text again; each was a `pread` of the same bytes. The kept head grows to cover a read that
/// starts within it (or right after it) and ends within `keptLimit`; a file up to `wholeLimit`
/// is read whole at the first read. Other reads (a header far into a photograph, past a large
/// embedded preview) go to the file, so that the bytes between are never read. One reader at a
/// time.
public final class FileBytes: ByteSource {
  /// The largest head kept: a text file's whole sample (`TextSample`) and first block.
  public static let keptLimit = 1 << 20
  /// Files up to this size are read whole at the first read.
  public static let wholeLimit = 64 << 10

  public let file: RegularFile
  private var head: [UInt8] = []
  /// The head reaches the end of the file (it was shorter than its status said, or just as long).
  private var headIsWhole = false

  public init(_ file: RegularFile) { self.file = file }

  public var size: Int64 { file.status.size }

  public func read(count: Int, at offset: Int64) throws -> [UInt8] {
    guard count > 0, offset >= 0, offset < size else { return [] }
    let end = Int64(count) > size - offset ? size : offset + Int64(count)
    if end > Int64(head.count) && !headIsWhole {
      guard end <= Int64(Self.keptLimit), offset <= Int64(head.count) || size <= Int64(Self.wholeLimit) else {
        return try file.read(count: Int(end - offset), at: offset)
      }
      let wanted = size <= Int64(Self.wholeLimit) ? Int(size) : Int(end)
      let more = try file.read(count: wanted - head.count, at: Int64(head.count))
      head += more
      if head.count < wanted || head.count == Int(size) { headIsWhole = true }
    }
    let start = Int(min(offset, Int64(head.count)))
    return Array(head[start..<min(head.count, Int(end))])
  }
}
