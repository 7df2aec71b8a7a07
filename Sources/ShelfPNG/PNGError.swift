public import ShelfCore

/// Why a PNG could not be read, optimized or written.
public struct PNGError: ShelfError, Equatable {
  /// The reason, without the path.
  public enum Reason: Equatable, Sendable {
    /// The file holds no bytes at all.
    case empty
    /// The file does not start with the PNG signature.
    case notPNG
    /// The data ends before the named part is complete.
    case truncated(String)
    /// A chunk's stored CRC does not match its content.
    case badCRC(chunk: String)
    /// The container or the image data is malformed (libpng's or our own reason).
    case corrupt(String)
    /// The compressed image data is not a valid zlib stream (zlib's reason, e.g. "invalid
    /// distance too far back").
    case badImageData(String)
    /// The pixels need more memory than the process can have.
    case outOfMemory
    /// The declared dimensions exceed the pixel limit; refused before allocating.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// The decoded pixels would exceed the limit on decoded bytes (`--max-decoded-bytes`);
    /// refused from the header, before allocating.
    case decodedSizeExceeds(bytes: Int, limit: Int)
    /// A valid file that this operation cannot handle.
    case unsupported(String)
    /// The re-decoded output differed from the input: a bug, the original is kept.
    case verificationFailed(String)
  }

  /// The file concerned, when known.
  public var path: RawPath?
  /// What went wrong.
  public var reason: Reason

  /// Creates an error, optionally naming the file.
  public init(_ reason: Reason, path: RawPath? = nil) {
    self.reason = reason
    self.path = path
  }

  /// The same error naming `path`.
  public func at(_ path: RawPath) -> PNGError { PNGError(reason, path: path) }

  /// Bad data, except memory exhaustion, which says nothing about the file.
  public var failure: FailureKind { reason == .outOfMemory ? .io : .badInput }

  /// The reason as a short phrase.
  public var message: String {
    switch reason {
    case .empty: return "empty file (zero bytes), not a PNG"
    case .notPNG: return "not a PNG file (no PNG signature)"
    case .truncated(let what): return "truncated PNG: \(what)"
    case .badCRC(let chunk): return "corrupt PNG: bad CRC in \(chunk) chunk"
    case .corrupt(let what): return "corrupt PNG: \(what)"
    case .badImageData(let what): return "corrupt PNG: bad compressed image data (\(what))"
    case .outOfMemory: return "not enough memory to decode the image"
    case .tooLarge(let width, let height, let limit):
      return "image too large: \(width)x\(height) exceeds the limit of \(limit) pixels"
    case .decodedSizeExceeds(let bytes, let limit):
      return
        "decoded image of \(bytes) bytes exceeds the \(Self.exactSize(limit)) limit (--max-decoded-bytes)"
    case .unsupported(let what): return "unsupported PNG: \(what)"
    case .verificationFailed(let what):
      return "internal error: optimized output differs from the input (\(what)); original kept"
    }
  }

  /// A byte count in the largest binary unit that divides it ("1 GiB", "1536 MiB").
  static func exactSize(_ bytes: Int) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")]
    where bytes >= 1 << shift && bytes % (1 << shift) == 0 {
      return "\(bytes >> shift) \(unit)"
    }
    return "\(bytes) bytes"
  }

  public var description: String {
    if let path { return "\(path.escaped): \(message)" }
    return message
  }
}
