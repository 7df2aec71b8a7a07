/// One chunk of a PNG container: a four-letter type and its data.
public struct PNGChunk: Sendable, Equatable {
  /// The four type bytes, e.g. `IHDR`.
  public var type: [UInt8]
  /// The chunk's data (without length, type or CRC).
  public var data: [UInt8]

  /// Creates a chunk from a four-letter type name.
  public init(_ name: String, data: [UInt8]) {
    self.type = Array(name.utf8)
    self.data = data
  }

  /// Creates a chunk from raw type bytes.
  public init(type: [UInt8], data: [UInt8]) {
    self.type = type
    self.data = data
  }

  /// The type as text (non-letters escaped).
  public var name: String {
    String(
      decoding: type.map { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) ? $0 : 0x3F },
      as: UTF8.self)
  }

  /// Whether the chunk is critical (upper-case first letter).
  public var isCritical: Bool { type[0] & 0x20 == 0 }

  /// Whether editors that do not understand the chunk may still copy it (lower-case fourth letter).
  public var isSafeToCopy: Bool { type[3] & 0x20 != 0 }

  func `is`(_ name: StaticString) -> Bool {
    name.withUTF8Buffer { $0.elementsEqual(type) }
  }
}

/// The eight bytes every PNG file starts with.
public let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
