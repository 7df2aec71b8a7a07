public import ShelfCore

/// Why an audio file or an ALSA device could not be read, written, played or recorded.
///
/// `description` is one line naming the file or device and the reason, e.g.
/// `music/a.wav: not an audio file (it is a PNG image)` or `device hw:9: no such device`.
public struct AudioError: ShelfError, Equatable {
  /// What went wrong, for callers that react to specific cases.
  public enum Reason: String, Sendable, Equatable {
    /// The file does not exist or cannot be opened.
    case missingFile
    /// The file is empty.
    case emptyFile
    /// The file is not audio, or not audio libsndfile can decode.
    case unrecognised
    /// The file is audio but damaged or cut short.
    case damaged
    /// The file is media (a video, a picture) without a sound track.
    case noAudioTrack
    /// The requested format, rate, channel count or sample format is not supported.
    case unsupported
    /// What was asked for cannot be done as asked (a rate the format cannot hold, a device
    /// that only plays given to record): a usage error.
    case invalidRequest
    /// The output file already exists and overwriting was not allowed.
    case exists
    /// The output file cannot be created.
    case cannotCreate
    /// Writing failed (disk full, file too large, I/O error).
    case writeFailed
    /// The ALSA device does not exist.
    case noSuchDevice
    /// The ALSA device is in use by another program.
    case deviceBusy
    /// The ALSA device went away while in use.
    case deviceGone
    /// Any other ALSA failure.
    case device
  }

  /// The file path (escaped for the terminal) or `device NAME`.
  public var subject: String
  /// What went wrong.
  public var reason: Reason
  /// A short human explanation, e.g. `no space left on device`.
  public var message: String

  /// Creates an error about `subject`.
  public init(subject: String, reason: Reason, message: String) {
    self.subject = subject
    self.reason = reason
    self.message = message
  }

  /// Creates an error about a file.
  public init(path: RawPath, reason: Reason, message: String) {
    self.init(subject: path.escaped, reason: reason, message: message)
  }

  /// Creates an error about an ALSA device.
  public init(device: String, reason: Reason, message: String) {
    self.init(subject: "device \(device)", reason: reason, message: message)
  }

  public var description: String { "\(subject): \(message)" }

  public var failure: FailureKind {
    switch reason {
    case .missingFile, .noSuchDevice: return .missingInput
    case .emptyFile, .unrecognised, .damaged, .noAudioTrack, .unsupported: return .badInput
    case .exists, .cannotCreate: return .cannotCreate
    case .invalidRequest: return .usage
    case .writeFailed, .deviceGone, .device: return .io
    case .deviceBusy: return .busy
    }
  }
}
