public import ShelfCore

/// Why an image could not be decoded for a preview.
public struct ImagePreviewError: ShelfError, Equatable {
  /// The reason, without the path.
  public enum Reason: Equatable, Sendable {
    /// No decoder recognises the file's format.
    case unknownFormat
    /// A decoder recognised the file but could not decode it (truncated, corrupt); the
    /// decoder's own words.
    case corrupt(String)
    /// The image declares more pixels than a preview decodes at full size.
    case tooLarge(width: Int, height: Int)
    /// The image library could not be loaded.
    case decoderUnavailable(String)
  }

  /// The file concerned.
  public var path: RawPath
  /// What went wrong.
  public var reason: Reason

  /// Creates an error about `path`.
  public init(_ reason: Reason, path: RawPath) {
    self.reason = reason
    self.path = path
  }

  /// Bad data, except a missing image library, which says nothing about the file.
  public var failure: FailureKind {
    if case .decoderUnavailable = reason { return .io }
    return .badInput
  }

  /// The reason as a short phrase.
  public var message: String {
    switch reason {
    case .unknownFormat: "no image decoder recognises this file"
    case .corrupt(let detail): "cannot decode image: \(detail)"
    case .tooLarge(let width, let height): "image too large to preview (\(width)×\(height))"
    case .decoderUnavailable(let detail): detail
    }
  }

  public var description: String { "\(path.escaped): \(message)" }
}
