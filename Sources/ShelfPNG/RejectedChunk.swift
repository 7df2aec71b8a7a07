/// An ancillary chunk that libpng rejects and ignores: an empty or malformed gAMA, cHRM,
/// iCCP, sRGB…, a second copy of a chunk that may appear once, a chunk out of its place.
///
/// libpng is the judge: strict decoders (pypng, Pillow) fail on some of these chunks where
/// libpng only warns, so a crush drops exactly the ones libpng ignores and keeps every other.
public struct PNGRejectedChunk: Sendable, Equatable, CustomStringConvertible {
  /// The chunk's position among the file's chunks (0 is IHDR, or CgBI).
  public var index: Int
  /// The chunk type, e.g. `gAMA`.
  public var name: String
  /// The byte offset of the chunk (its length field) in the file.
  public var offset: Int
  /// libpng's reason, without its chunk-name prefix, e.g. `invalid` or `duplicate`.
  public var reason: String

  public init(index: Int, name: String, offset: Int, reason: String) {
    self.index = index
    self.name = name
    self.offset = offset
    self.reason = reason
  }

  public var description: String { "\(name) chunk at byte \(offset) (libpng: \(reason))" }

  /// libpng's reasons (1.6) for ignoring an ancillary chunk because of its structure: wrong
  /// length or field values, a repeat, the wrong place. Its other warnings about a chunk it
  /// keeps (`gamma value does not match sRGB`, ICC profile remarks, memory limits) keep the
  /// chunk.
  static let rejectingReasons: Set<String> = [
    "invalid", "duplicate", "out of place", "too short", "too many profiles", "bad keyword",
    "bad compression info", "bad compression method", "unknown compression type", "invalid index",
    "invalid with alpha channel", "invalid chromaticities", "gamma value out of range",
    "malformed sPLT chunk", "Ignoring invalid time value",
  ]

  /// The chunks libpng's warnings (text, and the input offset libpng had read up to) reject.
  /// A warning belongs to the chunk whose type-to-CRC span holds its offset; warnings about
  /// critical chunks (IDAT's "extra compressed data") reject nothing. Any warning about an empty
  /// ancillary chunk rejects it: no ancillary chunk libpng knows may be empty.
  static func rejected(
    by warnings: [(offset: Int, text: String)], in chunks: [PNGChunk]
  ) -> [PNGRejectedChunk] {
    guard !warnings.isEmpty else { return [] }
    var starts: [Int] = []
    var offset = pngSignature.count
    for chunk in chunks {
      starts.append(offset)
      offset += 12 + chunk.data.count
    }
    var rejected: [PNGRejectedChunk] = []
    for warning in warnings {
      // The last chunk starting at least 8 bytes (length and type) before the offset.
      var low = 0
      var high = starts.count
      while low < high {
        let middle = (low + high) / 2
        if starts[middle] + 8 <= warning.offset { low = middle + 1 } else { high = middle }
      }
      let index = low - 1
      guard index >= 0, warning.offset <= starts[index] + 12 + chunks[index].data.count else { continue }
      let chunk = chunks[index]
      guard !chunk.isCritical, !rejected.contains(where: { $0.index == index }) else { continue }
      let prefix = chunk.name + ": "
      let reason =
        warning.text.hasPrefix(prefix) ? String(warning.text.dropFirst(prefix.count)) : warning.text
      guard
        chunk.data.isEmpty || rejectingReasons.contains(reason)
          || reason.hasSuffix(": invalid sRGB rendering intent")
      else { continue }
      rejected.append(PNGRejectedChunk(index: index, name: chunk.name, offset: starts[index], reason: reason))
    }
    return rejected.sorted { $0.index < $1.index }
  }
}
