/// A compact binary form of `Codable` values: how shelf and its extraction workers pass facts
/// over a pipe. It needs no Foundation; the decoder checks every length and depth, so bytes
/// from a worker that misbehaved end in a `WireFormatError`, never a trap. Coding paths are
/// not tracked (an error names no field): building them cost an allocation per field.
public enum WireFormat {
  /// The deepest nesting decoded.
  public static let depthLimit = 64

  /// The bytes of `value`.
  public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
    let sink = WireSink()
    try sink.value(value)
    return sink.bytes
  }

  /// The value that `encode` turned into `bytes`.
  public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
    var reader = WireReader(bytes: bytes)
    let node = try reader.node(depth: 0)
    guard reader.offset == bytes.count else { throw WireFormatError("trailing bytes") }
    return try T(from: WireDecoder(node: node, codingPath: []))
  }
}

/// Bytes that are not a value of the expected type.
public struct WireFormatError: Error, Equatable, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = "malformed reply: " + description }
}

/// One decoded value (arrays hold the nested ones: no case needs a box of its own).
enum WireNode {
  case null
  case bool(Bool)
  case int(Int64)
  case uint(UInt64)
  case double(Double)
  case string(String)
  case array([WireNode])
  /// Keys in the order they were encoded (a handful each: a list beats hashing them).
  case keyed([(String, WireNode)])
  /// A `[UInt8]` (a path, say) in one piece rather than byte by byte.
  case bytes([UInt8])
}

/// Reads nodes, checking each length against the bytes left.
struct WireReader {
  let bytes: [UInt8]
  var offset = 0

  mutating func integer() throws -> UInt64 {
    guard bytes.count - offset >= 8 else { throw WireFormatError("truncated") }
    let value = bytes.withUnsafeBytes {
      UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
    offset += 8
    return value
  }

  mutating func length() throws -> Int {
    let value = try integer()
    guard value <= UInt64(bytes.count - offset) else { throw WireFormatError("length past the end") }
    return Int(value)
  }

  mutating func string() throws -> String {
    guard offset < bytes.count, bytes[offset] == 6 else { throw WireFormatError("expected a key") }
    offset += 1
    let count = try length()
    defer { offset += count }
    return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
  }

  mutating func node(depth: Int) throws -> WireNode {
    guard depth < WireFormat.depthLimit else { throw WireFormatError("nested too deeply") }
    guard offset < bytes.count else { throw WireFormatError("truncated") }
    let tag = bytes[offset]
    offset += 1
    switch tag {
    case 0: return .null
    case 1: return .bool(false)
    case 2: return .bool(true)
    case 3: return .int(Int64(bitPattern: try integer()))
    case 4: return .uint(try integer())
    case 5: return .double(Double(bitPattern: try integer()))
    case 6:
      offset -= 1
      return .string(try string())
    case 7:
      let count = try length()
      var values: [WireNode] = []
      for _ in 0..<count { values.append(try node(depth: depth + 1)) }
      return .array(values)
    case 8:
      let count = try length()
      var pairs: [(String, WireNode)] = []
      pairs.reserveCapacity(min(count, 64))
      for _ in 0..<count {
        let key = try string()
        pairs.append((key, try node(depth: depth + 1)))
      }
      return .keyed(pairs)
    case 9:
      let count = try length()
      defer { offset += count }
      return .bytes(Array(bytes[offset..<offset + count]))
    default: throw WireFormatError("unknown tag \(tag)")
    }
  }
}

/// Where the encoder writes: one byte buffer, in the order `WireReader` reads. A container
/// writes its tag and a count it raises with each entry; a nested value is written whole
/// before its parent's next entry (as synthesized `Codable` code does), so no tree is built.
final class WireSink {
  var bytes: [UInt8] = []

  func integer(_ value: UInt64) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  func string(_ value: String) {
    bytes.append(6)
    var value = value
    value.withUTF8 {
      integer(UInt64($0.count))
      bytes.append(contentsOf: $0)
    }
  }

  /// Writes a container's tag and a zero count; returns where the count is.
  func open(_ tag: UInt8) -> Int {
    bytes.append(tag)
    defer { integer(0) }
    return bytes.count
  }

  /// One more entry in the container whose count is at `offset`.
  func count(at offset: Int) {
    bytes.withUnsafeMutableBytes { buffer in
      let value = UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      buffer.storeBytes(of: (value + 1).littleEndian, toByteOffset: offset, as: UInt64.self)
    }
  }

  func primitive(_ node: WireNode) {
    switch node {
    case .null: bytes.append(0)
    case .bool(let value): bytes.append(value ? 2 : 1)
    case .int(let value):
      bytes.append(3)
      integer(UInt64(bitPattern: value))
    case .uint(let value):
      bytes.append(4)
      integer(value)
    case .double(let value):
      bytes.append(5)
      integer(value.bitPattern)
    case .string(let value): string(value)
    case .bytes(let value):
      bytes.append(9)
      integer(UInt64(value.count))
      bytes.append(contentsOf: value)
    case .array, .keyed: preconditionFailure("containers are written as they are encoded")
    }
  }

  /// Writes one value: a primitive directly, anything else through its `encode(to:)` (a value
  /// that writes nothing is written as null, so that every value is one node).
  func value<T: Encodable>(_ value: T) throws {
    if let node = wirePrimitive(value) {
      primitive(node)
      return
    }
    let before = bytes.count
    try value.encode(to: WireEncoder(sink: self))
    if bytes.count == before { bytes.append(0) }
  }
}

struct WireEncoder: Encoder {
  let sink: WireSink
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(WireKeyedEncoder<Key>(sink: sink, countAt: sink.open(8)))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    WireUnkeyedEncoder(sink: sink, countAt: sink.open(7))
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { WireSingleEncoder(sink: sink) }
}

/// The node of a primitive value (or of a `[UInt8]`), or nil for any other type. The common
/// types are found by comparing metatypes, not by casting: this runs for every value sent.
func wirePrimitive<T>(_ value: T) -> WireNode? {
  if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
  if T.self == Int.self { return .int(Int64(unsafeBitCast(value, to: Int.self))) }
  if T.self == Bool.self { return .bool(unsafeBitCast(value, to: Bool.self)) }
  if T.self == Double.self { return .double(unsafeBitCast(value, to: Double.self)) }
  if T.self == Int64.self { return .int(unsafeBitCast(value, to: Int64.self)) }
  if T.self == UInt64.self { return .uint(unsafeBitCast(value, to: UInt64.self)) }
  if T.self == [UInt8].self { return .bytes(unsafeBitCast(value, to: [UInt8].self)) }
  // Metatypes again, not casts: a failed cast of a struct costs far more than a comparison,
  // and every nested value (a struct, an enum, a list) would fail all of them.
  if T.self == Float.self { return .double(Double(unsafeBitCast(value, to: Float.self))) }
  if T.self == Int8.self { return .int(Int64(unsafeBitCast(value, to: Int8.self))) }
  if T.self == Int16.self { return .int(Int64(unsafeBitCast(value, to: Int16.self))) }
  if T.self == Int32.self { return .int(Int64(unsafeBitCast(value, to: Int32.self))) }
  if T.self == UInt.self { return .uint(UInt64(unsafeBitCast(value, to: UInt.self))) }
  if T.self == UInt8.self { return .uint(UInt64(unsafeBitCast(value, to: UInt8.self))) }
  if T.self == UInt16.self { return .uint(UInt64(unsafeBitCast(value, to: UInt16.self))) }
  if T.self == UInt32.self { return .uint(UInt64(unsafeBitCast(value, to: UInt32.self))) }
  return nil
}

struct WireKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let sink: WireSink
  let countAt: Int
  var codingPath: [any CodingKey] { [] }

  /// Starts an entry: counts it and writes its key.
  private func entry(_ key: Key) {
    sink.count(at: countAt)
    sink.string(key.stringValue)
  }

  mutating func encodeNil(forKey key: Key) throws {
    entry(key)
    sink.bytes.append(0)
  }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    entry(key)
    try sink.value(value)
  }
  mutating func encode(_ value: Bool, forKey key: Key) throws {
    entry(key)
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: String, forKey key: Key) throws {
    entry(key)
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: Double, forKey key: Key) throws {
    entry(key)
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: Float, forKey key: Key) throws {
    entry(key)
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: Int, forKey key: Key) throws {
    entry(key)
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: Int8, forKey key: Key) throws {
    entry(key)
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: Int16, forKey key: Key) throws {
    entry(key)
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: Int32, forKey key: Key) throws {
    entry(key)
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: Int64, forKey key: Key) throws {
    entry(key)
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: UInt, forKey key: Key) throws {
    entry(key)
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: UInt8, forKey key: Key) throws {
    entry(key)
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: UInt16, forKey key: Key) throws {
    entry(key)
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: UInt32, forKey key: Key) throws {
    entry(key)
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: UInt64, forKey key: Key) throws {
    entry(key)
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
    -> KeyedEncodingContainer<NestedKey>
  {
    entry(key)
    return WireEncoder(sink: sink).container(keyedBy: keyType)
  }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    entry(key)
    return WireEncoder(sink: sink).unkeyedContainer()
  }
  mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }
  mutating func superEncoder(forKey key: Key) -> any Encoder {
    entry(key)
    return WireEncoder(sink: sink)
  }
}

struct WireUnkeyedEncoder: UnkeyedEncodingContainer {
  let sink: WireSink
  let countAt: Int
  var codingPath: [any CodingKey] { [] }
  private(set) var count = 0

  init(sink: WireSink, countAt: Int) {
    self.sink = sink
    self.countAt = countAt
  }

  private mutating func entry() {
    sink.count(at: countAt)
    count += 1
  }

  mutating func encodeNil() throws {
    entry()
    sink.bytes.append(0)
  }
  mutating func encode<T: Encodable>(_ value: T) throws {
    entry()
    try sink.value(value)
  }
  mutating func encode(_ value: Bool) throws {
    entry()
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: String) throws {
    entry()
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: Double) throws {
    entry()
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: Float) throws {
    entry()
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: Int) throws {
    entry()
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: Int8) throws {
    entry()
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: Int16) throws {
    entry()
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: Int32) throws {
    entry()
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: Int64) throws {
    entry()
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: UInt) throws {
    entry()
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: UInt8) throws {
    entry()
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: UInt16) throws {
    entry()
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: UInt32) throws {
    entry()
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func encode(_ value: UInt64) throws {
    entry()
    sink.primitive(wirePrimitive(value)!)
  }
  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    entry()
    return WireEncoder(sink: sink).container(keyedBy: keyType)
  }
  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    entry()
    return WireEncoder(sink: sink).unkeyedContainer()
  }
  mutating func superEncoder() -> any Encoder {
    entry()
    return WireEncoder(sink: sink)
  }
}

struct WireSingleEncoder: SingleValueEncodingContainer {
  let sink: WireSink
  var codingPath: [any CodingKey] { [] }

  mutating func encodeNil() throws { sink.bytes.append(0) }
  mutating func encode<T: Encodable>(_ value: T) throws { try sink.value(value) }
  mutating func encode(_ value: Bool) throws { sink.primitive(wirePrimitive(value)!) }
  mutating func encode(_ value: String) throws { sink.primitive(wirePrimitive(value)!) }
  mutating func encode(_ value: Double) throws { sink.primitive(wirePrimitive(value)!) }
  mutating func encode(_ value: Float) throws { sink.primitive(wirePrimitive(value)!) }
  mutating func encode(_ value: Int) throws { sink.primitive(wirePrimitive(value)!) }
  mutating func encode(_ value: Int8) throws { sink.primitive(wirePrimitive(value)!) }
  mutating func encode(_ value: Int16) throws { sink.primitive(wirePrimitive(value)!) }
  mutating func encode(_ value: Int32) throws { sink.primitive(wirePrimitive(value)!) }
  mutating func encode(_ value: Int64) throws { sink.primitive(wirePrimitive(value)!) }
  mutating func encode(_ value: UInt) throws { sink.primitive(wirePrimitive(value)!) }
  mutating func encode(_ value: UInt8) throws { sink.primitive(wirePrimitive(value)!) }
  mutating func encode(_ value: UInt16) throws { sink.primitive(wirePrimitive(value)!) }
  mutating func encode(_ value: UInt32) throws { sink.primitive(wirePrimitive(value)!) }
  mutating func encode(_ value: UInt64) throws { sink.primitive(wirePrimitive(value)!) }
}
