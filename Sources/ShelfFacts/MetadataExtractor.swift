import ShelfAudio
import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

/// Why a file could not be opened for extraction at all (beyond the `FileError`s of opening).
public struct ExtractionFailure: ShelfError, Equatable {
  /// The cause, as a code the indexer can decide by.
  public enum Cause: Sendable, Equatable {
    /// The path now names another file than the one the walk saw (renamed or replaced).
    case replacedWhileScanning
  }
  public var path: RawPath
  public var cause: Cause
  public init(path: RawPath, cause: Cause) {
    self.path = path
    self.cause = cause
  }
  public var failure: FailureKind { .io }
  /// The cause in words.
  public var reason: String {
    switch cause {
    case .replacedWhileScanning: return "replaced while scanning"
    }
  }
  public var description: String { "\(path.escaped): \(reason)" }
}

/// Opens one regular file safely, sniffs it and reads the facts of its kind from headers only.
public enum MetadataExtractor {
  /// Bumped whenever an extractor reads more or better, so that rescans re-extract old entries.
  public static let version = 11  // 11: backup areas and apps by meaning (issue 46); 10: audio bit depth; …

  /// Extracts the facts of the file at `path`. With `followLinks` false a final symbolic link
  /// is refused (`O_NOFOLLOW`); FIFOs, sockets and devices are never opened.
  ///
  /// Throws `ExtractionFailure`/`FileError` only when the file cannot be opened or read at all.
  public static func extract(path: RawPath, followLinks: Bool = false, expected: FileStatus? = nil) throws
    -> FileFacts
  {
    try extract(
      open(path: path, followLinks: followLinks, expected: expected), fileExtension: path.lowercasedExtension)
  }

  /// Opens the file at `path` as `extract(path:)` does: no final symbolic link unless
  /// `followLinks`, and only the file the walk saw when `expected` is given.
  public static func open(path: RawPath, followLinks: Bool = false, expected: FileStatus? = nil) throws
    -> RegularFile
  {
    let file = try RegularFile(path: path, followLinks: followLinks, seen: followLinks ? nil : expected)
    if let expected, expected.inode != file.status.inode || expected.device != file.status.device {
      throw ExtractionFailure(path: path, cause: .replacedWhileScanning)
    }
    return file
  }

  /// Extracts the facts of an open file; `fileExtension` (lowercased, no dot) only breaks
  /// ties when the content is not conclusive. The file's status is the one taken when it was
  /// opened (`file.status`): no second stat is needed, a change made while it was read shows
  /// up as a difference at the next scan.
  public static func extract(_ file: RegularFile, fileExtension: String) throws -> FileFacts {
    // The sniffer and the reader of the kind share the bytes read (FFmpeg reads the file itself).
    let bytes = FileBytes(file)
    let sniff = try ContentSniffer.sniff(bytes, fileExtension: fileExtension)
    var result = FileFacts(sniff)
    do {
      switch sniff.kind {
      case .image:
        result.exif = EXIFBlockLocator.facts(bytes, mime: sniff.mime)
        result.image = try ImageHeaderReader.read(bytes, mime: sniff.mime)
      case .audio, .video:
        try readMedia(file, sniff: sniff, into: &result)
      case .text:
        guard let encoding = sniff.textEncoding else { break }
        let analysis = try TextAnalyzer.analyze(bytes, encoding: encoding)
        result.text = analysis.facts
        result.searchText = analysis.searchText
      case .plist:
        let plist = try PropertyList.parse(bytes)
        result.plist = plist.facts
      case .other:
        break
      }
    } catch let partial as ImageHeaderReader.PartialImage {
      result.image = partial.facts
      result.error = FileFactsError(reason: partial.reason, failure: .badInput)
    } catch let error as HeaderError {
      result.error = FileFactsError(error)
    } catch let error as FileError {
      result.error = FileFactsError(error)
    } catch let error as FFmpegError {
      result.error = FileFactsError(error)
    } catch {
      result.error = FileFactsError(
        reason: "\(error)", failure: (error as? any ShelfError)?.failure ?? .badInput)
    }
    return result
  }

  /// Reads the facts of an audio or video file through FFmpeg. The content decides the kind
  /// in the end: an MP4 or Matroska file without a picture stream is audio, an audio container
  /// holding a real video stream is video.
  static func readMedia(_ file: RegularFile, sniff: SniffResult, into result: inout FileFacts) throws {
    let prefix = try file.read(count: 4, at: 0)
    // The content named the container: FFmpeg need not recognise it again.
    let recognised = sniff.detectedBy == .extension ? nil : sniff.mime
    switch try MediaFileInfo.read(file, mime: recognised) {
    case .audio(var info):
      if result.kind == .video {
        result.kind = .audio
        result.mime = audioMIME(forVideo: result.mime)
      }
      info.container = MediaContainer.name(
        info.formatName, codec: info.codec, prefix: prefix, mime: result.mime)
      result.error = info.defect.map(FileFactsError.init)
      result.audio = info
    case .video(var info):
      if result.kind == .audio {
        result.kind = .video
        result.mime = videoMIME(forAudio: result.mime)
      }
      info.container = MediaContainer.name(
        info.formatName, codec: info.codec, prefix: prefix, mime: result.mime)
      result.video = info
    }
  }

  /// The MIME type of a file sniffed as video that turned out to hold only sound.
  static func audioMIME(forVideo mime: String) -> String {
    switch mime {
    case "video/mp4", "video/quicktime", "video/x-m4v": return "audio/mp4"
    case "video/3gpp": return "audio/3gpp"
    case "video/webm": return "audio/webm"
    case "video/x-matroska": return "audio/x-matroska"
    case "video/ogg": return "audio/ogg"
    case "video/x-ms-wmv": return "audio/x-ms-wma"
    case "video/vnd.rn-realvideo": return "audio/vnd.rn-realaudio"
    default: return mime
    }
  }

  /// The MIME type of a file sniffed as audio that turned out to hold a video.
  static func videoMIME(forAudio mime: String) -> String {
    switch mime {
    case "audio/mp4": return "video/mp4"
    case "audio/3gpp": return "video/3gpp"
    case "audio/webm": return "video/webm"
    case "audio/x-matroska": return "video/x-matroska"
    case "audio/x-ms-wma": return "video/x-ms-wmv"
    case "audio/ogg": return "video/ogg"
    case "audio/vnd.rn-realaudio": return "video/vnd.rn-realvideo"
    default: return mime
    }
  }
}
