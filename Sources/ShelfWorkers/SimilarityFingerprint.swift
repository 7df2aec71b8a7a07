import ShelfAudio
public import ShelfCore
import ShelfImage

/// What `dupes --similar` compares: a picture's perceptual hash or a recording's Chromaprint
/// fingerprint, computed from the file's decoded content (in a sandboxed worker).
public enum SimilarityFingerprint: Sendable, Equatable {
  public enum Kind: String, Sendable, WireCodable { case image, audio }

  case image(UInt64)
  case audio([UInt32])

  /// The fingerprint of an open file, read through its descriptor (`/proc/self/fd`), so that
  /// a worker reads exactly the file it was sent. The decoders' errors name that descriptor
  /// path, which means nothing to the user: they are thrown as `FileError`s about
  /// `file.path`, the path the file was opened by.
  package static func compute(_ kind: Kind, of file: RegularFile) throws -> SimilarityFingerprint {
    let path = RawPath("/proc/self/fd/\(file.withDescriptor { $0 })")
    do {
      switch kind {
      case .image: return .image(try PerceptualHash.imageHash(path: path))
      case .audio: return .audio(try AudioFingerprint.compute(path: path).raw)
      }
    } catch let error as ImagePreviewError {
      throw FileError(path: file.path, reason: error.message, failure: error.failure)
    } catch let error as AudioError {
      throw FileError(path: file.path, reason: error.message, failure: error.failure)
    } catch let error as FileError {
      throw FileError(path: file.path, reason: error.reason, failure: error.failure, code: error.code)
    }
  }
}
