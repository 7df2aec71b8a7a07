/// How shelf and its extraction workers pass values over a pipe: each type writes its fields in
/// a fixed order and reads them back in that order, with no keys, tags or `Codable` machinery
/// (which cost more than reading the facts of a small file did). The reader checks every length
/// against the bytes left, so bytes from a worker that misbehaved end in a `WireFormatError`,
/// never a trap or a huge allocation. A type's `init(from:)` reads what its `write(to:)` wrote;
/// `WireFormatTests` and the fully populated facts in `WireCodableFactsTests` keep them in step.
public protocol WireCodable {
  /// Appends the value's fields to `wire`.
  func write(to wire: inout WireWriter)
  /// Reads a value written by `write(to:)`.
  init(from wire: inout WireReader) throws(WireFormatError)
}

/// Bytes that are not a value of the expected type.
public struct WireFormatError: Error, Equatable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = "malformed reply: " + description }
}

public enum WireFormat {
  /// The bytes of `value`.
  public static func encode<T: WireCodable>(_ value: T) -> [UInt8] {
    var wire = WireWriter()
    value.write(to: &wire)
    return wire.bytes
  }

  /// The value that `encode` turned into `bytes`, which must hold nothing more.
  public static func decode<T: WireCodable>(_ type: T.Type, from bytes: [UInt8]) throws(WireFormatError) -> T
  {
    var wire = WireReader(bytes: bytes)
    let value = try T(from: &wire)
    guard wire.offset == bytes.count else { throw WireFormatError("trailing bytes") }
    return value
  }
}

/// Where values are written: integers as 8 little-endian bytes, strings and byte strings as
/// their length and bytes, optionals as a presence byte and the value, lists as their count
/// and elements.
public struct WireWriter {
  public private(set) var bytes: [UInt8] = []

  public init() { bytes.reserveCapacity(256) }

  public mutating func write<T: WireCodable>(_ value: T) { value.write(to: &self) }

  mutating func integer(_ value: UInt64) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func byte(_ value: UInt8) { bytes.append(value) }

  /// Which case of an enumeration with values follows.
  public mutating func writeCase(_ index: UInt8) { bytes.append(index) }

  /// A byte string (a path, say) in one piece.
  public mutating func writeBytes(_ value: [UInt8]) {
    integer(UInt64(value.count))
    bytes.append(contentsOf: value)
  }

  mutating func utf8(_ value: String) {
    var value = value
    value.withUTF8 {
      integer(UInt64($0.count))
      bytes.append(contentsOf: $0)
    }
  }
}

/// Reads values back, checking each length against the bytes left.
public struct WireReader {
  let bytes: [UInt8]
  var offset = 0

  public init(bytes: [UInt8]) { self.bytes = bytes }

  public mutating func read<T: WireCodable>() throws(WireFormatError) -> T { try T(from: &self) }

  /// As `read()`, with the type named (where the type cannot be inferred).
  public mutating func read<T: WireCodable>(_ type: T.Type) throws(WireFormatError) -> T {
    try T(from: &self)
  }

  mutating func integer() throws(WireFormatError) -> UInt64 {
    guard bytes.count - offset >= 8 else { throw WireFormatError("truncated") }
    let value = bytes.withUnsafeBytes {
      UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
    offset += 8
    return value
  }

  mutating func byte() throws(WireFormatError) -> UInt8 {
    guard offset < bytes.count else { throw WireFormatError("truncated") }
    defer { offset += 1 }
    return bytes[offset]
  }

  /// A count of things of at least `unit` bytes each, checked against the bytes left.
  mutating func count(unit: Int) throws(WireFormatError) -> Int {
    let value = try integer()
    guard value <= UInt64((bytes.count - offset) / max(1, unit)) else {
      throw WireFormatError("length past the end")
    }
    return Int(value)
  }

  /// The case index `writeCase` wrote.
  public mutating func readCase() throws(WireFormatError) -> UInt8 { try byte() }

  public mutating func readBytes() throws(WireFormatError) -> [UInt8] {
    let count = try count(unit: 1)
    defer { offset += count }
    return Array(bytes[offset..<offset + count])
  }

  mutating func utf8() throws(WireFormatError) -> String {
    let count = try count(unit: 1)
    defer { offset += count }
    return bytes.withUnsafeBufferPointer {
      String(decoding: UnsafeBufferPointer(rebasing: $0[offset..<offset + count]), as: UTF8.self)
    }
  }
}

/// Enumerations are sent by their raw value.
extension WireCodable where Self: RawRepresentable, RawValue == String {
  public func write(to wire: inout WireWriter) { wire.utf8(rawValue) }

  public init(from wire: inout WireReader) throws(WireFormatError) {
    let raw = try wire.utf8()
    guard let value = Self(rawValue: raw) else { throw WireFormatError("unknown case '\(raw)'") }
    self = value
  }
}

extension Int: WireCodable {
  public func write(to wire: inout WireWriter) { wire.integer(UInt64(bitPattern: Int64(self))) }
  public init(from wire: inout WireReader) throws(WireFormatError) {
    self = Int(Int64(bitPattern: try wire.integer()))
  }
}

extension Int64: WireCodable {
  public func write(to wire: inout WireWriter) { wire.integer(UInt64(bitPattern: self)) }
  public init(from wire: inout WireReader) throws(WireFormatError) {
    self = Int64(bitPattern: try wire.integer())
  }
}

extension UInt64: WireCodable {
  public func write(to wire: inout WireWriter) { wire.integer(self) }
  public init(from wire: inout WireReader) throws(WireFormatError) { self = try wire.integer() }
}

extension UInt32: WireCodable {
  public func write(to wire: inout WireWriter) { wire.integer(UInt64(self)) }
  public init(from wire: inout WireReader) throws(WireFormatError) {
    guard let value = UInt32(exactly: try wire.integer()) else { throw WireFormatError("out of range") }
    self = value
  }
}

extension Double: WireCodable {
  public func write(to wire: inout WireWriter) { wire.integer(bitPattern) }
  public init(from wire: inout WireReader) throws(WireFormatError) {
    self = Double(bitPattern: try wire.integer())
  }
}

extension Bool: WireCodable {
  public func write(to wire: inout WireWriter) { wire.byte(self ? 1 : 0) }
  public init(from wire: inout WireReader) throws(WireFormatError) {
    switch try wire.byte() {
    case 0: self = false
    case 1: self = true
    default: throw WireFormatError("not a truth value")
    }
  }
}

extension String: WireCodable {
  public func write(to wire: inout WireWriter) { wire.utf8(self) }
  public init(from wire: inout WireReader) throws(WireFormatError) { self = try wire.utf8() }
}

extension Optional: WireCodable where Wrapped: WireCodable {
  public func write(to wire: inout WireWriter) {
    if let value = self {
      wire.byte(1)
      value.write(to: &wire)
    } else {
      wire.byte(0)
    }
  }

  public init(from wire: inout WireReader) throws(WireFormatError) {
    switch try wire.byte() {
    case 0: self = nil
    case 1: self = try Wrapped(from: &wire)
    default: throw WireFormatError("not an optional")
    }
  }
}

extension Array: WireCodable where Element: WireCodable {
  public func write(to wire: inout WireWriter) {
    wire.integer(UInt64(count))
    for element in self { element.write(to: &wire) }
  }

  /// Every element takes at least a byte: a count beyond the bytes left is refused before
  /// anything is allocated.
  public init(from wire: inout WireReader) throws(WireFormatError) {
    let count = try wire.count(unit: 1)
    self = []
    reserveCapacity(count)
    for _ in 0..<count { append(try Element(from: &wire)) }
  }
}
