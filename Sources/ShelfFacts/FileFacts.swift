public import ShelfAudio
public import ShelfCore

/// Everything read from one file's content: what it is, the facts of its kind, and why they
/// could not be read in full. The one value a fact is added to: the extraction workers send
/// it, the catalogue stores it (a `CatalogEntry` is a location plus its facts) and the
/// commands present it.
public struct FileFacts: Sendable, Equatable {
  /// The broad kind.
  public var kind: FileKind
  /// The MIME type, without parameters (`image/png`, `text/plain`).
  public var mime: String
  /// How the kind was decided.
  public var detectedBy: DetectionMethod
  /// True when the content was recognised and the extension names another type.
  public var extensionMismatch: Bool
  /// Why the facts could not be read (in full, or at all): the file is still catalogued with
  /// its kind and what could be read.
  public var error: FileFactsError?
  /// What an image's header says.
  public var image: ImageFacts?
  /// What an image's EXIF block says (when, which camera, where, which way up).
  public var exif: EXIFFacts?
  /// What an audio file's header and tags say, as ShelfAudio reads them.
  public var audio: AudioFileInfo?
  /// What a video holds, as ShelfAudio reads it.
  public var video: VideoFileInfo?
  public var text: TextFacts?
  public var plist: PlistFacts?
  /// The beginning of a text file's text for the full-text index (capped); the catalogue indexes
  /// it with the tags of the fields bare words search, and keeps no copy beside the other
  /// facts, so it is empty in a stored entry.
  public var searchText: String

  /// Facts with the kind and detection only; the facts of the kind are filled in by who reads them.
  public init(
    kind: FileKind, mime: String, detectedBy: DetectionMethod, extensionMismatch: Bool,
    error: FileFactsError? = nil, searchText: String = ""
  ) {
    self.kind = kind
    self.mime = mime
    self.detectedBy = detectedBy
    self.extensionMismatch = extensionMismatch
    self.error = error
    self.searchText = searchText
  }

  /// The detection of a sniffed file, before the facts of its kind are read.
  public init(_ sniff: SniffResult) {
    self.init(
      kind: sniff.kind, mime: sniff.mime, detectedBy: sniff.detectedBy,
      extensionMismatch: sniff.extensionMismatch)
  }

  /// The facts of a file whose content could not be read: its kind guessed from its extension
  /// (lowercased, no dot), and why.
  public init(unreadable error: FileFactsError, fileExtension: String) {
    let guess = ContentSniffer.kindForExtension(fileExtension)
    self.init(
      kind: guess?.kind ?? .other, mime: guess?.mime ?? "application/octet-stream", detectedBy: .extension,
      extensionMismatch: false, error: error)
  }

  /// Apple's content identifier of a still or a movie, which pairs a Live Photo's halves.
  public var contentIdentifier: String? { exif?.contentIdentifier ?? video?.contentIdentifier }
}

/// Why the facts of a file could not be read, in full or at all: the reason without the path
/// (who stores or prints it names the file) and what kind of failure it is. Every library's
/// error gives its own reason here, so no message is parsed.
public struct FileFactsError: ShelfError, Equatable {
  /// The reason, e.g. `truncated PNG: no IEND chunk`.
  public var reason: String
  public var failure: FailureKind

  /// An error with `reason`, of the kind `failure`.
  public init(reason: String, failure: FailureKind) {
    self.reason = reason
    self.failure = failure
  }

  /// A header or structure that could not be read: bad input.
  public init(_ error: HeaderError) { self.init(reason: error.reason, failure: .badInput) }

  /// A file that could not be read.
  public init(_ error: FileError) { self.init(reason: error.reason, failure: error.failure) }

  /// A media file FFmpeg could not read.
  public init(_ error: FFmpegError) { self.init(reason: error.message, failure: error.failure) }

  /// An audio file read but found damaged.
  public init(_ error: AudioError) { self.init(reason: error.message, failure: error.failure) }

  public var description: String { reason }
}
