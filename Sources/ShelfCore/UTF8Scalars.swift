/// UTF-8 decoded one sequence at a time by the Unicode standard's rules (its table of
/// well-formed byte sequences): no overlong forms, no surrogates, nothing above U+10FFFF.
///
/// File names, text samples and glob patterns need not be valid UTF-8, and each reader has to
/// say what an ill-formed byte becomes instead of losing it as `String` does (it turns into
/// U+FFFD); so they all decode here and decide that themselves.
package enum UTF8Scalars {
  /// What begins at an offset in a byte string.
  package enum Sequence: Equatable, Sendable {
    /// A well-formed sequence: its scalar and its length in bytes (1 to 4).
    case scalar(Unicode.Scalar, length: Int)
    /// The byte at the offset begins no well-formed sequence. Readers take that byte alone and
    /// go on with the next one, so that every ill-formed byte stays one unit of its own.
    case invalid
    /// The bytes end inside a sequence that is well-formed as far as it goes: more bytes may
    /// complete it.
    case truncated
  }

  /// The unit an ill-formed byte stands for is this plus the byte: above Unicode's range, so
  /// that it is never taken for a character, and one unit per byte.
  package static let invalidByteBase: UInt32 = 0x11_0000

  /// The sequence that begins at `index` (which must be a valid index of `bytes`).
  package static func sequence<Bytes: RandomAccessCollection>(in bytes: Bytes, at index: Int) -> Sequence
  where Bytes.Element == UInt8, Bytes.Index == Int {
    if let found = bytes.withContiguousStorageIfAvailable({ sequence(in: $0, at: index - bytes.startIndex) })
    {
      return found
    }
    return Array(bytes[index..<min(index + 4, bytes.endIndex)]).withUnsafeBufferPointer {
      sequence(in: $0, at: 0)
    }
  }

  /// The sequence that begins at `index` of a buffer: what the generic form and the readers of
  /// large texts call (a generic function across modules is not specialized, and its calls
  /// cost an allocation each).
  package static func sequence(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Sequence {
    let lead = bytes[index]
    if lead < 0x80 { return .scalar(Unicode.Scalar(lead), length: 1) }
    // The second byte's range is narrower after E0, ED, F0 and F4: that is what rules out
    // overlong forms, the surrogates D800–DFFF and values above U+10FFFF.
    let length: Int
    let second: ClosedRange<UInt8>
    switch lead {
    case 0xC2...0xDF: (length, second) = (2, 0x80...0xBF)
    case 0xE0: (length, second) = (3, 0xA0...0xBF)
    case 0xE1...0xEC, 0xEE...0xEF: (length, second) = (3, 0x80...0xBF)
    case 0xED: (length, second) = (3, 0x80...0x9F)
    case 0xF0: (length, second) = (4, 0x90...0xBF)
    case 0xF1...0xF3: (length, second) = (4, 0x80...0xBF)
    case 0xF4: (length, second) = (4, 0x80...0x8F)
    default: return .invalid
    }
    var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
    for offset in 1..<length {
      guard index + offset < bytes.count else { return .truncated }
      let byte = bytes[index + offset]
      guard offset == 1 ? second.contains(byte) : byte & 0xC0 == 0x80 else { return .invalid }
      value = value << 6 | UInt32(byte & 0x3F)
    }
    guard let scalar = Unicode.Scalar(value) else {
      preconditionFailure("a well-formed sequence is a scalar")
    }
    return .scalar(scalar, length: length)
  }

  /// Appends the units of `bytes` to `units`: each well-formed sequence's scalar value, and
  /// `invalidByteBase + byte` for every other byte. A sequence cut off by the end is left out
  /// when `holdingCutEnd` is true, for the caller to decode again with the bytes that follow
  /// it; otherwise its bytes are ill-formed ones.
  /// - Returns: where decoding stopped: `bytes.endIndex`, or the start of the sequence held.
  @discardableResult
  package static func appendUnits<Bytes: RandomAccessCollection>(
    of bytes: Bytes, to units: inout [UInt32], holdingCutEnd: Bool = false
  ) -> Int where Bytes.Element == UInt8, Bytes.Index == Int {
    let stopped =
      bytes.withContiguousStorageIfAvailable { appendUnits(of: $0, to: &units, holdingCutEnd: holdingCutEnd) }
      ?? Array(bytes).withUnsafeBufferPointer {
        appendUnits(of: $0, to: &units, holdingCutEnd: holdingCutEnd)
      }
    return bytes.startIndex + stopped
  }

  /// `appendUnits` on a buffer; returns the offset decoding stopped at.
  package static func appendUnits(
    of bytes: UnsafeBufferPointer<UInt8>, to units: inout [UInt32], holdingCutEnd: Bool = false
  ) -> Int {
    units.reserveCapacity(units.count + bytes.count)
    var index = 0
    while index < bytes.count {
      switch sequence(in: bytes, at: index) {
      case .scalar(let scalar, let length):
        units.append(scalar.value)
        index += length
      case .truncated where holdingCutEnd:
        return index
      case .invalid, .truncated:
        units.append(invalidByteBase + UInt32(bytes[index]))
        index += 1
      }
    }
    return index
  }
}
