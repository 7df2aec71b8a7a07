import ShelfAudio
import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

/// What extracting one file found: its kind, the facts its headers give, or why that failed.
public struct Extraction: Sendable {
  public var sniff: SniffResult
  public var status: FileStatus
  public var image: ImageFacts?
  public var audio: AudioFacts?
  public var text: TextFacts?
  public var plist: PlistFacts?
  /// Why the facts could not be read (the file is still catalogued with its kind).
  public var error: String?
  /// Text for the full-text index (capped), plus tags and plist keys.
  public var searchText: String
}

/// Why a file could not be opened for extraction at all (beyond the `FileError`s of opening).
public struct ExtractionFailure: ShelfError, Equatable {
  /// The cause, as a code the indexer can decide by.
  public enum Cause: Sendable, Equatable {
    /// The path now names another file than the one the walk saw (renamed or replaced).
    case replacedWhileScanning
  }
  public var path: RawPath
  public var cause: Cause
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
  public static let version = 3

  /// Extracts the facts of the file at `path`. With `followLinks` false a final symbolic link
  /// is refused (`O_NOFOLLOW`); FIFOs, sockets and devices are never opened.
  ///
  /// Throws `ExtractionFailure`/`FileError` only when the file cannot be opened or read at all.
  public static func extract(path: RawPath, followLinks: Bool = false, expected: FileStatus? = nil) throws
    -> Extraction
  {
    let file = try RegularFile(path: path, followLinks: followLinks)
    if let expected, expected.inode != file.status.inode || expected.device != file.status.device {
      throw ExtractionFailure(path: path, cause: .replacedWhileScanning)
    }
    return try extract(file, fileExtension: path.lowercasedExtension)
  }

  /// Extracts the facts of a stream such as standard input, exactly as for a file: its bytes
  /// are spooled into a temporary file in `temporaryFolder` that is unlinked as soon as it is
  /// created (nothing is left behind, even when the process is killed), then read through
  /// `/proc/self/fd` like any other file. `name` stands for the stream in errors.
  ///
  /// Throws a `FileError` when the stream is empty, larger than `limit` bytes or unreadable,
  /// or when the temporary file cannot be written.
  public static func extract(
    stream descriptor: Int32, name: RawPath, temporaryFolder: RawPath, limit: Int64
  ) throws -> Extraction {
    let spool = try SpooledFile(in: temporaryFolder, label: "stream")
    var total: Int64 = 0
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw FileError(path: name, errno: errno, doing: "read failed")
      }
      if count == 0 { break }
      total += Int64(count)
      guard total <= limit else {
        throw FileError(
          path: name, reason: "input larger than the \(Quantities.formatByteSize(limit)) limit",
          failure: .badInput)
      }
      try chunk.withUnsafeBytes { try spool.write(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }
    guard total > 0 else { throw FileError(path: name, reason: "empty input", failure: .badInput) }
    let file = try spool.open()
    return try extract(file, fileExtension: "")
  }

  /// Extracts the facts of an open file; `fileExtension` (lowercased, no dot) only breaks
  /// ties when the content is not conclusive.
  public static func extract(_ file: RegularFile, fileExtension: String) throws -> Extraction {
    let path = file.path
    let sniff = try ContentSniffer.sniff(file, fileExtension: fileExtension)
    var result = Extraction(
      sniff: sniff, status: file.status, image: nil, audio: nil, text: nil, plist: nil, error: nil,
      searchText: "")
    do {
      switch sniff.kind {
      case .image:
        result.image = try ImageHeaderReader.read(file, mime: sniff.mime)
      case .audio:
        let (facts, defect) = try readAudio(file, mime: sniff.mime)
        result.audio = facts
        if let defect { result.error = reason(of: "\(defect)", path: path) }
        result.searchText = [facts.title, facts.artist, facts.album, facts.genre, facts.comment, facts.date]
          .compactMap { $0 }.joined(separator: "\n")
      case .text:
        guard let encoding = sniff.textEncoding else { break }
        let analysis = try TextAnalyzer.analyze(file, encoding: encoding)
        result.text = analysis.facts
        result.searchText = analysis.searchText
      case .plist:
        let plist = try PropertyList.parse(file)
        result.plist = plist.facts
        result.searchText = plist.facts.keys.joined(separator: "\n")
      case .other:
        break
      }
    } catch let partial as ImageHeaderReader.PartialImage {
      result.image = partial.facts
      result.error = partial.reason
    } catch let error as HeaderError {
      result.error = error.reason
    } catch let error as FileError {
      result.error = error.reason
    } catch let error as AudioError {
      result.error = reason(of: "\(error)", path: path)
    } catch {
      result.error = reason(of: "\(error)", path: path)
    }
    // No second stat is needed: the status stored is the one taken when the file was opened,
    // so a change made while it was read shows up as a difference at the next scan.
    return result
  }

  /// Strips a leading "path: " from another library's one-line error.
  static func reason(of message: String, path: RawPath) -> String {
    let prefix = path.escaped + ": "
    if message.hasPrefix(prefix) { return String(message.dropFirst(prefix.count)) }
    return message
  }

  /// The facts of an audio file, and a defect that left them valid for what the file holds.
  static func readAudio(_ file: RegularFile, mime: String) throws -> (AudioFacts, AudioError?) {
    let info = try AudioFileInfo.read(file)
    let format: String
    let upper = info.formatName.uppercased()
    switch mime {
    case "audio/wav": format = upper.contains("RF64") ? "rf64" : "wav"
    case "audio/x-w64": format = "w64"
    case "audio/aiff": format = "aiff"
    case "audio/flac": format = "flac"
    case "audio/ogg":
      format =
        info.encodingName.lowercased().contains("opus")
        ? "ogg-opus" : info.encodingName.lowercased().contains("flac") ? "ogg-flac" : "ogg-vorbis"
    case "audio/mpeg": format = "mp3"
    case "audio/x-caf": format = "caf"
    case "audio/basic": format = "au"
    default: format = String(mime.split(separator: "/").last ?? "audio")
    }
    let facts = AudioFacts(
      duration: info.duration, sampleRate: info.sampleRate, channels: info.channels, frames: info.frames,
      format: format, subtype: info.encodingName, tags: info.tags)
    return (facts, info.defect)
  }
}
